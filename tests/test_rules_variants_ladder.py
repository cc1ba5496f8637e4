"""Golden cases, worked by hand from the seeds, for the turn structure of the long-nardy
variants: the doubles ladder (mad, mad gulbar, fevga rabid), gulbar's second throw, and moves
passed to the opponent; and for mad's and mad gulbar's bearing off.

Points are in each side's own numbering; White's p is Black's p + 12 (mod 24).
"""

from __future__ import annotations

from referee.rules import LongNardy, Position, Roll, Side, judge
from referee.rules.long_variants import FevgaRabid, Gulbar, Mad, MadGulbar
from referee.rules.turns import Continuation, Next, OwedMoves
from tests.rules_helpers import after, board
from tests.variant_helpers import following, outcomes, play_on, reached

WHITE, BLACK = Side.WHITE, Side.BLACK


def ladder(player: Side, die: int, count: int = 4) -> Continuation:
    return Continuation(player, Next.LADDER, OwedMoves.ladder(die, count))


def passed(player: Side, die: int, count: int, through: int) -> Continuation:
    return Continuation(player, Next.PASSED, OwedMoves.passed_over(die, count, through))


def throw(player: Side) -> Continuation:
    return Continuation(player, Next.THROW)


def fives_blocked(variant: LongNardy) -> Position:
    """White all on its head; a black checker on its 7 (White's 19) stops every five."""
    return board(variant, {24: 15}, {24: 14, 7: 1})


def fives_stopped_at_14(variant: LongNardy) -> Position:
    """White all on its head; a black checker on its 2 (White's 14) stops a lone checker's
    second five."""
    return board(variant, {24: 15}, {24: 14, 2: 1})


# --- classic: the opponent always throws -----------------------------------------------------


def test_classic_play_passes_the_throw_and_the_last_checker_ends_the_game() -> None:
    start = LongNardy().starting_position()
    assert following(start, Roll(6, 6), "24/18 24/18") == throw(BLACK)
    finish = board(LongNardy(), {1: 1}, {24: 15}, off=(14, 0))
    assert following(finish, Roll(2, 1), "1/off") == Continuation(WHITE, Next.GAME_OVER)


# --- mad --------------------------------------------------------------------------------------


def test_mad_ladder_climbs_from_the_thrown_double_to_six_six() -> None:
    start = Mad().starting_position()
    four = "24/20 24/20 20/16 20/16"  # the first-turn exception, as in classic
    assert outcomes(start, Roll(4, 4)) == reached(start, four)
    assert following(start, Roll(4, 4), four) == ladder(WHITE, 5)
    step = play_on(start, Roll(4, 4), four)
    # Each double is a play of its own: a new checker may leave the head for the fives.
    fives = OwedMoves.ladder(5)
    assert reached(step, "24/19 19/14 14/9 9/4") <= outcomes(step, fives)
    assert following(step, fives, "24/19 19/14 14/9 9/4") == ladder(WHITE, 6)
    last = play_on(step, fives, "24/19 19/14 14/9 9/4")
    sixes = OwedMoves.ladder(6)
    assert reached(last, "24/18 16/10 16/10 10/4") <= outcomes(last, sixes)
    assert following(last, sixes, "24/18 16/10 16/10 10/4") == throw(BLACK)
    # Only doubles climb.
    assert following(start, Roll(6, 5), "24/18 18/13") == throw(BLACK)


def test_mad_double_that_cannot_be_started_is_lost_and_nothing_passes() -> None:
    position = fives_blocked(Mad())
    assert outcomes(position, Roll(5, 5)) == {position.board_key()}
    assert following(position, Roll(5, 5), "") == throw(BLACK)


def test_mad_double_started_but_not_finished_still_climbs() -> None:
    position = fives_stopped_at_14(Mad())
    assert outcomes(position, Roll(5, 5)) == reached(position, "24/19")
    assert following(position, Roll(5, 5), "24/19") == ladder(WHITE, 6)


