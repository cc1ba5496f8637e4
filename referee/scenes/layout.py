"""The physical board in millimetres: where every point, wall, tray and checker slot is.

World frame: origin at the middle of the playing surface on the bar's centre line, x to the right
and y away from white's seat (white sits at the near edge, y < 0; black at the far edge), z up;
the playing surface is z = 0 and the table z = -floor.

White's points run 1..6 along the near edge in the right half from right to left, 7..12 along the
near edge in the left half from the bar outward, 13..18 along the far edge in the left half from
the left end to the bar, 19..24 along the far edge in the right half from the bar to the right end;
white therefore travels counter-clockwise seen from above. The bar divides the halves; the
bear-off tray is at the right end, white's compartment near, black's far.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Color = Literal["white", "black"]


@dataclasses.dataclass(frozen=True)
class BoardDims:
    """A board's measurements (mm); each board style has one set."""

    checker_diameter: float
    checker_thickness: float
    point_width: float
    point_length: float
    field_depth: float
    field_margin: float
    bar_width: float
    frame_width: float
    rim_height: float
    floor: float
    tray_width: float


@dataclasses.dataclass(frozen=True)
class Block:
    """A raised part of the frame (rim, bar, tray wall): a box from z = 0 to the rim height."""

    name: str
    x0: float
    x1: float
    y0: float
    y1: float

    def top(self, z: float) -> FloatArray:
        """The top face's corners, counter-clockwise from above."""
        return np.array(
            [
                [self.x0, self.y0, z],
                [self.x1, self.y0, z],
                [self.x1, self.y1, z],
                [self.x0, self.y1, z],
            ]
        )


@dataclasses.dataclass(frozen=True)
class Region:
    """A sunken floor area at z = 0 where checkers and dice lie: a field half or a tray half."""

    name: str
    x0: float
    x1: float
    y0: float
    y1: float

    def corners(self, z: float = 0.0) -> FloatArray:
        """The region's floor corners at height z, counter-clockwise from above."""
        return np.array(
            [
                [self.x0, self.y0, z],
                [self.x1, self.y0, z],
                [self.x1, self.y1, z],
                [self.x0, self.y1, z],
            ]
        )

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """True when (x, y) lies inside the region, `margin` mm clear of its walls."""
        return (
            self.x0 + margin <= x <= self.x1 - margin and self.y0 + margin <= y <= self.y1 - margin
        )

    @property
    def center(self) -> tuple[float, float]:
        """The middle of the region, (x, y)."""
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)


@dataclasses.dataclass(frozen=True)
class Wall:
    """The vertical face where a region meets a frame block; `normal` points into the region."""

    region: str
    block: str
    a: tuple[float, float]
    b: tuple[float, float]
    normal: tuple[float, float]


