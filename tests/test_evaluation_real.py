"""The harness on real labelled dice photos from `../shared/real/dice/` (never copied here).

Skipped, saying so, where that folder is absent. The built-in readers do not look at pixels,
so these check that the real labels parse, pair and score as the harness claims.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import detect_format, discover
from referee.evaluation.metrics import Rate
from referee.evaluation.oracle import OracleReader, PerturbedReader
from referee.evaluation.runner import evaluate

REAL_DICE = Path(__file__).resolve().parents[1].parent / "shared" / "real" / "dice"
SUBSETS = ("d6-tray/train", "d6-tray/test", "webcam-desk/Train", "webcam-desk/Valid")

pytestmark = pytest.mark.skipif(
    not REAL_DICE.is_dir(),
    reason=f"real dice photos not found at {REAL_DICE} (../shared/real/ beside the repo)",
)


@pytest.mark.parametrize("subset", SUBSETS)
def test_real_labels_parse_and_the_oracle_scores_all(subset: str) -> None:
    folder = REAL_DICE / subset
    assert detect_format(folder) == "yolo-dice"
    dataset = discover(folder, "yolo-dice")
    assert not dataset.problems  # classes.txt beside the webcam labels is no orphan label
    result = evaluate(dataset, OracleReader({}), EvalConfig())
    assert not result.problems and not result.reader_failures
    dice = result.summary.dice
    assert dice is not None
    assert result.summary.images_scored == len(dataset.samples)
    assert dice.value_right == Rate(dice.dice, dice.dice)
    assert dice.false_positives == 0
    assert result.summary.board is None and result.summary.roll is None


def test_one_wrong_die_per_real_photo() -> None:
    dataset = discover(REAL_DICE / "d6-tray" / "test", "yolo-dice")
    reader = PerturbedReader({"wrong_dice": "1", "missed_dice": "1", "extra_dice": "1"})
    result = evaluate(dataset, reader, EvalConfig())
    dice = result.summary.dice
    assert dice is not None
    # Per photo one die is misread and another missed; a photo with a single die loses only
    # that one (misread), its "missed" die does not exist.
    per_photo = [len(s.dice.dice) for s in result.scores]
    wrong = sum(min(n, 2) for n in per_photo)
    missed = sum(n >= 2 for n in per_photo)
    assert min(per_photo) == 1 and len(per_photo) == 50
    assert dice.value_right == Rate(dice.dice - wrong, dice.dice)
    assert dice.detected == Rate(dice.dice - missed, dice.dice)
    assert dice.false_positives == 50
