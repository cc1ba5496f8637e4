"""A small learned classifier of die crops, run with onnxruntime or OpenCV (no torch at run time).

The network (`models/dice_value.onnx`, trained by `scripts/train_dice_classifier.py`, card in
`models/dice_value.md`) looks at a square colour crop round a die candidate and says which of
`CLASSES` it is: a flat die showing 1..6, a cocked die, a rolling die, or no die at all (a pip-like
spot on the board, a checker's rings, the table). A second network of the same kind, trained
on other scenes (`models/dice_value_second.onnx`), is asked too about every crop the first is
not sure holds no die, and the two answers are averaged: most of a board's candidates are
board texture the first network dismisses, so the second opinion costs a fraction of its
running on every crop. The crop is cut by `crop_die`, which the
training script uses too, so training and run time see the same geometry.

A flat die away from the point under the camera shows a side face too, as a cocked die does:
seen from the crop alone the two are alike. So each crop is turned so that the way a flat die
would lean there points down, and how far it leans (`Lean`, in die sides) is a fourth input
plane: the network is told what a flat die looks like at that spot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.onnx_net import OnnxNet, optional_net

# Output classes, in the network's order.
CLASSES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "cocked", "rolling", "none")
COCKED = 6
ROLLING = 7
NONE = 8
# The tilt reader's classes (`TiltReader`), in its network's order.
TILT_CLASSES: tuple[str, ...] = ("flat", "tilted")
# Crop side in pixels fed to the network, and the crop's side in die sides: wide enough that a
# die whose centre is misjudged by a third of a side still lies wholly inside.
CROP_PX = 48
CROP_SIDES = 1.8
# The face reader's crops (photos of dice alone): a detector's box is tight round the die, so a
# crop 1.25 sides wide holds it whole, and 64 px keeps a large die's pips apart.
FACE_CROP_PX = 64
FACE_CROP_SIDES = 1.25
# The board face reader's crops (`BoardFaceReader`): as wide, at 48 px (a die on a board is
# 15-20 px across; more pixels would only be interpolated).
BOARD_FACE_CROP_PX = 48

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "dice_value.onnx"
DEFAULT_SECOND_MODEL = DEFAULT_MODEL.with_name("dice_value_second.onnx")
DEFAULT_FACE_MODEL = DEFAULT_MODEL.with_name("dice_face.onnx")
DEFAULT_TILT_MODEL = DEFAULT_MODEL.with_name("dice_tilt.onnx")
DEFAULT_BOARD_FACE_MODEL = DEFAULT_MODEL.with_name("dice_board_face.onnx")


@dataclass(frozen=True)
class Lean:
    """How a flat die's top face shows beside its foot at one spot of the picture (the camera
    sees its side faces there): `turn_deg`, the turn that makes that direction point down in
    the crop, and `sides`, how far, in die sides. Zero for a camera straight above, and where
    the camera is not known (photos of dice alone). `scale`: a die's size there in the
    profile's mean die sides (nearer the camera, larger; 1 where the camera is not known)."""

    turn_deg: float = 0.0
    sides: float = 0.0
    scale: float = 1.0


STRAIGHT_DOWN = Lean()


def crop_die(
    image: NDArray[np.uint8],
    center: tuple[float, float],
    side_px: float,
    size_px: int = CROP_PX,
    turn_deg: float = 0.0,
) -> NDArray[np.uint8]:
    """The `size_px` square BGR crop centred on `center`, `CROP_SIDES * side_px` wide, turned
    by `turn_deg` (counter-clockwise; a `Lean`'s turn) round its centre. The shipped model takes
    `CROP_PX`; training a model for another input size cuts its own.

    Parts outside the image repeat its border. Shrinking uses area averaging (large dice in
    close photos), enlarging bilinear interpolation (15-20 px dice in a board view).
    """
    if turn_deg:
        # Cut a crop wide enough that the turned square has no empty corners, turn it, and
        # keep its middle.
        wide = math.ceil(size_px * 1.5) | 1
        crop = crop_die(image, center, side_px * wide / size_px, wide)
        middle = (wide - 1) / 2
        turn = cv2.getRotationMatrix2D((middle, middle), turn_deg, 1.0)
        turned = cv2.warpAffine(crop, turn, (wide, wide), flags=cv2.INTER_LINEAR)
        start = (wide - size_px) // 2
        return np.asarray(turned[start : start + size_px, start : start + size_px], np.uint8)
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


