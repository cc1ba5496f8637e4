"""`referee record check` and `referee record convert`: results and errors as one clear message,
exit status 0 / 1 / 2, and no file ever written over or left half-written."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from referee.record import format_text
from referee.record.cli import register
from referee.rules import LongNardy
from tests.record_helpers import REAL_MAT, random_match, real


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="referee")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["record", *argv])
    status: int = args.func(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_check_prints_the_games_and_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check", str(real(REAL_MAT)))
    assert status == 0 and not err
    assert "7-point match, short nardy: charlot1 vs charlot2, 4 games" in out
    assert "game 1 at 0-0: 45 moves, charlot2 wins 2 points (resigned)" in out
    assert "game 4 at 6-2, Crawford game" in out
    assert out.rstrip().endswith("score 9-2\ncharlot1 wins the match")
    status, out, _ = run(capsys, "check", "--moves", str(real(REAL_MAT)))
    assert "      1. charlot2: 41: 13/9 24/23" in out


def test_check_reports_the_first_inconsistency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.mat"
    text = real(REAL_MAT).read_text(encoding="utf-8")
    bad.write_text(text.replace("  3) 31: 24/21 6/5", "  3) 31: 24/20 6/5"), encoding="utf-8")
    before = bad.read_bytes()
    status, out, err = run(capsys, "check", str(bad))
    assert status == 1 and not out
    assert err.startswith(f"inconsistent: {bad}: game 1, move 3 (31: 24/20 6/5): Illegal")
    assert "Traceback" not in err and bad.read_bytes() == before
    garbage = tmp_path / "garbage.sgf"
    garbage.write_bytes(b"(;GM[6]\n;B[41\xff")
    status, _, err = run(capsys, "check", str(garbage))
    assert status == 1 and err.startswith(f"error: {garbage}:2: not UTF-8")
    status, _, err = run(capsys, "check", str(tmp_path / "missing.mat"))
    assert status == 2 and "No such file" in err
    status, _, err = run(capsys, "check", str(tmp_path / "x.txt"))
    assert status == 1 and "extension '.txt'" in err


def test_convert_between_formats_and_never_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sgf, mat = tmp_path / "m.sgf", tmp_path / "m.mat"
    status, out, _ = run(capsys, "convert", str(real(REAL_MAT)), str(sgf))
    assert status == 0 and "4 games written" in out
    assert run(capsys, "convert", str(sgf), str(mat))[0] == 0
    original = real(REAL_MAT).read_text(encoding="utf-8")
    converted = mat.read_text(encoding="utf-8")
    assert converted[converted.index(" 7 point match") :] == original[original.index(" 7 point") :]
    before = mat.read_bytes()
    status, _, err = run(capsys, "convert", str(sgf), str(mat))
    assert status == 1 and "not overwriting" in err and mat.read_bytes() == before
    assert run(capsys, "convert", "--force", str(sgf), str(mat))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mat", "m.sgf"]  # no temporaries


def test_convert_long_nardy_text_and_refuse_it_as_mat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "game.nardy"
    source.write_text(format_text(random_match(LongNardy(), [1, 2], length=5)), encoding="utf-8")
    status, out, _ = run(capsys, "check", str(source))
    assert status == 0 and "5-point match, long nardy" in out
    status, _, err = run(capsys, "convert", str(source), str(tmp_path / "game.mat"))
    assert status == 1 and "long-nardy text format" in err
    assert not (tmp_path / "game.mat").exists()
    copy = tmp_path / "copy.txt"
    assert run(capsys, "convert", "--to", "long", str(source), str(copy))[0] == 0
    assert copy.read_bytes() == source.read_bytes()


def test_check_a_journal_notes_a_torn_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.record import GameStarted, Journal, MatchHeader

    path = tmp_path / "live.jsonl"
    with Journal.create(path, MatchHeader(length=3)) as journal:
        journal.append(GameStarted(1, (0, 0)))
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"seq":3,')
    status, out, err = run(capsys, "check", str(path))
    assert status == 0 and not err
    assert "note: line 3 is an unfinished last line" in out and "in progress" in out
