"""A learned dice detector for photos of dice alone, run as ONNX (`onnx_net`).

The network (`models/dice_detector.onnx`: YOLO11n trained from scratch by
`scripts/train_dice_detector.py`, card in `models/dice_detector.md`) takes the whole photo,
letterboxed to a square, and gives boxes with a score for each face value. It finds dice the
classical blob and pip finders miss (dice touching each other or a tray's wall, dice the colour
of the surface) and passes over what they take for dice (specks, side faces).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.onnx_net import OnnxNet

DEFAULT_DETECTOR = Path(__file__).resolve().parents[2] / "models" / "dice_detector.onnx"
# ultralytics pads its letterbox with this grey; the network learnt to ignore it.
PAD_GREY = 114


@dataclass(frozen=True)
class DetectedDie:
    """One box: its centre and size in image pixels, the detector's score (its best face's),
    and each face's score 1..6 (independent sigmoids, not summing to one)."""

    center: tuple[float, float]
    size: tuple[float, float]
    score: float
    faces: tuple[float, ...]


class DiceDetector:
    """The ONNX dice detector (`OnnxNet`)."""

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
        h, w = image.shape[:2]
        scale = self.input_px / max(h, w)
        sw, sh = round(w * scale), round(h * scale)
        left, top = (self.input_px - sw) // 2, (self.input_px - sh) // 2
        square = np.full((self.input_px, self.input_px, 3), PAD_GREY, np.uint8)
        square[top : top + sh, left : left + sw] = cv2.resize(
            image, (sw, sh), interpolation=cv2.INTER_AREA
        )
        blob = square[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        try:
            out = self._net.run(blob)[0]  # (4 + faces) x anchors
        except ValueError as exc:
            raise ValueError(
                f"dice detector {self.path} does not take a {self.input_px} px square input "
                "(DiceConfig.detector_input_px)"
            ) from exc
        faces = out[4:].T
        scores = faces.max(axis=1)
        keep = np.nonzero(scores >= min_score)[0]
        cx = (out[0, keep] - left) / scale
        cy = (out[1, keep] - top) / scale
        bw, bh = out[2, keep] / scale, out[3, keep] / scale
        boxes = [[x - a / 2, y - b / 2, a, b] for x, y, a, b in zip(cx, cy, bw, bh, strict=True)]
        chosen = cv2.dnn.NMSBoxes(boxes, scores[keep].tolist(), min_score, max_overlap)
        found = [
            DetectedDie(
                (float(cx[i]), float(cy[i])),
                (float(bw[i]), float(bh[i])),
                float(scores[keep[i]]),
                tuple(float(f) for f in faces[keep[i]]),
            )
            for i in np.asarray(chosen, np.int64).reshape(-1)
        ]
        kept: list[DetectedDie] = []
        for die in sorted(found, key=lambda d: -d.score):
            if all(
                math.dist(die.center, other.center) >= min_separation * max(*die.size, *other.size)
                for other in kept
            ):
                kept.append(die)
        return kept


@functools.cache
def load_detector(path: str = str(DEFAULT_DETECTOR), input_px: int = 416) -> DiceDetector | None:
    """The detector at `path`, loaded once per process; None when the file is absent (photos of
    dice alone are then read by the classical finders)."""
    try:
        return DiceDetector(path, input_px)
    except FileNotFoundError:
        return None