def crop_face(
    image: NDArray[np.uint8],
    center: tuple[float, float],
    side_px: float,
    size_px: int = FACE_CROP_PX,
    turn_deg: float = 0.0,
) -> NDArray[np.uint8]:
    """The face readers' `size_px` square BGR crop: `crop_die`'s, `FACE_CROP_SIDES * side_px`
    wide, turned by `turn_deg` (on a board, a `Lean`'s turn; `BOARD_FACE_CROP_PX` for the
    board face reader)."""
    return crop_die(image, center, side_px * FACE_CROP_SIDES / CROP_SIDES, size_px, turn_deg)


def to_blob(crops: Sequence[NDArray[np.uint8]], leans: Sequence[float]) -> NDArray[np.float32]:
    """Crops and their leans (`Lean.sides`) as the network's input: N x 4 x S x S, BGR scaled
    to 0..1 and a plane holding the lean."""
    pixels = np.stack(crops).transpose(0, 3, 1, 2)  # N x 3 x S x S, still 8-bit
    n, size = pixels.shape[0], pixels.shape[2]
    blob = np.empty((n, 4, size, size), np.float32)
    np.divide(pixels, np.float32(255.0), out=blob[:, :3], dtype=np.float32)
    blob[:, 3] = np.asarray(leans, np.float32)[:, None, None]
    return blob


def softmax_rows(logits: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row of a network's logits as probabilities."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)


def mean_of_log_probabilities(*reads: NDArray[np.float64]) -> NDArray[np.float64]:
    """Several reads' probabilities (rows) averaged as log-probabilities: the normalised
    geometric mean, which a class any read rules out does not win."""
    tiny = np.finfo(np.float64).tiny
    return softmax_rows(np.mean([np.log(np.maximum(p, tiny)) for p in reads], axis=0))


def weighted_geometric_mean(
    first: NDArray[np.float64], second: NDArray[np.float64], weight: float
) -> NDArray[np.float64]:
    """Two reads' probabilities (rows) joined as a normalised geometric mean, `second`
    weighing `weight` (0..1) and `first` the rest; a probability counts as at least 1e-9, so
    one read's near-certain "no" does not outweigh the other's near-certain "yes"."""
    logs = (1 - weight) * np.log(np.maximum(first, 1e-9)) + weight * np.log(
        np.maximum(second, 1e-9)
    )
    return softmax_rows(np.atleast_2d(logs)).reshape(np.shape(logs))


class DiceClassifier:
    """The ONNX die-crop classifier (`OnnxNet`), with an optional second
    network (`second`) asked about the crops whose first "no die" share is below
    `second_below_none`, the two answers averaged (`mean_of_log_probabilities`). `mirrored`:
    those crops are read mirrored left to right too, by both networks, and all the answers
    averaged (the crop's lean, turned to point down, stays down)."""

    def __init__(
        self,
        path: str | Path = DEFAULT_MODEL,
        second: str | Path | None = None,
        second_below_none: float = 1.0,
        mirrored: bool = False,
    ):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "dice model")
        self.second_path = None if second is None else Path(second)
        self._second = None if second is None else OnnxNet(second, "second dice model")
        self.second_below_none = second_below_none
        self.mirrored = mirrored

    def probabilities(
        self, crops: Sequence[NDArray[np.uint8]], leans: Sequence[float] | None = None
    ) -> NDArray[np.float64]:
        """Class probabilities (N x len(CLASSES)) of `crop_die` crops turned by their `Lean`s,
        whose `sides` are `leans` (none given: a camera straight above)."""
        if not crops:
            return np.zeros((0, len(CLASSES)))
        blob = to_blob(crops, [0.0] * len(crops) if leans is None else leans)
        probs = self._forward(self._net, blob)
        if self._second is None and not self.mirrored:
            return probs
        asked = np.flatnonzero(probs[:, NONE] < self.second_below_none)
        if asked.size:
            unsure = blob[asked]
            reads = [probs[asked]]
            if self._second is not None:
                reads.append(self._forward(self._second, unsure))
            if self.mirrored:
                mirror = np.ascontiguousarray(unsure[..., ::-1])
                reads.append(self._forward(self._net, mirror))
                if self._second is not None:
                    reads.append(self._forward(self._second, mirror))
            probs[asked] = mean_of_log_probabilities(*reads)
        return probs

    @staticmethod
    def _forward(net: OnnxNet, blob: NDArray[np.float32]) -> NDArray[np.float64]:
        return softmax_rows(net.run(blob).reshape(len(blob), len(CLASSES)))


def load_classifier(
    path: str = str(DEFAULT_MODEL),
    second: str = "",
    second_below_none: float = 1.0,
    mirrored: bool = False,
) -> DiceClassifier | None:
    """The classifier at `path`, with the second network at `second` when that file is there
    (empty: none), loaded once per process; None when the first file is absent (the reader
    then falls back to counting pips)."""
    return optional_net(_classifier_and_second_if_there, path, second, second_below_none, mirrored)


