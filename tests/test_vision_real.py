"""The `vision` reader on real labelled dice photos from `../shared/real/dice/` (never copied
into the repository). Skipped, saying so, where that folder is absent.

These photos show dice alone (no board), which the reader handles in its dice-only mode. The
floors asserted here are regression guards well under today's figures (the README's "Reading
the board" has the measured ones), not targets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import Dataset, discover
from referee.evaluation.runner import evaluate
from referee.vision.reader import VisionReader

REAL_DICE = Path(__file__).resolve().parents[1].parent / "shared" / "real" / "dice"

pytestmark = pytest.mark.skipif(
    not REAL_DICE.is_dir(),
    reason=f"real dice photos not found at {REAL_DICE} (../shared/real/ beside the repo)",
)


@pytest.mark.parametrize(
    ("subset", "min_detected", "min_value_right"),
    [("d6-tray/test", 0.95, 0.8), ("webcam-desk/Valid", 0.95, 0.9)],
)
def test_reads_real_dice(subset: str, min_detected: float, min_value_right: float) -> None:
    full = discover(REAL_DICE / subset, "yolo-dice")
    dataset = Dataset(full.root, full.format, full.samples[:12], full.problems)
    result = evaluate(dataset, VisionReader({}), EvalConfig())
    assert not result.reader_failures
    dice = result.summary.dice
    assert dice is not None and dice.dice > 0
    detected, value_right = dice.detected.share, dice.value_right.share
    assert detected is not None and detected >= min_detected
    assert value_right is not None and value_right >= min_value_right
