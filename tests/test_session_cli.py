"""`referee watch` end to end, with scripted observations instead of a camera."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.record import Journal
from referee.rules import Gulbar, LongNardy, MadGulbar, Side
from referee.session import TableScript, save_script

QUIET = """
[signals.gpio]
enabled = false
[signals.console]
colour = "never"
[session]
settle_frames = 2
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "referee.toml"
    path.write_text(QUIET)
    return path


def test_watch_a_scripted_game_then_resume_it(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = TableScript(LongNardy())
    script.opening(6, 5).play("24/18 18/13").pick_up()
    script.throw(Side.BLACK, 4, 2).play("24/20 24/22").pick_up()  # head rule broken
    first = tmp_path / "first.jsonl"
    save_script(first, script.take_observations())
    journal = tmp_path / "match.jsonl"
    args = ["watch", "--script", str(first), "--variant", "long", "--config", str(config)]
    assert main([*args, "--journal", str(journal), "--teach"]) == 0
    out = capsys.readouterr().out
    assert "LEGAL     Legal 6-5: 24/18 18/13. [100%]" in out
    assert "ILLEGAL" in out and "more than one checker left the head" in out

    # The power fails; play goes on: White throws, which accepts Black's move as played.
    script.throw(Side.WHITE, 3, 1).play("24/21 21/20").pick_up()
    second = tmp_path / "second.jsonl"
    save_script(second, script.take_observations())
    resume = ["watch", "--script", str(second), "--resume", str(journal), "--config", str(config)]
    assert main(resume) == 0
    out = capsys.readouterr().out
    assert "illegal move stands, accepted: the opponent threw" in out
    assert "Legal 3-1: 24/21 21/20." in out
    state = Journal.replay(journal)
    assert [a.legal for a in state.replayed.games[0].actions] == [True, False, True]


def test_watch_without_vision_says_so(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The default pipeline is installed (referee.vision.live); name one that is not.
    args = ["watch", "--camera", "0", "--variant", "short", "--config", str(config)]
    assert main([*args, "--vision", "referee.no_such_vision:create_vision"]) == 1
    assert "no vision model is available" in capsys.readouterr().err
    broken = tmp_path / "profile.json"
    broken.write_text("{}")
    assert main([*args, "--profile", str(broken)]) == 1
    assert "the board profile cannot be used" in capsys.readouterr().err


def test_watch_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "--camera", "0"]) == 2
    assert "--variant" in capsys.readouterr().err
    missing = ["watch", "--video", str(tmp_path / "none.mp4"), "--variant", "long"]
    assert main(missing) == 1
    assert "no video file" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[session]\nverdict_confidence = 2\n")
    assert main(["watch", "--script", str(bad), "--variant", "long", "--config", str(bad)]) == 1
    assert "session.verdict_confidence" in capsys.readouterr().err


def test_watch_any_variant_by_alias_with_options(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Gulbar: Black's 6-6 moves two checkers only, and White plays the other two sixes.
    script = TableScript(Gulbar())
    script.opening(6, 5).play("24/18 18/13").pick_up()
    script.throw(Side.BLACK, 6, 6).play("24/18 24/18").pick_up()
    script.set_dice(Side.WHITE, 6, 6).play("24/18 13/7").pick_up()
    observations = tmp_path / "gulbar.jsonl"
    save_script(observations, script.take_observations())
    journal = tmp_path / "match.jsonl"
    args = ["watch", "--script", str(observations), "--config", str(config)]
    assert main([*args, "--variant", "Гюльбар", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "6-6 ×2 passed over" in out and "white throws for its own turn" in out
    header = Journal.replay(journal).match.header
    assert header.variant == "gulbar"

    options = ["--variant", "mad gulbar", "--option", "ladder_moves_per_step=2"]
    other = tmp_path / "other.jsonl"
    assert main([*args, *options, "--journal", str(other)]) == 0
    assert Journal.replay(other).match.header.rules_variant() == MadGulbar(ladder_moves_per_step=2)
    capsys.readouterr()
    assert main([*args, "--variant", "snakes"]) == 2
    assert "unknown variant 'snakes'" in capsys.readouterr().err
    assert main([*args, "--variant", "mad", "--option", "ladder_moves_per_step=2"]) == 2
    assert "ladder_moves_per_step" in capsys.readouterr().err
    assert main([*args, "--variant", "fevga", "--option", "six_block=home_entered"]) == 2
    assert "six_block" in capsys.readouterr().err
