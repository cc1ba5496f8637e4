"""The tilt reader (`models/dice_tilt.onnx`): whether a die found on a board lies flat.

Dice come from scenes the generator renders here (seed 2 of the cocked-dice club view, which no
training, tuning or measuring set uses). The floors are regression guards under the figures in
`models/dice_tilt.md`, not targets.
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
from referee.vision.dice import DieSeen, tilt_checked, tilt_reader_for, tilt_seen
from referee.vision.dice_classifier import DEFAULT_TILT_MODEL, TiltReader, load_tilt_reader
from referee.vision.pipeline import die_lean

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def reader() -> TiltReader:
    return TiltReader(DEFAULT_TILT_MODEL)


@pytest.fixture(scope="module")
def rendered_dice() -> list[tuple[bool, float]]:
    """(flat, the reader's mean tilt probability over the nine crops round its centre) of every
    die at rest in eight generated club-view scenes with cocked dice common."""
    config = load_config(ROOT / "datasets" / "club_cocked.json")
    reader = TiltReader(DEFAULT_TILT_MODEL)
    out = []
    for index in range(8):
        jpeg, truth = render_sample(config, 2, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        profile = label_profile(truth)
        lean = die_lean(profile)
        side = profile.model.die_mm * profile.px_per_mm()
        for die in truth["dice"]:
            if die["rolling"]:
                continue
            x0, y0, x1, y1 = die["box"]
            seen = DieSeen(((x0 + x1) / 2, (y0 + y1) / 2), die["value"], (), side, True, 1.0)
            out.append((die["flat"], tilt_seen(image, seen, reader, DiceConfig(), lean)))
    return out


def test_model_is_small_and_loads(reader: TiltReader) -> None:
    # Two networks of 0.75 MB read as one (`scripts/ensemble_nets.py`).
    assert DEFAULT_TILT_MODEL.stat().st_size < 2_000_000
    blank = np.zeros((48, 48, 3), np.uint8)
    p = reader.tilted([blank, blank], [0.0, 0.3])
    assert p.shape == (2,) and ((p >= 0) & (p <= 1)).all()
    assert reader.tilted([], []).shape == (0,)


def test_tells_rendered_cocked_dice_from_flat_ones(rendered_dice: list[tuple[bool, float]]) -> None:
    cocked = [p for flat, p in rendered_dice if not flat]
    flat = [p for flat, p in rendered_dice if flat]
    assert len(cocked) >= 3 and len(flat) >= 6, (len(cocked), len(flat))
    assert sum(p >= 0.5 for p in cocked) >= len(cocked) - 1, cocked
    # One flat die may read tilted: the die a cocked one leans on (in scene 5) is, by design.
    assert sum(p < 0.5 for p in flat) >= len(flat) - 1, flat
    assert np.mean(cocked) - np.mean(flat) > 0.4


class FixedTilt(TiltReader):
    """A stand-in that says every crop is tilted with probability `p`, and counts the crops."""

    def __init__(self, p: float) -> None:
        self.p = p
        self.crops = 0

    def tilted(self, crops: Sequence[np.ndarray], leans: Sequence[float]) -> np.ndarray:
        self.crops += len(crops)
        return np.full(len(crops), self.p)


def test_the_readers_and_the_classifiers_tilt_are_averaged() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    leaning = DieSeen((100.0, 100.0), 3, (), 20.0, True, 0.9, tilt=0.4)
    # The reader's share is 0.8: 0.4 and 0.7 average 0.64, tilted from 0.5; 0.4 and 0.5, 0.48: flat
    reader = FixedTilt(0.7)
    assert not tilt_checked(image, leaning, reader, DiceConfig()).flat
    assert reader.crops == 9  # the whole 3 x 3 square round its centre
    for crops in (1, 5):
        reader = FixedTilt(0.7)
        assert not tilt_checked(image, leaning, reader, DiceConfig(tilt_crops=crops)).flat
        assert reader.crops == crops
    assert tilt_checked(image, leaning, FixedTilt(0.5), DiceConfig()).flat
    # A die read tilted by the classifier is flat when the reader is sure enough it is not.
    tilted = DieSeen((100.0, 100.0), 3, (), 20.0, False, 0.9, tilt=0.6)
    assert tilt_checked(image, tilted, FixedTilt(0.1), DiceConfig()).flat
    assert not tilt_checked(image, tilted, FixedTilt(0.1), DiceConfig(tilt_model_weight=0)).flat


def test_a_rolling_die_stays_rolling() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    rolling = DieSeen((100.0, 100.0), None, (), 20.0, False, 0.9, rolling=True, tilt=0.9)
    reader = FixedTilt(0.0)
    assert tilt_checked(image, rolling, reader, DiceConfig()) == rolling
    assert reader.crops == 0


def test_without_its_model_file_or_turned_off_there_is_no_tilt_reader(tmp_path: Path) -> None:
    assert tilt_reader_for(DiceConfig(tilt_model_path=str(tmp_path / "absent.onnx"))) is None
    assert tilt_reader_for(DiceConfig(use_tilt_model=False)) is None
    assert load_tilt_reader(str(DEFAULT_TILT_MODEL)) is not None
