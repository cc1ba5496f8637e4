"""`referee legal` and `referee judge`: the JSON-lines machine interface."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from referee.rules import LongNardy, Play, ShortNardy
from referee.rules_cli import answer_judge, answer_legal, serve

START_LONG = LongNardy().starting_position().to_dict()


def run(answer: object, *lines: str) -> tuple[int, list[dict[str, object]]]:
    out = io.StringIO()
    status = serve(answer, io.StringIO("\n".join(lines) + "\n"), out)  # type: ignore[arg-type]
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_legal_lists_positions_and_plays() -> None:
    status, [reply] = run(answer_legal, json.dumps({"position": START_LONG, "roll": [3, 3]}))
    assert status == 0
    assert len(reply["positions"]) == 2  # type: ignore[arg-type]
    plays = reply["plays"]
    steps = {tuple(sorted(map(tuple, play["steps"]))) for play in plays}  # type: ignore[attr-defined]
    assert steps == {
        ((21, 18), (21, 18), (24, 21), (24, 21)),
        ((18, 15), (21, 18), (24, 21), (24, 21)),
    }
    assert all(p["turn"] == "black" for p in reply["positions"])  # type: ignore[attr-defined]


def test_no_play_gives_the_unchanged_position_with_turn_passed() -> None:
    # White has a checker on the bar and Black's home (White's 19..24) is closed.
    position = {
        "variant": "short",
        "turn": "white",
        "white": [0] * 5 + [14] + [0] * 18,
        "black": [2] * 6 + [0] * 6 + [3] + [0] * 11,
        "bar": {"white": 1, "black": 0},
        "off": {"white": 0, "black": 0},
    }
    status, [reply] = run(answer_legal, json.dumps({"position": position, "roll": [6, 6]}))
    assert status == 0
    assert reply["positions"] == [{**position, "turn": "black"}]
    assert reply["plays"] == [{"steps": [], "position": {**position, "turn": "black"}}]


def test_garbage_lines_get_an_error_and_the_rest_are_answered() -> None:
    good = json.dumps({"position": START_LONG, "roll": [6, 5]})
    sixteen = json.dumps({"position": {**START_LONG, "white": [0] * 23 + [16]}, "roll": [6, 5]})
    seven = json.dumps({"position": START_LONG, "roll": [7, 1]})
    unknown = json.dumps({"position": {**START_LONG, "variant": "chess"}, "roll": [6, 5]})
    status, replies = run(answer_legal, good, "{not json", sixteen, seven, unknown, good)
    assert status == 1
    assert "positions" in replies[0] and "positions" in replies[5]
    errors = [reply["error"] for reply in replies[1:5]]
    assert errors[0].startswith("line 2: not JSON")  # type: ignore[union-attr]
    assert "more than 15" in errors[1]  # type: ignore[operator]
    assert "1 to 6" in errors[2]  # type: ignore[operator]
    assert "unknown variant" in errors[3]  # type: ignore[operator]


def test_judge_reports_reasons_and_closest() -> None:
    start = ShortNardy().starting_position()
    illegal = start.play(Play.from_str("24/18 24/20"))
    line = json.dumps({"position": start.to_dict(), "roll": [6, 5], "after": illegal.to_dict()})
    status, [reply] = run(answer_judge, line)
    assert status == 0
    assert reply["legal"] is False
    assert reply["reasons"] == ["not_reachable"]
    assert reply["closest"]
    assert isinstance(reply["message"], str) and reply["message"].startswith("Illegal")


def test_command_line_exit_status_and_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "legal"],
        input='{"position": 1, "roll": [1, 2]}\n',
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["error"].startswith("line 1:")
