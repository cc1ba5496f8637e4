"""A small learned reader of the checkers in one strip of the board, run as ONNX (`onnx_net`).

The network (`models/checker_strip.onnx`, trained by `scripts/train_checker_strips.py`, card in
`models/checker_strip.md`) looks at one strip cut from the rectified board (`board_strips`):
`STRIP_MM` wide, base at the top. The 24 points' strips run from just outside the board's edge
to the middle line; then come the bar's two halves (white's and black's, from the middle
outward) and the bear-off tray's two compartments (white's and black's, from the board's edge
inward). For each of the `SLOTS` places along a strip where checkers are set (a point's row,
`BoardModel.slot`; a bar row; a tray's piles) it says how many stand there, 0 to 5
(further layers lie on the first). Training and run time cut strips with the same code.

`count_loglik` turns those per-slot heights into the log-likelihood of every count, assuming
checkers are set as players set them: on a point a row from the edge, `row` long (`ROWS`),
then a second layer on it from the edge, then a third; on the bar rows of `BAR_ROW`; in the
tray piles of `TRAY_PILE` from the edge.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray
from referee.vision.geometry import POINTS, Canvas, HomeSide
from referee.vision.onnx_net import OnnxNet, bgr_blob, optional_net
from referee.vision.workers import WORKER_THREADS

SLOTS = 7
"""Slots the network reads per point (a row runs on to at most 7 before the middle)."""
HEIGHTS = 6
"""Per-slot classes: 0..5 checkers stacked there (a borne-off pile is five high)."""
MAX_COUNT = 15
STRIP_MM = (50.0, 220.0)
"""Strip size in board millimetres: across the point, along it."""
STRIP_START_MM = -10.0
"""Where the strip starts along the point, from the board's edge (negative: outside it)."""
STRIP_PX = (40, 176)
"""Network input size (width, height) in pixels: 0.8 px per board millimetre."""
ROWS = (5, 6, 7)
"""Row lengths players use before starting a second layer."""
BAR_ROW = 3
TRAY_PILE = 5
STRIPS = POINTS + 4
"""Strips per board: 24 points, then the bar (white's, black's) and the tray (white's, black's)."""
BAR = (POINTS, POINTS + 1)
TRAY = (POINTS + 2, POINTS + 3)

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "checker_strip.onnx"


def strip_frames(canvas: Canvas, home: HomeSide) -> list[tuple[float, float, float]]:
    """Each strip's origin (board mm) and direction along y (+1 or -1): the place a row's
    first checker is measured from, as `BoardModel.slot` measures a point's."""
    model = canvas.model
    d = model.checker_mm
    frames = [model.point_frame(p, home) for p in range(1, POINTS + 1)]
    first = d / 2 + model.checker_edge_gap_mm
    middle, centre = model.depth_mm / 2, model.width_mm / 2
    # Bar checkers: the first 0.6 d from the middle line, white's toward white's side.
    frames.append((centre, middle + 0.6 * d - first, 1.0))
    frames.append((centre, middle - 0.6 * d + first, -1.0))
    x0, _, x1, _ = model.tray_box(home)
    # Tray piles: the first d/2 + 2 mm from the compartment's end wall.
    frames.append(((x0 + x1) / 2, model.depth_mm - 2 + model.checker_edge_gap_mm, -1.0))
    frames.append(((x0 + x1) / 2, 2 - model.checker_edge_gap_mm, 1.0))
    return frames


