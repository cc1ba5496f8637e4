"""The learned dice detectors (`referee/vision/dice_detector.py`): for photos of dice alone, and
for the dice on and around a board in a whole frame.

The letterbox, the mapping of boxes back to the photo and the merging of boxes are checked with
a stand-in network whose answer is fixed; the shipped model is checked on a drawn photo and, where
`../shared/real/dice/` is present, on real photos (skipped, saying so, where it is absent).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.vision.config import DiceConfig
from referee.vision.dice import (
    DieSeen,
    board_detector_for,
    detect_dice,
    detected_dice,
    detector_for,
    face_reader_for,
    find_dice_on_plain,
)
from referee.vision.dice_classifier import DEFAULT_FACE_MODEL, FACE_CROP_PX, FaceReader, Lean
from referee.vision.dice_detector import (
    BOARD_STATES,
    DEFAULT_DETECTOR,
    PAD_GREY,
    BoardDiceDetector,
    DiceDetector,
)
from tests.test_vision_dice_model import FixedClassifier

REAL_DICE = Path(__file__).resolve().parents[1].parent / "shared" / "real" / "dice"


class FixedNet:
    """Answers one fixed output and keeps the input it was given."""

    def __init__(self, out: np.ndarray) -> None:
        self.out = out
        self.given: np.ndarray | None = None

    def run(self, blob: np.ndarray) -> np.ndarray:
        self.given = blob
        return self.out


class FixedDetector(DiceDetector):
    def __init__(self, out: np.ndarray, input_px: int = 416) -> None:
        self.path = Path("fixed")
        self.input_px = input_px
        self.net = FixedNet(out)
        self._net = self.net  # type: ignore[assignment]


def anchors(*rows: tuple[float, float, float, float, int, float]) -> np.ndarray:
    """A network output (1 x 10 x N) with one anchor per row: cx, cy, w, h in the letterboxed
    input's pixels, the face that scores, its score."""
    out = np.zeros((1, 10, len(rows)), np.float32)
    for k, (cx, cy, w, h, face, score) in enumerate(rows):
        out[0, :4, k] = (cx, cy, w, h)
        out[0, 3 + face, k] = score
    return out


def test_boxes_map_back_to_the_photo_and_one_die_gives_one_box() -> None:
    # A 640x480 photo goes into 416x416 at scale 0.65, 52 grey rows above and below it.
    photo = np.zeros((480, 640, 3), np.uint8)
    photo[:, :] = (255, 0, 0)  # blue, in OpenCV's BGR
    detector = FixedDetector(
        anchors(
            (208, 208, 26, 26, 5, 0.9),  # a five at the photo's centre, 40 px wide
            (210, 209, 26, 27, 3, 0.6),  # the same die scored as a three: merged away
            (208, 208, 40, 40, 5, 0.7),  # a box round its sides: overlaps little, same centre
            (52, 91, 13, 13, 2, 0.1),  # too unsure to be a die
            (52, 91, 13, 13, 6, 0.5),  # a six at (80, 60), 20 px wide
        )
    )
    found = detector.detect(photo, min_score=0.25, max_overlap=0.5, min_separation=0.4)
    assert [round(d.score, 2) for d in found] == [0.9, 0.5]
    five, six = found
    assert five.center == pytest.approx((320, 240), abs=0.01)
    assert five.size == pytest.approx((40, 40), abs=0.01)
    assert six.center == pytest.approx((80, 60), abs=0.01)
    assert int(np.argmax(five.faces)) + 1 == 5 and int(np.argmax(six.faces)) + 1 == 6
    assert len(detector.detect(photo, min_score=0.25, max_overlap=0.5)) == 3  # not merged
    blob = detector.net.given
    assert blob is not None and blob.shape == (1, 3, 416, 416)
    assert blob[0, :, :52].max() == pytest.approx(PAD_GREY / 255)  # the letterbox's grey
    assert blob[0, :, 52:364].reshape(3, -1).mean(axis=1) == pytest.approx((0, 0, 1))  # RGB


