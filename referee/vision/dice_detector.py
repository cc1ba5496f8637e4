"""A learned dice detector for photos of dice alone, run as ONNX (`onnx_net`).

The network (`models/dice_detector.onnx`: YOLO11n trained from scratch by
`scripts/train_dice_detector.py`, card in `models/dice_detector.md`) takes the whole photo,
letterboxed to a square, and gives boxes with a score for each face value. It finds dice the
classical blob and pip finders miss (dice touching each other or a tray's wall, dice the colour
of the surface) and passes over what they take for dice (specks, side faces).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.onnx_net import OnnxNet, optional_net

DEFAULT_DETECTOR = Path(__file__).resolve().parents[2] / "models" / "dice_detector.onnx"
# ultralytics pads its letterbox with this grey; the network learnt to ignore it.
PAD_GREY = 114
DEFAULT_BOARD_DETECTOR = DEFAULT_DETECTOR.with_name("dice_board.onnx")
# The board detector's input (width, height): a 16:9 frame scaled to 640 wide, padded to 384.
BOARD_INPUT_PX = (640, 384)
# The board detector's classes: a die at rest lying flat, at rest not flat (cocked), in flight.
BOARD_STATES = ("flat", "tilted", "rolling")


@dataclass(frozen=True)
class DetectedDie:
    """One box: its centre and size in image pixels, the detector's score (its best face's),
    and each face's score 1..6 (independent sigmoids, not summing to one)."""

    center: tuple[float, float]
    size: tuple[float, float]
    score: float
    faces: tuple[float, ...]


def letterboxed(
    image: NDArray[np.uint8], size: tuple[int, int]
) -> tuple[NDArray[np.float32], float, int, int]:
    """`image` (BGR) scaled to fit `size` (width, height), centred on ultralytics' grey, as the
    network's input blob (RGB, 0..1); and the scale and the left and top padding that map the
    network's pixels back to the image's."""
    h, w = image.shape[:2]
    width, height = size
    scale = min(width / w, height / h)
    sw, sh = round(w * scale), round(h * scale)
    left, top = (width - sw) // 2, (height - sh) // 2
    canvas = np.full((height, width, 3), PAD_GREY, np.uint8)
    canvas[top : top + sh, left : left + sw] = cv2.resize(
        image, (sw, sh), interpolation=cv2.INTER_AREA
    )
    blob = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return blob, scale, left, top


def boxes_found(
    net: OnnxNet,
    what: str,
    image: NDArray[np.uint8],
    size: tuple[int, int],
    min_score: float,
    max_overlap: float,
) -> list[DetectedDie]:
    """The boxes that a YOLO detector (`net`, named `what` in errors) exported for inputs of
    `size` (width, height) finds in `image`, scoring at least `min_score` in their best class,
    in image pixels; boxes overlapping a better one by more than `max_overlap` (intersection
    over union, across classes: two dice cannot overlap) left out."""
    blob, scale, left, top = letterboxed(image, size)
    try:
        out = net.run(blob)[0]  # (4 + classes) x anchors
    except ValueError as exc:
        raise ValueError(f"{what} does not take a {size[0]}x{size[1]} px input") from exc
    classes = out[4:].T
    scores = classes.max(axis=1)
    keep = np.nonzero(scores >= min_score)[0]
    cx = (out[0, keep] - left) / scale
    cy = (out[1, keep] - top) / scale
    bw, bh = out[2, keep] / scale, out[3, keep] / scale
    boxes = [[x - a / 2, y - b / 2, a, b] for x, y, a, b in zip(cx, cy, bw, bh, strict=True)]
    chosen = cv2.dnn.NMSBoxes(boxes, scores[keep].tolist(), min_score, max_overlap)
    return [
        DetectedDie(
            (float(cx[i]), float(cy[i])),
            (float(bw[i]), float(bh[i])),
            float(scores[keep[i]]),
            tuple(float(f) for f in classes[keep[i]]),
        )
        for i in np.asarray(chosen, np.int64).reshape(-1)
    ]


class DiceDetector:
    """The ONNX dice detector for photos of dice alone (`OnnxNet`)."""

    def __init__(self, path: str | Path = DEFAULT_DETECTOR, input_px: int = 416):
        """`input_px`: the side of the square the network was exported for."""
        self.path = Path(path)
        self._net = OnnxNet(self.path, "dice detector")
        self.input_px = input_px

    def detect(
        self,
        image: NDArray[np.uint8],
        min_score: float,
        max_overlap: float,
        min_separation: float = 0.0,
    ) -> list[DetectedDie]:
        """Dice in `image` (BGR) scoring at least `min_score`, best first. Boxes overlapping a
        better one by more than `max_overlap` (intersection over union), or whose centre lies
        closer to a better one's than `min_separation` times the larger box's side, are the
        same die (two dice cannot overlap; one die can get a box for its top face and a larger
        one round its sides, which overlap little)."""
        found = boxes_found(
            self._net,
            f"dice detector {self.path} (DiceConfig.detector_input_px)",
            image,
            (self.input_px, self.input_px),
            min_score,
            max_overlap,
        )
        kept: list[DetectedDie] = []
        for die in sorted(found, key=lambda d: -d.score):
            if all(
                math.dist(die.center, other.center) >= min_separation * max(*die.size, *other.size)
                for other in kept
            ):
                kept.append(die)
        return kept


class BoardDiceDetector:
    """The ONNX detector of dice on and around a board in a whole camera frame (`OnnxNet`):
    `DetectedDie.faces` holds its scores for `BOARD_STATES` instead of faces."""

    def __init__(self, path: str | Path = DEFAULT_BOARD_DETECTOR):
        self.path = Path(path)
        # Asked on the calling thread once the pip groups are read (`dice.find_dice`), when the
        # checkers' worker is mostly done: on both cores (a read 162 -> 157 ms, mean, on tuning
        # set 61, against one core).
        self._net = OnnxNet(self.path, "board dice detector")

    def detect(
        self, image: NDArray[np.uint8], min_score: float, max_overlap: float
    ) -> list[DetectedDie]:
        """Dice in the frame `image` (BGR) scoring at least `min_score`, best first."""
        what = f"board dice detector {self.path}"
        found = boxes_found(self._net, what, image, BOARD_INPUT_PX, min_score, max_overlap)
        return sorted(found, key=lambda d: -d.score)


def load_detector(path: str = str(DEFAULT_DETECTOR), input_px: int = 416) -> DiceDetector | None:
    """The detector at `path`, loaded once per process; None when the file is absent (photos of
    dice alone are then read by the classical finders)."""
    return optional_net(DiceDetector, path, input_px)


def load_board_detector(path: str = str(DEFAULT_BOARD_DETECTOR)) -> BoardDiceDetector | None:
    """The board dice detector at `path`, loaded once per process; None when the file is absent
    (the pip finder and the crop classifier then find the dice alone)."""
    return optional_net(BoardDiceDetector, path)
