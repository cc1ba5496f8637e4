"""The harness end to end on tiny synthetic folders: pairing, broken files, readers, the CLI."""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.evaluation.basics import Image
from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import detect_format, discover
from referee.evaluation.metrics import Rate
from referee.evaluation.oracle import OracleReader, PerturbedReader
from referee.evaluation.readers import (
    READERS,
    ReaderError,
    ReaderOptionError,
    create_reader,
    register_reader,
)
from referee.evaluation.reading import BoardReader, ReadHints, Reading
from referee.evaluation.report import format_summary, summary_document, write_image_csv
from referee.evaluation.runner import EvalResult, evaluate
from tests.evaluation_fixtures import die, scene_label, write_scene

CONFIG = EvalConfig()


@pytest.fixture
def clean_scenes(tmp_path: Path) -> Path:
    """Three good scenes: a valid roll, a cocked die, and a short-nardy position with a hit."""
    folder = tmp_path / "scenes"
    write_scene(folder, "000000")
    write_scene(folder, "000001", scene_label("000001.png", valid=False, reason="cocked"))
    white, black = [0] * 24, [0] * 24
    white[5], white[12], black[5], black[20] = 10, 4, 12, 2
    write_scene(
        folder,
        "000002",
        scene_label("000002.png", white=white, black=black, bar=(1, 0), off=(0, 1)),
    )
    return folder


@pytest.fixture
def broken_scenes(clean_scenes: Path) -> Path:
    """The clean scenes plus one of each kind of broken file."""
    folder = clean_scenes
    write_scene(folder, "bad_image")
    (folder / "bad_image.png").write_bytes(b"not a png at all")
    write_scene(folder, "bad_json")
    (folder / "bad_json.json").write_text('{"image": "bad_json.png", ')
    write_scene(folder, "no_label")
    (folder / "no_label.json").unlink()
    (folder / "orphan.json").write_text(json.dumps(scene_label("orphan.png")))
    label = scene_label("wrong_size.png")
    label["width"] = 1024
    write_scene(folder, "wrong_size", label)
    label = scene_label("no_board.png")
    del label["board"]
    write_scene(folder, "no_board", label)
    (folder / ".hidden.json").write_text("{}")  # hidden files are not data
    return folder


def run(folder: Path, reader: BoardReader) -> EvalResult:
    return evaluate(discover(folder, "scene"), reader, CONFIG)


def test_oracle_scores_everything(clean_scenes: Path) -> None:
    result = run(clean_scenes, OracleReader({}))
    s = result.summary
    assert s.images_scored == 3 and not result.problems and not result.reader_failures
    assert s.board is not None and s.corners is not None and s.dice is not None
    assert s.roll is not None
    assert s.board.points_exact == Rate(72, 72)
    assert s.board.boards_exact == Rate(3, 3)
    assert s.board.bar_right == Rate(3, 3) and s.board.off_right == Rate(3, 3)
    assert s.corners.max_error_px == 0.0
    assert s.corners.boards_within_tolerance == Rate(3, 3)
    assert s.dice.value_right == Rate(6, 6) and s.dice.false_positives == 0
    assert s.roll.accuracy == Rate(3, 3)
    assert s.roll.counts[s.roll.classes.index("cocked")][s.roll.classes.index("cocked")] == 1
    assert {"harness.decode", "harness.read", "reader.load_truth"} <= set(s.timings_ms)


def test_broken_files_are_reported_by_name(broken_scenes: Path) -> None:
    result = run(broken_scenes, OracleReader({}))
    assert result.summary.images_scored == 3
    reasons = {p.name: p.reason for p in result.problems}
    assert set(reasons) == {
        "bad_image.png",
        "bad_json.png",
        "no_label.png",
        "orphan.json",
        "wrong_size.png",
        "no_board.png",
    }
    assert "cannot be read" in reasons["bad_image.png"]
    assert "not valid JSON" in reasons["bad_json.png"]
    assert "no label" in reasons["no_label.png"]
    assert reasons["orphan.json"] == "label without image"
    assert "1024x600" in reasons["wrong_size.png"]
    assert "board" in reasons["no_board.png"]
    assert result.summary.board is not None
    assert result.summary.board.boards_exact == Rate(3, 3)


