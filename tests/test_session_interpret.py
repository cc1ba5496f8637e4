"""Reading the board through the rules: `interpret(before, roll, observation)`."""

from __future__ import annotations

import itertools

import pytest

from referee.rules import LongNardy, Play, Position, Reason, Roll, ShortNardy, Side
from referee.rules.sampling import random_positions
from referee.session import (
    BoardObservation,
    Count,
    CountObservation,
    Outcome,
    PointObservation,
    SessionConfig,
    interpret,
    misfits,
    play_between,
)
from referee.session.interpret import board_of, position_of

LONG = LongNardy()
SHORT = ShortNardy()
WHITE, BLACK = Side.WHITE, Side.BLACK


def seen(position: Position, confidence: float = 0.99) -> BoardObservation:
    return BoardObservation.from_position(position, confidence)


def after(before: Position, play: str) -> Position:
    return before.play(Play.from_str(play))


# --- legal moves, read exactly ----------------------------------------------------------------


def test_exact_reading_of_a_legal_play_is_legal_and_sure() -> None:
    start = LONG.starting_position()
    result = interpret(start, Roll(6, 5), seen(after(start, "24/18 18/13")))
    assert result.outcome is Outcome.LEGAL
    assert result.confidence > 0.99
    assert str(result.best.play) == "24/18 18/13"
    assert result.best.position.turn is BLACK
    assert result.fitting == 1 and result.legal_results == 1
    assert result.illegal_probability == 0.0
    assert result.observed is None and result.verdict is None
    assert result.message == "Legal 6-5: 24/18 18/13."


def test_every_legal_result_read_exactly_is_recognised() -> None:
    for variant in (LONG, SHORT):
        for before, roll in random_positions(variant, 25, seed=3):
            for position in before.legal_positions(roll):
                result = interpret(before, roll, seen(position))
                assert result.outcome is Outcome.LEGAL, (before, roll, result.message)
                assert result.best.position.same_board(position)


def test_a_roll_with_no_move_is_legal_when_nothing_moved() -> None:
    # White's checkers all on its 24 and 23... with black holding every landing point: build a
    # short-nardy position where white on the bar faces a closed home board.
    black = [0] * 24
    for point in range(1, 7):
        black[point - 1] = 2  # black's home 1..6 closed = white's entry points 19..24
    black[23] = 3
    white = [0] * 24
    white[5] = 14
    before = Position(SHORT, WHITE, (tuple(white), tuple(black)), bar=(1, 0))
    result = interpret(before, Roll(6, 6), seen(before))
    assert result.outcome is Outcome.LEGAL
    assert result.best.play == Play()
    assert result.message == "Legal 6-6: no move."


def test_a_hit_in_short_nardy_is_read_with_the_bar() -> None:
    before = SHORT.starting_position()
    opened = after(before, "13/7 6/5").with_turn(BLACK)  # white leaves blots on 7 and 5
    hit = after(opened, "24/20* 13/10")  # black's 20 is white's 5
    assert hit.bar == (1, 0)
    result = interpret(opened, Roll(4, 3), seen(hit))
    assert result.outcome is Outcome.LEGAL, result.message
    assert "*" in str(result.best.play)


# --- reading through the rules: uncertain counts --------------------------------------------


def test_uncounted_head_is_resolved_by_the_legal_successors() -> None:
    start = LONG.starting_position()
    board = seen(after(start, "24/18 18/13"))
    # The 14-checker head is a tower: the reader only says "ten or more", and is not sure.
    board = board.with_point(24, PointObservation(WHITE, Count.at_least(10), 0.6))
    board = board.with_point(12, PointObservation(BLACK, Count.at_least(10), 0.6))
    result = interpret(start, Roll(6, 5), board)
    assert result.outcome is Outcome.LEGAL
    assert str(result.best.play) == "24/18 18/13"
    assert result.confidence > 0.99


def test_head_read_with_any_count_still_gives_one_play_by_conservation() -> None:
    before = LONG.starting_position()
    played = after(before, "24/21 24/21 21/18 21/18")  # 3-3 on the first turn: two leave
    board = seen(played).with_point(24, PointObservation(WHITE, Count.at_least(1), 0.5))
    result = interpret(before, Roll(3, 3), board)
    assert result.outcome is Outcome.LEGAL
    assert result.best.position.same_board(played)


