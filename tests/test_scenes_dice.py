"""The die model: pip layout, orientations, cocked poses and the throw verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.scenes.dice import (
    FACE_NORMALS,
    PIP_LAYOUT,
    DiePose,
    cocked_pose,
    face_up,
    flat_pose,
    judge_roll,
    random_rotation,
    rot_z,
    support_distance,
    top_value,
)


def test_every_face_has_its_number_of_pips_and_opposite_faces_sum_to_seven() -> None:
    for value, pips in PIP_LAYOUT.items():
        assert len(pips) == value
        assert len(set(pips)) == value
    for value, normal in FACE_NORMALS.items():
        opposite = FACE_NORMALS[7 - value]
        assert np.allclose(np.array(normal), -np.array(opposite))


def test_one_two_three_run_counter_clockwise_round_their_corner() -> None:
    # Seen from outside the shared corner, 1 -> 2 -> 3 turns counter-clockwise (Western dice).
    n1, n2, n3 = (np.array(FACE_NORMALS[v]) for v in (1, 2, 3))
    assert np.dot(np.cross(n1, n2), n3) > 0


@pytest.mark.parametrize("value", range(1, 7))
def test_flat_die_shows_the_value_whatever_its_turn(value: int) -> None:
    assert np.allclose(face_up(value) @ np.array(FACE_NORMALS[value]), [0, 0, 1])
    for yaw in np.linspace(0, 2 * math.pi, 7):
        pose = flat_pose(value, 16.0, 10.0, 20.0, 0.0, float(yaw))
        assert top_value(pose.rotation) == value
        assert abs(pose.lowest_z) < 1e-9
        assert abs(np.linalg.det(pose.rotation) - 1) < 1e-9


@pytest.mark.parametrize("support_height", [5.0, 8.0, 16.0, 30.0])
def test_cocked_die_rests_on_an_edge_and_leans_on_its_support(support_height: float) -> None:
    size = 16.0
    rng = np.random.default_rng(4)
    for value in range(1, 7):
        tilt = math.radians(float(rng.uniform(16, 38)))
        toward = np.array([math.cos(1.0), math.sin(1.0), 0.0])
        pivot = np.array([5.0, -3.0, 0.0])
        pose = cocked_pose(value, size, pivot, toward, tilt, int(rng.integers(0, 4)), "checker")
        assert top_value(pose.rotation) == value
        assert not pose.flat
        corners = pose.corners()
        # Two corners (the resting edge) touch the surface, none goes through it.
        assert abs(corners[:, 2].min()) < 1e-9
        assert np.sum(corners[:, 2] < 1e-6) == 2
        # Nothing of the die reaches past the support's near edge below the support's top.
        edge = support_distance(size, support_height, tilt)
        reach = (corners - pivot) @ toward
        low = corners[:, 2] < support_height - 1e-6
        assert np.all(reach[low] <= edge + 1e-6)
        # The die tilts by the requested angle: its lowest face's normal is `tilt` off vertical.
        lowest = min(float((pose.rotation @ np.array(n))[2]) for n in FACE_NORMALS.values())
        assert math.isclose(-lowest, math.cos(tilt), rel_tol=1e-9)


def test_top_value_agrees_with_the_highest_face_for_random_turns() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        rotation = random_rotation(rng)
        heights = {v: (rotation @ np.array(n))[2] for v, n in FACE_NORMALS.items()}
        assert top_value(rotation) == max(heights, key=lambda v: heights[v])
        assert abs(np.linalg.det(rotation) - 1) < 1e-9


def _die(**flags: object) -> DiePose:
    pose = flat_pose(3, 16.0, 0.0, 0.0, 0.0, 0.0)
    return DiePose(**{**pose.__dict__, **flags})  # type: ignore[arg-type]


def test_verdict_names_the_first_defect_in_the_documented_order() -> None:
    flat = _die()
    assert judge_roll([flat, flat], ["right", "right"], "same_half") == (True, None)
    assert judge_roll([flat, flat], ["left", "left"], "same_half") == (True, None)
    assert judge_roll([flat, flat], ["left", "left"], "right_half") == (False, "wrong_half")
    assert judge_roll([flat, flat], ["left", "right"], "same_half") == (False, "split_halves")
    on = _die(on_checker=True)
    assert judge_roll([on, flat], ["left", "left"], "same_half") == (False, "on_checker")
    cocked = _die(flat=False, cocked_against="rim")
    assert judge_roll([cocked, on], ["left", "right"], "same_half") == (False, "cocked")
    off = _die(on_board=False)
    assert judge_roll([off, cocked], [None, "left"], "same_half") == (False, "off_board")
    rolling = _die(flat=False, rolling=True)
    assert judge_roll([rolling, off], ["left", None], "same_half") == (False, "rolling")


def test_yaw_rotation_is_a_rotation() -> None:
    assert np.allclose(rot_z(0.3) @ rot_z(-0.3), np.eye(3))
