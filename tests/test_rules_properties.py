"""Property tests of the rules core on positions from random games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import (
    CHECKERS_PER_SIDE,
    LongNardy,
    Position,
    Roll,
    ShortNardy,
    Variant,
    judge,
)
from referee.rules.sampling import random_game, random_roll
from referee.rules.variants import tree_for

VARIANTS = st.sampled_from([LongNardy(), ShortNardy()])


def game_position(variant: Variant, seed: int, turns: int) -> tuple[Position, Roll]:
    rng = random.Random(seed)
    position, roll = variant.starting_position(), random_roll(rng)
    for number, (seen, seen_roll) in enumerate(random_game(variant, rng)):
        position, roll = seen, seen_roll
        if number == turns:
            break
    return position, roll


SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(variant=VARIANTS, seed=st.integers(0, 10**6), turns=st.integers(0, 120))
def test_checkers_are_conserved(variant: Variant, seed: int, turns: int) -> None:
    position, roll = game_position(variant, seed, turns)
    for after in position.legal_positions(roll):
        assert after.is_valid(), after.status()
        assert after.count(position.turn) == after.count(position.turn.other) == CHECKERS_PER_SIDE
        assert after.turn is position.turn.other


@SETTINGS
@given(variant=VARIANTS, seed=st.integers(0, 10**6), turns=st.integers(0, 120))
def test_plays_use_the_same_maximal_number_of_dice(variant: Variant, seed: int, turns: int) -> None:
    position, roll = game_position(variant, seed, turns)
    plays = position.legal_plays(roll)
    used = {len(play.steps) for play in plays}
    assert len(used) == 1
    [dice] = used
    rules, tree = tree_for(position, roll)
    # Only a rule about where a turn may end (the six-block) can make a fuller play illegal.
    for deeper in tree.levels[dice + 1 :]:
        assert not any(rules.may_end_turn(state) for state in deeper)
    for play in plays:
        assert any(
            position.play(play).same_board(after) for after in position.legal_positions(roll)
        )


@SETTINGS
@given(variant=VARIANTS, seed=st.integers(0, 10**6), turns=st.integers(0, 120))
def test_judge_accepts_every_play_and_rejects_perturbed_ones(
    variant: Variant, seed: int, turns: int
) -> None:
    position, roll = game_position(variant, seed, turns)
    legal = position.legal_positions(roll)
    keys = {after.board_key() for after in legal}
    for after in legal:
        assert judge(position, roll, after).legal
    # Slide one of the mover's checkers one point on: unless that is another legal result, the
    # judge must refuse it and say why.
    mover = position.turn
    for after in legal[:5]:
        counts = list(after.points[mover])
        for point in range(24, 1, -1):
            if counts[point - 1]:
                counts[point - 1] -= 1
                counts[point - 2] += 1
                break
        points = list(after.points)
        points[mover] = tuple(counts)
        nudged = Position(variant, after.turn, (points[0], points[1]), after.bar, after.off)
        if nudged.board_key() in keys:
            continue
        verdict = judge(position, roll, nudged)
        assert not verdict.legal
        assert verdict.reasons
        assert verdict.closest
