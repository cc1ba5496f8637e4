"""Classic long nardy: golden cases worked by hand from the rule texts (RULES.md §1 and §3)."""

from __future__ import annotations

import pytest

from referee.rules import (
    InvalidOptionError,
    InvalidPositionError,
    LongNardy,
    Position,
    Reason,
    Roll,
    Side,
    Status,
    judge,
)
from tests.rules_helpers import after, board, stacks

LONG = LongNardy()
START = LONG.starting_position()


def plays(position: Position, dice: tuple[int, int]) -> set[str]:
    return {str(play) for play in position.legal_plays(Roll(*dice))}


def test_setup_heads_diagonally_opposite() -> None:
    assert stacks(START, Side.WHITE) == {24: 15}
    assert stacks(START, Side.BLACK) == {24: 15}
    assert LONG.opponent_point(24) == 12
    assert LONG.opponent_point(12) == 24
    assert START.is_valid()


# --- head rule and its first-turn exception (002 §3.1, 003) ---------------------------------


def test_first_turn_six_six_two_checkers_to_eighteen() -> None:
    [only] = START.legal_positions(Roll(6, 6))
    assert stacks(only, Side.WHITE) == {24: 13, 18: 2}


def test_first_turn_four_four_two_checkers_to_sixteen() -> None:
    [only] = START.legal_positions(Roll(4, 4))
    assert stacks(only, Side.WHITE) == {24: 13, 16: 2}


def test_first_turn_three_three_two_ways() -> None:
    found = {frozenset(stacks(p, Side.WHITE).items()) for p in START.legal_positions(Roll(3, 3))}
    assert found == {frozenset({24: 13, 18: 2}.items()), frozenset({24: 13, 21: 1, 15: 1}.items())}


@pytest.mark.parametrize("die", [1, 2, 5])
def test_first_turn_other_doubles_take_one_checker(die: int) -> None:
    for position in START.legal_positions(Roll(die, die)):
        assert position.points[Side.WHITE][23] == 14


def test_note_002_black_first_four_four_after_white_five_five() -> None:
    # White's first 5-5 runs one checker to White's 4, which is Black's 16: a lone black checker
    # is stopped there, not by the head, so the exception does not apply.
    white_moved = after(START, "24/19 19/14 14/9 9/4")
    assert stacks(white_moved, Side.WHITE) == {24: 14, 4: 1}
    assert LONG.opponent_point(4) == 16
    assert plays(white_moved, (4, 4)) == {"24/20"}


def test_option_no_first_turn_exception() -> None:
    strict = LongNardy(first_turn_head_exception="none")
    assert plays(strict.starting_position(), (6, 6)) == {"24/18"}


def test_head_rule_after_first_turn() -> None:
    position = board(LONG, {24: 14, 13: 1}, {24: 14, 20: 1}, turn="white")
    for result in position.legal_positions(Roll(2, 2)):
        assert result.points[Side.WHITE][23] >= 13
    verdict = judge(position, Roll(2, 2), after(position, "24/22 24/22 22/20 22/20"))
    assert not verdict.legal
    assert verdict.reasons == (Reason.HEAD_RULE,)


# --- no hitting ---------------------------------------------------------------------------


def test_never_lands_on_a_single_opponent_checker() -> None:
    # Black's 15 is White's 3... use White's 18: Black's point 6. One black checker there.
    position = board(LONG, {24: 14, 20: 1}, {24: 14, 6: 1}, turn="white")
    assert LONG.opponent_point(18) == 6
    for result in position.legal_positions(Roll(2, 6)):
        assert result.points[Side.WHITE][17] == 0
    verdict = judge(position, Roll(6, 2), after(position, "24/18 20/18"))
    assert not verdict.legal
    assert Reason.LANDED_ON_OPPONENT in verdict.reasons
    assert after(position, "24/18").status() & Status.SHARED_POINT


