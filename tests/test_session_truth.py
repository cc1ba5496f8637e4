"""Ground-truth vision for rendered scene videos (`referee scenes video` scripts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.record import MatchHeader
from referee.rules import LongNardy, Play, Side
from referee.session import EventKind, Frame, Half, SceneState, ScriptError, Session, TableScript
from referee.session.truth import TruthVision, observations_by_frame

LONG = LongNardy()


def die(value: int, half: str, **extra: Any) -> dict[str, Any]:
    return {"value": value, "flat": True, "on_checker": False, "on_board": True, "half": half,
            "rolling": False, **extra}  # fmt: skip


def video_script() -> dict[str, Any]:
    """White throws 5-2 and plays it; Black throws a cocked die (as the FORMAT.md script)."""
    start = LONG.starting_position()
    moved = start.play(Play.from_str("24/19 19/17"))
    stills = [
        {"position": start.to_dict(), "dice": [], "roll": None},
        {
            "position": start.to_dict(),
            "dice": [die(5, "right"), die(2, "right")],
            "roll": {"roller": "white", "valid": True, "reason": None},
        },
        {"position": moved.to_dict(), "dice": [], "roll": None},
        {
            "position": moved.to_dict(),
            "dice": [die(2, "right", flat=False), die(3, "right")],
            "roll": {"roller": "black", "valid": False, "reason": "cocked"},
        },
    ]
    phases = [
        (0, "rest", False), (None, "throw", True), (None, "rolling", False), (1, "rest", False),
        (None, "move", True), (None, "pickup", True), (2, "rest", False),
        (None, "throw", True), (None, "rolling", False), (3, "rest", False),
    ]  # fmt: skip
    frames = [
        {"index": i, "still": k is not None, "still_index": k, "phase": phase, "hand": hand}
        for i, (k, phase, hand) in enumerate(phases)
    ]
    return {"fps": 5, "variant": "long", "stills": stills, "frames": frames}


def test_frames_become_observations() -> None:
    observations = observations_by_frame(video_script())
    scenes = [o.scene for o in observations]
    assert scenes == [
        SceneState.NO_DICE, SceneState.HANDS, SceneState.MOVING, SceneState.STILL,
        SceneState.HANDS, SceneState.HANDS, SceneState.NO_DICE,
        SceneState.HANDS, SceneState.MOVING, SceneState.STILL,
    ]  # fmt: skip
    assert observations[2].dice.rolling
    assert observations[3].time == pytest.approx(0.6)
    white_throw, black_throw = observations[3].dice.dice, observations[9].dice.dice
    assert {d.half for d in white_throw} == {Half.RIGHT}
    assert {d.half for d in black_throw} == {Half.LEFT}  # black's right is White's left
    assert not black_throw[0].flat


def test_a_rendered_game_runs_through_the_session(tmp_path: Path) -> None:
    path = tmp_path / "play.json"
    path.write_text(json.dumps(video_script()))
    vision = TruthVision.from_file(path)
    # Scene videos start after the opening throw: the winner throws again here.
    header = MatchHeader(variant="long", options={"opening_roll_is_first_move": False})
    session = Session.new(header)
    for observation in TableScript(LONG).opening(6, 1).pick_up().observations:
        session.observe(observation)
    events = []
    image = np.zeros((2, 2, 3), dtype=np.uint8)
    for index in range(len(vision.observations) + 1):
        seen = vision.observe(Frame(image, index, index / 5))
        if seen is not None:
            events.extend(session.observe(seen))
    assert [e.kind for e in events] == [EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.THROW_VOID]
    assert session.position.turn is Side.BLACK


def test_a_broken_script_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("[1, 2]")
    with pytest.raises(ScriptError):
        TruthVision.from_file(path)
    with pytest.raises(ScriptError):
        observations_by_frame({"stills": [{"dice": []}], "frames": []})
