"""Dice the pip finder cannot see: spots on the board that its points and checkers do not explain.

A rolling die is a blurred streak: its pips are smeared into lines, so the pip finder
(`referee.vision.dice`) proposes nothing there, and a still photo of a throw in flight would
read as a die missing (off the board); a die whose pips are faint (small, glared, on a busy
wood grain) is missed the same way. Seen from above, every point of one colour looks alike
when empty: the same triangle, the same neighbours. Each point's strip of the rectified board
(`board_strips`) is compared with the per-pixel median of its same-coloured siblings, leaving
out the slots where the checker reader placed checkers; die-sized blobs where it differs
(`unexplained_spots`) are spots the crop classifier then reads (`referee.vision.dice.spot_dice`):
a die caught rolling, a die at rest, or nothing (a hand, a shadow, a reflection).

Only the points' strips are searched (they cover the playing field to the middle line from
both sides); the bar, the frame and the table are not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray
from referee.vision.checker_model import (
    SLOTS,
    STRIP_MM,
    STRIP_PX,
    STRIP_START_MM,
    board_strips,
    strip_frames,
)
from referee.vision.config import DiceConfig
from referee.vision.geometry import POINTS, Canvas, HomeSide

# Lightness differs with the lighting across a board more than colour does: it counts half.
_LAB_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)
# A checker's disc left out of the comparison, as a share of its diameter (a little more:
# the reader's slot is where a checker should be, not exactly where it lies).
_CHECKER_MARGIN = 1.15
# The strips' blur before they are compared, and how far its kernel reaches (OpenCV's 8-bit
# kernel for a sigma of 1 is 7 px wide).
_BLUR_SIGMA = 1.0
_BLUR_PAD = 4


def unexplained_spots(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    covered: Sequence[int],
    config: DiceConfig,
) -> FloatArray:
    """Board-millimetre centres (N, 2) of die-sized spots where a point's strip differs from
    its same-coloured siblings, most different first (at most `spot_max_candidates`).

    `covered` says how many row slots the checkers read on each of the 24 points cover (white's
    numbering, `CheckerReading.covered_slots`); those slots are not
    compared. The siblings are the points of the same parity: points alternate colours all
    round a board (opposite points differ), and a strip 50 mm wide shows its neighbours' edges,
    which alternate alike. (Comparing each side's six alone found fewer rolling dice on the
    tuning sets: 26 of 35 against 29.)
    """
    model = canvas.model
    w, h = STRIP_PX
    px_per_mm = w / STRIP_MM[0]
    lab = _blurred_lab(board_strips(rectified, canvas, home)[:POINTS])
    # A pixel's squared distance from a slot's centre: down the strip plus across it.
    down_px = np.arange(h) + 0.5
    across_sq = (np.arange(w) + 0.5 - w / 2) ** 2
    frames = strip_frames(canvas, home)
    hidden = np.zeros((POINTS, h, w), bool)
    radius = model.checker_mm / 2 * _CHECKER_MARGIN * px_per_mm
    for p, slots in enumerate(covered):
        _, base_y, direction = frames[p]
        for k in range(min(slots, SLOTS)):
            slot_mm = direction * (model.slot(p + 1, k, home)[1] - base_y)
            slot_row = (slot_mm - STRIP_START_MM) * px_per_mm
            hidden[p] |= (down_px - slot_row)[:, None] ** 2 + across_sq[None, :] < radius**2
    difference = np.zeros((POINTS, h, w), np.float32)
    for parity in (0, 1):
        group = list(range(parity, POINTS, 2))
        weighted = (lab[group] - _median_of_seen(lab[group], hidden[group])) * _LAB_WEIGHTS
        difference[group] = np.sqrt(np.add.reduce(weighted * weighted, axis=3))
    difference[hidden] = 0.0
    die_area = (model.die_mm * px_per_mm) ** 2
    lo, hi = config.spot_area_dice
    across_mm = (np.arange(w) + 0.5) / px_per_mm - STRIP_MM[0] / 2
    along_mm = STRIP_START_MM + (np.arange(h) + 0.5) / px_per_mm
    found: list[tuple[float, float, float]] = []
    for p in range(POINTS):
        mask = (difference[p] >= config.spot_min_difference).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, centres = cv2.connectedComponentsWithStats(mask)
        x, y, direction = frames[p]
        for i in range(1, n):
            area = float(stats[i, cv2.CC_STAT_AREA])
            if not lo * die_area <= area <= hi * die_area:
                continue
            cx, cy = centres[i]
            across = float(np.interp(cx, np.arange(w), across_mm))
            along = float(np.interp(cy, np.arange(h), along_mm))
            score = float(difference[p][labels == i].mean()) * math.sqrt(area)
            # Board position of a strip pixel, as `board_strips` cut it.
            found.append((score, x - direction * across, y + direction * along))
    found.sort(key=lambda f: -f[0])
    # Strips overlap (a neighbour's edge, the other side at the middle line): a spot seen
    # twice is one.
    spots: list[tuple[float, float]] = []
    for _, mx, my in found:
        if len(spots) >= config.spot_max_candidates:
            break
        if all(math.dist((mx, my), s) > model.die_mm for s in spots):
            spots.append((mx, my))
    return np.array(spots, np.float64).reshape(-1, 2)


def _blurred_lab(strips: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The strips (n, h, w, 3) in Lab, each blurred on its own (`_BLUR_SIGMA`, OpenCV's
    default border): padded by `_BLUR_PAD` with the border OpenCV would add and blurred as
    one tall image, which gives the same pixels as one call a strip."""
    n, h, w, _ = strips.shape
    lab = cv2.cvtColor(strips.reshape(n * h, w, 3), cv2.COLOR_BGR2LAB).reshape(n, h, w, 3)
    pad = _BLUR_PAD
    padded = np.stack(
        [cv2.copyMakeBorder(s, pad, pad, pad, pad, cv2.BORDER_REFLECT_101) for s in lab]
    )
    tall = padded.reshape(n * (h + 2 * pad), w + 2 * pad, 3)
    blurred = cv2.GaussianBlur(tall, (0, 0), _BLUR_SIGMA).reshape(padded.shape)
    return blurred[:, pad:-pad, pad:-pad].astype(np.float32)


def _median_of_seen(values: NDArray[np.float32], hidden: NDArray[np.bool_]) -> FloatArray:
    """Per-pixel median (h, w, 3) of `values` (n, h, w, 3) over the strips where the pixel is
    not `hidden` (n, h, w); where every strip hides it, the median of all."""
    hidden = hidden & (~hidden).any(axis=0)
    ordered = np.sort(np.where(hidden[..., None], np.inf, values), axis=0)
    seen = (~hidden).sum(axis=0)[None, ..., None]
    # Hidden values sort last: the seen ones' middle one or two are the median.
    low = np.take_along_axis(ordered, (seen - 1) // 2, axis=0)[0]
    high = np.take_along_axis(ordered, seen // 2, axis=0)[0]
    return np.asarray((low + high) / 2, np.float64)