def test_own_checkers_share_points_freely() -> None:
    # One checker may leave the head and 18/12 would land on Black's head: a single 6 is played,
    # onto White's own point 18.
    position = board(LONG, {24: 13, 18: 2}, {24: 15}, turn="white")
    [only] = position.legal_positions(Roll(6, 6))
    assert stacks(only, Side.WHITE) == {24: 12, 18: 3}


def test_passing_over_opponent_checkers_is_allowed() -> None:
    # Black on White's 21 (Black's 9) does not stop 24/18 with a 6.
    position = board(LONG, {24: 14, 13: 1}, {24: 14, 9: 1}, turn="white")
    assert LONG.opponent_point(21) == 9
    assert "24/18 18/17" in plays(position, (6, 1))


# --- dice rules (§1) ----------------------------------------------------------------------


def test_must_play_both_dice() -> None:
    verdict = judge(START, Roll(6, 5), after(START, "24/18"))
    assert not verdict.legal
    assert verdict.reasons == (Reason.DIE_UNPLAYED,)
    assert [str(option.play) for option in verdict.closest] == ["24/18 18/13"]


def test_larger_die_when_only_one_can_be_played() -> None:
    # Black stands on White's 13 and 14 (Black's 1 and 2): 24/18 then 18/13 is blocked, 24/19
    # then 19/13 too, the head lets only one checker go and the last checker cannot bear off.
    position = board(LONG, {24: 14, 1: 1}, {24: 13, 1: 1, 2: 1}, turn="white")
    assert plays(position, (6, 5)) == {"24/18"}
    verdict = judge(position, Roll(6, 5), after(position, "24/19"))
    assert verdict.reasons == (Reason.SMALLER_DIE,)


def test_doubles_play_as_many_as_possible() -> None:
    # White's 12 is Black's head: a lone white checker on 20 plays 20/16 and stops.
    position = board(LONG, {24: 14, 20: 1}, {24: 15}, turn="white")
    found = plays(position, (4, 4))
    assert found and all(len(play.split()) == 3 for play in found)


def test_no_move_possible_passes_the_turn() -> None:
    # The checker on 8 is stopped by Black on White's 2 (Black's 14); the others may not bear
    # off while it is outside home.
    position = board(LONG, {1: 14, 8: 1}, {24: 14, 14: 1}, turn="white")
    assert LONG.opponent_point(2) == 14
    [unchanged] = position.legal_positions(Roll(6, 6))
    assert unchanged.same_board(position)
    assert unchanged.turn is Side.BLACK
    assert position.legal_plays(Roll(6, 6))[0].steps == ()


# --- six-block rule (002 §3.5, 003) -------------------------------------------------------

BLOCK_WHITE = {24: 8, 13: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 2}


def test_six_block_with_no_opponent_ahead_is_illegal() -> None:
    position = board(LONG, BLOCK_WHITE, {24: 15}, turn="white")
    for result in position.legal_positions(Roll(2, 1)):
        white = result.points[Side.WHITE]
        assert not all(white[p - 1] for p in range(6, 12))
    verdict = judge(position, Roll(2, 1), after(position, "7/6 24/22"))
    assert not verdict.legal
    assert verdict.reasons == (Reason.SIX_BLOCK,)
    assert "11, 10, 9, 8, 7, 6" in verdict.message


def test_six_block_allowed_with_an_opponent_checker_ahead() -> None:
    # Black's 17 is White's 5: past the block (Black's 18..23).
    assert LONG.opponent_point(5) == 17
    position = board(LONG, BLOCK_WHITE, {24: 14, 17: 1}, turn="white")
    assert judge(position, Roll(2, 1), after(position, "7/6 24/22")).legal


