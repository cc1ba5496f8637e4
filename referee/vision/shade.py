"""Light falling unevenly on the board: how much of it reaches each checker place.

A hand, an arm or an onlooker between the lamp and the board casts a shadow, and a white
checker in it can be darker than a lit dark one: the checkers' two colour clusters
(`checkers.colour_clusters`) then take it for the other side's (tuning hand set 65: 21 points
in full view read the wrong colour, nearly all under a hand's shadow). The board round a
checker is in the same shadow, and the board's own colours are known from the rest of it: each
kind of surface (the odd points' triangles, the even points', the field between them) shows one
colour where it is lit. So the light reaching each place is measured on the bare
board near it, as its lightness against the median lightness of the same kind of surface over
the whole board, and the checker's colour is lifted by the same ratio before it is clustered.

Only shadows are corrected (a ratio above 1, glare or a lighter patch of wood grain, is left),
and only where enough bare board lies near the place to say.

A die's pips in a shadow are faint too, so the dice stages read the photo relit: the same
measure over the whole canvas (`board_light`), mapped into the photo and divided out
(`relit_photo`).
"""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.calibration import BoardProfile
from referee.vision.camera import FloatArray
from referee.vision.geometry import POINTS, Canvas, HomeSide

# Surface kinds on the kind map (0: not used as a reference).
_FIELD = 3
# Checkers are masked out of the bare board this many radii round their places.
CHECKER_MASK_RADII = 1.15


@functools.lru_cache(maxsize=8)
def surface_kinds(
    canvas: Canvas, home: HomeSide, inset_px: int = 3, wall_mm: float = 6.0
) -> NDArray[np.uint8]:
    """The canvas's bare-board kinds, one per pixel: 1 and 2 the odd and the even points'
    triangles (boards colour them by that: neighbours differ, and so do points facing each
    other), `_FIELD` the playing surface between them, 0 the rest (frame, bar, tray, a band
    `wall_mm` wide along the frame's walls) and a band `inset_px` wide along every border
    between kinds, where the two colours blur together."""
    model = canvas.model
    width, height = canvas.size
    kinds = np.zeros((height, width), np.uint8)
    halves = [
        (0.0, model.width_mm / 2 - model.bar_mm / 2),
        (model.width_mm / 2 + model.bar_mm / 2, model.width_mm),
    ]
    for x0, x1 in halves:
        # Not along the frame's walls, whose own shadow falls on the surface there.
        box = canvas.to_px(
            np.array([[x0 + wall_mm, wall_mm], [x1 - wall_mm, model.depth_mm - wall_mm]])
        )
        cv2.rectangle(kinds, _px(box[0]), _px(box[1]), _FIELD, -1)
    half_base = np.array([model.point_width_mm / 2, 0.0])
    for point in range(1, POINTS + 1):
        base, tip = model.base_tip(point, home)
        corners = np.array([base - half_base, base + half_base, tip])
        kind = 2 - point % 2
        cv2.fillPoly(kinds, [np.round(canvas.to_px(corners)).astype(np.int32)], kind)
    # The frame's walls again, over the triangles' bases.
    for x0, x1 in halves:
        for y0, y1 in ((0.0, wall_mm), (model.depth_mm - wall_mm, model.depth_mm)):
            box = canvas.to_px(np.array([[x0, y0], [x1, y1]]))
            cv2.rectangle(kinds, _px(box[0]), _px(box[1]), 0, -1)
    # A pixel is kept where every pixel within `inset_px` is of its kind.
    size = 2 * inset_px + 1
    element = np.ones((size, size), np.uint8)
    same = cv2.dilate(kinds, element) == cv2.erode(kinds, element)
    return np.where(same, kinds, 0).astype(np.uint8)


def _px(xy: FloatArray) -> tuple[int, int]:
    return round(float(xy[0])), round(float(xy[1]))


def place_light(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    centres: FloatArray,
    occupied: FloatArray,
    hand: FloatArray | None = None,
    reach: float = 1.0,
    min_bare: float = 0.15,
    below: float = 0.7,
) -> FloatArray:
    """How much of its lightness a shadow leaves at each of `centres` (canvas pixels, (..., 2)):
    1 where lit, and where the board round it is no darker than `below` of its kind's median.

    `occupied` (the same shape but the last axis) is the chance a checker lies at each centre:
    those likelier than not are masked out of the bare board, a little wider than a checker,
    as is a hand where `hand` (the hand cover network's grid over the canvas,
    `HandCoverNet.cover`) gives one more likely than not. The board's lightness (Lab L) against
    its kind's median is averaged in log over the bare board within `reach` checker diameters
    (a square window); where less than `min_bare` of that window is bare board the place is
    taken as lit. (`below`: checkers' own shadows, the lamp's fall-off and the vignette darken
    the board round a row by up to a fifth, and lifting the colours there cost more than it
    mended on the tuning sets.)"""
    # Shadows are soft: half the canvas's resolution measures them as well, four times faster.
    kinds = surface_kinds(canvas, home)[::2, ::2]
    h, w = kinds.shape
    scale = 0.5
    small = cv2.resize(rectified, (w, h), interpolation=cv2.INTER_AREA)
    bare = kinds > 0
    radius = canvas.model.checker_mm / 2 * canvas.px_per_mm * scale
    checkers = np.zeros(kinds.shape, np.uint8)
    at = np.asarray(centres) * scale
    for x, y in at.reshape(-1, 2)[occupied.reshape(-1) > 0.5]:
        cv2.circle(checkers, (round(x), round(y)), round(CHECKER_MASK_RADII * radius), 1, -1)
    bare &= checkers == 0
    if hand is not None:
        bare &= cv2.resize(np.asarray(hand, np.float32), (w, h)) <= 0.5
    log_l = _log_lightness(small)
    ratio = np.zeros_like(log_l)
    for kind in np.unique(kinds[bare]):
        mask = bare & (kinds == kind)
        ratio[mask] = log_l[mask] - float(np.median(log_l[mask]))
    share, mean = _window_mean(ratio, bare.astype(np.float32), 2 * round(reach * 2 * radius) + 1)
    cells = np.round(at).astype(np.int64)
    x, y = np.clip(cells[..., 0], 0, w - 1), np.clip(cells[..., 1], 0, h - 1)
    light = np.exp(mean[y, x])
    light = np.where((share[y, x] >= min_bare) & (light < below), light, 1.0)
    return np.asarray(light, np.float64)