def test_several_legal_plays_fitting_an_ambiguous_reading_make_the_referee_unsure() -> None:
    before = SHORT.starting_position()
    roll = Roll(6, 5)
    first, second = (option for _, option in SHORT.legal_moves(before, roll)[:2])
    board = seen(first)
    for place_index, (a, b) in enumerate(zip(board_of(first), board_of(second), strict=True)):
        if a != b and place_index < 24:
            counts = {sum(a), sum(b)}
            colour = WHITE if a[0] or b[0] else BLACK
            board = board.with_point(
                place_index + 1, PointObservation(colour, Count.one_of(counts), 0.6)
            )
    result = interpret(before, roll, board)
    assert result.outcome is Outcome.UNSURE
    assert result.fitting >= 2
    assert result.confidence <= 0.5
    assert "Several legal plays" in result.message
    assert result.lights  # the points where the plays differ are lit


# --- contradictions ---------------------------------------------------------------------------


def test_confident_contradiction_of_every_legal_play_is_illegal() -> None:
    start = LONG.starting_position()
    board = seen(after(start, "24/18 24/19"), 0.98)
    result = interpret(start, Roll(6, 5), board)
    assert result.outcome is Outcome.ILLEGAL
    assert result.confidence > 0.99
    assert result.verdict is not None and Reason.HEAD_RULE in result.verdict.reasons
    assert result.observed is not None
    assert result.observed.same_board(after(start, "24/18 24/19"))
    assert str(result.best.play) == "24/18 18/13"
    assert set(result.lights) == {13, 18, 19, 24}
    assert result.message.startswith("Illegal 6-5: more than one checker left the head")


def test_same_contradiction_read_with_low_confidence_is_unsure_not_illegal() -> None:
    start = LONG.starting_position()
    result = interpret(start, Roll(6, 5), seen(after(start, "24/18 24/19"), 0.7))
    assert result.outcome is Outcome.UNSURE
    assert result.illegal_probability < 0.9
    assert str(result.best.play) == "24/18 18/13"
    assert "Not sure of the board" in result.message


def test_a_shadowed_point_does_not_turn_a_legal_play_into_an_accusation() -> None:
    start = LONG.starting_position()
    played = after(start, "24/18 18/13")
    # A hand's shadow: the reader thinks point 13 is empty, but is barely sure.
    board = seen(played).with_point(13, PointObservation(None, Count.exactly(0), 0.55))
    result = interpret(start, Roll(6, 5), board)
    assert result.outcome is Outcome.LEGAL
    assert result.best.position.same_board(played)
    assert 0.9 <= result.confidence < 0.99


def test_one_confidently_miscounted_point_makes_the_referee_ask() -> None:
    start = LONG.starting_position()
    played = after(start, "24/18 18/13")
    board = seen(played).with_point(24, PointObservation(WHITE, Count.exactly(13), 0.99))
    result = interpret(start, Roll(6, 5), board)
    # Fourteen white checkers on the board: a misread is as likely as a vanished checker.
    assert result.outcome is Outcome.UNSURE
    assert result.verdict is not None
    assert Reason.CHECKER_COUNT_CHANGED in result.verdict.reasons


def test_a_place_misread_as_it_was_before_the_move_counts_as_untouched() -> None:
    start = LONG.starting_position()
    played = after(start, "24/18 18/13")
    # The reader counts White's empty point 6 as a Black checker, surely, before and after.
    glint = PointObservation(BLACK, Count.exactly(1), 0.99)
    before, board = seen(start).with_point(6, glint), seen(played).with_point(6, glint)
    assert interpret(start, Roll(6, 5), board).outcome is Outcome.UNSURE
    result = interpret(start, Roll(6, 5), board, as_before=before)
    assert result.outcome is Outcome.LEGAL and result.best.position.same_board(played)
    assert misfits(board, start) and not misfits(seen(start).with_point(6, glint), start, before)
    # Read so only after the move, it is still a misfit: the picture of point 6 changed.
    assert interpret(start, Roll(6, 5), board, as_before=seen(start)).outcome is Outcome.UNSURE
    # A play that changes the place gets no such allowance: the 6-5 24/13 seen with White's
    # head read as before (15) does not fit.
    head = seen(start).point(24)
    still_15 = seen(played).with_point(24, head)
    result = interpret(start, Roll(6, 5), still_15, as_before=seen(start))
    assert result.outcome is not Outcome.LEGAL and result.best.misfits


def test_a_stack_counted_one_short_before_the_move_is_taken_as_one_short_after_it() -> None:
    start = LONG.starting_position()
    white_head = PointObservation(WHITE, Count.exactly(14), 0.99)  # 15 there
    before = seen(start).with_point(24, white_head)
    played = after(start, "24/18 18/13")
    board = seen(played).with_point(24, PointObservation(WHITE, Count.exactly(13), 0.99))
    assert interpret(start, Roll(6, 5), board).outcome is Outcome.UNSURE
    result = interpret(start, Roll(6, 5), board, as_before=before)
    assert result.outcome is Outcome.LEGAL and result.best.position.same_board(played)
    # Two checkers off the head (a foul of the head rule), the head read 12 and each checker
    # seen where it went: still no legal play fits.
    foul = start.play(Play.from_str("24/18 24/19"))
    seen_foul = seen(foul).with_point(24, PointObservation(WHITE, Count.exactly(12), 0.99))
    result = interpret(start, Roll(6, 5), seen_foul, as_before=before)
    assert result.outcome is Outcome.ILLEGAL


