"""The tilt reader (`models/dice_tilt.onnx`): whether a die found on a board lies flat.

Dice come from scenes the generator renders here (seed 2 of the cocked-dice club view, which no
training, tuning or measuring set uses). The floors are regression guards under the figures in
`models/dice_tilt.md`, not targets.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import config_from_dict, load_config
from referee.scenes.dataset import render_sample
from referee.vision.checker_truth import label_profile
from referee.vision.config import DiceConfig, VisionConfig
from referee.vision.dice import DieSeen, tilt_checked, tilt_reader_for, tilt_seen
from referee.vision.dice_classifier import DEFAULT_TILT_MODEL, TiltReader, load_tilt_reader
from referee.vision.geometry import BoardModel
from referee.vision.pipeline import VisionPipeline, die_lean, support_clearance

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


MODEL = BoardModel()
NO_CHECKERS = np.empty((0, 2))


def test_a_die_in_the_open_is_far_from_anything_to_lean_on() -> None:
    # In the left field's middle: 120 mm from the frame's left wall, 200 from its near and far
    # walls, 118 from the bar; the other die 100 mm off.
    foot = np.array([120.0, 200.0])
    assert support_clearance(foot, [], NO_CHECKERS, MODEL) == pytest.approx(118 / MODEL.die_mm)
    other = np.array([180.0, 120.0])
    clearance = support_clearance(foot, [other], NO_CHECKERS, MODEL)
    assert clearance == pytest.approx((100 - MODEL.die_mm / 2) / MODEL.die_mm)


@pytest.mark.parametrize(
    ("foot", "gap_mm"),
    [
        ((14.0, 200.0), 14.0),  # the frame's left wall
        ((120.0, 388.0), 12.0),  # the frame's near wall
        ((MODEL.width_mm / 2 - MODEL.bar_mm / 2 - 13.0, 200.0), 13.0),  # the bar, from the left
        ((MODEL.width_mm / 2 + MODEL.bar_mm / 2 + 13.0, 200.0), 13.0),  # the bar, from the right
        ((MODEL.width_mm - 14.0, 150.0), 14.0),  # the frame's right wall
    ],
)
def test_walls_of_the_dies_field_are_supports(foot: tuple[float, float], gap_mm: float) -> None:
    clearance = support_clearance(np.array(foot), [], NO_CHECKERS, MODEL)
    assert clearance == pytest.approx(gap_mm / MODEL.die_mm)


def test_checkers_and_the_other_die_are_supports() -> None:
    foot = np.array([120.0, 200.0])
    checkers = np.array([[120.0 + MODEL.checker_mm / 2 + 20.0, 200.0], [300.0, 40.0]])
    assert support_clearance(foot, [], checkers, MODEL) == pytest.approx(20 / MODEL.die_mm)
    other = np.array([120.0, 218.0])
    assert support_clearance(foot, [other], checkers, MODEL) == pytest.approx(10 / MODEL.die_mm)


def test_off_the_fields_nothing_is_said() -> None:
    # On the frame, on the bar and in the tray what a die may lean on is not known.
    for foot in ((-10.0, 200.0), (MODEL.width_mm / 2, 200.0), (MODEL.width_mm + 30.0, 200.0)):
        assert support_clearance(np.array(foot), [], NO_CHECKERS, MODEL) is None


def test_a_die_read_tilted_with_nothing_to_lean_on_lies_flat() -> None:
    """Every die read tilted (`tilt_min` 0) in twelve rendered club-view scenes of an unused
    seed: the cocked ones lean on something and stay tilted, and flat dice in the open are read
    flat again."""
    scenes = load_config(ROOT / "datasets" / "club_cocked.json")
    config = VisionConfig()
    config = dataclasses.replace(config, dice=dataclasses.replace(config.dice, tilt_min=0.0))
    cocked, flat_again = 0, 0
    for index in range(12):
        jpeg, truth = render_sample(scenes, 2, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        result = VisionPipeline(config, label_profile(truth)).read(image)
        for die in result.dice:
            seen = min(truth["dice"], key=lambda t: math.dist(t["center"], die.center))
            if not seen["flat"]:
                cocked += 1
                assert not die.flat, (index, seen["cocked_against"])
            elif die.flat:
                flat_again += 1
    assert cocked >= 6 and flat_again >= 5


def test_a_die_read_tilted_on_a_checker_lies_flat_on_it() -> None:
    """Every die read tilted (`tilt_min` 0) in ten rendered scenes of dice on checkers and dice
    cocked against them (an unused seed): a die resting on a checker is read on it and flat,
    unless `on_checker_lies_flat` is off; a die cocked against a checker stands on the board
    beside it, is not read on it, and stays tilted."""
    scenes = config_from_dict(
        {
            "dice": {"situation_weights": {"on_checker": 1.0, "cocked_checker": 1.0}},
            "hand_probability": 0.0,
            "camera": {"resolutions": [[1280, 720]]},
        }
    )
    base = VisionConfig()
    tilted = dataclasses.replace(base.dice, tilt_min=0.0)
    on_checker = cocked = 0
    for index in range(10):
        jpeg, truth = render_sample(scenes, 2, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        reads = {
            rule: VisionPipeline(
                dataclasses.replace(
                    base, dice=dataclasses.replace(tilted, on_checker_lies_flat=rule)
                ),
                label_profile(truth),
            ).read(image)
            for rule in (True, False)
        }
        for die, unruled in zip(reads[True].dice, reads[False].dice, strict=True):
            seen = min(truth["dice"], key=lambda t: math.dist(t["center"], die.center))
            if seen["on_checker"]:
                on_checker += 1
                assert die.on_checker and die.flat, index
                assert not unruled.flat, index
            elif not seen["flat"]:
                cocked += 1
                assert not die.on_checker and not die.flat, (index, seen["cocked_against"])
    assert on_checker >= 4 and cocked >= 5
