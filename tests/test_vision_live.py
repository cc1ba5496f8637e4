"""The camera pipeline behind the session's `Vision` protocol (`referee.vision.live`): the
scene gate, one reading per settling, and the translation into observations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.rules import LongNardy, ShortNardy, Side
from referee.session import Frame, Half, NoVisionError, SceneState
from referee.session.vision import load_vision
from referee.vision.calibration import profile_from_corners
from referee.vision.live import DIE_CONFIDENCE, LiveVision, create_vision, to_observation
from referee.vision.synthetic import DrawnBoard, DrawnDie, render, start_counts

SIZE = (1280, 720)
SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])
LOOK = {"field": (60, 110, 50), "point_colours": ((40, 40, 150), (200, 220, 230))}


def photo(*dice: DrawnDie) -> np.ndarray:
    board = DrawnBoard(counts=start_counts(), dice=dice, **LOOK)  # type: ignore[arg-type]
    return render(board, SEEN, SIZE, noise_sigma=2.0)


def test_a_reading_becomes_an_observation_with_halves_from_whites_seat() -> None:
    # Both dice in the half right of White's seat; read for Black the verdict would differ,
    # but the observation's halves do not depend on who threw.
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    assert vision.pipeline.profile is not None
    seen = to_observation(vision.pipeline.read(photo(*dice), "black"), 1.5, 7)
    assert seen.scene is SceneState.STILL and (seen.time, seen.frame) == (1.5, 7)
    assert sorted(d.value or 0 for d in seen.dice.dice) == [3, 5]
    assert {d.half for d in seen.dice.dice} == {Half.RIGHT}
    assert {d.confidence for d in seen.dice.dice} == {DIE_CONFIDENCE}
    assert seen.board is not None
    expected = ShortNardy().starting_position()
    assert seen.board.point(1).colour is Side.BLACK  # short nardy: black's 2 on White's 1
    assert seen.board.point(1).count.exact == 2
    assert expected.points[Side.WHITE][23] == seen.board.point(24).count.exact


def test_the_gate_says_moving_until_still_then_one_reading_answers() -> None:
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    image = photo()
    scenes = [vision.observe(Frame(image, i, i / 10)) for i in range(8)]
    assert scenes[0] is not None and scenes[0].scene is SceneState.MOVING
    settled = [s for s in scenes if s is not None and s.is_settled]
    assert settled and len(vision.times.read) == 1
    assert [s.frame for s in settled] == list(range(8 - len(settled), 8))


def test_create_vision_is_what_watch_loads(tmp_path: Path) -> None:
    assert isinstance(load_vision(LongNardy(), None), LiveVision)
    assert create_vision(LongNardy(), None).calibration == "not yet calibrated"
    broken = tmp_path / "profile.json"
    broken.write_text("{}")
    with pytest.raises(NoVisionError, match="profile"):
        create_vision(LongNardy(), broken)
