"""Game flow: the opening throw, turns, the doubling cube, endings and their score, matches."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import (
    GameFlowError,
    IllegalPlayError,
    InvalidOptionError,
    InvalidRollError,
    LongNardy,
    Play,
    Position,
    Roll,
    ShortNardy,
    Side,
    Variant,
)
from referee.rules.game import (
    AutomaticDouble,
    Beavered,
    DoubleDropped,
    DoubleOffered,
    DoubleTaken,
    Ending,
    Game,
    GameOver,
    GameResult,
    GameStarted,
    LastRollGranted,
    OpeningThrow,
    Phase,
    Played,
    ResultKind,
    RollCorrected,
    Rolled,
    StakeRules,
)
from referee.rules.ids import GameState, from_xgid, to_gnubg_id, to_xgid
from referee.rules.match import Match
from tests.rules_helpers import board

WHITE, BLACK = Side.WHITE, Side.BLACK
TWO_ONE = Roll(2, 1)


def white_to_finish(
    variant: Variant,
    black: dict[int, int],
    *,
    off: tuple[int, int] | None = None,
    bar: tuple[int, int] = (0, 0),
) -> Position:
    """White's last checker on its 1 point, White to move; Black as given, the rest of Black's
    checkers borne off unless `off` says otherwise."""
    if off is None:
        off = (14, 15 - sum(black.values()) - bar[1])
    return board(variant, {1: 1}, black, off=off, bar=bar)


def take_turn(game: Game, roll: Roll = TWO_ONE) -> None:
    """The side on roll throws `roll` and plays it (one of the legal ways)."""
    game.roll(roll)
    game.play(game.legal_plays()[0])


def finish(game: Game, roll: Roll = TWO_ONE) -> GameResult:
    """The side on roll throws `roll`, plays it and so ends the game."""
    take_turn(game, roll)
    result = game.result()
    assert result is not None
    return result


# --- the opening throw ----------------------------------------------------------------------------


def test_opening_tie_is_thrown_again_and_the_winner_plays_both_dice() -> None:
    game = Game(ShortNardy())
    assert (game.phase, game.turn) == (Phase.OPENING, None)
    with pytest.raises(GameFlowError, match="cannot roll now"):
        game.roll(Roll(3, 1))
    assert game.opening_throw(4, 4) == (OpeningThrow(4, 4, None),)
    assert game.phase is Phase.OPENING
    events = game.opening_throw(2, 5)
    assert events == (OpeningThrow(2, 5, BLACK), Rolled(BLACK, Roll(5, 2)))
    assert (game.phase, game.turn, game.dice, game.starter) == (
        Phase.AWAITING_PLAY,
        BLACK,
        Roll(5, 2),
        BLACK,
    )
    with pytest.raises(GameFlowError, match="before rolling"):
        game.offer_double()
    assert isinstance(game.events[0], GameStarted)


def test_opening_throw_only_decides_who_starts_when_so_configured() -> None:
    game = Game(LongNardy(opening_roll_is_first_move=False))
    game.opening_throw(6, 1)
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_ROLL, WHITE, None)
    game.roll(Roll(6, 6))
    assert [str(play) for play in game.legal_plays()] == ["24/18 24/18"]


def test_opening_throw_checks_its_dice_and_happens_once() -> None:
    game = Game(ShortNardy())
    with pytest.raises(InvalidRollError):
        game.opening_throw(0, 3)
    game.opening_throw(6, 1)
    with pytest.raises(GameFlowError, match="throw for the first move"):
        game.opening_throw(6, 1)


def test_automatic_doubles_stop_at_their_cap() -> None:
    game = Game(ShortNardy(), stakes=StakeRules(automatic_doubles=2))
    assert game.opening_throw(1, 1)[1:] == (AutomaticDouble(2),)
    assert game.opening_throw(2, 2)[1:] == (AutomaticDouble(4),)
    assert game.opening_throw(3, 3) == (OpeningThrow(3, 3, None),)
    game.opening_throw(4, 2)
    assert (game.cube_value, game.cube_owner) == (4, None)


def test_automatic_doubles_respect_the_cube_limit() -> None:
    game = Game(ShortNardy(), stakes=StakeRules(automatic_doubles=9, max_cube=4))
    for die in (1, 2, 3, 4):
        game.opening_throw(die, die)
    assert game.cube_value == 4


# --- turns and plays ------------------------------------------------------------------------------


def test_a_turn_is_roll_then_play_and_the_dice_pass() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    with pytest.raises(GameFlowError, match="cannot play now"):
        game.play(Play.from_str("8/5 6/5"))
    game.roll(Roll(3, 1))
    with pytest.raises(GameFlowError, match="cannot roll now"):
        game.roll(Roll(3, 1))
    (played,) = game.play(Play.from_str("8/5 6/5"))
    assert isinstance(played, Played) and played.legal
    assert (game.phase, game.turn, game.dice) == (Phase.AWAITING_ROLL, BLACK, None)


def test_dice_misread_are_corrected_before_the_play() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    with pytest.raises(GameFlowError, match="cannot correct the roll now"):
        game.correct_roll(Roll(3, 1))
    game.roll(Roll(3, 2))
    assert game.correct_roll(Roll(3, 1)) == (RollCorrected(WHITE, Roll(3, 1), Roll(3, 2)),)
    assert game.dice == Roll(3, 1) and game.turn is WHITE
    (played,) = game.play(Play.from_str("8/5 6/5"))
    assert isinstance(played, Played) and played.legal and played.roll == Roll(3, 1)
    with pytest.raises(GameFlowError, match="cannot correct the roll now"):
        game.correct_roll(Roll(6, 6))


def test_a_play_may_be_given_as_the_board_it_left() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    game.roll(Roll(6, 5))
    after = game.position.play(Play.from_str("24/13"))
    (played,) = game.play(after.with_turn(WHITE))
    assert isinstance(played, Played)
    assert str(played.play) == "24/18 18/13"
    assert game.position == after


def test_illegal_plays_are_refused_with_the_verdict() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    game.roll(Roll(3, 1))
    with pytest.raises(IllegalPlayError) as caught:
        game.play(Play.from_str("13/9 8/7"))
    assert caught.value.verdict is not None and not caught.value.verdict.legal
    with pytest.raises(IllegalPlayError, match="cannot be played here"):
        game.play(Play.from_str("7/4"))
    assert game.phase is Phase.AWAITING_PLAY


def test_an_illegal_play_accepted_by_the_opponent_stands() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    game.roll(Roll(3, 1))
    wrong = game.position.play(Play.from_str("13/9 8/7"))
    (played,) = game.play(wrong, accept_illegal=True)
    assert isinstance(played, Played)
    assert (played.legal, played.play) == (False, None)
    assert game.position == wrong and game.turn is BLACK
    game.roll(Roll(2, 1))
    points = game.position.points
    extra_checker = Position(ShortNardy(), WHITE, points, off=(0, 1))
    with pytest.raises(IllegalPlayError, match="cannot stand even if accepted"):
        game.play(extra_checker, accept_illegal=True)


def test_a_roll_without_moves_is_played_as_nothing() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    position = board(ShortNardy(), {6: 14}, closed, turn="white", bar=(1, 0))
    game = Game(ShortNardy(), position=position)
    game.roll(Roll(4, 2))
    assert game.legal_plays() == [Play()]
    game.play(Play())
    assert game.turn is BLACK


def test_a_game_from_a_position_of_another_variant_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="another variant"):
        Game(LongNardy(), position=ShortNardy().starting_position())


# --- short nardy: the cube ------------------------------------------------------------------------


def test_double_take_redouble_drop() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    assert game.offer_double() == (DoubleOffered(WHITE, 2),)
    assert (game.phase, game.turn) == (Phase.AWAITING_CUBE_RESPONSE, BLACK)
    with pytest.raises(GameFlowError, match="cannot roll now"):
        game.roll(Roll(1, 2))
    assert game.take() == (DoubleTaken(BLACK, 2),)
    assert (game.cube_value, game.cube_owner, game.turn) == (2, BLACK, WHITE)
    with pytest.raises(GameFlowError, match=r"only the cube's owner \(black\) may redouble"):
        game.offer_double()
    game.roll(Roll(3, 1))
    game.play(Play.from_str("8/5 6/5"))
    assert game.offer_double() == (DoubleOffered(BLACK, 4),)
    events = game.drop()
    assert events[0] == DoubleDropped(WHITE, 4)
    assert game.result() == GameResult(BLACK, ResultKind.SINGLE, 2, 2, Ending.DROPPED)
    assert game.phase is Phase.FINISHED and game.turn is None
    with pytest.raises(GameFlowError, match="cannot take now"):
        game.take()


def test_the_cube_stops_at_its_highest_face() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    for _ in range(6):
        game.offer_double()
        game.take()
        # Skip the turns in between: the dice go straight to the cube's owner.
        game.position = game.position.with_turn(game.cube_owner or WHITE)
    assert game.cube_value == 64
    assert not game.may_double()
    with pytest.raises(GameFlowError, match="no higher than 64"):
        game.offer_double()


def test_no_cube_in_long_nardy_or_without_the_cube() -> None:
    with pytest.raises(GameFlowError, match="long nardy is played without a doubling cube"):
        Game(LongNardy(), starter=WHITE).offer_double()
    with pytest.raises(GameFlowError, match="without the doubling cube"):
        Game(ShortNardy(), stakes=StakeRules(cube=False), starter=WHITE).offer_double()


def test_beaver_keeps_the_cube_with_the_beaverer() -> None:
    game = Game(ShortNardy(), stakes=StakeRules(beaver=True), starter=WHITE)
    game.offer_double()
    assert game.beaver() == (Beavered(BLACK, 4),)
    assert game.turn is WHITE  # the doubler answers the beaver
    with pytest.raises(GameFlowError, match="raccoons are not played"):
        game.beaver()
    assert game.take() == (DoubleTaken(WHITE, 4),)
    assert (game.cube_value, game.cube_owner, game.turn, game.phase) == (
        4,
        BLACK,
        WHITE,
        Phase.AWAITING_ROLL,
    )


def test_a_dropped_beaver_loses_the_double_the_beaverer_took() -> None:
    game = Game(ShortNardy(), stakes=StakeRules(beaver=True), starter=WHITE)
    game.offer_double()
    game.beaver()
    game.drop()
    assert game.result() == GameResult(BLACK, ResultKind.SINGLE, 2, 2, Ending.DROPPED)


def test_beavers_only_when_agreed() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    game.offer_double()
    with pytest.raises(GameFlowError, match="beavers are not played"):
        game.beaver()


@pytest.mark.parametrize(
    "stakes",
    [StakeRules(jacoby=True), StakeRules(beaver=True), StakeRules(automatic_doubles=1)],
)
def test_money_conventions_are_refused_in_match_play(stakes: StakeRules) -> None:
    with pytest.raises(InvalidOptionError, match="money-play conventions"):
        Game(ShortNardy(), stakes=stakes, match_length=5)
    with pytest.raises(InvalidOptionError, match="money-play conventions"):
        Match(ShortNardy(), 5, stakes=stakes)


@pytest.mark.parametrize(
    "fields",
    [{"max_cube": 48}, {"automatic_doubles": -1}, {"jacoby": 1}],
)
def test_bad_stake_rules(fields: dict[str, object]) -> None:
    with pytest.raises(InvalidOptionError):
        StakeRules(**fields)  # type: ignore[arg-type]


# --- endings and their score ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("black", "extra", "home_mars", "kind"),
    [
        ({6: 14}, {"off": (14, 1)}, False, ResultKind.SINGLE),
        ({6: 15}, {}, False, ResultKind.GAMMON),
        ({6: 14, 20: 1}, {}, False, ResultKind.BACKGAMMON),
        ({6: 14}, {"bar": (0, 1)}, False, ResultKind.BACKGAMMON),
        ({6: 14}, {"bar": (0, 1)}, True, ResultKind.HOME_MARS),
        ({6: 14, 20: 1}, {}, True, ResultKind.BACKGAMMON),
    ],
)
def test_short_nardy_result_kinds(
    black: dict[int, int], extra: dict[str, tuple[int, int]], home_mars: bool, kind: ResultKind
) -> None:
    position = white_to_finish(ShortNardy(), black, **extra)
    game = Game(ShortNardy(), stakes=StakeRules(home_mars=home_mars), position=position)
    result = finish(game)
    assert result == GameResult(WHITE, kind, kind.multiplier, 1, Ending.BORNE_OFF)
    assert game.events[-1] == GameOver(result)
    assert game.match_state().game_state is GameState.OVER


def test_short_nardy_points_are_multiplied_by_the_cube() -> None:
    game = Game(ShortNardy(), position=white_to_finish(ShortNardy(), {6: 14, 20: 1}))
    game.offer_double()
    game.take()
    assert finish(game) == GameResult(WHITE, ResultKind.BACKGAMMON, 6, 2, Ending.BORNE_OFF)


def test_jacoby_counts_a_gammon_single_until_the_cube_is_turned() -> None:
    jacoby = StakeRules(jacoby=True)
    position = white_to_finish(ShortNardy(), {6: 15})
    assert finish(Game(ShortNardy(), stakes=jacoby, position=position)) == GameResult(
        WHITE, ResultKind.SINGLE, 1, 1, Ending.BORNE_OFF
    )
    turned = Game(ShortNardy(), stakes=jacoby, position=position)
    turned.offer_double()
    turned.take()
    assert finish(turned) == GameResult(WHITE, ResultKind.GAMMON, 4, 2, Ending.BORNE_OFF)
    # An automatic double raises the stake but turns no cube.
    automatic = Game(ShortNardy(), stakes=StakeRules(jacoby=True, automatic_doubles=1))
    automatic.opening_throw(5, 5)
    automatic.position = position
    automatic.phase = Phase.AWAITING_ROLL
    assert finish(automatic) == GameResult(WHITE, ResultKind.SINGLE, 2, 2, Ending.BORNE_OFF)


@pytest.mark.parametrize(
    ("black", "off", "koks", "kind"),
    [
        ({1: 14}, (14, 1), False, ResultKind.OIN),
        ({1: 15}, (14, 0), False, ResultKind.MARS),
        ({1: 14, 20: 1}, (14, 0), False, ResultKind.MARS),
        ({1: 14, 20: 1}, (14, 0), True, ResultKind.KOKS),
        ({1: 14, 18: 1}, (14, 0), True, ResultKind.MARS),
    ],
)
def test_long_nardy_result_kinds(
    black: dict[int, int], off: tuple[int, int], koks: bool, kind: ResultKind
) -> None:
    variant = LongNardy(koks=koks)
    game = Game(variant, position=board(variant, {1: 1}, black, off=off))
    assert finish(game) == GameResult(WHITE, kind, kind.multiplier, 1, Ending.BORNE_OFF)


def test_last_roll_draw() -> None:
    variant = LongNardy(last_roll_draw=True)
    game = Game(variant, position=board(variant, {1: 1}, {1: 1}, off=(14, 14)))
    game.roll(Roll(2, 1))
    events = game.play(game.legal_plays()[0])
    assert events[-1] == LastRollGranted(BLACK)
    assert (game.phase, game.turn, game.result()) == (Phase.AWAITING_ROLL, BLACK, None)
    assert finish(game) == GameResult(None, ResultKind.DRAW, 0, 1, Ending.BORNE_OFF)


def test_last_roll_that_does_not_finish_leaves_the_win_judged_on_the_final_board() -> None:
    variant = LongNardy(last_roll_draw=True)
    game = Game(variant, position=board(variant, {1: 1}, {1: 15}, off=(14, 0)))
    take_turn(game)
    # Black bears off four with its last roll: the mars it stood at becomes an oin.
    assert finish(game, Roll(1, 1)) == GameResult(WHITE, ResultKind.OIN, 1, 1, Ending.BORNE_OFF)


def test_no_last_roll_when_the_second_player_finishes_first() -> None:
    variant = LongNardy(last_roll_draw=True)
    position = board(variant, {1: 1}, {1: 1}, off=(14, 14))
    game = Game(variant, position=position, starter=BLACK)
    assert finish(game) == GameResult(WHITE, ResultKind.OIN, 1, 1, Ending.BORNE_OFF)


def test_without_the_option_the_first_finisher_wins_at_once() -> None:
    game = Game(LongNardy(), position=board(LongNardy(), {1: 1}, {1: 1}, off=(14, 14)))
    assert finish(game).winner is WHITE


def test_resignation() -> None:
    game = Game(ShortNardy(), starter=WHITE)
    game.offer_double()
    game.take()
    game.resign(BLACK, ResultKind.GAMMON)
    assert game.result() == GameResult(WHITE, ResultKind.GAMMON, 4, 2, Ending.RESIGNED)
    assert game.match_state().game_state is GameState.RESIGNED
    long_game = Game(LongNardy(), starter=WHITE)
    with pytest.raises(GameFlowError, match="cannot be resigned as koks"):
        long_game.resign(WHITE, ResultKind.KOKS)
    long_game.resign(WHITE)
    assert long_game.result() == GameResult(BLACK, ResultKind.OIN, 1, 1, Ending.RESIGNED)
    with pytest.raises(GameFlowError, match="in progress"):
        long_game.resign(BLACK)


# --- identifiers and journal ----------------------------------------------------------------------


def test_match_state_of_a_double_on_offer() -> None:
    game = Game(ShortNardy(), match_length=5, starter=BLACK)
    game.offer_double()
    state = game.match_state(scores=(1, 3))
    assert (state.dice_owner, state.turn, state.double_offered, state.cube_value) == (
        BLACK,
        WHITE,
        True,
        1,
    )
    assert to_gnubg_id(game.position, state).startswith("4HPwATDgc/ABMA:")
    assert from_xgid(to_xgid(game.position, state)) == (game.position, state)


def test_events_are_json() -> None:
    game = Game(ShortNardy(), stakes=StakeRules(beaver=True))
    game.opening_throw(3, 1)
    game.play(Play.from_str("8/5 6/5"))
    game.offer_double()
    game.beaver()
    game.drop()
    journal = json.loads(json.dumps([event.to_dict() for event in game.events]))
    assert [entry["event"] for entry in journal] == [
        "game_started",
        "opening_throw",
        "rolled",
        "played",
        "double_offered",
        "beavered",
        "double_dropped",
        "game_over",
    ]
    assert journal[3]["play"] == "8/5 6/5"
    assert journal[3]["position"]["turn"] == "black"
    assert journal[-1]["result"] == {
        "winner": "white",
        "kind": "single",
        "points": 2,
        "cube_value": 2,
        "ending": "dropped",
    }


# --- matches --------------------------------------------------------------------------------------


def win_by_drop(game: Game, winner: Side) -> None:
    """`winner` doubles at its next turn and the other side passes."""
    if game.phase is Phase.OPENING:
        game.opening_throw(*((2, 1) if winner is WHITE else (1, 2)))
        game.play(game.legal_plays()[0])
    if game.turn is not winner:
        game.roll(Roll(1, 2))
        game.play(game.legal_plays()[0])
    game.offer_double()
    game.drop()


def test_crawford_game_and_after() -> None:
    match = Match(ShortNardy(), 3)
    win_by_drop(match.new_game(), BLACK)
    assert match.scores == (0, 1)
    second = match.new_game()
    assert (second.starter, second.phase) == (BLACK, Phase.AWAITING_ROLL)
    with pytest.raises(GameFlowError, match="not finished"):
        match.new_game()
    win_by_drop(second, BLACK)
    assert match.scores == (0, 2)
    crawford = match.new_game()
    assert crawford.crawford and match.is_crawford_game()
    assert not crawford.may_double()
    with pytest.raises(GameFlowError, match="no doubling in the Crawford game"):
        crawford.offer_double()
    assert match.match_state().crawford
    crawford.resign(BLACK)
    assert match.scores == (1, 2)
    post = match.new_game()
    assert not post.crawford and not match.is_crawford_game()
    assert post.starter is WHITE and post.may_double()
    post.offer_double()
    post.take()
    post.resign(BLACK)
    assert match.scores == (3, 2)
    assert match.is_over() and match.winner() == 0
    with pytest.raises(GameFlowError, match="the match is over"):
        match.new_game()
    assert match.is_crawford_game(2) and not match.is_crawford_game(0)


def test_no_crawford_game_when_switched_off_or_in_a_one_point_match() -> None:
    match = Match(ShortNardy(), 3, crawford=False)
    win_by_drop(match.new_game(), WHITE)
    win_by_drop(match.new_game(), WHITE)
    assert not match.new_game().crawford
    assert not Match(ShortNardy(), 1).new_game().crawford
    long_match = Match(LongNardy(), 2)  # no cube, so no Crawford game
    first = long_match.new_game()
    first.opening_throw(2, 1)
    first.resign(BLACK)
    assert long_match.scores == (1, 0) and not long_match.new_game().crawford


def test_money_play_never_ends() -> None:
    match = Match(ShortNardy(), stakes=StakeRules(jacoby=True, beaver=True))
    for _ in range(3):
        win_by_drop(match.new_game(), WHITE)
    assert match.scores == (3, 0) and not match.is_over() and match.winner() is None
    assert match.match_state().match_length == 0


def test_previous_black_starts_and_the_colours_change() -> None:
    match = Match(LongNardy(next_game_starter="previous_black"), 3)
    first = match.new_game()
    first.opening_throw(5, 3)
    first.resign(BLACK)  # player 1, black in game 1
    second = match.new_game()
    assert (second.starter, second.phase) == (WHITE, Phase.AWAITING_ROLL)
    assert match.player_of(WHITE) == 1 and match.side_of(0) is BLACK
    assert match.player_of(WHITE, 0) == 0
    second.resign(WHITE)  # player 1 again, white now
    assert match.scores == (2, 0)
    assert match.match_state().scores == (0, 2)  # by colour in the current game
    assert match.new_game().starter is WHITE and match.player_of(WHITE) == 0


def test_after_a_draw_the_next_game_opens_with_a_throw() -> None:
    variant = LongNardy(last_roll_draw=True)
    match = Match(variant, 3)
    game = match.new_game()
    game.opening_throw(2, 1)
    game.position = board(variant, {1: 1}, {1: 1}, off=(14, 14))
    game.phase, game.dice = Phase.AWAITING_ROLL, None
    take_turn(game)
    assert finish(game).kind is ResultKind.DRAW
    assert match.scores == (0, 0)
    assert match.new_game().phase is Phase.OPENING


def test_bad_match_lengths() -> None:
    with pytest.raises(InvalidOptionError):
        Match(ShortNardy(), -1)
    with pytest.raises(InvalidOptionError, match="no Crawford game"):
        Game(ShortNardy(), crawford=True)
    with pytest.raises(GameFlowError, match="no game has started"):
        Match(ShortNardy(), 5).match_state()


# --- whole games (hypothesis) ---------------------------------------------------------------------


def play_out(game: Game, rng: random.Random) -> GameResult:
    """Random legal plays and cube actions until the game ends."""
    game.opening_throw(rng.randint(1, 6), rng.randint(1, 6))
    while not game.is_finished:
        if game.phase is Phase.OPENING:
            game.opening_throw(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.AWAITING_CUBE_RESPONSE:
            rng.choice([game.take, game.take, game.drop])()
        elif game.phase is Phase.AWAITING_ROLL:
            if game.may_double() and rng.random() < 0.05:
                game.offer_double()
            else:
                game.roll(Roll(rng.randint(1, 6), rng.randint(1, 6)))
        else:
            assert game.dice is not None
            game.play(rng.choice(game.position.legal_positions(game.dice)))
    result = game.result()
    assert result is not None
    return result


SETUPS = [
    (ShortNardy(), StakeRules()),
    (ShortNardy(), StakeRules(cube=False)),
    (LongNardy(koks=True), StakeRules()),
]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(SETUPS))
def test_random_games_end_with_a_consistent_result(
    seed: int, setup: tuple[Variant, StakeRules]
) -> None:
    game = Game(setup[0], stakes=setup[1])
    result = play_out(game, random.Random(seed))
    assert game.events[-1] == GameOver(result)
    assert result.winner is not None
    assert game.cube_value in (1, 2, 4, 8, 16, 32, 64)
    if result.ending is Ending.BORNE_OFF:
        assert game.position.off[result.winner] == 15
        assert result.points == result.kind.multiplier * game.cube_value
    else:
        assert (result.ending, result.points) == (Ending.DROPPED, game.cube_value)
