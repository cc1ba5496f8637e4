"""`referee demo`: the rendered game video refereed live, verdicts checked against its script.

The video is rendered once, small, for the runs with the video's ground truth (`--truth`); one
run renders it at full size and referees it with the real camera pipeline, as the README's main
command does (its latency is measured by scripts/bench_demo_latency.py, not here).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from referee.cli import main
from referee.demo import Verdict, compare, render_demo_video, scripted_verdicts
from referee.record import read_record


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "play.avi"
    render_demo_video(path, size=(320, 180))
    return path


def test_the_script_owes_a_void_throw_an_illegal_move_and_play_after_it(video: Path) -> None:
    owed = scripted_verdicts(json.loads(video.with_suffix(".json").read_text()))
    kinds = [(v.side, v.what) for v in owed]
    assert kinds == [
        ("white", "throw"), ("white", "legal"),
        ("black", "void"), ("black", "throw"), ("black", "illegal"),
        ("white", "throw"), ("white", "legal"),
    ]  # fmt: skip
    assert owed[2].detail == "cocked"


def test_the_demo_runs_end_to_end_and_writes_the_record(
    video: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["demo", "--truth", "--video", str(video), "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "all 7 verdicts as scripted" in printed
    assert "black void throw (cocked)" in printed and "black illegal move" in printed
    replayed = read_record(tmp_path / "match.nardy", strict=False)
    assert replayed.match.header.variant == "long"
    assert (tmp_path / "journal.jsonl").read_text().count('"play"') >= 3
    # A second run replaces the first's journal and record.
    assert main(["demo", "--truth", "--video", str(video), "--out", str(tmp_path)]) == 0


def test_the_real_pipeline_referees_the_demo_as_scripted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's main command: the full-size video rendered, the board found in its first
    frame, and every verdict read by the camera pipeline (no ground truth) as scripted."""
    status = main(["demo", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "vision: the real pipeline" in printed and "board found automatically" in printed
    assert "all 7 verdicts as scripted" in printed


def test_a_verdict_that_differs_from_the_script_fails(
    video: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "play.avi"
    shutil.copy(video, copy)
    script = json.loads(video.with_suffix(".json").read_text())
    for event in script["events"]:
        if event["type"] == "move" and not event["legal"]:
            event["legal"] = True  # the script now claims Black's illegal move was legal
    copy.with_suffix(".json").write_text(json.dumps(script))
    status = main(["demo", "--truth", "--video", str(copy), "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert status == 1
    assert "verdict 5: the script's black legal move" in printed
    assert "the referee said black illegal move" in printed


def test_compare_names_missing_and_extra_verdicts() -> None:
    throw = Verdict("throw", "white", (2, 5))
    legal = Verdict("legal", "white", frame=40)
    assert compare([throw, legal], [throw, legal]) == []
    assert "got no verdict" in compare([throw, legal], [throw])[0]
    assert "has no more" in compare([throw], [throw, legal])[0]


def test_the_rules_only_demo_still_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rules-only"]) == 0
    assert "all verdicts as scripted" in capsys.readouterr().out