def test_perturbed_reader_gives_the_numbers_it_promises(clean_scenes: Path) -> None:
    options = {
        "seed": "7",
        "wrong_counts": "2",
        "wrong_colors": "1",
        "missed_points": "1",
        "corner_shift_px": "3",
        "point_jitter_px": "5",
        "wrong_dice": "1",
        "extra_dice": "2",
        "wrong_verdict": "true",
        "wrong_bar": "yes",
    }
    result = run(clean_scenes, PerturbedReader(options))
    s = result.summary
    assert s.board is not None and s.corners is not None and s.dice is not None
    assert s.roll is not None
    # Per board: 2 counts + 1 colour + 1 missed = 4 wrong points of 24.
    assert s.board.points_exact == Rate(3 * 20, 72)
    assert s.board.points_unmatched == 3
    assert s.board.extra_points == 0  # 5 px jitter stays within half a 50 px spacing
    assert s.board.boards_exact == Rate(0, 3)
    assert s.board.bar_right == Rate(0, 3) and s.board.off_right == Rate(3, 3)
    # Every corner 3 px off: 3/700 of the width, inside 1 %.
    assert s.corners.mean_error_px == pytest.approx(3.0)
    assert s.corners.max_error_px == pytest.approx(3.0)
    assert s.corners.corners_within_tolerance == Rate(12, 12)
    assert s.dice.value_right == Rate(3, 6)
    assert s.dice.false_positives == 6
    assert s.dice.detected == Rate(6, 6)
    assert s.roll.accuracy == Rate(0, 3)
    assert s.roll.per_class["valid"].recall == Rate(0, 2)
    assert s.roll.per_class["cocked"].precision == Rate(0, 2)
    # Count errors: +1 twice per board; a missed point costs its checkers, a colour swap none.
    total_error = sum(
        sum(p.count_error for p in sc.board.points) for sc in result.scores if sc.board
    )
    assert s.board.count_mae == pytest.approx(total_error / 72)
    assert total_error >= 6


def test_perturbed_reader_is_deterministic(clean_scenes: Path) -> None:
    image = clean_scenes / "000000.png"
    hints = ReadHints(image_path=image)
    blank: Image = np.zeros((600, 800, 3), dtype=np.uint8)
    a = PerturbedReader({"seed": "3", "wrong_counts": "3"}).read(blank, hints)
    b = PerturbedReader({"seed": "3", "wrong_counts": "3"}).read(blank, hints)
    assert a.points == b.points


def test_reader_failures_are_reported_and_scored_as_empty(clean_scenes: Path) -> None:
    class Flaky:
        name = "flaky"

        def read(self, image: Image, hints: ReadHints) -> Reading:
            assert hints.image_path is not None
            if hints.image_path.stem == "000001":
                raise RuntimeError("lost the board")
            return OracleReader({}).read(image, hints)

    result = run(clean_scenes, Flaky())
    assert [(p.name, p.reason) for p in result.reader_failures] == [
        ("000001.png", "RuntimeError: lost the board")
    ]
    assert result.summary.images_scored == 3
    assert result.summary.board is not None
    assert result.summary.board.boards_exact == Rate(2, 3)
    assert result.summary.roll is not None
    assert result.summary.roll.per_class["cocked"].recall == Rate(0, 1)


@pytest.fixture
def registry() -> Iterator[dict[str, object]]:
    """The reader registry, restored after the test."""
    saved = dict(READERS)
    yield READERS  # type: ignore[misc]
    READERS.clear()
    READERS.update(saved)


def test_registry(registry: Mapping[str, object]) -> None:
    assert create_reader("oracle", {}).name == "oracle"
    assert create_reader("referee.evaluation.oracle:PerturbedReader", {}).name == "perturbed"
    register_reader("mine", OracleReader)
    assert create_reader("mine", {}).name == "oracle"
    with pytest.raises(ReaderError, match="unknown reader 'nope'; known: mine, oracle"):
        create_reader("nope", {})
    with pytest.raises(ReaderError, match="cannot be imported"):
        create_reader("referee.no_such_module:Reader", {})
    with pytest.raises(ReaderError, match="no reader factory"):
        create_reader("referee.evaluation.oracle:Nothing", {})
    with pytest.raises(ReaderOptionError, match="unknown option 'wrong'"):
        create_reader("perturbed", {"wrong": "1"})
    with pytest.raises(ReaderOptionError, match="expected int"):
        create_reader("perturbed", {"wrong_counts": "two"})
    with pytest.raises(ReaderOptionError, match="expected bool"):
        create_reader("perturbed", {"wrong_bar": "maybe"})
    with pytest.raises(ReaderOptionError, match="no options"):
        create_reader("oracle", {"x": "1"})