def test_mad_bears_off_only_from_the_point_of_the_die() -> None:
    mad = board(Mad(), {5: 2, 3: 13}, {24: 15})
    classic = board(LongNardy(), {5: 2, 3: 13}, {24: 15})
    # No checker on 6: classic bears off from the highest point, mad cannot play at all.
    assert outcomes(classic, Roll(6, 6)) == reached(classic, "5/off 5/off 3/off 3/off")
    assert outcomes(mad, Roll(6, 6)) == {mad.board_key()}
    verdict = judge(mad, Roll(6, 6), after(mad, "5/off 5/off 3/off 3/off"))
    assert verdict.reasons == ("bore_off_inexact",)
    # 5-4: the five bears off from 5; the four can neither bear off nor move inside home.
    assert outcomes(mad, Roll(5, 4)) == reached(mad, "5/off")
    assert judge(mad, Roll(5, 4), after(mad, "5/off 5/1")).reasons == ("moved_inside_home",)
    assert reached(classic, "5/off 5/1") <= outcomes(classic, Roll(5, 4))


def test_mad_moves_inside_home_until_the_last_checker_is_home_then_the_ladder_stops() -> None:
    position = board(Mad(), {8: 1, 2: 14}, {24: 15})
    classic = board(LongNardy(), {8: 1, 2: 14}, {24: 15})
    # 2/1 is a move inside home while 8 is still out; once 8/7/6 has brought it home, a one
    # may only bear off from point 1.
    assert reached(position, "2/1 8/7 7/6 1/off") <= outcomes(position, Roll(1, 1))
    assert not reached(position, "8/7 7/6 6/5 5/4") & outcomes(position, Roll(1, 1))
    assert reached(classic, "8/7 7/6 6/5 5/4") <= outcomes(classic, Roll(1, 1))
    # All home after the double: the ladder stops; one checker still out: 2-2 follows.
    assert following(position, Roll(1, 1), "2/1 8/7 7/6 1/off") == throw(BLACK)
    assert following(position, Roll(1, 1), "2/1 2/1 2/1 8/7") == ladder(WHITE, 2)


# --- gulbar -----------------------------------------------------------------------------------


def test_gulbar_fully_played_double_throws_again() -> None:
    start = Gulbar().starting_position()
    assert following(start, Roll(1, 1), "24/23/22/21/20") == Continuation(WHITE, Next.THROW_AGAIN)
    assert following(start, Roll(6, 5), "24/18 18/13") == throw(BLACK)


def test_gulbar_unplayable_moves_of_a_double_pass_to_the_opponent() -> None:
    start = Gulbar().starting_position()
    # 6-6 first: two checkers to 18, whose next six would stop on Black's head.
    assert following(start, Roll(6, 6), "24/18 24/18") == passed(BLACK, 6, 2, 6)
    taken = play_on(start, Roll(6, 6), "24/18 24/18")
    owed = OwedMoves.passed_over(6, 2, 6)
    # Black, all on its head, gets the first-turn exception for the two sixes: its lone
    # checker's second six would stop on White's head.
    assert outcomes(taken, owed) == reached(taken, "24/18 24/18")
    # Having played the passed moves, Black throws for its own turn (no second throw).
    assert following(taken, owed, "24/18 24/18") == throw(BLACK)


def test_gulbar_double_with_no_move_passes_all_four() -> None:
    position = fives_blocked(Gulbar())
    assert following(position, Roll(5, 5), "") == passed(BLACK, 5, 4, 5)
    taken = play_on(position, Roll(5, 5), "")
    # Black's checker on its 7 runs home; only one leaves its head.
    assert judge(taken, OwedMoves.passed_over(5, 4, 5), after(taken, "24/19 7/2 19/14 14/9")).legal


# --- mad gulbar -------------------------------------------------------------------------------


def test_mad_gulbar_passes_the_rest_of_the_double_and_of_the_ladder() -> None:
    position = fives_stopped_at_14(MadGulbar())
    assert following(position, Roll(5, 5), "24/19") == passed(BLACK, 5, 3, 6)
    taken = play_on(position, Roll(5, 5), "24/19")
    # Black plays the three fives with one checker off its head (its 2 cannot move a five),
    # then the ladder's 6-6 in White's place.
    fives = OwedMoves.passed_over(5, 3, 6)
    assert outcomes(taken, fives) == reached(taken, "24/19 19/14 14/9")
    assert following(taken, fives, "24/19 19/14 14/9") == passed(BLACK, 6, 4, 6)
    last = play_on(taken, fives, "24/19 19/14 14/9")
    sixes = OwedMoves.passed_over(6, 4, 6)
    # 18/12 would stop on White's head, so two of the four sixes are lost: never passed back.
    assert outcomes(last, sixes) == reached(last, "24/18 9/3")
    assert following(last, sixes, "24/18 9/3") == throw(BLACK)
    # With passed_moves = rest_of_double only the three fives pass.
    only = fives_stopped_at_14(MadGulbar(passed_moves="rest_of_double"))
    assert following(only, Roll(5, 5), "24/19") == passed(BLACK, 5, 3, 5)


