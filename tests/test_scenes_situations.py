"""Every throw situation is produced, with the geometry and the verdict the rules give it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from referee.scenes.config import DICE_SITUATIONS, DiceConfig, SceneConfig
from referee.scenes.dice import DiePose
from referee.scenes.render import paint
from referee.scenes.scene import Scene, sample_scene
from referee.scenes.truth import roll_truth

VERDICTS = {
    "valid": None,
    "wrong_half": "wrong_half",
    "split_halves": "split_halves",
    "cocked_checker": "cocked",
    "cocked_rim": "cocked",
    "cocked_die": "cocked",
    "on_checker": "on_checker",
    "off_board": "off_board",
    "rolling": "rolling",
    "by_checker": None,
    "by_rim": None,
    "by_die": None,
}


def scene_with(situation: str, attempt: int) -> Scene:
    """A scene drawn with only `situation` allowed (short nardy has every zone rule)."""
    config = SceneConfig(
        variant_weights={"short": 1.0} if situation == "wrong_half" else {"long": 1, "short": 1},
        dice=dataclasses.replace(DiceConfig(), situation_weights={situation: 1.0}),
        hand_probability=0.0,
    )
    return sample_scene(np.random.default_rng((5, attempt)), config, (320, 240), 5)


def scene_showing(situation: str) -> Scene:
    """The first of 12 boards that `situation` fits on."""
    for attempt in range(12):
        scene = scene_with(situation, attempt)
        if scene.situation == situation:
            return scene
    pytest.fail(f"{situation} never fitted on 12 boards")


def _surface_below(die: DiePose, scene: Scene) -> float:
    """Height of the checker top under an on-checker die."""
    thickness = scene.look.layout.dims.checker_thickness
    r = scene.look.layout.dims.checker_diameter / 2
    tops = [
        float(c.base[2]) + thickness
        for c in scene.frame.checkers
        if np.hypot(*(c.base[:2] - die.center[:2])) < r
    ]
    return max(tops)


def test_the_verdict_table_covers_every_situation() -> None:
    assert set(VERDICTS) == set(DICE_SITUATIONS)


@pytest.mark.parametrize("situation", DICE_SITUATIONS)
def test_situation_is_produced_with_its_verdict(situation: str) -> None:
    scene = scene_showing(situation)
    truth = roll_truth(scene.frame.dice, scene.roller, scene.zone)
    assert truth is not None
    assert truth["reason"] == VERDICTS[situation]
    assert truth["valid"] == (VERDICTS[situation] is None)
    floor = -scene.look.layout.dims.floor
    for die in scene.frame.dice:
        if die.rolling:
            assert die.lowest_z > 0
        elif not die.on_board:
            assert abs(die.lowest_z - floor) < 1e-6
            assert scene.look.layout.region_of(*die.center[:2]) is None
        elif die.on_checker:
            assert abs(die.lowest_z - _surface_below(die, scene)) < 1e-6
        else:
            # Flat or cocked, a die at rest on the board touches the floor.
            assert abs(die.lowest_z) < 1e-6
            assert scene.look.layout.region_of(*die.center[:2]) in ("left", "right")
    kinds = {die.cocked_against for die in scene.frame.dice} - {None}
    if situation.startswith("cocked_"):
        assert kinds == {situation.removeprefix("cocked_")}
    else:
        assert not kinds
    painted = paint(scene.look, scene.frame, np.random.default_rng(0))
    assert painted.photo.shape == (240, 320, 3)


def _inside_checker(point: np.ndarray, scene: Scene) -> bool:
    dims = scene.look.layout.dims
    r = dims.checker_diameter / 2 - 0.5
    return any(
        np.hypot(*(point[:2] - c.base[:2])) < r
        and c.base[2] + 0.5 < point[2] < c.base[2] + dims.checker_thickness - 0.5
        for c in scene.frame.checkers
    )


def _inside_die(point: np.ndarray, die: DiePose) -> bool:
    local = die.rotation.T @ (point - die.center)
    return bool(np.all(np.abs(local) < die.size / 2 - 0.5))


@pytest.mark.parametrize(
    "situation",
    ["cocked_checker", "cocked_rim", "cocked_die", "valid", "by_checker", "by_rim", "by_die"],
)
def test_dice_do_not_pass_through_checkers_or_each_other(situation: str) -> None:
    for attempt in range(6):
        scene = scene_with(situation, attempt)
        first, second = scene.frame.dice
        for die, other in ((first, second), (second, first)):
            for corner in die.corners():
                assert not _inside_checker(corner, scene)
                assert not _inside_die(corner, other)
                region = scene.look.layout.region_of(*corner[:2])
                # Nothing of a die at rest pokes into a rim below the rim's top.
                if corner[2] < scene.look.layout.dims.rim_height - 0.5:
                    assert region in ("left", "right")


@pytest.mark.parametrize("situation", ["by_checker", "by_rim", "by_die"])
def test_a_die_set_against_something_touches_it(situation: str) -> None:
    scene = scene_showing(situation)
    die, other = scene.frame.dice
    layout = scene.look.layout
    sides = [die.rotation[:, k] for k in range(3) if abs(die.rotation[2, k]) < 0.5]
    up = np.array([0.0, 0.0, 1.0])
    touched = False
    # Just beyond each side face (1.5 mm out: the die is set 0.3 mm off), is there the support?
    for normal in sides + [-s for s in sides]:
        across = np.cross(up, normal)
        for u in np.linspace(-0.4, 0.4, 5) * die.size:
            for v in np.linspace(-0.4, 0.4, 5) * die.size:
                p = die.center + normal * (die.size / 2 + 1.5) + across * u + up * v
                if situation == "by_checker":
                    touched |= _inside_checker(p, scene)
                elif situation == "by_die":
                    touched |= _inside_die(p, other)
                else:
                    touched |= layout.region_of(*p[:2]) is None and p[2] < layout.dims.rim_height
    assert touched
    assert die.flat and die.cocked_against is None
