"""Tunable thresholds of the evaluation harness, gathered in one frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvalConfig:
    """Every number the harness judges with; the defaults are what `referee eval` uses.

    Attributes:
        point_match_spacing_frac: a predicted point is matched to a ground-truth point only when
            its base/tip lie, on average, within this fraction of the typical spacing between
            neighbouring ground-truth points. Half a spacing means a prediction can never be
            closer to a neighbour than to the point it is matched with.
        die_box_margin_frac: a predicted die matches a ground-truth die when its centre lies
            inside the ground-truth box grown by this fraction of the box's size on every side.
            Zero is the plain "centre inside the box" rule used for the YOLO photos.
        corner_tolerance_frac: a board corner counts as "within tolerance" when its error is at
            most this fraction of the board's width in pixels (1 % by the issue's definition).
        count_error_histogram_max: the last bin of the per-point count-error histogram collects
            this error and everything above it.
    """

    point_match_spacing_frac: float = 0.5
    die_box_margin_frac: float = 0.0
    corner_tolerance_frac: float = 0.01
    count_error_histogram_max: int = 5
