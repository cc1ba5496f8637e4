"""The long-nardy text format: random games written and read back give the same match, replay
legally, and keep the variant's options; draws under `last_roll_draw`."""

from __future__ import annotations

import dataclasses

import pytest

from referee.record import (
    End,
    Game,
    Match,
    MatchHeader,
    Move,
    RecordReplayError,
    Result,
    format_text,
    read_mat,
)
from referee.rules import LongNardy, Play, Roll, Side
from tests.record_helpers import greedy_moves, random_match


@pytest.mark.parametrize("seeds", [[0, 1, 2], [7, 8], [11]])
def test_random_long_games_round_trip(seeds: list[int]) -> None:
    match = random_match(LongNardy(), seeds, length=11)
    text = format_text(match)
    assert text.startswith('; [Player 1 "Алиса"]\n; [Player 2 "Bob"]\n; [Variation "long"]\n')
    replayed = read_mat(text)
    back = replayed.match
    assert back.games == match.games
    assert back.header.players == match.header.players and back.header.length == 11
    assert back.header.rules_variant() == LongNardy()
    assert format_text(back) == text
    for game in replayed.games:
        for done in game.actions:
            roll = Roll(*done.action.dice)  # type: ignore[union-attr]
            assert any(done.after.same_board(q) for q in done.before.legal_positions(roll))
            assert "*" not in str(done.action.play)  # type: ignore[union-attr]


def test_the_format_numbers_points_from_each_side_with_24_the_head() -> None:
    text = format_text(random_match(LongNardy(), [5]))
    first_rows = [line for line in text.splitlines() if line.startswith("  1) ")]
    assert first_rows and first_rows[0][9:12] == "24/"  # the first checker leaves the head
    assert " 0 point match" in text and "Wins " in text


def test_options_are_written_and_read_back() -> None:
    variant = LongNardy(six_block="home_entered", koks=True, first_turn_head_exception="none")
    match = random_match(variant, [3])
    text = format_text(match)
    assert '; [SixBlock "home_entered"]' in text and '; [Koks "On"]' in text
    assert '; [LastRollDraw "Off"]' in text  # every option is stated
    assert read_mat(text).match.header.rules_variant() == variant


def last_roll_draw_game(variant: LongNardy) -> tuple[list[Move], Roll, Play]:
    """A race White finishes first, and a roll with which Black then bears off the rest."""
    for seed in range(100):
        moves, final = greedy_moves(variant, seed)
        if final.winner() != Side.WHITE:
            continue
        for d in range(6, 0, -1):
            for play, after in variant.legal_moves(final, Roll(d, d)):
                if after.off[Side.BLACK] == 15:
                    return moves, Roll(d, d), play
    raise AssertionError("no race of 100 ends within one roll")


def test_a_draw_after_the_last_roll() -> None:
    variant = LongNardy(last_roll_draw=True)
    moves, roll, play = last_roll_draw_game(variant)
    actions = (*moves, Move(1, (roll.die1, roll.die2), play))
    header = MatchHeader(variant="long", options={"last_roll_draw": True})
    match = Match(header, (Game((0, 0), actions, Result(None, 0, End.DRAW)),))
    text = format_text(match)
    assert text.endswith("      Draw\n\n")
    assert read_mat(text).match.games == match.games
    # Before the last roll the game is not over: the other player's roll is still due.
    waiting = Match(header, (Game((0, 0), tuple(moves), None),))
    assert read_mat(format_text(waiting)).games[0].game.result is None
    # The same race without the option: the first to finish wins at once.
    plain = Match(MatchHeader(variant="long"), (Game((0, 0), tuple(moves), None),))
    result = read_mat(format_text(plain)).games[0].game.result
    assert result is not None and result.winner == 0 and result.end is End.BEAR_OFF


def test_an_illegal_long_move_is_reported() -> None:
    match = random_match(LongNardy(), [4])
    game = match.games[0]
    first = game.actions[0]
    assert isinstance(first, Move)
    broken = dataclasses.replace(first, play=Play.from_str("24/20 24/19"))  # two off the head
    games = (dataclasses.replace(game, actions=(broken, *game.actions[1:])),)
    text = format_text(dataclasses.replace(match, games=games))
    with pytest.raises(RecordReplayError, match=r"game 1, move 1 \(\d\d: 24/20 24/19"):
        read_mat(text)


def test_variants_without_extra_plays_replay() -> None:
    from referee.rules import variant_from_name

    nardgammon = variant_from_name("nardgammon")
    match = random_match(nardgammon, [6])
    assert read_mat(format_text(match)).match.games == match.games
