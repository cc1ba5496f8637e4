"""Where the checkers of a position stand: rows from the board edge, layers, bar and trays."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from referee.rules import variant_from_name
from referee.scenes.config import CheckerConfig
from referee.scenes.layout import BoardLayout, Color

FloatArray = NDArray[np.float64]
Place = int | Literal["bar", "off"]


@dataclasses.dataclass(frozen=True)
class CheckerItem:
    """One checker on the table: its colour, where it counts (white's point number, "bar" or
    "off"), its layer (1 = lying on the board, 2 = on top of one, ...), its bottom centre."""

    color: Color
    place: Place
    layer: int
    base: FloatArray
    region: str


def point_counts(position: dict[str, Any]) -> list[tuple[int, Color, int]]:
    """(white's point number, colour, count) for every occupied point of a position dict."""
    variant = variant_from_name(position["variant"])
    counts: list[tuple[int, Color, int]] = []
    for point in range(1, 25):
        white = position["white"][point - 1]
        black = position["black"][variant.opponent_point(point) - 1]
        if white:
            counts.append((point, "white", white))
        if black:
            counts.append((point, "black", black))
    return counts


def _row_capacity(layout: BoardLayout) -> int:
    """Checkers that fit in a row from the edge without crossing the board's middle line."""
    d = layout.dims.checker_diameter
    return max(1, math.floor((layout.dims.field_depth / 2 - 2) / (d + 0.4)))


def _jitter(seed: int, key: tuple[int, ...], count: int, sigma: FloatArray) -> FloatArray:
    """Small, repeatable placement errors (count, 3) for the checkers of the place named by
    `key`: checker k's error depends only on k, not on how many stand there."""
    rng = np.random.default_rng((seed, *key))
    errors = np.zeros((count, 3))
    errors[:, :2] = rng.normal(0.0, 1.0, (count, 2)) * sigma[:, None]
    return errors


def place_checkers(
    layout: BoardLayout,
    position: dict[str, Any],
    config: CheckerConfig,
    run_on: bool,
    jitter_seed: int,
) -> list[CheckerItem]:
    """Every checker of `position`, placed as a player would set them down.

    A point's checkers form a row from the edge toward the middle; once `row_length` are down,
    either the row runs on (`run_on`, up to `max_run` and the middle line) or the next checkers
    start a second layer on the first, then a third.
    """
    thickness = layout.dims.checker_thickness
    row = config.row_length
    if run_on:
        row = min(config.max_run, _row_capacity(layout))
    items: list[CheckerItem] = []
    for point, color, count in point_counts(position):
        region = layout.point_region(point)
        layers, slots = np.divmod(np.arange(count), row)
        errors = _jitter(jitter_seed, (point,), count, config.jitter_mm / (1 + layers))
        for index in range(count):
            layer, slot = int(layers[index]), int(slots[index])
            x, y = layout.row_slot(point, slot)
            base = np.array([x, y, layer * thickness]) + errors[index]
            items.append(CheckerItem(color, point, layer + 1, base, region))
    sides: tuple[Color, Color] = ("white", "black")
    for side_index, color in enumerate(sides):
        on_bar = position["bar"][color]
        errors = _jitter(
            jitter_seed, (25, side_index), on_bar, np.full(on_bar, config.jitter_mm / 2)
        )
        for index in range(on_bar):
            layer, slot = divmod(index, 3)
            x, y = layout.bar_slot(color, slot)
            base = np.array([x, y, layout.dims.rim_height + layer * thickness]) + errors[index]
            items.append(CheckerItem(color, "bar", layer + 1, base, "bar"))
        off = position["off"][color]
        errors = _jitter(jitter_seed, (0, side_index), off, np.full(off, config.jitter_mm / 2))
        for index in range(off):
            pile, layer = divmod(index, config.tray_pile)
            x, y = layout.tray_slot(color, pile)
            base = np.array([x, y, layer * thickness]) + errors[index]
            items.append(CheckerItem(color, "off", layer + 1, base, f"tray_{color}"))
    return items
