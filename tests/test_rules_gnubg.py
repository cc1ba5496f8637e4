"""Short nardy's legal plays against GNU Backgammon's move generator on random game positions."""

from __future__ import annotations

import pytest

from referee.rules import ShortNardy
from referee.rules.sampling import random_positions
from tests.gnubg_reference import gnubg_results, our_results

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn is part of the test extra")

POSITIONS = 3000


def test_same_resulting_positions_as_gnubg() -> None:
    differences = []
    seen_bar = seen_bearoff = seen_blocked = 0
    for position, roll in random_positions(ShortNardy(), POSITIONS, seed=2026):
        ours, theirs = our_results(position, roll), gnubg_results(position, roll)
        if ours != theirs:
            differences.append((position.to_dict(), roll.to_list(), len(ours), len(theirs)))
        seen_bar += position.bar[position.turn] > 0
        seen_bearoff += position.off[position.turn] > 0
        seen_blocked += len(theirs) == 1 and position.legal_plays(roll)[0].steps == ()
    assert differences == []
    # The sample really covers the hard cases.
    assert seen_bar > 50
    assert seen_bearoff > 50
    assert seen_blocked > 5