def _classifier_and_second_if_there(
    path: str, second: str, second_below_none: float, mirrored: bool
) -> DiceClassifier:
    """`DiceClassifier` with the second network only where its file is there: looked for once,
    with the first (`load_classifier` is asked at every read)."""
    second_there = bool(second) and Path(second).is_file()
    return DiceClassifier(path, second if second_there else None, second_below_none, mirrored)


class FaceReader:
    """The ONNX face reader for photos of dice alone (`models/dice_face.onnx`, trained by
    `scripts/train_dice_faces.py`): which of the six faces a die shows, from `crop_face` crops
    of a detector's box. It knows only faces: no cocked, rolling or "no die"."""

    def __init__(self, path: str | Path = DEFAULT_FACE_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "dice face model")

    def probabilities(self, crops: Sequence[NDArray[np.uint8]]) -> NDArray[np.float64]:
        """Face probabilities (N x 6, faces 1..6) of `crop_face` crops."""
        if not crops:
            return np.zeros((0, 6))
        batch = np.stack([np.asarray(c, np.float32) for c in crops]) / 255.0
        return softmax_rows(self._net.run(batch.transpose(0, 3, 1, 2)).reshape(len(crops), 6))


def load_face_reader(path: str = str(DEFAULT_FACE_MODEL)) -> FaceReader | None:
    """The face reader at `path`, loaded once per process; None when the file is absent (the
    crop classifier then reads the faces too)."""
    return optional_net(FaceReader, path)


class BoardFaceReader:
    """The ONNX face reader for dice on a board (`models/dice_board_face.onnx`, trained by
    `scripts/train_board_faces.py`): which of the six faces a die read flat shows, from a tight
    `crop_face` crop (`BOARD_FACE_CROP_PX`) turned by its lean, and that crop's mirror image
    (the network reads a face and its mirror image alike, not with the same mistakes). It
    knows only faces."""

    def __init__(self, path: str | Path = DEFAULT_BOARD_FACE_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "board dice face model")

    def probabilities(self, crops: Sequence[NDArray[np.uint8]]) -> NDArray[np.float64]:
        """Face probabilities (N x 6, faces 1..6) of `crop_face` crops, each the mean of
        the crop's and its mirror image's."""
        if not crops:
            return np.zeros((0, 6))
        pixels = np.stack(crops).transpose(0, 3, 1, 2)  # N x 3 x S x S, still 8-bit
        both = np.concatenate([pixels, pixels[:, :, :, ::-1]])  # and mirrored left to right
        blob = np.divide(both, np.float32(255.0), dtype=np.float32)
        probs = softmax_rows(self._net.run(blob).reshape(-1, 6))
        return (probs[: len(crops)] + probs[len(crops) :]) / 2


def load_board_face_reader(path: str = str(DEFAULT_BOARD_FACE_MODEL)) -> BoardFaceReader | None:
    """The board face reader at `path`, loaded once per process; None when the file is absent
    (the crop classifier's faces then stand)."""
    return optional_net(BoardFaceReader, path)


class TiltReader:
    """The ONNX tilt reader (`models/dice_tilt.onnx`, trained by
    `scripts/train_tilt_classifier.py`): whether a die found on a board lies flat or tilted,
    from the same `crop_die` crops and lean plane the crop classifier takes. It was trained on
    crops round dice only (about one tilted for three flat), so it is asked only about dice
    already found. Each crop is read mirrored left to right too (the lean still points down) and the
    two answers averaged."""

    def __init__(self, path: str | Path = DEFAULT_TILT_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "dice tilt model")

    def tilted(
        self, crops: Sequence[NDArray[np.uint8]], leans: Sequence[float]
    ) -> NDArray[np.float64]:
        """The probability (N,) that the die in each `crop_die` crop, turned by its `Lean`
        whose `sides` are `leans`, is tilted."""
        if not crops:
            return np.zeros(0)
        blob = to_blob(crops, leans)
        mirror = np.ascontiguousarray(blob[..., ::-1])
        reads = [
            softmax_rows(self._net.run(b).reshape(len(b), len(TILT_CLASSES)))
            for b in (blob, mirror)
        ]
        return np.asarray(mean_of_log_probabilities(*reads)[:, TILT_CLASSES.index("tilted")])


def load_tilt_reader(path: str = str(DEFAULT_TILT_MODEL)) -> TiltReader | None:
    """The tilt reader at `path`, loaded once per process; None when the file is absent (the
    crop classifier alone then says which dice are tilted)."""
    return optional_net(TiltReader, path)