def test_die_left_unplayed_is_illegal_with_the_closest_plays() -> None:
    before = SHORT.starting_position()
    result = interpret(before, Roll(3, 1), seen(after(before, "8/5")))
    assert result.outcome is Outcome.ILLEGAL
    assert result.verdict is not None
    assert result.verdict.reasons == (Reason.DIE_UNPLAYED,)
    assert {str(c.play) for c in result.verdict.closest} >= {"8/5 5/4"}


def test_illegal_confidence_rises_with_the_reading_confidence() -> None:
    start = LONG.starting_position()
    illegal = after(start, "24/18 24/19")
    probabilities = [
        interpret(start, Roll(6, 5), seen(illegal, q)).illegal_probability
        for q in (0.6, 0.75, 0.9, 0.99)
    ]
    assert probabilities == sorted(probabilities)
    assert probabilities[0] < 0.5 < probabilities[-1]


def test_thresholds_come_from_the_config() -> None:
    start = LONG.starting_position()
    board = seen(after(start, "24/18 24/19"), 0.8)
    strict = interpret(start, Roll(6, 5), board, SessionConfig(verdict_confidence=0.999))
    lenient = interpret(start, Roll(6, 5), board, SessionConfig(verdict_confidence=0.6))
    assert strict.outcome is Outcome.UNSURE
    assert lenient.outcome is Outcome.ILLEGAL


def test_bar_and_tray_readings_take_part() -> None:
    before = SHORT.starting_position()
    opened = after(before, "13/7 6/5").with_turn(BLACK)
    hit = after(opened, "24/20* 13/10")
    board = seen(hit)
    # The reader missed the checker on the bar, with confidence: the board lacks a checker.
    no_bar = BoardObservation(
        board.points,
        (CountObservation(Count.exactly(0), 0.99), board.bar[BLACK]),
        board.off,
    )
    result = interpret(opened, Roll(4, 3), no_bar)
    assert result.outcome is not Outcome.LEGAL
    assert 25 in result.lights


def test_interpretation_to_dict_is_json_ready() -> None:
    start = LONG.starting_position()
    data = interpret(start, Roll(6, 5), seen(after(start, "24/18 24/19"))).to_dict()
    assert data["outcome"] == "illegal"
    assert data["reasons"] == ["head_rule"]
    assert data["candidates"][0]["play"] == "24/18 18/13"


# --- helpers ----------------------------------------------------------------------------------


def test_board_round_trip_through_places() -> None:
    for variant in (LONG, SHORT):
        for position, _ in itertools.islice(random_positions(variant, 10, seed=1), 10):
            rebuilt = position_of(board_of(position), position, position.turn)
            assert rebuilt == position
            assert misfits(seen(position), position) == ()


def test_play_between_finds_the_steps_of_a_forward_move() -> None:
    start = LONG.starting_position()
    illegal = after(start, "24/18 24/19")
    play = play_between(start, illegal)
    assert play is not None and start.play(play).same_board(illegal)
    assert play_between(start, start.with_turn(BLACK)) == Play()


def test_play_between_passes_through_hit_blots() -> None:
    start = SHORT.starting_position()
    opened = after(start, "13/7 13/9").with_turn(BLACK)  # white blots on 7 and 9
    # Black's 18 and 16 are white's 7 and 9: one checker from black's 24 hits both.
    through = after(opened, "24/18* 18/16*")
    assert through.bar == (2, 0)
    play = play_between(opened, through)
    assert play is not None and opened.play(play).same_board(through)


def test_play_between_refuses_boards_no_forward_move_reaches() -> None:
    start = SHORT.starting_position()
    backwards = after(start, "8/5").with_turn(WHITE)
    assert play_between(backwards, start) is None  # 5 back to 8
    fewer = Position(SHORT, WHITE, ((*start.points[0][:23], 1), start.points[1]))
    assert play_between(start, fewer) is None


@pytest.mark.parametrize(
    ("count", "text", "json"),
    [
        (Count.exactly(3), "3", 3),
        (Count.at_least(10), ">=10", [10, 11, 12, 13, 14, 15]),
        (Count.one_of([2, 4]), "{2,4}", [2, 4]),
    ],
)
def test_count_forms(count: Count, text: str, json: object) -> None:
    assert str(count) == text
    assert count.to_json() == json
    assert Count.from_json(json, "x") == count