class BoardLayout:
    """All positions on one board, derived from its `BoardDims`."""

    def __init__(self, dims: BoardDims) -> None:
        self.dims = dims
        d = dims
        half_width = 6 * d.point_width + 2 * d.field_margin
        self.half_width = half_width
        self.left_x = -d.bar_width / 2 - half_width
        self.right_x = d.bar_width / 2 + half_width
        self.tray_x0 = self.right_x + d.frame_width * 0.6
        self.tray_x1 = self.tray_x0 + d.tray_width
        self.y0 = -d.field_depth / 2
        self.y1 = d.field_depth / 2
        self.outer = (
            self.left_x - d.frame_width,
            self.tray_x1 + d.frame_width,
            self.y0 - d.frame_width,
            self.y1 + d.frame_width,
        )
        divider = d.frame_width * 0.3
        self.regions = {
            "left": Region("left", self.left_x, -d.bar_width / 2, self.y0, self.y1),
            "right": Region("right", d.bar_width / 2, self.right_x, self.y0, self.y1),
            "tray_white": Region("tray_white", self.tray_x0, self.tray_x1, self.y0, -divider / 2),
            "tray_black": Region("tray_black", self.tray_x0, self.tray_x1, divider / 2, self.y1),
        }
        ox0, ox1, oy0, oy1 = self.outer
        self.blocks = {
            "near": Block("near", ox0, ox1, oy0, self.y0),
            "far": Block("far", ox0, ox1, self.y1, oy1),
            "left_rim": Block("left_rim", ox0, self.left_x, self.y0, self.y1),
            "bar": Block("bar", -d.bar_width / 2, d.bar_width / 2, self.y0, self.y1),
            "separator": Block("separator", self.right_x, self.tray_x0, self.y0, self.y1),
            "right_rim": Block("right_rim", self.tray_x1, ox1, self.y0, self.y1),
            "divider": Block("divider", self.tray_x0, self.tray_x1, -divider / 2, divider / 2),
        }
        self.walls = self._walls()

    def _walls(self) -> list[Wall]:
        """Every sunken region's four walls, each with the frame block behind it."""
        walls: list[Wall] = []
        sides = {
            "left": ("left_rim", "bar"),
            "right": ("bar", "separator"),
            "tray_white": ("separator", "right_rim"),
            "tray_black": ("separator", "right_rim"),
        }
        for name, region in self.regions.items():
            left_block, right_block = sides[name]
            near_block = "divider" if name == "tray_black" else "near"
            far_block = "divider" if name == "tray_white" else "far"
            r = region
            walls += [
                Wall(name, near_block, (r.x0, r.y0), (r.x1, r.y0), (0.0, 1.0)),
                Wall(name, far_block, (r.x1, r.y1), (r.x0, r.y1), (0.0, -1.0)),
                Wall(name, left_block, (r.x0, r.y1), (r.x0, r.y0), (1.0, 0.0)),
                Wall(name, right_block, (r.x1, r.y0), (r.x1, r.y1), (-1.0, 0.0)),
            ]
        return walls

    # --- points -------------------------------------------------------------------------------

    def point_frame(self, point: int) -> tuple[float, float, float]:
        """(x of the point's centre line, y of its base at the edge, direction to the middle)."""
        if not 1 <= point <= 24:
            raise ValueError(f"points are 1..24, not {point}")
        d = self.dims
        if point <= 6:
            x0, column = d.bar_width / 2 + d.field_margin, 6 - point
        elif point <= 12:
            x0, column = self.left_x + d.field_margin, 12 - point
        elif point <= 18:
            x0, column = self.left_x + d.field_margin, point - 13
        else:
            x0, column = d.bar_width / 2 + d.field_margin, point - 19
        x = x0 + (column + 0.5) * d.point_width
        if point <= 12:
            return x, self.y0, 1.0
        return x, self.y1, -1.0

    def point_triangle(self, point: int, z: float = 0.0) -> FloatArray:
        """The point's triangle: base left, base right (in x order), tip."""
        x, y, direction = self.point_frame(point)
        w = self.dims.point_width / 2
        tip = y + direction * self.dims.point_length
        return np.array([[x - w, y, z], [x + w, y, z], [x, tip, z]])

    def point_region(self, point: int) -> str:
        """The field half ('left'/'right', in board x) holding white's point `point`."""
        return "right" if point <= 6 or point >= 19 else "left"

    # --- checker slots ------------------------------------------------------------------------

    def row_slot(self, point: int, index: int) -> tuple[float, float]:
        """Board (x, y) of the `index`-th checker (0 = at the edge) of a row on `point`."""
        x, y, direction = self.point_frame(point)
        d = self.dims.checker_diameter
        gap = 0.4  # players leave a hair's breadth between checkers in a row
        return x, y + direction * (d / 2 + 0.6 + index * (d + gap))

    def bar_slot(self, color: Color, index: int) -> tuple[float, float]:
        """Board (x, y) of a hit checker on the bar: white's toward the near side, black's far."""
        d = self.dims.checker_diameter
        sign = -1.0 if color == "white" else 1.0
        return 0.0, sign * (d * 0.6 + index * (d + 0.4))

    def tray_slot(self, color: Color, pile: int) -> tuple[float, float]:
        """Board (x, y) of pile `pile` of borne-off checkers in `color`'s tray compartment."""
        region = self.regions["tray_white" if color == "white" else "tray_black"]
        d = self.dims.checker_diameter
        x = (region.x0 + region.x1) / 2
        if color == "white":
            return x, region.y0 + d / 2 + 2 + pile * (d + 1)
        return x, region.y1 - d / 2 - 2 - pile * (d + 1)

    def region_of(self, x: float, y: float) -> str | None:
        """The sunken region containing board point (x, y), or None (on the frame or off board)."""
        for name, region in self.regions.items():
            if region.contains(x, y):
                return name
        return None

    def on_board(self, x: float, y: float) -> bool:
        """True when (x, y) lies within the board's outer outline."""
        ox0, ox1, oy0, oy1 = self.outer
        return ox0 <= x <= ox1 and oy0 <= y <= oy1

    def playing_corners(self) -> FloatArray:
        """The playing surface's outer corners (both field halves and the bar between), z = 0:
        near-left, near-right, far-right, far-left."""
        return np.array(
            [
                [self.left_x, self.y0, 0.0],
                [self.right_x, self.y0, 0.0],
                [self.right_x, self.y1, 0.0],
                [self.left_x, self.y1, 0.0],
            ]
        )

    def outline(self, z: float) -> FloatArray:
        """The board's outer outline at height z (near-left, near-right, far-right, far-left)."""
        ox0, ox1, oy0, oy1 = self.outer
        return np.array([[ox0, oy0, z], [ox1, oy0, z], [ox1, oy1, z], [ox0, oy1, z]])
