"""The board model and the canonical board frame every stage after calibration works in.

Board frame (millimetres), "as white sees the board": origin at the far-left corner of the
playing surface (both fields and the bar, inside the frame), x to the right, y toward white's
seat, so white sits along y = depth and black along y = 0. The canonical image is this frame
scaled by `px_per_mm` and shifted by margins, so the frame, the bear-off tray and some table
stay in view around the playing surface.

Points, in white's numbering (RULES.md), with white's home on the right (`home="right"`, the
default and the scene generator's layout, the bear-off tray beyond the right end): 1..6 along
white's edge in the right half from the right end to the bar, 7..12 along white's edge in the
left half from the bar outward, 13..18 along black's edge in the left half from the left end to
the bar, 19..24 along black's edge in the right half from the bar to the right end. With
`home="left"` everything is mirrored left to right.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
HomeSide = Literal["right", "left"]

POINTS = 24


@dataclasses.dataclass(frozen=True)
class BoardModel:
    """A board's measurements in millimetres (defaults: a common 52 cm wooden board).

    Only proportions matter to the reading: calibration stretches whatever board it sees onto
    this model, and the checker and die sizes are taken relative to it.
    """

    width_mm: float = 516.0
    depth_mm: float = 400.0
    bar_mm: float = 40.0
    field_margin_mm: float = 5.0
    point_length_mm: float = 165.0
    checker_mm: float = 32.0
    checker_gap_mm: float = 0.4
    checker_edge_gap_mm: float = 0.6
    checker_thick_mm: float = 8.0
    die_mm: float = 16.0
    frame_mm: float = 28.0
    tray_mm: float = 44.0
    tray_gap_mm: float = 17.0

    @property
    def point_width_mm(self) -> float:
        """Width of one triangle at its base."""
        half = (self.width_mm - self.bar_mm) / 2
        return (half - 2 * self.field_margin_mm) / 6

    @property
    def pitch_mm(self) -> float:
        """Distance between the centres of neighbouring checkers in a row."""
        return self.checker_mm + self.checker_gap_mm

    def point_frame(self, point: int, home: HomeSide = "right") -> tuple[float, float, float]:
        """(x of the point's centre line, y of its base, +1/-1 direction from base to tip)."""
        if not 1 <= point <= POINTS:
            raise ValueError(f"points are 1..24, not {point}")
        pw = self.point_width_mm
        right0 = self.width_mm / 2 + self.bar_mm / 2 + self.field_margin_mm
        left0 = self.field_margin_mm
        if point <= 6:
            x = right0 + (6 - point + 0.5) * pw
        elif point <= 12:
            x = left0 + (12 - point + 0.5) * pw
        elif point <= 18:
            x = left0 + (point - 13 + 0.5) * pw
        else:
            x = right0 + (point - 19 + 0.5) * pw
        if home == "left":
            x = self.width_mm - x
        if point <= 12:
            return x, self.depth_mm, -1.0
        return x, 0.0, 1.0

    def base_tip(self, point: int, home: HomeSide = "right") -> tuple[FloatArray, FloatArray]:
        """Board-frame base centre and tip of a point's triangle."""
        x, y, direction = self.point_frame(point, home)
        base = np.array([x, y])
        tip = np.array([x, y + direction * self.point_length_mm])
        return base, tip

    def slot(self, point: int, index: int, home: HomeSide = "right") -> FloatArray:
        """Board-frame centre of the `index`-th checker (0 at the edge) of a row on `point`."""
        x, y, direction = self.point_frame(point, home)
        offset = self.checker_mm / 2 + self.checker_edge_gap_mm + index * self.pitch_mm
        return np.array([x, y + direction * offset])

    def bar_box(self) -> tuple[float, float, float, float]:
        """The bar strip: (x0, y0, x1, y1)."""
        return (
            self.width_mm / 2 - self.bar_mm / 2,
            0.0,
            self.width_mm / 2 + self.bar_mm / 2,
            self.depth_mm,
        )

    def tray_box(self, home: HomeSide = "right") -> tuple[float, float, float, float]:
        """The bear-off tray beyond the home end: (x0, y0, x1, y1)."""
        x0 = self.width_mm + self.tray_gap_mm
        x1 = x0 + self.tray_mm
        if home == "left":
            x0, x1 = self.width_mm - x1, self.width_mm - x0
        return (x0, 0.0, x1, self.depth_mm)

    def outline_box(self, home: HomeSide = "right") -> tuple[float, float, float, float]:
        """The board's outer outline, frame and tray included: (x0, y0, x1, y1)."""
        tray = self.tray_box(home)
        x0 = min(0.0, tray[0]) - self.frame_mm
        x1 = max(self.width_mm, tray[2]) + self.frame_mm
        return (x0, -self.frame_mm, x1, self.depth_mm + self.frame_mm)

    def half_of(self, x_mm: float) -> Literal["left", "right"]:
        """The half (as white sees it) holding board x; the bar's centre line divides them."""
        return "right" if x_mm > self.width_mm / 2 else "left"


@dataclasses.dataclass(frozen=True)
class Canvas:
    """The canonical image: board frame millimetres to pixels and back."""

    model: BoardModel
    px_per_mm: float
    margin_side_mm: float
    margin_edge_mm: float

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        w = (self.model.width_mm + 2 * self.margin_side_mm) * self.px_per_mm
        h = (self.model.depth_mm + 2 * self.margin_edge_mm) * self.px_per_mm
        return round(w), round(h)

    def to_px(self, mm: FloatArray) -> FloatArray:
        """Canonical pixels of board-frame points (..., 2)."""
        offset = np.array([self.margin_side_mm, self.margin_edge_mm])
        return np.asarray((np.asarray(mm, dtype=np.float64) + offset) * self.px_per_mm)

    def to_mm(self, px: FloatArray) -> FloatArray:
        """Board-frame millimetres of canonical pixels (..., 2)."""
        offset = np.array([self.margin_side_mm, self.margin_edge_mm])
        return np.asarray(np.asarray(px, dtype=np.float64) / self.px_per_mm - offset)

    def surface_corners_px(self) -> FloatArray:
        """The playing surface's corners in canonical pixels: TL, TR, BR, BL (4, 2)."""
        w, d = self.model.width_mm, self.model.depth_mm
        return self.to_px(np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]))


def make_canvas(model: BoardModel, surface_width_px: int, side_mm: float, edge_mm: float) -> Canvas:
    """The canvas on which the playing surface is `surface_width_px` wide."""
    return Canvas(model, surface_width_px / model.width_mm, side_mm, edge_mm)


def segment_distances(
    points: NDArray[np.float64], ends: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each of `points`' (N, 2) distance from the segment between the two `ends` (2, 2)."""
    start, along = ends[0], ends[1] - ends[0]
    length2 = float(along @ along)
    t = np.clip((points - start) @ along / length2, 0.0, 1.0) if length2 else np.zeros(len(points))
    return np.asarray(np.linalg.norm(points - start - t[:, None] * along, axis=1), np.float64)