def _log_lightness(image: NDArray[Any]) -> NDArray[np.float32]:
    """The log of each pixel's Lab lightness (OpenCV's 8-bit L, plus 1)."""
    # Lab's L is about the cube root of the light, so a shadow divides it by a factor too; +1
    # keeps a black pixel's log finite.
    lightness = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    return np.asarray(np.log(lightness + 1.0), np.float32)


def _window_mean(
    values: NDArray[np.float32], weight: NDArray[np.float32], size: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """In a square window `size` pixels wide (at least 3) round every pixel: the share of it
    `weight` covers, and the mean of `values` weighted by it."""
    size = max(3, size)
    share = np.asarray(cv2.blur(weight, (size, size)), np.float32)
    mean = np.asarray(cv2.blur(values * weight, (size, size)) / np.maximum(share, 1e-6), np.float32)
    return share, mean


def relit(colours: FloatArray, light: FloatArray, least: float = 0.2) -> FloatArray:
    """Lab colours (..., 3; OpenCV's 8-bit scale, a and b about 128) as they would show in full
    light, given the share of it that reached them (`place_light`, at least `least`): lightness
    and the chroma both divided by it."""
    share = np.maximum(np.asarray(light), least)[..., None]
    neutral = np.array([0.0, 128.0, 128.0])
    return np.asarray(np.clip(neutral + (colours - neutral) / share, 0.0, 255.0))


def board_light(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    reach: float = 2.0,
    below: float = 0.6,
    lit: float = 0.7,
) -> NDArray[np.float32]:
    """How much of its lightness a shadow leaves over the whole canvas, at a quarter of its
    resolution, for relighting the photo the dice are read from (`relit_photo`).

    As `place_light` measures it, but with no checkers known yet (the dice are read beside the
    checkers): bare-board pixels far from their kind's median (a white checker, or a dark one
    on a light board) are left out instead. Averaged over `reach` checker diameters and
    smoothed, so that felt and grain do not come out blotched. Below `below` the shadow is
    taken as measured; from there to `lit` the factor eases to 1, where it stays, so that a
    relit photo shows no edge where correction starts."""
    kinds = surface_kinds(canvas, home)[::4, ::4]
    h, w = kinds.shape
    small = cv2.resize(rectified, (w, h), interpolation=cv2.INTER_AREA)
    log_l = _log_lightness(small)
    ratio = np.zeros_like(log_l)
    weight = np.zeros_like(log_l)
    for kind in range(1, _FIELD + 1):
        mask = kinds == kind
        if not mask.any():
            continue
        off = log_l[mask] - float(np.median(log_l[mask]))
        bare = (off > -1.2) & (off < 0.2)
        ratio[mask] = np.where(bare, off, 0.0)
        weight[mask] = bare
    diameter = canvas.model.checker_mm * canvas.px_per_mm / 4
    share, mean = _window_mean(ratio, weight, 2 * round(reach * diameter) + 1)
    light = np.where(share > 0.15, np.exp(mean), 1.0)
    eased = light + (1.0 - light) * (light - below) / (lit - below)
    factor = np.where(light >= lit, 1.0, np.where(light <= below, light, eased))
    factor = np.maximum(factor, 0.25).astype(np.float32)
    return np.asarray(cv2.GaussianBlur(factor, (0, 0), diameter / 2), np.float32)


def relit_photo(
    image: NDArray[np.uint8], profile: BoardProfile, canvas: Canvas, light: NDArray[np.float32]
) -> NDArray[np.uint8]:
    """`image` (the photo `profile` calibrates) with the shadow `light` measures on `canvas`
    (`board_light`) divided out; the photo itself where nothing is shaded."""
    if float(light.min()) >= 0.99:
        return image
    height, width = image.shape[:2]
    cells_x, cells_y = _photo_cells(profile, canvas, width, height)
    small = cv2.remap(
        light, cells_x, cells_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=1.0
    )
    factor = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    # The factor is positive: only the top needs clipping, in place.
    lit = image / factor[..., None]
    np.minimum(lit, 255, out=lit)
    return lit.astype(np.uint8)


@functools.lru_cache(maxsize=4)
def _photo_cells(
    profile: BoardProfile, canvas: Canvas, width: int, height: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Where every fourth pixel of the photo falls on `board_light`'s quarter-size map: a
    `cv2.remap` grid, kept per profile (9 ms to make at 1280 x 720)."""
    xs, ys = np.meshgrid(np.arange(0, width, 4) + 1.5, np.arange(0, height, 4) + 1.5)
    mm = profile.image_to_board(np.stack([xs.ravel(), ys.ravel()], axis=1))
    cells = canvas.to_px(mm) / 4 - 0.5
    return (
        cells[:, 0].reshape(xs.shape).astype(np.float32),
        cells[:, 1].reshape(xs.shape).astype(np.float32),
    )
