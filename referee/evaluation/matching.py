"""Pairing predictions with ground truth by position: points by base/tip, dice by centre."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from referee.evaluation.basics import Pixel
from referee.evaluation.reading import DieReading, PointReading
from referee.evaluation.truth import TruthDie, TruthPoint


def best_match(cost: NDArray[np.float64], max_cost: float) -> list[tuple[int, int]]:
    """(row, column) pairs, each row and column at most once: as many pairs as can be made,
    and of those pairings the one of least total cost; by row.

    Pairs costing more than `max_cost` (or infinity, meaning "not allowed") are never taken.
    Taking the cheapest pair first is not enough: two dice touching lie in each other's boxes,
    and a prediction nearest the wrong one of them took its pair and left the other unpaired.
    Solved as an assignment (the Hungarian method) where a pair not allowed costs more than all
    allowed pairs together."""
    rows, cols = cost.shape
    if rows == 0 or cols == 0:
        return []
    allowed = np.isfinite(cost) & (cost <= max_cost)
    if not allowed.any():
        return []
    # Costs shifted to start at 1, so a pair not allowed (`barred`) outweighs any full pairing.
    low = float(cost[allowed].min())
    shifted = np.where(allowed, cost - low + 1.0, 0.0)
    barred = float(shifted.sum()) * 2 + 1.0
    square = np.where(allowed, shifted, barred)
    transposed = rows > cols
    table = square.T if transposed else square
    pairs = [
        (c, r) if transposed else (r, c) for r, c in _assignment(table) if table[r, c] < barred
    ]
    return sorted(pairs)


def _assignment(cost: NDArray[np.float64]) -> list[tuple[int, int]]:
    """The least-cost assignment of every row of `cost` (rows <= columns) to its own column:
    the Hungarian method with potentials, O(rows² · columns)."""
    n, m = cost.shape
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, np.int64)  # owner[j]: the row (1-based) holding column j; 0 none
    way = np.zeros(m + 1, np.int64)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        reduced = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while owner[j0] != 0:
            used[j0] = True
            i0 = owner[j0]
            free = ~used[1:]
            here = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (here < reduced[1:])
            reduced[1:][better] = here[better]
            way[1:][better] = j0
            candidates = np.where(free, reduced[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            reduced[~used] -= delta
            j0 = j1
        while j0:
            j1 = int(way[j0])
            owner[j0] = owner[j1]
            j0 = j1
    return sorted((int(owner[j]) - 1, j - 1) for j in range(1, m + 1) if owner[j])


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
    return best_match(cost, spacing_frac * point_spacing(truth))


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
    return best_match(cost, math.inf)