def test_detected_dice_carry_the_face_that_scores_highest() -> None:
    detector = FixedDetector(anchors((208, 208, 26, 26, 4, 0.8)))
    photo = np.full((480, 640, 3), 90, np.uint8)
    (die,) = detect_dice(photo, detector, DiceConfig())  # no classifier: the detector's face
    assert die.value == 4 and die.flat
    assert die.side_px == pytest.approx(40, abs=0.01)
    assert die.confidence == pytest.approx(1.0) and sum(die.faces) == pytest.approx(1.0, abs=1e-3)


def test_no_model_file_means_the_classical_finders() -> None:
    assert detector_for(DiceConfig(detector_path="/nonexistent/dice_detector.onnx")) is None
    assert detector_for(DiceConfig(use_detector=False)) is None


def test_the_shipped_detector_loads() -> None:
    assert DEFAULT_DETECTOR.is_file()
    detector = detector_for(DiceConfig())
    assert detector is not None
    assert detector.detect(np.full((480, 640, 3), 128, np.uint8), 0.25, 0.5) == []


@pytest.mark.skipif(
    not REAL_DICE.is_dir(),
    reason=f"real dice photos not found at {REAL_DICE} (../shared/real/ beside the repo)",
)
def test_finds_and_reads_dice_in_real_photos() -> None:
    """A few photos of the d6-tray test split (never trained on): nearly every die found at its
    place and read right (dark translucent dice with dark red pips included: the crop
    classifier alone read 81 of these 94), and next to nothing found where no die is."""
    seen = right = total = false = 0
    for label in sorted((REAL_DICE / "d6-tray" / "test").glob("*.txt"))[:8]:
        photo = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
        h, w = photo.shape[:2]
        boxes = [
            (int(c) + 1, cx * w, cy * h, bw * w / 2, bh * h / 2)
            for c, cx, cy, bw, bh in (
                map(float, row.split()) for row in label.read_text().splitlines() if row.strip()
            )
        ]
        found = find_dice_on_plain(photo, DiceConfig())

        def inside(die: DieSeen, box: tuple[int, float, float, float, float]) -> bool:
            _, x, y, half_w, half_h = box
            return abs(die.center[0] - x) < half_w and abs(die.center[1] - y) < half_h

        total += len(boxes)
        seen += sum(any(inside(d, b) for d in found) for b in boxes)
        right += sum(any(d.value == b[0] and inside(d, b) for d in found) for b in boxes)
        false += sum(not any(inside(d, b) for b in boxes) for d in found)
    assert seen >= 0.97 * total
    assert right >= 0.97 * total
    assert false <= 0.05 * total


def test_a_model_exported_for_another_size_is_a_clear_error() -> None:
    detector = detector_for(DiceConfig(detector_input_px=320))
    assert detector is not None
    with pytest.raises(ValueError, match="320 px"):
        detector.detect(np.full((480, 640, 3), 128, np.uint8), 0.25, 0.5)


class FixedFaces(FaceReader):
    """A face reader that answers the same face probabilities for every crop it is given."""

    def __init__(self, faces: list[float]) -> None:
        self.faces = np.array(faces)
        self.crops: list[np.ndarray] = []

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        self.crops += crops
        return np.tile(self.faces, (len(crops), 1))


def test_the_face_reader_reads_the_face_and_the_classifier_the_tilt() -> None:
    detector = FixedDetector(anchors((208, 208, 26, 26, 4, 0.8)))  # a 40 px die; "a four"
    photo = np.full((480, 640, 3), 90, np.uint8)
    faces = FixedFaces([0.0, 0.05, 0.0, 0.05, 0.0, 0.9])
    # The classifier reads twelve crops: a two, tilted (cocked 0.6 of it).
    tilted = [0.0, 0.4, 0.0, 0.0, 0.0, 0.0, 0.6, 0.0, 0.0]
    classifier = FixedClassifier([tilted] * 12)
    (die,) = detect_dice(photo, detector, DiceConfig(), classifier, faces)
    assert die.value == 6 and not die.flat
    assert die.confidence == pytest.approx(0.9)
    assert len(faces.crops) == 4 and classifier.sizes == [12]
    assert {c.shape for c in faces.crops} == {(FACE_CROP_PX, FACE_CROP_PX, 3)}
    # Without a classifier the face reader's face, flat: nothing says otherwise.
    (die,) = detect_dice(photo, detector, DiceConfig(), None, FixedFaces([0, 0, 1.0, 0, 0, 0]))
    assert die.value == 3 and die.flat


