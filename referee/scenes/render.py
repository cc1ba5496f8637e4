"""Painting a scene: textured planes by homography, solids facet by facet, then the camera's faults.

Painter's algorithm on the undistorted canvas. The raised frame is handled per sunken region:
a frame block whose inner wall faces away from the camera stands between the camera and that
region, so it is painted again (from a copy of the finished background) after the region's
checkers and dice. An id buffer, painted with the same outlines in the same order, tells how much
of each checker is left visible.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.scenes.camera import Camera
from referee.scenes.dice import PIP_LAYOUT, DiePose, face_basis
from referee.scenes.hands import Capsule, Hand
from referee.scenes.layout import BoardLayout
from referee.scenes.lighting import Light
from referee.scenes.placement import CheckerItem
from referee.scenes.raster import fill_convex
from referee.scenes.styles import (
    BoardStyle,
    CheckerSet,
    DiceSet,
    bgr,
)
from referee.scenes.textures import board_texture_for, table_texture
from referee.vision.markers import STICKER_MM, sticker_image

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

SHIFT = 4  # fraction bits of the fixed-point polygon coordinates OpenCV draws with
HAND_ID = 65000
DIE_ID_BASE = 60000
CLUTTER_ID = 64000
_SEGMENTS = 32  # facets round a checker's edge


def fixed(points: FloatArray) -> NDArray[np.int32]:
    """Canvas points as OpenCV's fixed-point polygon vertices."""
    return np.round(points * (1 << SHIFT)).astype(np.int32)


def _colour(values: Sequence[float] | FloatArray) -> tuple[float, float, float]:
    return (float(values[0]), float(values[1]), float(values[2]))


# Size (length, width, height in mm) of each kind of clutter.
CLUTTER_SIZE: dict[str, tuple[float, float, float]] = {
    "cup": (84.0, 84.0, 95.0),
    "phone": (150.0, 72.0, 9.0),
    "notepad": (148.0, 210.0, 6.0),
    "pen": (140.0, 10.0, 10.0),
    "coin": (24.0, 24.0, 2.0),
}


@dataclasses.dataclass(frozen=True)
class Clutter:
    """Something on the table beside the board: a cup, phone, notepad, pen or coin."""

    kind: Literal["cup", "phone", "notepad", "pen", "coin"]
    center: tuple[float, float]
    yaw: float
    colour: str


@dataclasses.dataclass(frozen=True)
class Imaging:
    """What the camera does to the picture after the optics."""

    noise_sigma: float
    blur_sigma: float
    vignette: float
    jpeg_quality: int


@dataclasses.dataclass(frozen=True)
class Look:
    """The styles and lighting a scene is painted with, fixed for a whole video."""

    board: BoardStyle
    checkers: CheckerSet
    dice: DiceSet
    table: str
    layout: BoardLayout
    camera: Camera
    light: Light
    imaging: Imaging
    clutter: tuple[Clutter, ...]
    # Quarter turns of the corner markers stuck on the frame, by marker id; None: no markers.
    markers: tuple[int, int, int, int] | None = None
    # The solid (board mm, (N, 3)) of someone beside the table whose shadow falls on the board
    # (`scene.sample_onlooker`); None: nobody.
    onlooker: FloatArray | None = None


@dataclasses.dataclass(frozen=True)
class Frame:
    """What stands on the board at one moment; held checkers hang from a hand."""

    checkers: tuple[CheckerItem, ...]
    dice: tuple[DiePose, ...]
    hands: tuple[Hand, ...] = ()
    held: tuple[CheckerItem, ...] = ()


@dataclasses.dataclass(frozen=True)
class Painted:
    """The finished photo and how much of each checker (by index) shows; what the hands hide:
    the share of each checker's and each die's (by index) seen outline that they cover, and
    whether they cover each of the playing surface's corners (`Layout.playing_corners`'
    order), and the outlines of what they cover in the photo (pixel polygons, none without
    hands)."""

    photo: Image
    checker_visible: tuple[float, ...]
    checker_hand_hidden: tuple[float, ...]
    die_hand_hidden: tuple[float, ...]
    corner_hand_hidden: tuple[bool, ...]
    hand_outlines: tuple[FloatArray, ...] = ()


# --- meshes -------------------------------------------------------------------------------------


@functools.cache
def _chamfered_cube(bevel: float) -> tuple[FloatArray, tuple[NDArray[np.int64], ...], FloatArray]:
    """A unit cube (half-size 1) with bevelled edges: vertices, facets, facet normals."""
    inner = 1.0 - bevel
    vertices: list[tuple[float, float, float]] = []
    facets: list[NDArray[np.int64]] = []
    normals: list[FloatArray] = []

    def add(points: list[tuple[float, float, float]], normal: FloatArray) -> None:
        start = len(vertices)
        vertices.extend(points)
        facets.append(np.arange(start, start + len(points)))
        normals.append(normal / np.linalg.norm(normal))

    for axis in range(3):
        for sign in (-1.0, 1.0):
            a, b = [k for k in range(3) if k != axis]
            quad = []
            for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = [0.0, 0.0, 0.0]
                p[axis], p[a], p[b] = sign, u * inner, v * inner
                quad.append((p[0], p[1], p[2]))
            normal = np.zeros(3)
            normal[axis] = sign
            add(quad, normal)
    for i in range(3):
        for j in range(i + 1, 3):
            k = 3 - i - j
            for si in (-1.0, 1.0):
                for sj in (-1.0, 1.0):
                    quad = []
                    for along, first in ((-1, True), (1, True), (1, False), (-1, False)):
                        p = [0.0, 0.0, 0.0]
                        p[i] = si if first else si * inner
                        p[j] = sj * inner if first else sj
                        p[k] = along * inner
                        quad.append((p[0], p[1], p[2]))
                    normal = np.zeros(3)
                    normal[i], normal[j] = si, sj
                    add(quad, normal)
    for sx in (-1.0, 1.0):
        for sy in (-1.0, 1.0):
            for sz in (-1.0, 1.0):
                add(
                    [
                        (sx, sy * inner, sz * inner),
                        (sx * inner, sy, sz * inner),
                        (sx * inner, sy * inner, sz),
                    ],
                    np.array([sx, sy, sz]),
                )
    return np.array(vertices), tuple(facets), np.array(normals)


