"""Dice the pip finder cannot see (caught rolling, faint pips) in a still photo: spots the board
does not explain, read by the crop classifier.

Scenes are generated (seed 2, which no training, tuning or measuring set uses) with the easy
overhead camera and read with their true corners, so that only the dice stage is tested.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision.calibration import BoardProfile
from referee.vision.checker_truth import label_profile
from referee.vision.checkers import read_checkers
from referee.vision.cli import format_result, result_to_json
from referee.vision.config import DiceConfig, VisionConfig
from referee.vision.pipeline import EarlierScene, VisionPipeline, canvas_for
from referee.vision.spots import _blurred_lab, _median_of_seen, unexplained_spots

ROOT = Path(__file__).resolve().parents[1]

Scene = tuple[np.ndarray, dict[str, Any], BoardProfile]


def scenes(situation: str, count: int = 6) -> list[Scene]:
    base = load_config(ROOT / "datasets" / "overhead_easy.json")
    dice = dataclasses.replace(base.dice, situation_weights={situation: 1.0})
    config = dataclasses.replace(base, dice=dice)
    out = []
    for index in range(count):
        jpeg, truth = render_sample(config, 2, index, (1280, 720))
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        out.append((image, truth, label_profile(truth)))
    return out


@pytest.fixture(scope="module")
def rolling_scenes() -> list[Scene]:
    return scenes("rolling")


def test_most_throws_in_flight_are_read_as_rolling(rolling_scenes: list[Scene]) -> None:
    verdicts = [
        VisionPipeline(profile=profile).read(image).roll.reason
        for image, _, profile in rolling_scenes
    ]
    # Without the search all six read as a die missing (off the board) or cocked.
    assert verdicts.count("rolling") >= 4, verdicts


def test_a_blurred_die_is_a_spot_the_board_does_not_explain(
    rolling_scenes: list[Scene],
) -> None:
    config = VisionConfig()
    found = missed = 0
    for image, truth, profile in rolling_scenes:
        canvas = canvas_for(profile, config)
        rectified = profile.rectify(image, canvas)
        checkers = read_checkers(rectified, canvas, profile.home, config.checkers)
        covered = [checkers.covered_slots(p.point) for p in checkers.points]
        spots = unexplained_spots(rectified, canvas, profile.home, covered, config.dice)
        assert spots.shape[1] == 2 and len(spots) <= config.dice.spot_max_candidates
        for die in truth["dice"]:
            if not die["rolling"] or not die["on_board"]:
                continue
            # A die in flight stands above the board: its image maps a little off its foot.
            where = profile.image_to_board(np.array([die["center"]]))[0]
            near = np.linalg.norm(spots - where, axis=1).min() if len(spots) else math.inf
            if near < 2 * profile.model.die_mm:
                found += 1
            else:
                missed += 1
    assert found >= 5 and missed <= 2, (found, missed)


def test_dice_at_rest_are_never_read_as_rolling() -> None:
    for situation in ("valid", "off_board"):
        for image, _, profile in scenes(situation, 4):
            result = VisionPipeline(profile=profile).read(image)
            assert not any(d.rolling for d in result.dice)
            assert result.roll.reason != "rolling"


def test_a_live_games_still_scene_has_no_die_read_rolling(rolling_scenes: list[Scene]) -> None:
    image, _, profile = rolling_scenes[3]
    pipeline = VisionPipeline(profile=profile)
    assert any(d.rolling for d in pipeline.read(image).dice)
    # In a live game the scene gate waits moving dice out: a still scene's dice are at rest.
    earlier = EarlierScene(np.zeros_like(image), ())
    assert not any(d.rolling for d in pipeline.read(image, earlier=earlier).dice)


def test_a_live_game_reads_faint_dice_from_spots_only_where_the_picture_changed() -> None:
    config = VisionConfig(dice=DiceConfig(model_pip_contrast=1000.0))  # no pips seen
    image, truth, profile = scenes("valid", 1)[0]
    pipeline = VisionPipeline(config, profile)
    thrown = pipeline.read(image, earlier=EarlierScene(np.zeros_like(image), ()))
    assert sorted(d.value for d in thrown.dice) == sorted(d["value"] for d in truth["dice"])
    # Nothing changed since a still scene with no dice read: the spots are part of the board.
    unchanged = pipeline.read(image, earlier=EarlierScene(image, ()))
    assert unchanged.dice == ()


def test_a_rolling_die_has_no_value_and_is_said_so(rolling_scenes: list[Scene]) -> None:
    image, _, profile = rolling_scenes[3]
    result = VisionPipeline(profile=profile).read(image)
    rolling = [d for d in result.dice if d.rolling]
    assert rolling and all(d.value is None and not d.flat for d in rolling)
    dice = result_to_json(result)["dice"]
    assert isinstance(dice, list)
    assert [entry["rolling"] for entry in dice] == [d.rolling for d in result.dice]
    assert "? rolling" in format_result(result)


def test_the_search_is_off_without_the_classifier(rolling_scenes: list[Scene]) -> None:
    image, _, profile = rolling_scenes[3]
    config = VisionConfig(dice=DiceConfig(use_model=False))
    result = VisionPipeline(config, profile).read(image)
    assert not any(d.rolling for d in result.dice)


def test_the_siblings_median_leaves_out_what_checkers_hide() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(12, 9, 7, 3)).astype(np.float32)
    hidden = rng.random((12, 9, 7)) < 0.5
    hidden[:, 0, 0] = True  # every strip hides it: all of them stand in
    expected = np.median(values, axis=0)
    for y, x in np.ndindex(9, 7):
        shown = ~hidden[:, y, x]
        if shown.any():
            expected[y, x] = np.median(values[shown, y, x], axis=0)
    assert np.allclose(_median_of_seen(values, hidden), expected)


def test_dice_at_rest_whose_pips_are_not_seen_are_read_from_spots() -> None:
    # No pip is strong enough to propose a die: every die must come from a spot.
    config = VisionConfig(dice=DiceConfig(model_pip_contrast=1000.0))
    right = 0
    for image, truth, profile in scenes("valid"):
        result = VisionPipeline(config, profile).read(image)
        values = sorted(d.value for d in result.dice if d.value is not None)
        right += values == sorted(d["value"] for d in truth["dice"]) and result.roll.valid
    assert right >= 5


def test_the_strips_blurred_as_one_image_are_each_blurred_alone() -> None:
    # Padded with OpenCV's own border, the strips blurred as one tall image give the pixels
    # each strip gives blurred alone: no strip's blur reaches into its neighbour's.
    rng = np.random.default_rng(3)
    strips = rng.integers(0, 256, (5, 176, 40, 3), dtype=np.uint8)
    strips[2] = 0  # a dark strip between bright ones would show any bleeding
    one_by_one = np.stack(
        [cv2.GaussianBlur(cv2.cvtColor(s, cv2.COLOR_BGR2LAB), (0, 0), 1.0) for s in strips]
    ).astype(np.float32)
    assert np.array_equal(_blurred_lab(strips), one_by_one)
