"""Judging a physical throw (RULES.md §2) and the observation model's JSON form."""

from __future__ import annotations

import pytest

from referee.rules import LongNardy, Roll, ShortNardy, Side
from referee.session import (
    BoardObservation,
    DiceObservation,
    DieObservation,
    Half,
    Observation,
    ObservationError,
    SceneState,
    SessionConfig,
    ThrowFault,
    read_opening_throw,
    read_throw,
)
from referee.session.throws import throw_faults

CONFIG = SessionConfig()
RIGHT, LEFT = Half.RIGHT, Half.LEFT


def dice(*items: DieObservation) -> DiceObservation:
    return DiceObservation(items)


def test_a_clean_throw_gives_the_roll() -> None:
    reading = read_throw(
        dice(DieObservation(6, half=LEFT), DieObservation(5, half=LEFT)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    assert reading.valid and reading.roll == Roll(6, 5)


@pytest.mark.parametrize(
    ("second", "fault"),
    [
        (DieObservation(5, flat=False, half=RIGHT), ThrowFault.COCKED),
        (DieObservation(5, on_checker=True, half=RIGHT), ThrowFault.ON_CHECKER),
        (DieObservation(5, on_board=False), ThrowFault.OFF_BOARD),
        (DieObservation(5, half=LEFT), ThrowFault.SPLIT_HALVES),
        (DieObservation(5, rolling=True, half=RIGHT), ThrowFault.ROLLING),
    ],
)
def test_void_throws(second: DieObservation, fault: ThrowFault) -> None:
    reading = read_throw(
        dice(DieObservation(6, half=RIGHT), second), Side.WHITE, LongNardy(), CONFIG
    )
    assert not reading.valid
    assert reading.faults == (fault,)
    assert reading.message.startswith("throw again: ")


def test_a_lone_die_means_the_other_left_the_board() -> None:
    reading = read_throw(dice(DieObservation(6, half=RIGHT)), Side.WHITE, LongNardy(), CONFIG)
    assert reading.faults == (ThrowFault.OFF_BOARD,)


def test_roll_zone_right_half_wants_the_rollers_right_hand_half() -> None:
    in_left = dice(DieObservation(6, half=LEFT), DieObservation(5, half=LEFT))
    short = ShortNardy()  # right_half by default
    assert read_throw(in_left, Side.WHITE, short, CONFIG).faults == (ThrowFault.WRONG_HALF,)
    assert read_throw(in_left, Side.BLACK, short, CONFIG).valid  # black's right is white's left
    assert read_throw(in_left, Side.WHITE, ShortNardy(roll_zone="same_half"), CONFIG).valid


def test_an_unreadable_face_asks_rather_than_voids() -> None:
    reading = read_throw(
        dice(DieObservation(None, half=RIGHT), DieObservation(5, half=RIGHT)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    assert reading.unsure and not reading.faults and not reading.valid
    low = read_throw(
        dice(DieObservation(6, half=RIGHT, confidence=0.3), DieObservation(5, half=RIGHT)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    assert low.unsure and low.confidence == 0.3


def test_a_throw_lists_the_rolls_it_may_show() -> None:
    reading = read_throw(
        dice(DieObservation(2, half=RIGHT), DieObservation(1, half=RIGHT, confidence=0.5)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    rolls = dict(reading.rolls)
    assert reading.unsure and reading.rolls[0] == (Roll(2, 1), pytest.approx(0.5))
    # The sure 2 with each other face of the second die, 0.1 apiece; nothing without a 2.
    assert rolls[Roll(2, 2)] == pytest.approx(0.1) and rolls[Roll(6, 2)] == pytest.approx(0.1)
    assert rolls[Roll(6, 5)] == 0.0 and sum(rolls.values()) == pytest.approx(1.0)
    assert len(rolls) == 21
    unread = dict(
        read_throw(
            dice(DieObservation(None, half=RIGHT), DieObservation(None, half=RIGHT)),
            Side.WHITE,
            LongNardy(),
            CONFIG,
        ).rolls
    )
    # Nothing read: a double is half as likely as any one non-double.
    assert unread[Roll(3, 3)] == pytest.approx(1 / 36)
    assert unread[Roll(4, 3)] == pytest.approx(2 / 36)
    # Where the reader gives each face's probability, those are the die's chances.
    torn = DieObservation(2, half=RIGHT, confidence=0.5, faces=(0.4, 0.5, 0.0, 0.1, 0.0, 0.0))
    rolls = dict(
        read_throw(dice(DieObservation(6, half=RIGHT), torn), Side.WHITE, LongNardy(), CONFIG).rolls
    )
    assert rolls[Roll(6, 2)] == pytest.approx(0.5) and rolls[Roll(6, 1)] == pytest.approx(0.4)
    assert rolls[Roll(6, 3)] == 0.0
    sure = read_throw(
        dice(DieObservation(2, half=RIGHT), DieObservation(1, half=RIGHT)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    # A throw read for sure lists them too (a move may show a die misread); a void one none.
    assert sure.valid and sure.rolls[0] == (Roll(2, 1), 1.0)
    cocked = read_throw(
        dice(DieObservation(2, half=RIGHT), DieObservation(1, half=RIGHT, flat=False)),
        Side.WHITE,
        LongNardy(),
        CONFIG,
    )
    assert cocked.faults and cocked.rolls == ()


def test_opening_throw_tells_the_dice_apart_by_half() -> None:
    reading = read_opening_throw(
        dice(DieObservation(2, half=LEFT), DieObservation(5, half=RIGHT)), CONFIG
    )
    assert reading.valid and reading.dice == (5, 2)  # White's die (right half) first
    same_half = read_opening_throw(
        dice(DieObservation(2, half=LEFT), DieObservation(5, half=LEFT)), CONFIG
    )
    assert same_half.faults == (ThrowFault.WRONG_HALF,)
    cocked = read_opening_throw(
        dice(DieObservation(2, half=LEFT), DieObservation(5, flat=False, half=RIGHT)), CONFIG
    )
    assert cocked.faults == (ThrowFault.COCKED,)


def test_an_opening_throw_may_show_only_the_rolls_that_keep_its_starter() -> None:
    # White's 2 read for sure; Black's 5 read at 0.7, a 1 at 0.2, a 6 at 0.1.
    black = DieObservation(5, half=LEFT, confidence=0.7, faces=(0.2, 0.0, 0.0, 0.0, 0.7, 0.1))
    reading = read_opening_throw(dice(DieObservation(2, half=RIGHT), black), CONFIG)
    assert reading.valid and reading.dice == (2, 5)  # Black starts
    # Each roll with the starter's die first. A 1 would have White start: no roll Black's
    # first move can show.
    assert [(roll, p) for roll, p in reading.rolls if p > 0] == [
        (Roll(5, 2), pytest.approx(0.7)),
        (Roll(6, 2), pytest.approx(0.1)),
    ]
    tie = read_opening_throw(dice(DieObservation(5, half=RIGHT), black), CONFIG)
    assert tie.dice == (5, 5) and tie.rolls == ()  # thrown again: nobody plays it


def test_observation_json_round_trip() -> None:
    board = BoardObservation.from_position(LongNardy().starting_position(), 0.9)
    observation = Observation.settled(
        board, [DieObservation(3, half=RIGHT, confidence=0.8)], time=1.5, frame=7
    )
    assert Observation.from_dict(observation.to_dict()) == observation
    moving = Observation(SceneState.MOVING, dice=dice(DieObservation(None, rolling=True)))
    assert Observation.from_dict(moving.to_dict()) == moving


def test_die_faces_are_six_probabilities_and_round_trip() -> None:
    die = DieObservation(2, half=RIGHT, confidence=0.5, faces=(0.4, 0.5, 0.0, 0.1, 0.0, 0.0))
    observation = Observation.settled(
        BoardObservation.from_position(LongNardy().starting_position()), [die]
    )
    assert Observation.from_dict(observation.to_dict()).dice.dice == (die,)
    with pytest.raises(ObservationError, match="six probabilities"):
        DieObservation(2, faces=(0.5, 0.5))
    with pytest.raises(ObservationError, match="sum to 1"):
        DieObservation(2, faces=(0.5, 0.5, 0.5, 0.0, 0.0, 0.0))
    with pytest.raises(ObservationError, match="confidence must be in"):
        DieObservation(2, faces=(1.5, -0.5, 0.0, 0.0, 0.0, 0.0))


def test_observations_refuse_what_cannot_be() -> None:
    board = BoardObservation.from_position(LongNardy().starting_position())
    with pytest.raises(ObservationError):
        Observation(SceneState.STILL, board)  # still, with no dice: that is no_dice
    with pytest.raises(ObservationError):
        Observation(SceneState.NO_DICE)  # settled frames carry the board
    with pytest.raises(ObservationError):
        BoardObservation(board.points[:23])
    with pytest.raises(ObservationError):
        DieObservation(7)
    with pytest.raises(ObservationError):
        Observation.from_dict({"scene": "dancing"})


def test_faults_follow_the_scene_labels_precedence() -> None:
    right = DieObservation(3, half=Half.RIGHT)
    cocked_left = DieObservation(2, flat=False, half=Half.LEFT)
    off = DieObservation(4, on_board=False)
    rolling = DieObservation(None, rolling=True)
    on_checker = DieObservation(4, on_checker=True, half=Half.LEFT)

    def first(*dice: DieObservation) -> ThrowFault:
        return throw_faults(DiceObservation(dice))[0]

    assert first(right, cocked_left) is ThrowFault.COCKED  # before split_halves
    assert first(off, cocked_left) is ThrowFault.OFF_BOARD  # before cocked
    assert first(on_checker, cocked_left) is ThrowFault.COCKED
    assert first(rolling, off) is ThrowFault.ROLLING
    assert throw_faults(DiceObservation((right, DieObservation(6, half=Half.RIGHT)))) == ()
    left_pair = DiceObservation((DieObservation(5, half=Half.LEFT),) * 2)
    assert throw_faults(left_pair, Half.RIGHT) == (ThrowFault.WRONG_HALF,)


def test_halves_swap_between_the_seats() -> None:
    assert Half.RIGHT.seen_by(Side.WHITE) is Half.RIGHT
    assert Half.RIGHT.seen_by(Side.BLACK) is Half.LEFT
    assert Half.LEFT.seen_by(Side.BLACK).seen_by(Side.BLACK) is Half.LEFT
