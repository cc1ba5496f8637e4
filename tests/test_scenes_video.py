"""The scripted video: frames read back, and the script says truly what each frame shows."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.rules import Position, Roll, judge
from referee.scenes.config import SceneConfig
from referee.scenes.video import game_script, make_video

SIZE = (192, 144)


@functools.cache
def video(tmp: Path) -> tuple[dict[str, Any], list[np.ndarray]]:
    out = tmp / "play.avi"
    script = make_video(out, 3, SceneConfig(), size=SIZE, fps=6.0)
    assert json.loads(out.with_suffix(".json").read_text()) == script
    capture = cv2.VideoCapture(str(out))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    return script, frames


def assert_moves_judged_as_scripted(moves: list[dict[str, Any]]) -> None:
    """The rules core, judging each scripted move afresh, agrees with the script's `legal`."""
    for move in moves:
        verdict = judge(
            Position.from_dict(move["before"]),
            Roll.from_list(move["roll"]),
            Position.from_dict(move["after"], validate=False),
        )
        assert verdict.legal == move["legal"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[np.ndarray]]:
    return video(tmp_path_factory.mktemp("video"))


def test_every_frame_reads_back(made: tuple[dict[str, Any], list[np.ndarray]]) -> None:
    script, frames = made
    assert len(frames) == script["frame_count"] == len(script["frames"])
    assert frames[0].shape == (SIZE[1], SIZE[0], 3)
    assert [f["index"] for f in script["frames"]] == list(range(len(frames)))


def test_stills_cover_exactly_the_still_frames(
    made: tuple[dict[str, Any], list[np.ndarray]],
) -> None:
    script, frames = made
    covered = set()
    for k, still in enumerate(script["stills"]):
        assert still["start"] <= still["end"]
        for index in range(still["start"], still["end"] + 1):
            assert script["frames"][index]["still"]
            assert script["frames"][index]["still_index"] == k
            covered.add(index)
        # Within a still only the sensor noise changes.
        first = frames[still["start"]].astype(np.int16)
        last = frames[still["end"]].astype(np.int16)
        assert np.abs(first - last).mean() < 6
    assert covered == {f["index"] for f in script["frames"] if f["still"]}
    for frame in script["frames"]:
        if frame["hand"]:
            assert not frame["still"]


def test_script_has_the_throws_and_moves_the_referee_needs(
    made: tuple[dict[str, Any], list[np.ndarray]],
) -> None:
    script, _ = made
    events = script["events"]
    throws = [e for e in events if e["type"] == "throw"]
    moves = [e for e in events if e["type"] == "move"]
    assert [(t["roller"], t["valid"], t["reason"]) for t in throws] == [
        ("white", True, None),
        ("black", False, "cocked"),
        ("black", True, None),
    ]
    assert [m["legal"] for m in moves] == [True, False]
    kinds = [e["type"] for e in events]
    # The cocked throw is picked up and thrown again before black moves.
    assert kinds == ["throw", "move", "pickup", "throw", "pickup", "throw", "move", "pickup"]
    assert_moves_judged_as_scripted(moves)


def test_stills_show_the_position_and_dice_of_their_moment(
    made: tuple[dict[str, Any], list[np.ndarray]],
) -> None:
    script, _ = made
    events = script["events"]
    stills = script["stills"]
    starts = {s["start"]: s for s in stills}
    for throw in (e for e in events if e["type"] == "throw"):
        still = starts[throw["rest_frame"]]
        assert [d["value"] for d in still["dice"]] == throw["values"]
        assert still["roll"]["valid"] == throw["valid"]
        assert still["roll"]["reason"] == throw["reason"]
    moves = [e for e in events if e["type"] == "move"]
    after_moves = [s for s in stills if not s["dice"] and s["start"] > moves[0]["end_frame"]]
    assert after_moves[0]["position"] == moves[0]["after"]
    assert stills[-1]["position"] == moves[-1]["after"]
    assert stills[0]["position"]["white"][23] == 15
    for still in stills:
        labelled = len(still["checkers"])
        position = still["position"]
        on_board = sum(position["white"]) + sum(position["black"])
        assert labelled == on_board + sum(position["bar"].values()) + sum(position["off"].values())


def test_game_script_takes_turns_and_plays_illegal_moves_where_told(tmp_path: Path) -> None:
    script = make_video(
        tmp_path / "game.avi",
        5,
        SceneConfig(),
        size=SIZE,
        fps=4.0,
        script=game_script(turns=4, illegal_every=3),
    )
    moves = [e for e in script["events"] if e["type"] == "move"]
    throws = [e for e in script["events"] if e["type"] == "throw"]
    assert [m["roller"] for m in moves] == ["white", "black", "white", "black"]
    assert [t["roller"] for t in throws] == [m["roller"] for m in moves]
    assert all(t["valid"] for t in throws)
    assert [m["legal"] for m in moves] == [True, True, False, True]
    # Each move starts where the one before left the board, the illegal one included.
    for before, after in itertools.pairwise(moves):
        assert after["before"] == before["after"]
    assert_moves_judged_as_scripted(moves)