def test_mad_gulbar_passes_a_thrown_double_it_cannot_start() -> None:
    position = fives_blocked(MadGulbar())
    assert following(position, Roll(5, 5), "") == passed(BLACK, 5, 4, 6)


def test_mad_gulbar_two_moves_per_double() -> None:
    start = MadGulbar(ladder_moves_per_step=2).starting_position()
    # 000: 4-4 gives 4, 4, then 5, 5, then 6, 6.
    assert outcomes(start, Roll(4, 4)) == reached(start, "24/20 20/16")
    assert following(start, Roll(4, 4), "24/20 20/16") == ladder(WHITE, 5, 2)


def test_mad_gulbar_last_checker_home_on_the_fourth_move_gets_one_more_double() -> None:
    # 003's example: the last checker comes home on the fourth move of 2-2; 3-3 follows and
    # bears four checkers off from point 3; 4-4 does not.
    position = board(MadGulbar(), {13: 1, 3: 14}, {24: 15})
    twos = "13/11 11/9 9/7 7/5"
    assert reached(position, twos) <= outcomes(position, Roll(2, 2))
    assert following(position, Roll(2, 2), twos) == ladder(WHITE, 3)
    home = play_on(position, Roll(2, 2), twos)
    threes = OwedMoves.ladder(3)
    # All home now: no moves inside home (5/2 is refused), and 5 is too high for a three.
    assert outcomes(home, threes) == reached(home, "3/off 3/off 3/off 3/off")
    assert following(home, threes, "3/off 3/off 3/off 3/off") == throw(BLACK)
    assert judge(home, threes, after(home, "5/2 3/off 3/off 3/off")).reasons == (
        "moved_inside_home",
    )


# --- fevga rabid ------------------------------------------------------------------------------


def test_fevga_rabid_thrown_double_it_cannot_start_is_lost() -> None:
    position = fives_blocked(FevgaRabid())
    assert following(position, Roll(5, 5), "") == throw(BLACK)


def test_fevga_rabid_ladder_double_it_cannot_start_passes() -> None:
    # A black checker on its 6 (White's 18) stops White's runner after 1-1.
    position = board(FevgaRabid(), {24: 15}, {24: 14, 6: 1})
    ones = "24/23 23/22 22/21 21/20"
    assert outcomes(position, Roll(1, 1)) == reached(position, ones)
    assert following(position, Roll(1, 1), ones) == ladder(WHITE, 2)
    runner = play_on(position, Roll(1, 1), ones)
    twos = OwedMoves.ladder(2)
    # 20/18 is blocked and fevga keeps the rest on the head until the runner has passed 12.
    assert outcomes(runner, twos) == {runner.board_key()}
    assert following(runner, twos, "") == passed(BLACK, 2, 4, 6)


def test_fevga_rabid_allows_moves_inside_home_and_stops_the_ladder_once_home() -> None:
    position = board(FevgaRabid(), {7: 1, 3: 14}, {24: 15})
    assert reached(position, "7/6 6/5 3/2 3/2") <= outcomes(position, Roll(1, 1))
    assert following(position, Roll(1, 1), "7/6 6/5 3/2 3/2") == throw(BLACK)
    # Mad gulbar: no moves inside home once all are home, and since a checker was out as the
    # double began, 2-2 follows.
    gulbar = board(MadGulbar(), {7: 1, 3: 14}, {24: 15})
    assert not reached(gulbar, "7/6 6/5 3/2 3/2") & outcomes(gulbar, Roll(1, 1))
    assert reached(gulbar, "3/2 3/2 3/2 7/6") <= outcomes(gulbar, Roll(1, 1))
    assert following(gulbar, Roll(1, 1), "3/2 3/2 3/2 7/6") == ladder(WHITE, 2)