def test_six_block_across_the_movers_seam() -> None:
    # White 22, 23, 24, 1, 2, 3 are Black's 10..15: consecutive on Black's route.
    white = {24: 10, 23: 1, 22: 1, 4: 1, 3: 1, 2: 1}
    position = board(LONG, white, {24: 15}, turn="white")
    verdict = judge(position, Roll(3, 1), after(position, "4/1 24/23"))
    assert verdict.reasons == (Reason.SIX_BLOCK,)
    legal = position.legal_positions(Roll(3, 1))
    assert legal
    for result in legal:
        w = result.points[Side.WHITE]
        assert not all(w[p - 1] for p in (22, 23, 24, 1, 2, 3))


def test_six_block_formed_and_broken_in_one_turn_is_allowed() -> None:
    # 7/6 closes 11..6 for a moment, 8/2 opens it again (a "run", 002 Fig. 2).
    position = board(LONG, BLOCK_WHITE, {24: 15}, turn="white")
    assert judge(position, Roll(6, 1), after(position, "7/6 8/2")).legal


def test_six_block_option_home_entered() -> None:
    variant = LongNardy(six_block="home_entered")
    outside_home = board(variant, BLOCK_WHITE, {24: 14, 17: 1}, turn="white")
    assert not judge(outside_home, Roll(2, 1), after(outside_home, "7/6 24/22")).legal
    # Black's 3 is White's 15: in Black's home and past the block.
    in_home = board(variant, BLOCK_WHITE, {24: 14, 3: 1}, turn="white")
    assert judge(in_home, Roll(2, 1), after(in_home, "7/6 24/22")).legal


# --- bearing off (§1, 002 §3.12) ----------------------------------------------------------


def test_bear_off_exact_and_from_highest() -> None:
    position = board(LONG, {4: 8, 3: 7}, {24: 15}, turn="white")
    assert plays(position, (6, 5)) == {"4/0 4/0"}


def test_larger_die_must_move_inside_while_a_higher_point_is_occupied() -> None:
    position = board(LONG, {6: 1, 2: 14}, {24: 15}, turn="white")
    found = {frozenset(stacks(p, Side.WHITE).items()) for p in position.legal_positions(Roll(5, 3))}
    assert found == {frozenset({2: 13, 1: 1}.items()), frozenset({2: 14}.items())}


def test_bearing_off_is_not_compulsory() -> None:
    position = board(LONG, {6: 1, 1: 14}, {24: 15}, turn="white")
    found = [stacks(p, Side.WHITE) for p in position.legal_positions(Roll(1, 1))]
    assert {2: 1, 1: 14} in found
    assert {6: 1, 1: 10} in found


def test_bear_off_only_when_all_are_home() -> None:
    position = board(LONG, {8: 1, 6: 14}, {24: 15}, turn="white")
    verdict = judge(position, Roll(6, 1), after(position, "8/7 6/0"))
    assert verdict.reasons == (Reason.BORE_OFF_NOT_HOME,)


# --- position sanity and options ----------------------------------------------------------


def test_status_flags() -> None:
    sixteen = Position(LONG, Side.WHITE, ((0,) * 23 + (16,), (0,) * 23 + (15,)))
    assert sixteen.status() & Status.TOO_MANY_WHITE
    on_bar = Position(LONG, Side.WHITE, ((0,) * 23 + (14,), (0,) * 23 + (15,)), bar=(1, 0))
    assert on_bar.status() & Status.BAR_IN_LONG_NARDY
    with pytest.raises(InvalidPositionError, match="more than 15"):
        sixteen.validate()
    with pytest.raises(InvalidPositionError):
        Position.from_dict({**START.to_dict(), "white": [0] * 23 + [16]})


def test_unknown_option_value_refused() -> None:
    with pytest.raises(InvalidOptionError, match="six_block"):
        LongNardy(six_block="never")  # type: ignore[arg-type]


def test_json_round_trip_keeps_options() -> None:
    variant = LongNardy(six_block="home_entered")
    position = variant.starting_position(Side.BLACK)
    assert Position.from_dict(position.to_dict()) == position