def test_detect_format(clean_scenes: Path, tmp_path: Path) -> None:
    assert detect_format(clean_scenes) == "scene"
    yolo = tmp_path / "yolo"
    yolo.mkdir()
    (yolo / "a.jpg").write_bytes(b"")
    (yolo / "a.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    (yolo / "classes.txt").write_text("One\nTwo\nThree\nFour\nFive\nSix\n")
    assert detect_format(yolo) == "yolo-dice"
    dataset = discover(yolo, "yolo-dice")
    assert [s.name for s in dataset.samples] == ["a.jpg"]
    assert not dataset.problems  # classes.txt labels no image
    # The scene generator's YOLO files number checkers and dice together: not die faces.
    (yolo / "classes.txt").write_text("checker_white\nchecker_black\n" + "die\n" * 8)
    dataset = discover(yolo, "yolo-dice")
    assert not dataset.samples
    assert [p.reason for p in dataset.problems] == [
        "classes.txt names 10 classes, not the six die faces in order"
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert detect_format(empty) is None


def test_cli_writes_csv_and_json(
    broken_scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["eval", "--data", str(broken_scenes), "--reader", "oracle", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "72/72  100.0 %" in printed
    assert "Not scored (6)" in printed and "orphan.json: label without image" in printed
    document = json.loads((out / "summary.json").read_text())
    assert document["images_scored"] == 3
    assert document["run"]["reader"] == "oracle" and document["run"]["format"] == "scene"
    assert document["summary"]["board"]["points_exact"] == {
        "numerator": 72,
        "denominator": 72,
        "share": 1.0,
    }
    assert document["summary"]["board_still"]["boards"] == 3  # no scene has a hand
    assert "Checkers, scenes without a hand over the board (3 of 3)" in printed
    assert len(document["problems"]) == 6
    with (out / "per_image.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 9
    scored = [r for r in rows if r["status"] == "scored"]
    assert [r["points_exact"] for r in scored] == ["24", "24", "24"]
    assert [r["hand"] for r in scored] == ["0", "0", "0"]
    assert {r["hand"] for r in rows if r["status"] == "not scored"} == {""}
    assert [r["roll_truth"] for r in scored] == ["valid", "cocked", "valid"]
    assert all(float(r["ms_harness.read"]) >= 0 for r in scored)
    assert {r["image"] for r in rows if r["status"] == "not scored"} >= {"orphan.json"}


def test_cli_perturbed_options_and_limit(
    clean_scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["eval", "--data", str(clean_scenes), "--reader", "perturbed", "--out", str(out)]
    args += ["--reader-option", "wrong_counts=2", "--limit", "2", "--quiet"]
    assert main(args) == 0
    assert "44/48  91.7 %" in capsys.readouterr().out


def test_cli_errors(clean_scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ["--out", str(tmp_path / "out")]
    assert main(["eval", "--data", str(tmp_path / "missing"), *out]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["eval", "--data", str(clean_scenes), "--reader", "nope", *out]) == 2
    assert "unknown reader 'nope'" in capsys.readouterr().err
    args = ["eval", "--data", str(clean_scenes), "--reader", "oracle", *out]
    assert main([*args, "--reader-option", "novalue"]) == 2
    assert "not KEY=VALUE" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["eval", "--data", str(empty), "--reader", "oracle", *out]) == 2
    assert "--format" in capsys.readouterr().err
    # Asked for YOLO labels where there are none: every image lacks one, nothing is scored.
    assert main([*args, "--format", "yolo-dice", "--quiet"]) == 1
    assert "no label: 000000.txt is missing" in capsys.readouterr().out


def test_scenes_without_a_hand_are_reported_apart(tmp_path: Path) -> None:
    """A hand hides a checker in one scene; the other, without a hand, is read right."""
    folder = tmp_path / "scenes"
    write_scene(folder, "clean", scene_label("clean.png"))
    write_scene(folder, "hand", scene_label("hand.png", hand=True))

    class MissesUnderHand:
        name = "misses-under-hand"

        def read(self, image: Image, hints: ReadHints) -> Reading:
            reading = OracleReader({}).read(image, hints)
            assert hints.image_path is not None
            if hints.image_path.stem != "hand":
                return reading
            # White's point 6 holds 5 white checkers at the start; one is under the hand.
            points = list(reading.points)
            points[5] = dataclasses.replace(points[5], count=4)
            return dataclasses.replace(reading, points=tuple(points))

    result = run(folder, MissesUnderHand())
    board, still = result.summary.board, result.summary.board_still
    assert board is not None and still is not None
    assert board.points_exact == Rate(47, 48) and board.boards_exact == Rate(1, 2)
    assert still.boards == 1
    assert still.points_exact == Rate(24, 24) and still.boards_exact == Rate(1, 1)
    assert still.bar_right == Rate(1, 1) and still.off_right == Rate(1, 1)

    document = summary_document(result, {})
    board_still = document["summary"]["board_still"]  # type: ignore[index]
    assert board_still["points_exact"] == {"numerator": 24, "denominator": 24, "share": 1.0}

    printed = format_summary(result, "test").splitlines()
    header = printed.index("Checkers, scenes without a hand over the board (1 of 2)")
    still_lines = printed[header + 1 : header + 5]
    assert still_lines[0].startswith("  points exactly right")
    assert still_lines[0].endswith("24/24  100.0 %")
    assert still_lines[1].startswith("  boards exactly right")
    assert still_lines[1].endswith("1/1  100.0 %")

    write_image_csv(tmp_path / "per_image.csv", result)
    with (tmp_path / "per_image.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["image"]: (r["hand"], r["points_exact"]) for r in rows} == {
        "clean.png": ("0", "24"),
        "hand.png": ("1", "23"),
    }


def test_dice_off_the_scene_dice_list(tmp_path: Path) -> None:
    """A scene whose label has no dice: dice metrics say n/a instead of dividing by zero."""
    write_scene(tmp_path, "a", scene_label("a.png", dice=[]))
    result = run(tmp_path, OracleReader({}))
    assert result.summary.dice is None
    write_scene(tmp_path, "b", scene_label("b.png", dice=[die(6, (500.0, 300.0))]))
    assert run(tmp_path, OracleReader({})).summary.dice is not None
