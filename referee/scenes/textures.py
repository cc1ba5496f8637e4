"""Procedural textures: wood grain, felt, cloth, and the top-down picture of each board.

Everything is drawn with numpy noise (no image files). A texture depends only on its style
name, so it is made once per process and reused (`functools.cache`).
"""

from __future__ import annotations

import dataclasses
import functools
import zlib

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.scenes.layout import BoardLayout
from referee.scenes.raster import fill_convex
from referee.scenes.styles import BOARD_STYLES, TABLES, BoardStyle, WoodLook, bgr

Image = NDArray[np.uint8]
Field = NDArray[np.float32]

# Texture resolution of boards (pixels per mm): enough for a board filling a 1920-pixel image.
BOARD_SCALE = 2.0
# Coarser copies of each board texture (a mip-map), as fractions of BOARD_SCALE: a picture that
# shows the board smaller samples a smaller copy, which is both sharper (no aliasing) and faster.
BOARD_LEVELS = (1.0, 0.7, 0.5, 0.35, 0.25)
# Tables are background, softer and seen at a distance.
TABLE_SCALE = 0.75
TABLE_EXTENT_MM = (2800.0, 2400.0)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def value_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell: tuple[float, float]
) -> Field:
    """Smooth noise of unit-ish amplitude whose features are `cell` (rows, cols) pixels apart."""
    height, width = shape
    rows = max(2, int(height / cell[0]) + 2)
    cols = max(2, int(width / cell[1]) + 2)
    small = rng.standard_normal((rows, cols)).astype(np.float32)
    return np.asarray(cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC), np.float32)


def fbm(
    rng: np.random.Generator, shape: tuple[int, int], cell: tuple[float, float], octaves: int = 4
) -> Field:
    """Fractal noise: octaves of value noise, each twice as fine and half as strong."""
    total = np.zeros(shape, np.float32)
    amplitude = 1.0
    for octave in range(octaves):
        scale = 2.0**octave
        total += amplitude * value_noise(rng, shape, (cell[0] / scale, cell[1] / scale))
        amplitude *= 0.5
    return total


def _mix(light: tuple[float, ...], dark: tuple[float, ...], t: Field) -> Field:
    lo = np.array(light, np.float32)
    hi = np.array(dark, np.float32)
    return np.asarray(lo + (hi - lo) * t[..., None], dtype=np.float32)


def wood(
    rng: np.random.Generator, shape: tuple[int, int], look: WoodLook, scale: float, along_x: bool
) -> Field:
    """Plain-sawn wood, grain running along x (rows) or along y, as float BGR 0..255."""
    height, width = shape if along_x else (shape[1], shape[0])
    rows = np.arange(height, dtype=np.float32)[:, None] / scale
    warp = fbm(rng, (height, width), (40.0 * scale, 260.0 * scale), 3)
    phase = rows / look.ring_mm + look.figure * 2.2 * warp
    rings = (0.5 + 0.5 * np.sin(2 * np.pi * phase)) ** 3
    fibres = value_noise(rng, (height, width), (1.3, 50.0 * scale))
    mottle = fbm(rng, (height, width), (30.0 * scale, 80.0 * scale), 2)
    t = np.clip(0.2 + 0.55 * rings + 0.1 * fibres + 0.12 * mottle, 0.0, 1.0)
    texture = _mix(bgr(look.light), bgr(look.dark), t)
    return texture if along_x else np.ascontiguousarray(texture.transpose(1, 0, 2))


def felt(rng: np.random.Generator, shape: tuple[int, int], colour: str, scale: float) -> Field:
    """Felt or baize: a colour with fine fibre noise and a faint blotchiness."""
    fine = value_noise(rng, shape, (1.2, 1.2))
    blotch = fbm(rng, shape, (25.0 * scale, 25.0 * scale), 3)
    factor = 1.0 + 0.05 * fine + 0.025 * blotch
    return np.asarray(np.array(bgr(colour), np.float32) * factor[..., None], dtype=np.float32)


def _blend(base: Field, top: Field, mask: NDArray[np.uint8]) -> None:
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    base += (top - base) * alpha


