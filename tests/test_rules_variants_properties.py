"""Property tests (hypothesis) of every long-nardy variant and the short-nardy hit options, on
random games that follow each play's continuation (ladders, second throws, passed moves)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import CHECKERS_PER_SIDE, LongNardy, Roll, ShortNardy, Side, Variant, judge
from referee.rules.long_variants import LONG_VARIANTS, DoublesLadder
from referee.rules.turns import Continuation, Next, OwedMoves
from referee.rules.variants import tree_for
from tests.variant_helpers import random_turns

VARIANTS = [
    *(cls() for cls in LONG_VARIANTS),
    LongNardy(first_turn_head_exception="any_block"),
    ShortNardy(no_bearoff_after_home_hit=True, no_hit_then_join=True),
]


@settings(max_examples=45, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), plays=st.integers(1, 400))
def test_random_games_keep_the_rules(variant: Variant, seed: int, plays: int) -> None:
    for position, dice, play, then in random_turns(variant, random.Random(seed), plays):
        moves = variant.legal_moves(position, dice)
        assert position.play(play).board_key() in {after.board_key() for _, after in moves}
        for _, after in moves:
            # Checkers are conserved, every result can occur, and the judge accepts it.
            assert after.is_valid(), after.status()
            assert after.count(Side.WHITE) == after.count(Side.BLACK) == CHECKERS_PER_SIDE
            assert judge(position, dice, after).legal
        # All legal plays use the same, maximal number of dice.
        used = {len(legal.steps) for legal, _ in moves}
        assert len(used) == 1
        [count] = used
        assert count <= len(variant.to_play(dice).moves)
        rules, tree = tree_for(position, dice)
        for deeper in tree.levels[count + 1 :]:
            assert not any(rules.may_end_turn(state) for state in deeper)
        check_continuation(variant, position.turn, dice, count, then)


def check_continuation(
    variant: Variant, mover: Side, dice: Roll, played: int, then: Continuation
) -> None:
    """What follows a play is one of the shapes the variant's turn structure allows."""
    taker = isinstance(dice, OwedMoves) and dice.passed
    if then.kind is Next.LADDER:
        assert isinstance(variant, DoublesLadder) and not taker
        assert then.player is mover and then.owed is not None
        assert then.owed.die1 == dice.die1 + 1
        assert then.owed.count == variant.moves_per_step
    elif then.kind is Next.PASSED:
        assert then.owed is not None
        # The roller passes the rest of its double; the taker goes on up its passed ladder.
        assert (then.player is mover) == taker
        if not taker:
            assert then.owed.count == len(variant.to_play(dice).moves) - played
    elif then.kind is Next.THROW_AGAIN:
        assert then.player is mover and played == 4
        assert dice.is_double and not isinstance(dice, OwedMoves)
    elif then.kind is Next.THROW:
        assert then.player is (mover if taker else mover.other)
