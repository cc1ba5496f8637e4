"""Where a hand covers the board in one still picture, and which checker places it hides.

Live play compares each still scene with the last one without hands (`hands.py`) and does not
read a scene with a hand in it. A single photo (`referee read`, the harness) has nothing to
compare with, and a hand resting over the board hides the checkers under it: the strip network
reads a covered slot as empty, or as whatever the fingers look like, and `conserve` then puts
the checkers a side misses on some other point, so one hidden checker made two points wrong.
This network (`models/hand_cover.onnx`, trained by `scripts/train_hand_cover.py`, card beside
it) looks at the whole rectified board shrunk to `HAND_INPUT_PX` and gives, for every cell of
a grid half that size, the chance that a hand or an arm covers it. Where a hand covers much of
a checker place (`place_cover`), the strip network's odds there are mixed with odds that say
nothing (`hidden_share`, `uncovered`; only in part: fingers let some of a checker show, and the
network often reads a covered place right), so the 15-per-side rule puts what a side misses
where the hand is, and a covered point's colour comes from the checkers that still show.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray
from referee.vision.checker_model import BAR, HEIGHTS, SLOTS, strip_frames
from referee.vision.geometry import POINTS, Canvas, HomeSide
from referee.vision.onnx_net import OnnxNet, optional_net
from referee.vision.piles import place_feet
from referee.vision.workers import WORKER_THREADS

HAND_INPUT_PX = (232, 168)
"""The network's input (columns, rows): the rectified board (938 x 670 pixels) at a quarter."""
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "hand_cover.onnx"
# Where a place's cover is sampled: its centre and six points 0.6 of a checker's radius out.
_DISC = np.array(
    [[0.0, 0.0]] + [[0.6 * np.cos(a), 0.6 * np.sin(a)] for a in np.arange(6) * np.pi / 3]
)


def output_size() -> tuple[int, int]:
    """The cover grid's (columns, rows): half the input's."""
    return HAND_INPUT_PX[0] // 2, HAND_INPUT_PX[1] // 2


def hand_input(rectified: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The rectified board as the network sees it (rows, columns, 3)."""
    return np.asarray(cv2.resize(rectified, HAND_INPUT_PX, interpolation=cv2.INTER_AREA), np.uint8)


class HandCoverNet:
    """The network: `cover(rectified)` is the chance a hand covers each cell of the grid."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.net = OnnxNet(path, "hand cover network", threads=WORKER_THREADS)

    def cover(self, rectified: NDArray[np.uint8]) -> FloatArray:
        """(rows, columns) of `output_size`: the chance a hand covers each cell."""
        blob = hand_input(rectified).transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        logits = self.net.run(blob)[0]
        return np.asarray(0.5 * (1.0 + np.tanh((logits[1] - logits[0]) / 2)))


def load_hand_cover_net(path: str = str(DEFAULT_MODEL)) -> HandCoverNet | None:
    """The network at `path`, loaded once per process; None when the file is absent (covered
    checkers are then read as the strip network sees them)."""
    return optional_net(HandCoverNet, path)


@functools.lru_cache(maxsize=8)
def _place_samples(canvas: Canvas, home: HomeSide) -> NDArray[np.float32]:
    """Cover-grid positions (STRIPS, SLOTS, samples, 2) where each checker place is sampled:
    the points' row slots and the tray's pile places (`place_feet`), and the bar's rows
    (`BoardModel.slot`'s spacing from each bar strip's origin)."""
    model = canvas.model
    frames = strip_frames(canvas, home)
    along = model.checker_mm / 2 + model.checker_edge_gap_mm + np.arange(SLOTS) * model.pitch_mm
    bar = np.array([[(frames[s][0], frames[s][1] + frames[s][2] * a) for a in along] for s in BAR])
    places = place_feet(canvas, home)
    feet = np.concatenate([places[:POINTS], bar, places[POINTS:]])
    points = feet[:, :, None, :] + _DISC * model.checker_mm / 2
    width, height = canvas.size
    cols, rows = output_size()
    cells = canvas.to_px(points) * np.array([cols / width, rows / height]) - 0.5
    return np.ascontiguousarray(cells, dtype=np.float32)


def place_cover(cover: FloatArray, canvas: Canvas, home: HomeSide) -> FloatArray:
    """The share (STRIPS, SLOTS) of each checker place that the hand covers, from the grid
    `cover` (`HandCoverNet.cover`)."""
    cells = _place_samples(canvas, home)
    shape = cells.shape[:3]
    sampled = cv2.remap(
        np.asarray(cover, np.float32),
        cells[..., 0].reshape(-1, shape[2]),
        cells[..., 1].reshape(-1, shape[2]),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(np.asarray(sampled, np.float64).reshape(shape).mean(axis=2))


def hidden_share(cover: FloatArray, start: float, most: float) -> FloatArray:
    """How much of what the strip network says at each place to doubt: none where less than
    `start` of the place is covered, `most` where all of it is, in proportion between."""
    return most * np.clip((np.asarray(cover) - start) / (1.0 - start), 0.0, 1.0)


def uncovered(heights: FloatArray, hidden: FloatArray) -> FloatArray:
    """Slot heights (STRIPS, SLOTS, HEIGHTS) with each place's odds mixed, by its `hidden`
    share, with odds that say nothing (every height alike)."""
    share = np.asarray(hidden)[..., None]
    return np.asarray(heights * (1.0 - share) + share / HEIGHTS)
