"""Golden cases, worked by hand from the seeds, for the long-nardy variants without a doubles
ladder (nardgammon, fevga, khachapuri), the long-nardy options, and variant names.

Points are in each side's own numbering; White's p is Black's p + 12 (mod 24), so Black's head
(its 24) is White's 12 and White's head is Black's 12.
"""

from __future__ import annotations

import pytest

from referee.rules import (
    InvalidOptionError,
    LongNardy,
    Position,
    Roll,
    Side,
    UnknownVariantError,
    judge,
    variant_from_name,
)
from referee.rules.long_variants import (
    Fevga,
    FevgaRabid,
    Gulbar,
    Khachapuri,
    Mad,
    MadGulbar,
    Nardgammon,
)
from referee.rules.turns import Next
from tests.rules_helpers import after, board, stacks
from tests.variant_helpers import following, outcomes, reached

# --- nardgammon ------------------------------------------------------------------------------


def run_position(variant: LongNardy, black: dict[int, int]) -> Position:
    """White's runner on 13 can close 11 and so make 11..6 a block of six with 2, then leave
    11 with 1; with 1 first it would stop on Black's head (White's 12)."""
    return board(variant, {24: 9, 13: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1}, black)


def test_nardgammon_forbids_a_run_through_a_block_classic_allows() -> None:
    # Black is all on its head (White's 12), behind the block 11..6 (Black's 23..18).
    black = {24: 15}
    run = "13/11 11/10"
    classic, nardgammon = run_position(LongNardy(), black), run_position(Nardgammon(), black)
    assert reached(classic, run) <= outcomes(classic, Roll(2, 1))
    assert not reached(nardgammon, run) & outcomes(nardgammon, Roll(2, 1))
    verdict = judge(nardgammon, Roll(2, 1), after(nardgammon, run))
    assert not verdict.legal
    # (Stopping on Black's head with the 1 first would be the other way to get there.)
    assert "six_block" in verdict.reasons
    assert "even for a moment" in verdict.message
    # Every other classic result stays legal.
    assert outcomes(nardgammon, Roll(2, 1)) == outcomes(classic, Roll(2, 1)) - reached(classic, run)


def test_nardgammon_allows_a_run_past_a_block_with_an_opponent_checker_ahead() -> None:
    # One black checker on its 10 (White's 22) is ahead of the block's lowest point, Black's 18.
    position = run_position(Nardgammon(), {24: 14, 10: 1})
    assert judge(position, Roll(2, 1), after(position, "13/11 11/10")).legal


# --- fevga ------------------------------------------------------------------------------------


def test_fevga_first_turn_has_no_head_exception() -> None:
    start = Fevga().starting_position()
    # A lone checker from 24 is stopped by Black's head on 12; no second one may leave.
    assert outcomes(start, Roll(6, 6)) == reached(start, "24/18")
    assert outcomes(start, Roll(4, 4)) == reached(start, "24/20 20/16")
    assert outcomes(start, Roll(3, 3)) == reached(start, "24/21 21/18 18/15")
    classic = LongNardy().starting_position()
    assert outcomes(classic, Roll(6, 6)) == reached(classic, "24/18 24/18")


def test_fevga_second_checker_waits_until_the_first_passes_the_opponents_head() -> None:
    position = board(Fevga(), {24: 14, 18: 1}, {24: 15})
    # The runner on 18 has not passed Black's head (White's 12): it must play the whole roll.
    assert outcomes(position, Roll(6, 5)) == reached(position, "18/13 13/7")
    verdict = judge(position, Roll(6, 5), after(position, "24/18 18/13"))
    assert verdict.reasons == ("head_rule",)
    assert "passed the opponent's head" in verdict.message
    # Classic allows one checker off the head instead.
    classic = board(LongNardy(), {24: 14, 18: 1}, {24: 15})
    assert reached(classic, "24/18 18/13") <= outcomes(classic, Roll(6, 5))


def test_fevga_any_number_leave_the_head_once_one_has_passed() -> None:
    position = board(Fevga(), {24: 14, 9: 1}, {24: 15})
    assert reached(position, "24/18 24/19") <= outcomes(position, Roll(6, 5))
    # Passing and leaving the head may happen in the same turn (14/9 first).
    runner = board(Fevga(), {24: 14, 14: 1}, {24: 15})
    assert reached(runner, "14/9 24/21") <= outcomes(runner, Roll(5, 3))


def test_fevga_allows_a_six_block_with_no_opponent_checker_ahead() -> None:
    # 7/6 makes White's 10..5 (Black's 22..17) with all of Black on its 24.
    white = {24: 9, 10: 1, 9: 1, 8: 1, 7: 2, 5: 1}
    fevga, classic = board(Fevga(), white, {24: 15}), board(LongNardy(), white, {24: 15})
    play = "7/6 24/21"
    assert judge(fevga, Roll(3, 1), after(fevga, play)).legal
    assert judge(classic, Roll(3, 1), after(classic, play)).reasons == ("six_block",)


def test_fevga_forbids_a_block_right_in_front_of_all_fifteen_opponent_checkers() -> None:
    # 13/11 makes White's 11..6, Black's 23..18, just in front of Black's 24 holding all 15.
    position = board(Fevga(), {24: 9, 13: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1}, {24: 15})
    verdict = judge(position, Roll(2, 1), after(position, "13/11 24/23"))
    assert verdict.reasons == ("six_block",)
    assert "in front of all fifteen opponent checkers" in verdict.message
    # With one black checker elsewhere (its 2, White's 14), the block may stand.
    apart = board(Fevga(), {24: 9, 13: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1}, {24: 14, 2: 1})
    assert judge(apart, Roll(2, 1), after(apart, "13/11 24/23")).legal