@functools.lru_cache(maxsize=8)
def _strip_maps(canvas: Canvas, home: HomeSide) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Remap tables (24 * height, width) from strip pixels to rectified-canvas pixels."""
    w, h = STRIP_PX
    u = (np.arange(w) + 0.5) / w * STRIP_MM[0] - STRIP_MM[0] / 2
    v = STRIP_START_MM + (np.arange(h) + 0.5) / h * STRIP_MM[1]
    maps_x, maps_y = [], []
    for x, y, direction in strip_frames(canvas, home):
        # Looking from the base toward the tip; across runs to the viewer's right.
        xx = x - direction * u[None, :] + 0 * v[:, None]
        yy = y + direction * v[:, None] + 0 * u[None, :]
        px = canvas.to_px(np.stack([xx, yy], axis=-1))
        maps_x.append(px[..., 0])
        maps_y.append(px[..., 1])
    return (
        np.ascontiguousarray(np.concatenate(maps_x), dtype=np.float32),
        np.ascontiguousarray(np.concatenate(maps_y), dtype=np.float32),
    )


def board_strips(rectified: NDArray[np.uint8], canvas: Canvas, home: HomeSide) -> NDArray[np.uint8]:
    """The board's strips (STRIPS, height, width, 3): points in white's numbering, bar, tray."""
    mx, my = _strip_maps(canvas, home)
    # Shrinking from ~1.24 to 0.8 px/mm: blur a little first so the sampling does not alias.
    smooth = cv2.GaussianBlur(rectified, (3, 3), 0.6)
    out = cv2.remap(smooth, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    w, h = STRIP_PX
    return np.asarray(out, dtype=np.uint8).reshape(STRIPS, h, w, 3)


def layer_heights(count: int, row: int, slots: int = SLOTS) -> NDArray[np.int64]:
    """How many checkers stand at each slot when `count` are set with rows `row` long."""
    index = np.arange(count)
    heights = np.bincount(index % row, minlength=max(slots, row))[:slots]
    return np.minimum(heights, HEIGHTS - 1).astype(np.int64)


def pile_heights(count: int, pile: int = TRAY_PILE, slots: int = SLOTS) -> NDArray[np.int64]:
    """How many checkers stand at each slot when `count` are piled `pile` high from slot 0."""
    full = np.clip(count - pile * np.arange(slots), 0, pile)
    return np.minimum(full, HEIGHTS - 1).astype(np.int64)


@functools.cache
def _height_table(kind: str) -> NDArray[np.int64]:
    """(ways, MAX_COUNT + 1, SLOTS) slot heights of every count, each way of setting them."""
    counts = range(MAX_COUNT + 1)
    if kind == "bar":
        return np.array([[layer_heights(n, BAR_ROW) for n in counts]])
    if kind == "tray":
        return np.array([[pile_heights(n) for n in counts]])
    return np.array([[layer_heights(n, r) for n in counts] for r in ROWS])


def boost_layers(heights: FloatArray, log_odds: float) -> FloatArray:
    """Per-slot height probabilities (N, SLOTS, HEIGHTS) with the odds of a second or higher
    layer against none or one raised by `log_odds` (the network under-calls layers)."""
    boost = np.ones(heights.shape[2])
    boost[2:] = math.exp(log_odds)
    boosted = heights * boost
    return np.asarray(boosted / boosted.sum(axis=2, keepdims=True))


def _way_loglik(heights: FloatArray, kind: str) -> FloatArray:
    """Log-likelihood (N, ways, MAX_COUNT + 1) of each count set each way (`_height_table`)."""
    logp = np.log(np.clip(heights, 1e-6, 1.0))
    table = _height_table(kind)  # (R, C, S)
    slots = np.arange(SLOTS)
    # ll[n, r, c] = sum over slots of logp[n, s, table[r, c, s]]
    picked = logp[:, slots[None, None, :], table]  # (N, R, C, S)
    return np.asarray(picked.sum(axis=-1))


def count_loglik(heights: FloatArray, kind: str = "point") -> FloatArray:
    """Log-likelihood (N, MAX_COUNT + 1) of each count from per-slot height probabilities
    (N, SLOTS, HEIGHTS) of strips of one `kind` ("point", "bar", "tray"), the likeliest way of
    setting them taken for each count."""
    return np.asarray(_way_loglik(heights, kind).max(axis=1))


def count_loglik_with_rows(heights: FloatArray) -> tuple[FloatArray, NDArray[np.int64]]:
    """For point strips' per-slot height probabilities (N, SLOTS, HEIGHTS): each count's
    log-likelihood (N, MAX_COUNT + 1), as `count_loglik` gives it, and the row length
    (`ROWS`) of the likeliest way of setting that many (N, MAX_COUNT + 1), from one pass over
    the ways."""
    ways = _way_loglik(heights, "point")
    rows = np.asarray(ROWS, np.int64)[ways.argmax(axis=1)]
    return np.asarray(ways.max(axis=1)), np.asarray(rows, np.int64)


class CheckerNet:
    """The ONNX strip network (`OnnxNet`)."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "checker model", threads=WORKER_THREADS)

    def heights(self, strips: NDArray[np.uint8]) -> FloatArray:
        """Per-slot height probabilities (N, SLOTS, HEIGHTS) of `board_strips` strips."""
        logits = self._net.run(bgr_blob(strips)).reshape(len(strips), SLOTS, HEIGHTS)
        logits -= logits.max(axis=2, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=2, keepdims=True))


def load_checker_net(path: str = str(DEFAULT_MODEL)) -> CheckerNet | None:
    """The network at `path`, loaded once per process; None when the file is absent (the
    reader then falls back to the classical slot measurements)."""
    return optional_net(CheckerNet, path)