@dataclasses.dataclass(frozen=True)
class Texture:
    """A top-down texture: pixel (u, v) shows world (origin_x + u/scale, origin_y - v/scale)."""

    image: Image
    scale: float
    origin: tuple[float, float]


def _pixels(
    points: NDArray[np.float64], texture_origin: tuple[float, float], scale: float
) -> NDArray[np.float64]:
    """Texture pixel coordinates of world points."""
    u = (points[:, 0] - texture_origin[0]) * scale
    v = (texture_origin[1] - points[:, 1]) * scale
    return np.stack([u, v], axis=1)


def _poly(
    points: NDArray[np.float64], texture_origin: tuple[float, float], scale: float
) -> NDArray[np.int32]:
    """Texture pixel coordinates (fixed point, 4 fraction bits) of world points."""
    return np.round(_pixels(points, texture_origin, scale) * 16).astype(np.int32)


@functools.cache
def _board_level(style_name: str, level: float) -> Texture:
    full = board_texture(style_name)
    if level == 1.0:
        return full
    image = cv2.resize(full.image, None, fx=level, fy=level, interpolation=cv2.INTER_AREA)
    return Texture(np.asarray(image, np.uint8), full.scale * level, full.origin)


def board_texture_for(style_name: str, pixels_per_mm: float) -> Texture:
    """The coarsest copy of the board texture that still has `pixels_per_mm` or more."""
    levels = [level for level in BOARD_LEVELS if BOARD_SCALE * level >= pixels_per_mm]
    return _board_level(style_name, min(levels) if levels else 1.0)


@functools.cache
def board_texture(style_name: str) -> Texture:
    """The whole board seen from straight above at `BOARD_SCALE`: frame, fields, points, trays."""
    style = BOARD_STYLES[style_name]
    layout = BoardLayout(style.dims)
    rng = _rng(style_name)
    scale = BOARD_SCALE
    ox0, ox1, oy0, oy1 = layout.outer
    origin = (ox0, oy1)
    shape = (round((oy1 - oy0) * scale), round((ox1 - ox0) * scale))
    image = wood(rng, shape, style.frame, scale, along_x=True)
    across = wood(rng, shape, style.frame, scale, along_x=False)
    for name in ("left_rim", "bar", "separator", "right_rim"):
        block = layout.blocks[name]
        mask = np.zeros(shape, np.uint8)
        corners = block.top(0.0)
        fill_convex(mask, _pixels(corners, origin, scale), 255)
        _blend(image, across, mask)

    field = _field(rng, shape, style, scale)
    field_mask = np.zeros(shape, np.uint8)
    tray_mask = np.zeros(shape, np.uint8)
    for name, region in layout.regions.items():
        target = tray_mask if name.startswith("tray") else field_mask
        fill_convex(target, _pixels(region.corners(), origin, scale), 255)
    _blend(image, field, field_mask)
    tray = felt(rng, shape, style.field_colour if style.field == "felt" else "#2E2620", scale)
    _blend(image, tray * 0.85, tray_mask)
    _draw_points(image, rng, style, layout, origin, scale)
    if style.field == "wood":
        _stringing(image, layout, origin, scale)
    return Texture(np.clip(image, 0, 255).astype(np.uint8), scale, origin)


def _field(
    rng: np.random.Generator, shape: tuple[int, int], style: BoardStyle, scale: float
) -> Field:
    if style.field == "felt" or style.field_wood is None:
        return felt(rng, shape, style.field_colour, scale)
    return wood(rng, shape, style.field_wood, scale, along_x=True)