@functools.cache
def _pip_circles() -> tuple[FloatArray, tuple[int, ...], FloatArray]:
    """Outlines of all 21 pips on a unit die: points (21 * 10, 3), each pip's face value, and
    each pip's face normal."""
    angles = np.linspace(0, 2 * math.pi, 10, endpoint=False)
    points: list[FloatArray] = []
    values: list[int] = []
    normals: list[FloatArray] = []
    for value, layout in PIP_LAYOUT.items():
        normal, u, v = face_basis(value)
        radius = 0.21 if value == 1 else 0.17
        for pu, pv in layout:
            centre = normal * 1.002 + (u * pu + v * pv) * 0.52
            ring = centre + radius * (np.outer(np.cos(angles), u) + np.outer(np.sin(angles), v))
            points.append(ring)
            values.append(value)
            normals.append(normal)
    return np.concatenate(points), tuple(values), np.array(normals)


@functools.lru_cache(maxsize=64)
def _cylinder_frame(
    radius: float, height: float, bevel: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """A cylinder at the origin: its facet corners (9 rings of `_SEGMENTS`: the side quads' four
    corners, the shoulder quads' four, the top outline), and the normals and centres of the side
    facets, the shoulder facets and the top."""
    n = _SEGMENTS
    mid = (np.arange(n) + 0.5) * (2 * math.pi / n)
    # Each facet is widened so neighbours overlap and their anti-aliased seams vanish.
    half = 0.65 * math.pi / n
    lo, hi = mid - half, mid + half
    zero = np.zeros(n)
    ring_lo = np.stack([np.cos(lo), np.sin(lo), zero], axis=1)
    ring_hi = np.stack([np.cos(hi), np.sin(hi), zero], axis=1)
    ring_mid = np.stack([np.cos(mid), np.sin(mid), zero], axis=1)
    up = np.array([0.0, 0.0, 1.0])
    shoulder = height * (1 - bevel)
    inset = radius * (1 - 0.5 * bevel * height / max(radius, 1e-6))
    rings = np.concatenate(
        [
            radius * ring_lo,
            radius * ring_hi,
            radius * ring_hi + up * shoulder,
            radius * ring_lo + up * shoulder,
            radius * ring_lo + up * shoulder,
            radius * ring_hi + up * shoulder,
            inset * ring_hi + up * height,
            inset * ring_lo + up * height,
            inset * ring_mid + up * height,
        ]
    )
    bevel_normals = ring_mid + up
    bevel_normals /= np.linalg.norm(bevel_normals, axis=1, keepdims=True)
    normals = np.concatenate([ring_mid, bevel_normals, up[None]])
    centres = np.concatenate(
        [
            radius * ring_mid + up * (shoulder / 2),
            radius * ring_mid + up * (shoulder + height) / 2,
            (up * height)[None],
        ]
    )
    return rings, normals, centres


_GROOVE_POINTS = 28
# Nested outlines (size factor, shift toward the lamp, brightness) that shade a rounded body.
_ROUND_SHADING = (
    (1.0, 0.0, 0.6),
    (0.86, 0.12, 0.74),
    (0.7, 0.22, 0.86),
    (0.5, 0.3, 0.95),
    (0.28, 0.36, 1.02),
)


@dataclasses.dataclass
class Disc:
    """A standing disc projected and shaded, ready for `Painter.disc`: the outline's hull,
    visible side and shoulder facets with their colours, top (canvas pixels), and grooves on the
    top (fixed point)."""

    hull: FloatArray
    outline: FloatArray
    sides: list[FloatArray]
    bevels: list[FloatArray]
    side_colours: list[list[float]]
    bevel_colours: list[list[float]]
    top: FloatArray
    top_colour: list[float]
    grooves: list[NDArray[np.int32]]
    groove_colour: tuple[float, float, float]


# --- the painter --------------------------------------------------------------------------------


class Painter:
    """Draws shaded solids on the canvas and their outlines in the id buffer."""

    def __init__(self, look: Look, canvas: Image) -> None:
        self.look = look
        self.camera = look.camera
        self.light = look.light
        self.image = canvas
        self.ids = np.zeros(canvas.shape[:2], np.uint16)
        self.eye = look.camera.center
        self.line = max(1, round(look.camera.width / 1000))

    def px(self, points: FloatArray) -> FloatArray:
        """Canvas pixels of world points (N, 3)."""
        return self.camera.project_canvas(points)

    def fill(self, points: FloatArray, colour: Sequence[float] | FloatArray) -> None:
        """Fill a convex canvas polygon, anti-aliased."""
        fill_convex(self.image, points, _colour(colour))

    def mark(self, points: FloatArray, ident: int) -> float:
        """Paint the convex outline of `points` with `ident` in the id buffer; its area."""
        hull = cv2.convexHull(fixed(points).reshape(-1, 1, 2))
        cv2.fillConvexPoly(self.ids, hull, ident, cv2.LINE_8, SHIFT)
        return float(cv2.contourArea(hull)) / float(1 << (2 * SHIFT))

    def silhouette(self, points: FloatArray, colour: Sequence[float] | FloatArray) -> None:
        """Fill the convex outline first, so the seams between facets blend into the object."""
        fill_convex(self.image, _hull(points), _colour(colour))

    def shade(
        self, albedo: FloatArray, normals: FloatArray, points: FloatArray, gloss: float
    ) -> FloatArray:
        """Colours of surfaces lit by the scene lamp, seen from the camera."""
        return self.light.shade(albedo, normals, points, self.eye, gloss)

    # --- solids ---

    def discs(
        self,
        bases: FloatArray,
        radius: float,
        height: float,
        bevel: float,
        side: FloatArray,
        top: FloatArray,
        gloss: float,
        grooves: Sequence[float] = (),
        groove_shade: float = 0.75,
    ) -> list[Disc]:
        """Standing discs (checkers, coins, cups) at `bases` (m, 3), ready to draw: projection
        and shading are done for all of them at once. `side` and `top` are albedos (m, 3);
        `grooves` are radii of concentric rings cut into the top."""
        n = _SEGMENTS
        count = len(bases)
        rings, normals, centres = _cylinder_frame(radius, height, bevel)
        angles = np.linspace(0, 2 * math.pi, _GROOVE_POINTS, endpoint=False)
        circle = np.stack([np.cos(angles), np.sin(angles), np.full(_GROOVE_POINTS, height)], 1)
        groove = np.concatenate([circle * [r, r, 1.0] for r in grooves]) if grooves else rings[:0]
        template = np.concatenate([rings, groove])
        px = self.px((bases[:, None, :] + template[None]).reshape(-1, 3)).reshape(count, -1, 2)
        # Facet-major: each facet's corners together.
        facets = px[:, : 9 * n].reshape(count, 9, n, 2).transpose(0, 2, 1, 3)
        points = bases[:, None, :] + centres[None]
        facing = np.sum(normals[None] * (self.eye - points), axis=2) > 0
        if bevel <= 0:
            facing[:, n : 2 * n] = False
        albedo = np.concatenate(
            [np.repeat(side[:, None, :], 2 * n, axis=1), top[:, None, :]], axis=1
        )
        colours = self.shade(
            albedo.reshape(-1, 3), np.tile(normals, (count, 1)), points.reshape(-1, 3), gloss
        ).reshape(count, 2 * n + 1, 3)
        up = np.tile([0.0, 0.0, 1.0], (count, 1))
        matt = self.shade(top, up, points[:, -1], 0.0) * groove_shade
        out = []
        for k in range(count):
            out.append(
                Disc(
                    hull=_hull(px[k, : 8 * n]),
                    outline=colours[k, 0] * 0.8,
                    sides=[facets[k, i, 0:4] for i in np.flatnonzero(facing[k, :n])],
                    bevels=[facets[k, i, 4:8] for i in np.flatnonzero(facing[k, n : 2 * n])],
                    side_colours=colours[k, :n][facing[k, :n]].tolist(),
                    bevel_colours=colours[k, n : 2 * n][facing[k, n : 2 * n]].tolist(),
                    top=px[k, 8 * n : 9 * n],
                    top_colour=colours[k, -1].tolist(),
                    grooves=[
                        np.ascontiguousarray(ring)
                        for ring in fixed(px[k, 9 * n :]).reshape(-1, _GROOVE_POINTS, 2)
                    ],
                    groove_colour=_colour(matt[k]),
                )
            )
        return out

    def disc(self, disc: Disc, ident: int) -> float:
        """Draw one prepared disc; returns its outline's area, marked with `ident`."""
        self.fill(disc.hull, disc.outline)
        for quad, colour in zip(disc.sides, disc.side_colours, strict=True):
            self.fill(quad, colour)
        for quad, colour in zip(disc.bevels, disc.bevel_colours, strict=True):
            self.fill(quad, colour)
        self.fill(disc.top, disc.top_colour)
        if disc.grooves:
            cv2.polylines(
                self.image, disc.grooves, True, disc.groove_colour, self.line, cv2.LINE_AA, SHIFT
            )
        hull = fixed(disc.hull)
        cv2.fillConvexPoly(self.ids, hull, ident, cv2.LINE_8, SHIFT)
        return float(cv2.contourArea(hull)) / float(1 << (2 * SHIFT))

    def checker_discs(self, items: Sequence[CheckerItem]) -> list[Disc]:
        """All `items` prepared as discs in the checker set's colours and material."""
        if not items:
            return []
        dims = self.look.layout.dims
        pieces = self.look.checkers
        light, dark = np.array(bgr(pieces.light)), np.array(bgr(pieces.dark))
        albedo = np.array([light if item.color == "white" else dark for item in items])
        r = dims.checker_diameter / 2
        grooves, shade = {
            "wood": ((0.78 * r, 0.5 * r, 0.22 * r), 0.72),
            "plastic": ((0.72 * r,), 0.86),
            "stone": ((0.8 * r, 0.76 * r), 0.8),
        }[pieces.material]
        bases = np.array([item.base for item in items])
        return self.discs(
            bases, r, dims.checker_thickness, 0.3, albedo * 0.82, albedo, pieces.gloss,
            grooves, shade,
        )  # fmt: skip

    def mesh(
        self,
        vertices: FloatArray,
        facets: tuple[NDArray[np.int64], ...],
        normals: FloatArray,
        albedo: FloatArray,
        gloss: float,
    ) -> FloatArray:
        """A convex solid: only facets facing the camera are drawn, so no sorting is needed.
        Returns the canvas vertices."""
        px = self.px(vertices)
        centroids = np.array([vertices[f].mean(axis=0) for f in facets])
        facing = np.sum(normals * (self.eye - centroids), axis=1) > 0
        self.silhouette(px, albedo * 0.7)
        colours = self.shade(albedo, normals[facing], centroids[facing], gloss)
        for index, colour in zip(np.flatnonzero(facing), colours, strict=True):
            self.fill(px[facets[index]], colour)
        return px

    def die(self, pose: DiePose, ident: int) -> None:
        """A die with bevelled edges and pips (a shade darker than their colour, as if sunk in)
        on every face that shows."""
        dice = self.look.dice
        vertices, facets, normals = _chamfered_cube(0.16)
        half = pose.size / 2
        world = pose.center + (vertices * half) @ pose.rotation.T
        world_normals = normals @ pose.rotation.T
        self.mark(
            self.mesh(world, facets, world_normals, np.array(bgr(dice.body)), dice.gloss), ident
        )
        circles, values, pip_normals = _pip_circles()
        pips = self.px(pose.center + (circles * half) @ pose.rotation.T).reshape(-1, 10, 2)
        faces_up = pip_normals @ pose.rotation.T
        centres = pose.center + (circles.reshape(-1, 10, 3).mean(axis=1) * half) @ pose.rotation.T
        seen = np.sum(faces_up * (self.eye - centres), axis=1) > 0
        base = np.array(bgr(dice.pips))
        one = np.array(bgr(dice.one)) if dice.one else base
        albedo = np.array([one if v == 1 else base for v in values])
        colours = self.shade(albedo[seen], faces_up[seen], centres[seen], 0.0)
        for pip, colour in zip(np.flatnonzero(seen), colours, strict=True):
            self.fill(pips[pip], colour * 0.85)

    def box(
        self,
        centre: FloatArray,
        size: tuple[float, float, float],
        yaw: float,
        albedo: FloatArray,
        gloss: float,
    ) -> FloatArray:
        """A rectangular solid lying on its bottom face; returns its canvas outline."""
        vertices, facets, normals = _chamfered_cube(0.04)
        c, s = math.cos(yaw), math.sin(yaw)
        rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        world = centre + (vertices * np.array(size) / 2) @ rotation.T
        return self.mesh(world, facets, normals @ rotation.T, albedo, gloss)

    def capsule(self, capsule: Capsule, ident: int) -> None:
        """A tapered round limb, shaded darker at its edges so it reads as round."""
        ends = self.px(np.stack([capsule.a, capsule.b]))
        scale = np.array([self.camera.pixel_scale(capsule.a), self.camera.pixel_scale(capsule.b)])
        radii = np.array([capsule.ra, capsule.rb]) * scale
        albedo = np.array(bgr(capsule.colour))
        middle = (capsule.a + capsule.b) / 2
        lit = self.shade(albedo, np.array([[0.0, 0.0, 1.0]]), middle[None], 0.15)[0]
        to_light = self.px(np.stack([middle, middle + (self.light.position - middle) * 0.02]))
        shift = to_light[1] - to_light[0]
        shift = shift / max(float(np.linalg.norm(shift)), 1e-6)
        angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        circle = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        layers = [
            np.concatenate(
                [
                    ends[0] + shift * offset * radii[0] + circle * radii[0] * factor,
                    ends[1] + shift * offset * radii[1] + circle * radii[1] * factor,
                ]
            )
            for factor, offset, _ in _ROUND_SHADING
        ]
        self.rounded(layers, lit, float(radii.mean()))
        self.mark(layers[0], ident)

    def rounded(self, layers: list[FloatArray], lit: FloatArray, radius: float) -> None:
        """A rounded body: nested outlines in `_ROUND_SHADING` brightness, blurred together so
        the steps become a smooth gradient, and laid inside the outermost outline."""
        roi = _roi(layers[0], self.camera.canvas_size, pad=1)
        x0, y0, x1, y1 = roi
        offset = np.array([x0, y0], dtype=np.float64)
        patch = self.image[y0:y1, x0:x1].copy()
        for points, (_, _, brightness) in zip(layers, _ROUND_SHADING, strict=True):
            fill_convex(patch, _hull(points - offset), _colour(lit * brightness))
        # Two box blurs: nearly Gaussian, and their cost does not grow with the width.
        size = max(3, int(0.45 * radius) | 1)
        smooth = np.asarray(cv2.blur(cv2.blur(patch, (size, size)), (size, size)), np.uint8)
        outline = cv2.convexHull(layers[0].astype(np.float32)).reshape(-1, 2)
        _composite(self.image, smooth, [outline.astype(np.float64)], roi)

    def hand(self, hand: Hand) -> None:
        """Forearm and sleeve, the fingers from far to near, then the back of the hand."""
        for capsule in hand.capsules[:2]:
            self.capsule(capsule, HAND_ID)
        fingers = sorted(hand.capsules[2:], key=lambda c: -float(np.linalg.norm(c.b - self.eye)))
        for capsule in fingers:
            self.capsule(capsule, HAND_ID)
        albedo = np.array(bgr(hand.pose.skin))
        centre = hand.palm.mean(axis=0)
        lit = self.shade(albedo, np.array([[0.0, 0.0, 1.0]]), centre[None], 0.15)[0]
        toward = self.light.position - centre
        toward[2] = 0.0
        toward *= 12.0 / max(float(np.linalg.norm(toward)), 1e-6)
        layers = [
            self.px(centre + (hand.palm - centre) * [factor, factor, 1.0] + toward * offset)
            for factor, offset, _ in _ROUND_SHADING
        ]
        size = float(np.ptp(layers[0][:, 0]) + np.ptp(layers[0][:, 1])) / 4
        self.rounded(layers, lit, size)
        self.mark(layers[0], HAND_ID)

    def clutter(self, item: Clutter, table_z: float) -> None:
        """One thing on the table, standing on it."""
        albedo = np.array(bgr(item.colour))
        length, width, height = CLUTTER_SIZE[item.kind]
        base = np.array([item.center[0], item.center[1], table_z])
        lift = np.array([0.0, 0.0, 1.0])
        if item.kind in ("cup", "coin"):
            if item.kind == "coin":
                albedo = np.array(bgr("#B8A060"))
            gloss = 0.5 if item.kind == "cup" else 0.8
            body = self.discs(
                base[None], length / 2, height, 0.0, albedo[None], albedo[None], gloss
            )
            self.disc(body[0], CLUTTER_ID)
            if item.kind == "cup":
                # Coffee, a little below the rim.
                angles = np.linspace(0, 2 * math.pi, 28, endpoint=False)
                ring = np.stack([np.cos(angles), np.sin(angles), np.zeros(28)], axis=1)
                surface = base + lift * height * 0.97 + ring * (length / 2 - 5)
                self.fill(self.px(surface), (30, 45, 60))
            return
        if item.kind == "pen":
            half = np.array([math.cos(item.yaw), math.sin(item.yaw), 0.0]) * length / 2
            middle = base + lift * height / 2
            pen = Capsule(middle - half, middle + half, width / 2, width * 0.4, item.colour)
            self.capsule(pen, CLUTTER_ID)
            return
        if item.kind == "phone":
            albedo = albedo * 0.5
        outline = self.box(base + lift * height / 2, (length, width, height), item.yaw, albedo, 0.4)
        if item.kind == "phone":
            screen = np.array(bgr("#101418"))
            glass = (length - 12, width - 8, 0.4)
            self.box(base + lift * (height + 0.2), glass, item.yaw, screen, 0.9)
        self.mark(outline, CLUTTER_ID)


# --- the pipeline -------------------------------------------------------------------------------


def _hull(points: FloatArray) -> FloatArray:
    """The convex hull of canvas points, as its vertices (N, 2)."""
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2))
    return np.asarray(hull, np.float64).reshape(-1, 2)