def test_fevga_block_that_no_play_can_break_does_not_stop_the_roll() -> None:
    # Black has gathered all fifteen on its 19 (White's 7), in front of White's 6..1. With 6-5
    # no point of the block can be emptied (3 and lower cannot move, 6, 5, 4 hold three each),
    # so White plays the roll as usual instead of not at all.
    position = board(Fevga(), {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {19: 15})
    assert outcomes(position, Roll(6, 5)) == reached(position, "6/off 5/off", "6/off 6/1")
    # With 2-1, 3/1 3/2 (or 2/off 2/1, 1/off 1/off...) breaks it, so the block may not stay.
    assert not reached(position, "6/4 6/5") & outcomes(position, Roll(2, 1))
    assert reached(position, "3/1 3/2") <= outcomes(position, Roll(2, 1))


def test_fevga_forbids_a_block_over_the_whole_starting_quarter() -> None:
    # 24/19 would fill White's 24..19; Black (all on its 6, White's 18) is ahead of it.
    white = {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1, 4: 1}
    fevga, classic = board(Fevga(), white, {6: 15}), board(LongNardy(), white, {6: 15})
    verdict = judge(fevga, Roll(5, 1), after(fevga, "24/19 5/4"))
    assert verdict.reasons == ("six_block",)
    assert "whole starting quarter" in verdict.message
    assert judge(classic, Roll(5, 1), after(classic, "24/19 5/4")).legal


# --- khachapuri -------------------------------------------------------------------------------


def test_khachapuri_starts_with_eleven_on_six_and_four_on_the_head() -> None:
    start = Khachapuri().starting_position()
    for side in Side:
        assert stacks(start, side) == {6: 11, 24: 4}
    assert start.is_valid()
    assert stacks(Khachapuri(home_stack=1).starting_position(), Side.BLACK) == {1: 11, 24: 4}


def test_khachapuri_lets_any_number_leave_the_head() -> None:
    start = Khachapuri().starting_position()
    # (White's 18 is Black's 6, where Black's eleven stand.)
    assert reached(start, "24/19 24/20") <= outcomes(start, Roll(5, 4))
    assert reached(start, "24/21 24/21 24/21 24/21") <= outcomes(start, Roll(3, 3))


def test_khachapuri_is_gulbar_a_full_double_throws_again() -> None:
    start = Khachapuri().starting_position()
    then = following(start, Roll(3, 3), "24/21 24/21 24/21 24/21")
    assert (then.player, then.kind) == (Side.WHITE, Next.THROW_AGAIN)


# --- options of the long family ---------------------------------------------------------------


def after_white_five_five(variant: LongNardy) -> Position:
    """Black to move after White's first 5-5 (one checker on White's 4, Black's 16)."""
    return board(variant, {24: 14, 4: 1}, {24: 15}, turn="black")


def test_any_block_head_exception_gives_003s_extra_first_turn_rolls() -> None:
    classic = after_white_five_five(LongNardy())
    wide = after_white_five_five(LongNardy(first_turn_head_exception="any_block"))
    # 002's note: after White's 5-5, Black's 4-4 takes one checker off and plays one four.
    assert outcomes(classic, Roll(4, 4)) == reached(classic, "24/20")
    assert outcomes(wide, Roll(4, 4)) == reached(wide, "24/20 24/20")
    # 003: 6-2 now takes a second checker off too (the lone checker's 16 is White's 4).
    assert outcomes(classic, Roll(6, 2)) == reached(classic, "24/18")
    assert outcomes(wide, Roll(6, 2)) == reached(wide, "24/18 24/22")
    # 003: after White's 2-1 (White's 21 is Black's 9), Black's 5-5 takes two off.
    after_two_one = board(
        LongNardy(first_turn_head_exception="any_block"), {24: 14, 21: 1}, {24: 15}, "black"
    )
    assert outcomes(after_two_one, Roll(5, 5)) == reached(after_two_one, "24/19/14 24/19/14")


def test_no_head_exception_takes_one_checker_even_with_six_six() -> None:
    start = LongNardy(first_turn_head_exception="none").starting_position()
    assert outcomes(start, Roll(6, 6)) == reached(start, "24/18")


def test_options_a_variant_replaces_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="six_block"):
        Fevga(six_block="home_entered")
    with pytest.raises(InvalidOptionError, match="first_turn_head_exception"):
        FevgaRabid(first_turn_head_exception="any_block")
    with pytest.raises(InvalidOptionError, match="first_turn_head_exception"):
        Khachapuri(first_turn_head_exception="none")
    with pytest.raises(InvalidOptionError, match="ladder_moves_per_step"):
        MadGulbar(ladder_moves_per_step=3)  # type: ignore[arg-type]
    with pytest.raises(UnknownVariantError, match="passed_moves"):
        variant_from_name("mad", passed_moves="rest_of_double")


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("Nardgammon", Nardgammon),
        ("бешеные", Mad),
        ("crazy nardy", Mad),
        ("Гюльбар", Gulbar),
        ("mad gulbar", MadGulbar),
        ("бешеный гюльбар", MadGulbar),
        ("Tbilisi", Khachapuri),
        ("хачапури", Khachapuri),
        ("φεύγα", Fevga),
        ("giul", FevgaRabid),
        ("fevga_rabid", FevgaRabid),
    ],
)
def test_variant_names_and_aliases(name: str, variant: type[LongNardy]) -> None:
    assert type(variant_from_name(name)) is variant


def test_position_json_carries_variant_and_options() -> None:
    data = MadGulbar(ladder_moves_per_step=2, passed_moves="rest_of_double").starting_position()
    text = data.to_dict()
    assert text["variant"] == "mad_gulbar"
    assert text["options"] == {"ladder_moves_per_step": 2, "passed_moves": "rest_of_double"}
    assert Position.from_dict(text) == data