def _draw_points(
    image: Field,
    rng: np.random.Generator,
    style: BoardStyle,
    layout: BoardLayout,
    origin: tuple[float, float],
    scale: float,
) -> None:
    """Paint, carve, inlay or sew the 24 triangles, alternating colours along each edge."""
    shape = (image.shape[0], image.shape[1])
    masks = [np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)]
    outline = np.zeros(shape, np.uint8)
    line = max(1, round(0.8 * scale))
    for point in range(1, 25):
        # With this numbering, point % 2 alternates along each edge and differs across it.
        parity = point % 2
        triangle = layout.point_triangle(point)
        fill_convex(masks[parity], _pixels(triangle, origin, scale), 255)
        cv2.polylines(outline, [_poly(triangle, origin, scale)], True, 255, line, cv2.LINE_AA, 4)
    for parity, colour in enumerate(style.point_colours):
        if style.points == "felt":
            top = felt(rng, shape, colour, scale)
        elif style.points == "inlay":
            c = np.array(bgr(colour))
            look = WoodLook(_hex(c), _hex(c * 0.72), 2.8, 0.9)
            top = wood(rng, shape, look, scale, along_x=False)
        elif style.points == "carved":
            # A stain: the field's own grain shows through, darkened or lightened toward colour.
            stain = np.array(bgr(colour), np.float32) / 160.0
            top = image * stain
        else:
            paint = np.array(bgr(colour), np.float32)
            grain = (image.mean(axis=2, keepdims=True) / 150.0) ** 0.3
            top = paint * grain
        _blend(image, top, masks[parity])
    if style.points == "carved":
        # The engraved groove: dark in its bottom, catching light on one lip.
        _blend(image, image * 0.45, outline)
        lip = np.roll(outline, (line, line), axis=(0, 1))
        _blend(image, np.minimum(image * 1.25 + 10, 255), (lip // 2).astype(np.uint8))
    elif style.points in ("painted", "inlay"):
        _blend(image, image * 0.7, (outline // 2).astype(np.uint8))


def _stringing(
    image: Field, layout: BoardLayout, origin: tuple[float, float], scale: float
) -> None:
    """A thin inlaid line round each field half, as wooden boards have."""
    mask = np.zeros(image.shape[:2], np.uint8)
    for name in ("left", "right"):
        region = layout.regions[name]
        inset = 2.0
        corners = region.corners().copy()
        corners[:, 0] = np.clip(corners[:, 0], region.x0 + inset, region.x1 - inset)
        corners[:, 1] = np.clip(corners[:, 1], region.y0 + inset, region.y1 - inset)
        cv2.polylines(
            mask, [_poly(corners, origin, scale)], True, 255, max(1, round(scale)), cv2.LINE_AA, 4
        )
    _blend(image, np.full_like(image, 200.0), (mask * 0.6).astype(np.uint8))


def _hex(colour: NDArray[np.float64]) -> str:
    b, g, r = (int(np.clip(c, 0, 255)) for c in colour)
    return f"#{r:02X}{g:02X}{b:02X}"


@functools.cache
def table_texture(name: str) -> Texture:
    """The table top around the board, centred on the world origin."""
    look = TABLES[name]
    rng = _rng(name)
    scale = TABLE_SCALE
    width_mm, depth_mm = TABLE_EXTENT_MM
    shape = (round(depth_mm * scale), round(width_mm * scale))
    origin = (-width_mm / 2, depth_mm / 2)
    light, dark = look.colours
    if look.kind == "wood":
        wood_look = WoodLook(light, dark, 5.0, 1.3)
        image = wood(rng, shape, wood_look, scale, along_x=True)
        # Planks: each a little lighter or darker, with a dark seam between.
        row = 0
        while row < shape[0]:
            plank = int(rng.uniform(110, 190) * scale)
            image[row : row + plank] *= float(rng.uniform(0.85, 1.12))
            image[row : row + 2] *= 0.45
            row += plank
    else:
        image = felt(rng, shape, light, scale)
        if look.kind == "checked":
            stripe = int(25 * scale)
            ys, xs = np.indices(shape)
            bands = ((ys // stripe) % 2 + (xs // stripe) % 2).astype(np.float32) / 2
            red = np.array(bgr(dark), np.float32)
            image += (red - image) * (bands[..., None] * 0.85)
        folds = fbm(rng, shape, (220.0 * scale, 320.0 * scale), 2)
        image *= (1.0 + 0.05 * folds)[..., None]
    return Texture(np.clip(image, 0, 255).astype(np.uint8), scale, origin)