def _roi(points: FloatArray, size: tuple[int, int], pad: int = 2) -> tuple[int, int, int, int]:
    """Integer box (x0, y0, x1, y1) round canvas points, clipped to the canvas."""
    width, height = size
    # Kept at least one pixel inside the canvas, so slices are never empty.
    x0 = min(max(0, math.floor(points[:, 0].min()) - pad), width - 1)
    y0 = min(max(0, math.floor(points[:, 1].min()) - pad), height - 1)
    x1 = min(width, math.ceil(points[:, 0].max()) + pad + 1)
    y1 = min(height, math.ceil(points[:, 1].max()) + pad + 1)
    return x0, y0, max(x0 + 1, x1), max(y0 + 1, y1)


def _composite(
    canvas: Image, source: Image, polygons: Sequence[FloatArray], roi: tuple[int, int, int, int]
) -> None:
    """Copy `source` (ROI-sized) into the canvas ROI inside the anti-aliased `polygons`."""
    x0, y0, x1, y1 = roi
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    offset = np.array([x0, y0], dtype=np.float64)
    for polygon in polygons:
        fill_convex(mask, polygon - offset, 255)
    weight = mask.astype(np.float32) / 255.0
    target = canvas[y0:y1, x0:x1]
    target[:] = cv2.blendLinear(source, target, weight, 1.0 - weight)


