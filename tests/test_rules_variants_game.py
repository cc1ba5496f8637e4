"""The game flow follows each play's continuation in the long-nardy variants: the doubles
ladder, gulbar's second throw and moves passed to the opponent change who acts next."""

from __future__ import annotations

import random

import pytest

from referee.rules import (
    Game,
    GameFlowError,
    Gulbar,
    Khachapuri,
    LongNardy,
    Mad,
    MadGulbar,
    Phase,
    Play,
    Roll,
    Side,
    Variant,
)
from referee.rules.game import (
    Continued,
    Ending,
    GameOver,
    GameResult,
    LastRollGranted,
    Played,
    ResultKind,
)
from referee.rules.long_variants import LONG_VARIANTS
from referee.rules.sampling import random_roll
from referee.rules.turns import Continuation, Next, OwedMoves
from tests.rules_helpers import board

WHITE, BLACK = Side.WHITE, Side.BLACK


def test_mad_ladder_is_played_without_throwing_then_the_opponent_throws() -> None:
    game = Game(Mad(), starter=WHITE)
    game.roll(Roll(4, 4))
    events = game.play(Play.from_str("24/20 24/20 20/16 20/16"))
    assert isinstance(events[-1], Continued)
    assert events[-1].continuation == Continuation(WHITE, Next.LADDER, OwedMoves.ladder(5))
    assert events[-1].to_dict()["continuation"] == {
        "player": "white",
        "kind": "ladder",
        "dice": [5, 5, 5, 5],
    }
    # White plays 5-5 at once: no throw, the owed moves are the dice.
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_PLAY, WHITE, OwedMoves.ladder(5))
    with pytest.raises(GameFlowError):
        game.roll(Roll(2, 1))
    game.play(game.legal_plays()[0])
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_PLAY, WHITE, OwedMoves.ladder(6))
    events = game.play(game.legal_plays()[0])
    # After 6-6 the ladder is over: the ordinary turn change, recorded by no Continued event.
    assert [type(event) for event in events] == [Played]
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_ROLL, BLACK, None)


def test_gulbar_throws_again_after_a_fully_played_double() -> None:
    game = Game(Gulbar(), starter=WHITE)
    game.roll(Roll(1, 1))
    events = game.play(Play.from_str("24/23/22/21/20"))
    assert events[-1] == Continued(Continuation(WHITE, Next.THROW_AGAIN))
    assert (game.phase, game.turn) == (Phase.AWAITING_ROLL, WHITE)
    game.roll(Roll(6, 5))
    game.play(Play.from_str("24/18 18/13"))
    assert (game.phase, game.turn) == (Phase.AWAITING_ROLL, BLACK)


def test_gulbar_passes_unplayable_moves_and_the_taker_then_throws() -> None:
    # A black checker on its 7 (White's 19) stops every five of White's: 5-5 passes whole.
    position = board(Gulbar(), {24: 15}, {24: 14, 7: 1})
    game = Game(Gulbar(), position=position)
    game.roll(Roll(5, 5))
    events = game.play(Play())
    owed = OwedMoves.passed_over(5, 4, 5)
    assert events[-1] == Continued(Continuation(BLACK, Next.PASSED, owed))
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_PLAY, BLACK, owed)
    events = game.play(Play.from_str("24/19 7/2 19/14 14/9"))
    # Black took the passed moves and now throws for its own turn: the same side goes on.
    assert events[-1] == Continued(Continuation(BLACK, Next.THROW))
    assert (game.phase, game.turn) == (Phase.AWAITING_ROLL, BLACK)


def test_mad_gulbar_passes_the_rest_of_the_ladder() -> None:
    position = board(MadGulbar(), {24: 15}, {24: 14, 2: 1})
    game = Game(MadGulbar(), position=position)
    game.roll(Roll(5, 5))
    game.play(Play.from_str("24/19"))
    assert (game.turn, game.dice) == (BLACK, OwedMoves.passed_over(5, 3, 6))
    game.play(Play.from_str("24/19 19/14 14/9"))
    assert (game.turn, game.dice) == (BLACK, OwedMoves.passed_over(6, 4, 6))
    game.play(Play.from_str("24/18 9/3"))
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_ROLL, BLACK, None)