def test_the_face_reader_is_optional() -> None:
    assert face_reader_for(DiceConfig(face_model_path="/nonexistent/dice_face.onnx")) is None
    assert face_reader_for(DiceConfig(use_face_model=False)) is None
    shipped = face_reader_for(DiceConfig())
    assert shipped is not None and shipped.path == DEFAULT_FACE_MODEL
    crops = [np.full((FACE_CROP_PX, FACE_CROP_PX, 3), grey, np.uint8) for grey in (40, 200)]
    probs = shipped.probabilities(crops)
    assert probs.shape == (2, 6) and probs.sum(axis=1) == pytest.approx([1.0, 1.0])


class FixedBoardDetector(BoardDiceDetector):
    def __init__(self, out: np.ndarray) -> None:
        self.path = Path("fixed")
        self.net = FixedNet(out)
        self._net = self.net  # type: ignore[assignment]


def board_anchors(*rows: tuple[float, float, float, float, str, float]) -> np.ndarray:
    """A board detector's output (1 x 7 x N): cx, cy, w, h in its 640x384 input's pixels, the
    state that scores and its score."""
    out = np.zeros((1, 4 + len(BOARD_STATES), len(rows)), np.float32)
    for k, (cx, cy, w, h, state, score) in enumerate(rows):
        out[0, :4, k] = (cx, cy, w, h)
        out[0, 4 + BOARD_STATES.index(state), k] = score
    return out


def test_board_boxes_map_back_to_the_frame() -> None:
    # A 1280x720 frame goes into 640x384 at scale 0.5, 12 grey rows above and below it.
    frame = np.full((720, 1280, 3), 60, np.uint8)
    detector = FixedBoardDetector(
        board_anchors(
            (320, 192, 12, 12, "flat", 0.9),  # a flat die at the frame's centre, 24 px wide
            (321, 193, 13, 12, "tilted", 0.5),  # the same die called tilted: merged away
            (100, 62, 14, 16, "tilted", 0.7),  # a cocked die at (200, 100)
            (500, 300, 12, 12, "rolling", 0.1),  # too unsure
        )
    )
    found = detector.detect(frame, min_score=0.25, max_overlap=0.5)
    assert [round(d.score, 2) for d in found] == [0.9, 0.7]
    flat, cocked = found
    assert flat.center == pytest.approx((640, 360), abs=0.01)
    assert flat.size == pytest.approx((24, 24), abs=0.01)
    assert cocked.center == pytest.approx((200, 100), abs=0.01)
    assert BOARD_STATES[int(np.argmax(cocked.faces))] == "tilted"
    blob = detector.net.given
    assert blob is not None and blob.shape == (1, 3, 384, 640)
    assert blob[0, :, :12].max() == pytest.approx(PAD_GREY / 255)


def test_board_detections_are_candidates_centred_on_the_top_face_inside_the_mask() -> None:
    frame = np.full((720, 1280, 3), 60, np.uint8)
    detector = FixedBoardDetector(
        board_anchors(
            (320, 192, 12, 12, "flat", 0.9),  # (640, 360): on the board
            (20, 22, 12, 12, "flat", 0.8),  # (40, 20): outside the board's mask
        )
    )
    mask = np.zeros((720, 1280), np.uint8)
    mask[100:700, 100:1200] = 1

    def lean(centres: Sequence[tuple[float, float]]) -> list[Lean]:
        # Top faces show below their feet.
        return [Lean(turn_deg=0.0, sides=0.4, scale=1.0)] * len(centres)

    (die,) = detected_dice(frame, 30.0, detector, DiceConfig(), mask, lean)
    # The box spans the top face and the 0.4 of a side face above it: the top face's centre
    # is 0.2 of a side (6 px) below the box's middle.
    assert die.center == pytest.approx((640, 366), abs=0.01)
    assert die.value is None and die.side_px == 30.0
    assert len(detected_dice(frame, 30.0, detector, DiceConfig())) == 2  # no mask: both


def test_no_board_detector_file_means_pip_groups_alone() -> None:
    assert board_detector_for(DiceConfig(board_detector_path="/nonexistent/x.onnx")) is None
    assert board_detector_for(DiceConfig(use_board_detector=False)) is None
