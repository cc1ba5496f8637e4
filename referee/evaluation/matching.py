"""Pairing predictions with ground truth by position: points by base/tip, dice by centre."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from referee.evaluation.basics import Pixel
from referee.evaluation.reading import DieReading, PointReading
from referee.evaluation.truth import TruthDie, TruthPoint


def greedy_match(cost: NDArray[np.float64], max_cost: float) -> list[tuple[int, int]]:
    """(row, column) pairs taken cheapest first, each row and column at most once.

    Pairs costing more than `max_cost` (or infinity, meaning "not allowed") are never taken.
    With the thresholds used here a prediction is within reach of one truth only, so the greedy
    choice equals the optimal assignment and no Hungarian solver is needed.
    """
    pairs: list[tuple[int, int]] = []
    if cost.size == 0:
        return pairs
    order = np.argsort(cost, axis=None, kind="stable")
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    for flat in order:
        r, c = divmod(int(flat), cost.shape[1])
        value = float(cost[r, c])
        # argsort puts inf and nan last, so the first pair out of reach ends the search.
        if not (math.isfinite(value) and value <= max_cost):
            break
        if r in used_rows or c in used_cols:
            continue
        pairs.append((r, c))
        used_rows.add(r)
        used_cols.add(c)
    return pairs


def distance(a: Pixel, b: Pixel) -> float:
    """Euclidean distance between two pixels."""
    return math.hypot(a[0] - b[0], a[1] - b[1])


def point_spacing(points: Sequence[TruthPoint]) -> float:
    """Typical distance between neighbouring points: median over points of the nearest base."""
    nearest = [min(distance(p.base, q.base) for q in points if q is not p) for p in points]
    return float(np.median(nearest))


def match_points(
    truth: Sequence[TruthPoint], predicted: Sequence[PointReading], spacing_frac: float
) -> list[tuple[int, int]]:
    """(truth index, predicted index) pairs; cost is the mean of base and tip distances."""
    cost = np.array(
        [
            [(distance(t.base, p.base) + distance(t.tip, p.tip)) / 2 for p in predicted]
            for t in truth
        ],
        dtype=np.float64,
    ).reshape(len(truth), len(predicted))
    return greedy_match(cost, spacing_frac * point_spacing(truth))


def match_dice(
    truth: Sequence[TruthDie], predicted: Sequence[DieReading], margin_frac: float
) -> list[tuple[int, int]]:
    """(truth index, predicted index) pairs: a predicted centre must lie in the truth's box."""
    cost = np.array(
        [
            [
                distance(t.center, p.center) if t.box.contains(p.center, margin_frac) else math.inf
                for p in predicted
            ]
            for t in truth
        ],
        dtype=np.float64,
    ).reshape(len(truth), len(predicted))
    return greedy_match(cost, math.inf)