def test_an_accepted_illegal_board_with_unknown_steps_passes_the_turn() -> None:
    game = Game(Gulbar(), starter=WHITE)
    game.roll(Roll(1, 1))
    # Two checkers off the head with 1-1: illegal; given as a board, its steps are unknown.
    board_left = game.position.play(Play.from_str("24/23/22 24/23/22"))
    events = game.play(board_left, accept_illegal=True)
    assert [type(event) for event in events] == [Played]
    assert (game.phase, game.turn) == (Phase.AWAITING_ROLL, BLACK)


def test_an_accepted_illegal_play_is_followed_as_played() -> None:
    game = Game(Gulbar(), starter=WHITE)
    game.roll(Roll(1, 1))
    game.play(Play.from_str("24/23/22 24/23/22"), accept_illegal=True)
    assert (game.phase, game.turn) == (Phase.AWAITING_ROLL, WHITE)  # four moves: throw again


def test_the_last_roll_is_one_play_even_of_a_double_that_would_throw_again() -> None:
    variant = Gulbar(last_roll_draw=True)
    # White, who moved first, finishes; Black's last roll 1-1 bears off four of five.
    position = board(variant, {1: 1}, {1: 4, 2: 1}, off=(14, 10))
    game = Game(variant, position=position)
    game.roll(Roll(2, 1))
    assert isinstance(game.play(Play.from_str("1/off"))[-1], LastRollGranted)
    game.roll(Roll(1, 1))
    last = Play.from_str("1/off 1/off 1/off 1/off")
    assert variant.after_play(game.position, Roll(1, 1), last).kind is Next.THROW_AGAIN
    assert isinstance(game.play(last)[-1], GameOver)
    result = game.result()
    assert result is not None and result.winner is WHITE


def play_through(variant: Variant, seed: int) -> Game:
    """A game of random legal plays, thrown dice where the flow asks for a throw."""
    rng = random.Random(seed)
    game = Game(variant, starter=WHITE)
    while not game.is_finished:
        if game.phase is Phase.AWAITING_ROLL:
            game.roll(random_roll(rng))
        before, dice = game.position, game.dice
        assert dice is not None
        play = rng.choice(game.legal_plays())
        then = variant.after_play(before, dice, play)
        events = game.play(play)
        if then.kind is Next.GAME_OVER:
            assert game.is_finished
            continue
        # The game hands the dice on exactly as the variant's continuation says.
        assert game.turn is then.player and game.dice == then.owed
        ordinary = then == Continuation(before.turn.other, Next.THROW)
        assert ordinary == (not any(isinstance(event, Continued) for event in events))
    return game


@pytest.mark.parametrize("variant", [cls() for cls in LONG_VARIANTS], ids=lambda v: v.name)
def test_random_games_of_every_variant_follow_their_continuations(variant: LongNardy) -> None:
    kinds: set[Next] = set()
    for seed in range(3):
        game = play_through(variant, seed)
        kinds.update(e.continuation.kind for e in game.events if isinstance(e, Continued))
        assert game.result() is not None
    if isinstance(variant, Mad | MadGulbar):
        assert Next.LADDER in kinds
    if isinstance(variant, Gulbar):
        assert Next.THROW_AGAIN in kinds


def test_khachapuri_is_staked_per_checker_not_borne_off() -> None:
    position = board(Khachapuri(), {1: 1}, {6: 4}, off=(14, 11))
    game = Game(Khachapuri(), position=position)
    game.roll(Roll(2, 1))
    game.play(Play.from_str("1/off"))
    assert game.result() == GameResult(WHITE, ResultKind.CHECKERS, 4, 1, Ending.BORNE_OFF)
    # A resignation concedes the checkers still on the board.
    game = Game(Khachapuri(), starter=WHITE)
    game.resign(BLACK)
    assert game.result() == GameResult(WHITE, ResultKind.CHECKERS, 15, 1, Ending.RESIGNED)
    with pytest.raises(GameFlowError):
        Game(Khachapuri(), starter=WHITE).resign(BLACK, ResultKind.MARS)
    # Without the option, khachapuri scores as classic long nardy.
    plain = Khachapuri(checker_stake=False)
    game = Game(plain, position=board(plain, {1: 1}, {6: 4}, off=(14, 11)))
    game.roll(Roll(2, 1))
    game.play(Play.from_str("1/off"))
    assert game.result() == GameResult(WHITE, ResultKind.OIN, 1, 1, Ending.BORNE_OFF)
