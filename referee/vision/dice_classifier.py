"""A small learned classifier of die crops, run with OpenCV's DNN module (no torch at run time).

The network (`models/dice_value.onnx`, trained by `scripts/train_dice_classifier.py`, card in
`models/dice_value.md`) looks at a square colour crop round a die candidate and says which of
`CLASSES` it is: a flat die showing 1..6, a cocked die, a rolling die, or no die at all (a pip-like
spot on the board, a checker's rings, the table). The crop is cut by `crop_die`, which the
training script uses too, so training and run time see the same geometry.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

# Output classes, in the network's order.
CLASSES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "cocked", "rolling", "none")
COCKED = 6
ROLLING = 7
NONE = 8
# Crop side in pixels fed to the network, and the crop's side in die sides: wide enough that a
# die whose centre is misjudged by a third of a side still lies wholly inside.
CROP_PX = 40
CROP_SIDES = 1.8

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "dice_value.onnx"


def crop_die(
    image: NDArray[np.uint8], center: tuple[float, float], side_px: float, size_px: int = CROP_PX
) -> NDArray[np.uint8]:
    """The `size_px` square BGR crop centred on `center`, `CROP_SIDES * side_px` wide (the
    shipped model takes `CROP_PX`; training a model for another input size cuts its own).

    Parts outside the image repeat its border. Shrinking uses area averaging (large dice in
    close photos), enlarging bilinear interpolation (15-20 px dice in a board view).
    """
    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    half = max(2.0, CROP_SIDES * side_px / 2)
    x0, y0 = round(center[0] - half), round(center[1] - half)
    size = max(4, round(2 * half))
    h, w = image.shape[:2]
    pad = max(0, -x0, -y0, x0 + size - w, y0 + size - h)
    if pad:
        image = np.asarray(
            cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE), dtype=np.uint8
        )
        x0, y0 = x0 + pad, y0 + pad
    roi = image[y0 : y0 + size, x0 : x0 + size]
    interpolation = cv2.INTER_AREA if size > size_px else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(roi, (size_px, size_px), interpolation=interpolation), np.uint8)


def to_blob(crops: Sequence[NDArray[np.uint8]]) -> NDArray[np.float32]:
    """Crops as the network's input: N x 3 x CROP_PX x CROP_PX, BGR scaled to 0..1."""
    batch = np.stack([np.asarray(c, np.float32) for c in crops]) / 255.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))


class DiceClassifier:
    """The ONNX die-crop classifier loaded into an OpenCV DNN net."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"dice model not found: {self.path}")
        self._net = cv2.dnn.readNetFromONNX(str(self.path))

    def probabilities(self, crops: Sequence[NDArray[np.uint8]]) -> NDArray[np.float64]:
        """Class probabilities (N x len(CLASSES)) of `crop_die` crops."""
        if not crops:
            return np.zeros((0, len(CLASSES)))
        self._net.setInput(to_blob(crops))
        logits = np.asarray(self._net.forward(), np.float64).reshape(len(crops), len(CLASSES))
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)


@functools.cache
def load_classifier(path: str = str(DEFAULT_MODEL)) -> DiceClassifier | None:
    """The classifier at `path`, loaded once per process; None when the file is absent (the
    reader then falls back to counting pips)."""
    try:
        return DiceClassifier(path)
    except FileNotFoundError:
        return None