def _table(look: Look) -> Image:
    """The table top; warped at half resolution, as it is soft background anyway."""
    texture = table_texture(look.table)
    homography = look.camera.plane_homography(
        -look.layout.dims.floor, texture.scale, texture.origin
    )
    width, height = look.camera.canvas_size
    half = np.diag([0.5, 0.5, 1.0]) @ homography
    small = cv2.warpPerspective(
        texture.image,
        half,
        ((width + 1) // 2, (height + 1) // 2),
        flags=cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_REFLECT,
    )
    return np.asarray(cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR), np.uint8)


def _board_planes(look: Look, canvas: Image) -> None:
    """The sunken floors (z = 0) and the frame's top (rim height), both from the board texture."""
    camera, layout = look.camera, look.layout
    rim = layout.dims.rim_height
    # The nearest corner of the board is where it shows largest.
    needed = max(camera.pixel_scale(corner) for corner in layout.outline(rim))
    texture = board_texture_for(look.board.name, needed)
    outline = camera.project_canvas(
        np.concatenate([layout.outline(-layout.dims.floor), layout.outline(rim)])
    )
    roi = _roi(outline, camera.canvas_size)
    x0, y0, x1, y1 = roi
    shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    for z, polygons in (
        (0.0, [camera.project_canvas(r.corners()) for r in layout.regions.values()]),
        (rim, [camera.project_canvas(b.top(rim)) for b in layout.blocks.values()]),
    ):
        homography = shift @ camera.plane_homography(z, texture.scale, texture.origin)
        warped = cv2.warpPerspective(
            texture.image,
            homography,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        _composite(canvas, np.asarray(warped, np.uint8), polygons, roi)


def sticker_squares(layout: BoardLayout) -> dict[int, FloatArray]:
    """Each corner marker's sticker on the frame's top (world mm, z = rim height), by marker
    id: a corner on the playing surface's corner, the rest reaching out over the frame. White
    sits at the near side (y0): id 0 far-left, 1 far-right, 2 near-right, 3 near-left."""
    rim, side = layout.dims.rim_height, STICKER_MM
    near_left, near_right, far_right, far_left = layout.playing_corners()
    squares = {}
    for ident, corner, (sx, sy) in (
        (0, far_left, (-1, 1)),
        (1, far_right, (1, 1)),
        (2, near_right, (1, -1)),
        (3, near_left, (-1, -1)),
    ):
        x, y = float(corner[0]), float(corner[1])
        ring = [(x, y), (x + sx * side, y), (x + sx * side, y + sy * side), (x, y + sy * side)]
        squares[ident] = np.array([[u, v, rim] for u, v in ring])
    return squares


def _stickers(look: Look, canvas: Image) -> None:
    """The corner markers as printed, flat on the frame's top and lit as the board's planes are
    (matt paper: no glare; no shadow: the board's own falls on the table below a sticker that
    reaches out past the frame). Painted over the frame's walls: a sticker wider than the
    frame's top reaches out over its outer side, which it hides."""
    if look.markers is None:
        return
    camera = look.camera
    factor, _ = look.light.plane_map(camera, look.board.gloss)
    for ident, square in sticker_squares(look.layout).items():
        polygon = camera.project_canvas(square)
        # Printed at twice the canvas's scale there, so the warp only ever shrinks it.
        printed = sticker_image(ident, 2 * max(camera.pixel_scale(p) for p in square))
        scale = printed.shape[0] / STICKER_MM
        turned = np.ascontiguousarray(np.rot90(printed, look.markers[ident]))
        origin = (float(square[:, 0].min()), float(square[:, 1].max()))
        roi = _roi(polygon, camera.canvas_size)
        x0, y0, x1, y1 = roi
        shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
        homography = shift @ camera.plane_homography(square[0, 2], scale, origin)
        warped = cv2.warpPerspective(turned, homography, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        albedo = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
        lit: Image = np.asarray(cv2.multiply(albedo, factor[y0:y1, x0:x1], scale=1 / 128), np.uint8)
        _composite(canvas, lit, [polygon], roi)


def _support_z(look: Look, die: DiePose) -> float:
    """Height of the surface a die at rest lies on (floor, checker top or table)."""
    if not die.on_board:
        return -look.layout.dims.floor
    return die.lowest_z if die.on_checker else 0.0


class _Shadows:
    """A shadow mask drawn at half the canvas resolution (it is blurred anyway), then softened
    and scaled up: 255 where the lamp is fully blocked."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        width, height = camera.canvas_size
        self.mask = np.zeros(((height + 1) // 2, (width + 1) // 2), np.uint8)

    def fill(self, canvas_points: FloatArray, value: int = 255) -> None:
        """Set the mask to `value` inside the convex hull of canvas points."""
        # Canvas pixel centres x lie at (x + 0.5) / 2 - 0.5 on the half-size mask.
        fill_convex(self.mask, _hull((canvas_points + 0.5) * 0.5 - 0.5), value)

    def cast(self, light: Light, points: FloatArray, plane_z: float) -> None:
        """The shadow of the convex solid spanned by `points` on the plane z = `plane_z`."""
        self.fill(self.camera.project_canvas(light.cast(points, plane_z)))

    def soft(self, sigma: float) -> NDArray[np.uint8]:
        """The mask blurred by `sigma` canvas pixels and scaled to the canvas."""
        blurred = cv2.GaussianBlur(self.mask, (0, 0), max(0.5, sigma / 2))
        size = self.camera.canvas_size
        return np.asarray(cv2.resize(blurred, size, interpolation=cv2.INTER_LINEAR), np.uint8)


def _shadow_mask(look: Look, frame: Frame) -> NDArray[np.uint8]:
    """Where the lamp's light is blocked on the table and on the board's floors (255 = full)."""
    camera, light, layout = look.camera, look.light, look.layout
    dims = layout.dims
    shadows = _Shadows(camera)
    table_z = -dims.floor
    top, bottom = layout.outline(dims.rim_height), layout.outline(table_z)
    shadows.cast(light, np.concatenate([top, bottom]), table_z)
    for item in look.clutter:
        shadows.cast(light, _clutter_points(item, table_z), table_z)
    for die in frame.dice:
        if not die.on_board:
            shadows.cast(light, die.corners(), table_z)
    # The board hides the part of its own shadow under it.
    shadows.fill(camera.project_canvas(np.concatenate([top, bottom])), 0)
    angles = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    circle = np.stack([np.cos(angles), np.sin(angles), np.zeros(12)], axis=1)
    circle *= dims.checker_diameter / 2
    lift = np.array([0.0, 0.0, dims.checker_thickness])
    for checker in frame.checkers:
        if checker.layer == 1:
            rings = np.concatenate([checker.base + circle, checker.base + circle + lift])
            shadows.cast(light, rings, float(checker.base[2]))
    for die in frame.dice:
        if die.on_board:
            shadows.cast(light, die.corners(), _support_z(look, die))
    return shadows.soft(light.shadow_blur_px * camera.width / 1280)


def _clutter_points(item: Clutter, table_z: float) -> FloatArray:
    """The corners of a clutter object's bounding box, enough for its shadow."""
    length, width, height = CLUTTER_SIZE[item.kind]
    c, s = math.cos(item.yaw), math.sin(item.yaw)
    corners = [
        [item.center[0] + c * dx - s * dy, item.center[1] + s * dx + c * dy, table_z + dz]
        for dx in (-length / 2, length / 2)
        for dy in (-width / 2, width / 2)
        for dz in (0.0, height)
    ]
    return np.array(corners)


def _darken(image: Image, shadow: NDArray[np.uint8], strength: float) -> None:
    """Scale `image` by 1 - strength * shadow / 255, in place."""
    factor = cv2.addWeighted(shadow, -strength, shadow, 0.0, 255.0)
    image[:] = cv2.multiply(image, cv2.cvtColor(factor, cv2.COLOR_GRAY2BGR), scale=1 / 255)


def _apply_light(look: Look, canvas: Image, shadow: NDArray[np.uint8]) -> None:
    """Multiply the painted albedo of the planes by the lamp's light, minus shadows, plus glare."""
    light = look.light
    factor, glare = light.plane_map(look.camera, look.board.gloss)
    canvas[:] = cv2.multiply(canvas, factor, scale=1 / 128)
    _darken(canvas, shadow, light.shadow_strength)
    if glare is not None:
        # Only the varnished board shines; table cloth and wood stay matt.
        layout = look.layout
        board = look.camera.project_canvas(layout.outline(layout.dims.rim_height))
        mask = np.zeros(canvas.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, fixed(board), 255, cv2.LINE_8, SHIFT)
        cv2.add(canvas, glare, dst=canvas, mask=mask)


def _walls(painter: Painter) -> None:
    """The board's vertical faces that face the camera: outer sides and the sunken areas' walls."""
    look = painter.look
    layout = look.layout
    rim, floor = layout.dims.rim_height, layout.dims.floor
    wood = (np.array(bgr(look.board.frame.light)) + np.array(bgr(look.board.frame.dark))) / 2
    ox0, ox1, oy0, oy1 = layout.outer
    outer = (
        ((ox0, oy0), (ox1, oy0), (0.0, -1.0)),
        ((ox1, oy1), (ox0, oy1), (0.0, 1.0)),
        ((ox0, oy1), (ox0, oy0), (-1.0, 0.0)),
        ((ox1, oy0), (ox1, oy1), (1.0, 0.0)),
    )
    faces = [(a, b, n, -floor) for a, b, n in outer] + [
        (w.a, w.b, w.normal, 0.0) for w in layout.walls
    ]
    for a, b, n, bottom in faces:
        normal = np.array([n[0], n[1], 0.0])
        quad = np.array(
            [[a[0], a[1], bottom], [b[0], b[1], bottom], [b[0], b[1], rim], [a[0], a[1], rim]]
        )
        middle = quad.mean(axis=0)
        # The top edge is slightly rounded: a thin line catching the light (or not).
        bevel = np.array([n[0], n[1], 1.0]) / math.sqrt(2)
        edge = painter.shade(wood * 1.1, bevel[None], quad[2][None], look.board.gloss)[0]
        cv2.polylines(
            painter.image, [fixed(painter.px(quad[2:]))], False, _colour(edge), painter.line,
            cv2.LINE_AA, SHIFT,
        )  # fmt: skip
        if float(normal @ (painter.eye - middle)) <= 0:
            continue
        colour = painter.shade(wood, normal[None], middle[None], look.board.gloss * 0.3)[0]
        painter.fill(painter.px(quad), colour)
        # Less light reaches the foot of a wall.
        foot = quad.copy()
        foot[2:, 2] = bottom + (rim - bottom) * 0.3
        painter.fill(painter.px(foot), colour * 0.8)


def _front_blocks(look: Look, region: str) -> list[str]:
    """Frame blocks between the camera and `region`: those whose wall with it faces away."""
    eye = look.camera.center
    blocks = []
    for wall in look.layout.walls:
        if wall.region != region:
            continue
        offset = (eye[0] - wall.a[0]) * wall.normal[0] + (eye[1] - wall.a[1]) * wall.normal[1]
        if offset < 0:
            blocks.append(wall.block)
    return blocks


def _restore(painter: Painter, background: Image, polygon: FloatArray) -> None:
    """Paint a frame block's top again over whatever was drawn on it, and clear its ids."""
    size = painter.camera.canvas_size
    roi = _roi(polygon, size)
    x0, y0, x1, y1 = roi
    _composite(painter.image, background[y0:y1, x0:x1], [polygon], roi)
    cv2.fillConvexPoly(painter.ids, fixed(polygon), 0, cv2.LINE_8, SHIFT)


def _streak(painter: Painter, pose: DiePose, ident: int) -> None:
    """A die drawn with motion blur along its streak: painted alone, smeared, then laid on."""
    layer = np.zeros_like(painter.image)
    alone = Painter(painter.look, layer)
    alone.die(pose, ident)
    dx, dy = pose.streak
    length = max(3, int(math.hypot(dx, dy)) | 1)
    kernel = np.zeros((length, length), np.float32)
    c = length // 2
    ux, uy = dx / max(math.hypot(dx, dy), 1e-6), dy / max(math.hypot(dx, dy), 1e-6)
    a = (round(c - ux * c), round(c - uy * c))
    b = (round(c + ux * c), round(c + uy * c))
    cv2.line(kernel, a, b, 1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    ys, xs = np.nonzero(alone.ids)
    if len(xs) == 0:
        return
    roi = _roi(
        np.array([[xs.min() - c, ys.min() - c], [xs.max() + c, ys.max() + c]], float),
        painter.camera.canvas_size,
    )
    x0, y0, x1, y1 = roi
    colour = cv2.filter2D(layer[y0:y1, x0:x1].astype(np.float32), -1, kernel)
    alpha = cv2.filter2D((alone.ids[y0:y1, x0:x1] > 0).astype(np.float32), -1, kernel)
    target = painter.image[y0:y1, x0:x1]
    blended = target.astype(np.float32) * (1.0 - alpha[..., None]) + colour
    target[:] = np.clip(blended, 0, 255).astype(np.uint8)


def _photo_outlines(camera: Camera, mask: NDArray[np.uint8]) -> tuple[FloatArray, ...]:
    """The outlines (photo pixels, within a pixel) of a canvas mask, moved by the lens as the
    photo is (`_optics`)."""
    maps = camera.distortion_maps
    if maps is not None:
        mask = np.asarray(cv2.remap(mask, maps[0], maps[1], cv2.INTER_NEAREST), np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return tuple(
        cv2.approxPolyDP(c, 1.0, True).reshape(-1, 2).astype(np.float64)
        for c in contours
        if cv2.contourArea(c) > 0
    )


def _soft_shadow(painter: Painter, solids: Sequence[FloatArray], blur_px: float) -> None:
    """Darken what lies in the shadow of `solids` (board mm, each (N, 3)) cast from the lamp
    onto the floor, its edge softened by `blur_px` (at 1280 px wide)."""
    camera, light = painter.camera, painter.light
    shadows = _Shadows(camera)
    for solid in solids:
        shadows.cast(light, solid, 0.0)
    soft = shadows.soft(blur_px * camera.width / 1280)
    _darken(painter.image, soft, light.shadow_strength * 0.8)


def _hand_shadows(painter: Painter, hands: Sequence[Hand]) -> None:
    """Darken what lies under the hands: their capsules and palms."""
    angles = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    circle = np.stack([np.cos(angles), np.sin(angles), np.zeros(12)], axis=1)
    solids: list[FloatArray] = []
    for hand in hands:
        solids += [
            np.concatenate([c.a + circle * c.ra, c.b + circle * c.rb]) for c in hand.capsules
        ]
        solids.append(hand.palm)
    # A hand is far above the board, so its shadow is soft.
    _soft_shadow(painter, solids, 3.0 + painter.light.shadow_blur_px * 3)


def _onlooker_shadow(painter: Painter, solid: FloatArray) -> None:
    """Darken what lies in the shadow of someone beside the table: farther above the board and
    larger than a hand, so its edge is wider and softer."""
    _soft_shadow(painter, [solid], 12.0 + painter.light.shadow_blur_px * 6)


@functools.cache
def _noise_bank() -> NDArray[np.int16]:
    """Sensor noise for any image up to 1920 x 1080, in 1/16 grey levels at unit sigma: mostly
    shared by the three channels (luminance noise), partly per channel (chroma noise). Fixed, so
    images stay reproducible."""
    rng = np.random.default_rng(20240601)
    shape = (1144, 1984)
    common = rng.standard_normal(shape, dtype=np.float32)[..., None]
    colour = rng.standard_normal((*shape, 3), dtype=np.float32)
    return np.asarray(np.round(16 * (0.85 * common + 0.5 * colour)), dtype=np.int16)


@functools.lru_cache(maxsize=8)
def _radius_map(width: int, height: int) -> NDArray[np.float32]:
    """Squared distance from the centre of a (2 height, 2 width) grid, in half image widths;
    cropping it at the principal point gives any image's vignetting radius."""
    x = ((np.arange(2 * width, dtype=np.float32) - width) / (width / 2)) ** 2
    y = ((np.arange(2 * height, dtype=np.float32) - height) / (width / 2)) ** 2
    return np.asarray(y[:, None] + x[None, :], dtype=np.float32)


def _optics(look: Look, canvas: Image, rng: np.random.Generator) -> Image:
    """Lens distortion, defocus, vignetting and sensor noise: the canvas becomes the photo."""
    camera, imaging = look.camera, look.imaging
    maps = camera.distortion_maps
    photo = canvas
    if maps is not None:
        photo = np.asarray(
            cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
            np.uint8,
        )
    if imaging.blur_sigma > 0:
        photo = np.asarray(cv2.GaussianBlur(photo, (0, 0), imaging.blur_sigma), np.uint8)
    width, height = camera.width, camera.height
    col = width - round(float(camera.K[0, 2]))
    row = height - round(float(camera.K[1, 2]))
    radius = _radius_map(width, height)[row : row + height, col : col + width]
    vignette = cv2.convertScaleAbs(radius, alpha=-255 * imaging.vignette * 0.5, beta=255)
    shaded = cv2.multiply(photo, cv2.cvtColor(vignette, cv2.COLOR_GRAY2BGR), scale=1 / 255)
    bank = _noise_bank()
    row = int(rng.integers(0, bank.shape[0] - height + 1))
    col = int(rng.integers(0, bank.shape[1] - width + 1))
    crop = bank[row : row + height, col : col + width]
    noise = cv2.addWeighted(crop, imaging.noise_sigma / 16, crop, 0.0, 0.0, dtype=cv2.CV_16S)
    return np.asarray(cv2.add(shaded, noise, dtype=cv2.CV_8U), dtype=np.uint8)


def paint(look: Look, frame: Frame, rng: np.random.Generator) -> Painted:
    """Paint `frame` in `look`; `rng` draws only the sensor noise."""
    layout = look.layout
    canvas = _table(look)
    _board_planes(look, canvas)
    _apply_light(look, canvas, _shadow_mask(look, frame))
    painter = Painter(look, canvas)
    _walls(painter)
    _stickers(look, canvas)
    background = canvas.copy()
    table_z = -layout.dims.floor
    for clutter in look.clutter:
        painter.clutter(clutter, table_z)

    groups: dict[str, list[tuple[float, int, CheckerItem | DiePose]]] = {}
    eye = painter.eye
    for index, item in enumerate(frame.checkers):
        depth = float(np.linalg.norm(item.base - eye))
        groups.setdefault(item.region, []).append((depth, index + 1, item))
    for index, die in enumerate(frame.dice):
        if die.rolling:
            region = "air"
        elif not die.on_board:
            region = "table"
        else:
            region = layout.region_of(float(die.center[0]), float(die.center[1])) or "bar"
        depth = float(np.linalg.norm(die.center - eye))
        groups.setdefault(region, []).append((depth, DIE_ID_BASE + index, die))

    areas: dict[int, float] = {}
    discs = painter.checker_discs(frame.checkers)

    def draw(region: str) -> None:
        for _, ident, thing in sorted(groups.get(region, []), key=lambda entry: -entry[0]):
            if isinstance(thing, CheckerItem):
                areas[ident] = painter.disc(discs[ident - 1], ident)
            elif thing.rolling:
                _streak(painter, thing, ident)
            else:
                painter.die(thing, ident)

    draw("table")
    sunken = sorted(
        layout.regions,
        key=lambda name: (
            -math.hypot(
                layout.regions[name].center[0] - eye[0], layout.regions[name].center[1] - eye[1]
            )
        ),
    )
    rim = layout.dims.rim_height
    for region in sunken:
        draw(region)
        for block in _front_blocks(look, region):
            _restore(painter, background, painter.px(layout.blocks[block].top(rim)))
    draw("bar")
    for held in painter.checker_discs(frame.held):
        painter.disc(held, 0)
    draw("air")
    # Pixels of each id (checkers, dice), before the hands and after them.
    counts = shown = np.bincount(painter.ids.ravel(), minlength=HAND_ID + 1)
    if look.onlooker is not None:
        _onlooker_shadow(painter, look.onlooker)
    if frame.hands:
        _hand_shadows(painter, frame.hands)
        for hand in frame.hands:
            painter.hand(hand)
        counts = np.bincount(painter.ids.ravel(), minlength=HAND_ID + 1)
    visible = tuple(
        min(1.0, float(counts[i + 1]) / areas[i + 1]) if areas.get(i + 1, 0.0) > 0 else 0.0
        for i in range(len(frame.checkers))
    )

    def hand_hidden(ident: int) -> float:
        return 1.0 - float(counts[ident]) / float(shown[ident]) if shown[ident] else 0.0

    height, width = canvas.shape[:2]
    corners = np.round(painter.px(layout.playing_corners())).astype(int)
    return Painted(
        _optics(look, canvas, rng),
        visible,
        tuple(hand_hidden(i + 1) for i in range(len(frame.checkers))),
        tuple(hand_hidden(DIE_ID_BASE + i) for i in range(len(frame.dice))),
        tuple(
            bool(0 <= x < width and 0 <= y < height and painter.ids[y, x] == HAND_ID)
            for x, y in corners
        ),
        _photo_outlines(look.camera, (painter.ids == HAND_ID).astype(np.uint8))
        if frame.hands
        else (),
    )
