"""The board face reader (`models/dice_board_face.onnx`): which face a die read flat on a board
shows, from a tight crop of it, combined with the crop classifier's faces.

The combining is checked with a stand-in reader whose answer is fixed; the shipped model on
dice the generator renders here (seed 2 of the touching-dice config, which no training, tuning
or measuring set uses). The floor is a regression guard under the figures in
`models/dice_board_face.md`, not a target.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision.checker_truth import label_profile
from referee.vision.config import DiceConfig
from referee.vision.dice import DieSeen, board_face_reader_for, board_faces_read
from referee.vision.dice_classifier import (
    BOARD_FACE_CROP_PX,
    DEFAULT_BOARD_FACE_MODEL,
    BoardFaceReader,
    Lean,
)
from referee.vision.pipeline import die_lean

ROOT = Path(__file__).resolve().parents[1]


class FixedFaces(BoardFaceReader):
    """A stand-in that reads every crop as `faces` (or the k-th of each die's grid of crops
    as `faces_at[k]` where given) and keeps the crops."""

    def __init__(self, faces: Sequence[float], faces_at: dict[int, Sequence[float]] | None = None):
        self.faces = np.asarray(faces, np.float64)
        self.faces_at = faces_at or {}
        self.crops: list[np.ndarray] = []

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        self.crops += crops
        out = np.tile(self.faces, (len(crops), 1))
        for k, faces in self.faces_at.items():
            out[k::GRID] = faces
        return out


GRID = 9  # the default grid: 3 x 3 crops round a die's centre, 0.2 die sides apart


def test_the_faces_of_reader_and_classifier_are_combined() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    # The classifier leans to a four, the reader to a five.
    classifier = (0.0, 0.0, 0.1, 0.5, 0.4, 0.0)
    flat = DieSeen((100.0, 100.0), 4, (), 20.0, True, 0.9, 0.5, classifier)
    reader = FixedFaces([0.0, 0.0, 0.0, 0.2, 0.8, 0.0])
    (die,) = board_faces_read(image, [flat], reader, DiceConfig())
    # Geometric mean: sqrt(0.5 * 0.2) = 0.32 for four, sqrt(0.4 * 0.8) = 0.57 for five.
    assert die.value == 5
    assert die.confidence == pytest.approx(0.566 / (0.566 + 0.316), abs=0.01)
    assert sum(die.faces) == pytest.approx(1.0, abs=1e-3)
    assert len(reader.crops) == GRID
    assert {c.shape for c in reader.crops} == {(BOARD_FACE_CROP_PX, BOARD_FACE_CROP_PX, 3)}
    # With no share the classifier's face stands.
    (die,) = board_faces_read(image, [flat], reader, DiceConfig(board_face_weight=0.0))
    assert die.value == 4


def test_the_surest_crop_round_the_centre_speaks() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    flat = DieSeen((100.0, 100.0), 4, (), 20.0, True, 0.9, 0.5, (0, 0, 0, 0.5, 0.5, 0))
    # The centre's crop (the fifth of the grid) is unsure between four and five; the crop to
    # the right of it, nearer the die's middle, is sure of a five.
    reader = FixedFaces([0, 0, 0, 0.55, 0.45, 0], {5: [0, 0, 0, 0.05, 0.95, 0]})
    (die,) = board_faces_read(image, [flat], reader, DiceConfig(board_face_weight=1.0))
    assert die.value == 5 and die.confidence == pytest.approx(0.95)
    # Its centre's crop alone: a four.
    alone = DiceConfig(board_face_weight=1.0, board_face_reach=0.0)
    reader = FixedFaces([0, 0, 0, 0.55, 0.45, 0])
    (die,) = board_faces_read(image, [flat], reader, alone)
    assert die.value == 4 and len(reader.crops) == 1


def test_only_dice_read_flat_are_read_again() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    tilted = DieSeen((100.0, 100.0), 4, (), 20.0, False, 0.9, 0.5, (0, 0, 0, 1.0, 0, 0))
    rolling = DieSeen((200.0, 100.0), None, (), 20.0, False, 0.9, rolling=True)
    counted = DieSeen((150.0, 100.0), 3, (), 20.0, True, 0.9)  # the pip counter: no faces
    reader = FixedFaces([1.0, 0, 0, 0, 0, 0])
    dice = [tilted, rolling, counted]
    assert board_faces_read(image, dice, reader, DiceConfig()) == dice
    assert reader.crops == []
    # A die unmoved since an earlier scene keeps the face read then.
    settled = DieSeen(
        (100.0, 100.0), 4, (), 20.0, True, 0.9, 0.5, (0, 0, 0, 1.0, 0, 0), unmoved=True
    )
    assert board_faces_read(image, [settled], reader, DiceConfig()) == [settled]
    assert reader.crops == []


def test_the_crop_is_turned_by_the_lean() -> None:
    # A white bar below the centre, the way a leaning die's side shows; turned half a turn by
    # the lean it shows above.
    image = np.zeros((200, 200, 3), np.uint8)
    image[105:112, 90:110] = 255
    flat = DieSeen((100.0, 100.0), 1, (), 20.0, True, 0.9, 0.5, (1.0, 0, 0, 0, 0, 0))
    for turn, bright_top in ((0.0, False), (180.0, True)):
        reader = FixedFaces([1.0, 0, 0, 0, 0, 0])
        centre_only = DiceConfig(board_face_reach=0.0)
        board_faces_read(image, [flat], reader, centre_only, lambda c, t=turn: [Lean(t, 0.3)])
        (crop,) = reader.crops
        half = BOARD_FACE_CROP_PX // 2
        assert (crop[:half].mean() > crop[half:].mean()) == bright_top


def test_the_reader_is_optional() -> None:
    assert board_face_reader_for(DiceConfig(board_face_model_path="/nonexistent.onnx")) is None
    assert board_face_reader_for(DiceConfig(use_board_face_model=False)) is None
    shipped = board_face_reader_for(DiceConfig())
    assert shipped is not None and shipped.path == DEFAULT_BOARD_FACE_MODEL


def test_reads_rendered_flat_dice_at_their_centres() -> None:
    config = load_config(ROOT / "datasets" / "touching.json")
    reader = BoardFaceReader(DEFAULT_BOARD_FACE_MODEL)
    right = total = 0
    for index in range(12):
        jpeg, truth = render_sample(config, 2, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        profile = label_profile(truth)
        side = profile.model.die_mm * profile.px_per_mm()
        flat = [d for d in truth["dice"] if d["flat"] and not d["rolling"]]
        dice = [
            DieSeen(tuple(d["top_center"]), None, (), side, True, 1.0, 0.0, (1 / 6,) * 6)
            for d in flat
        ]
        read = board_faces_read(image, dice, reader, DiceConfig(), die_lean(profile))
        right += sum(d.value == t["value"] for d, t in zip(read, flat, strict=True))
        total += len(flat)
    assert total >= 15
    assert right >= total - 1, (right, total)
