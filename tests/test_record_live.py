"""Journaling a live game played through the rules core's `Game`: the journal replays to the
same moves and result, and exports as .mat."""

from __future__ import annotations

import random
from pathlib import Path

from referee.record import Journal, MatchHeader, Move, RollCorrected, format_mat, read_mat
from referee.record.live import GameRecorder, play_between
from referee.rules import Play, Roll, ShortNardy, Side
from referee.rules.game import Game


def test_a_live_game_journals_and_replays(tmp_path: Path) -> None:
    rng = random.Random(5)
    path = tmp_path / "live.jsonl"
    journal = Journal.create(path, MatchHeader(players=("W", "B"), length=0))
    recorder = GameRecorder(journal)
    recorder.start_game(1, (0, 0))
    game = Game(ShortNardy())
    recorder.record(game.opening_throw(3, 1))
    # White's opening 3-1 played illegally (the 1 left over), and Black accepts it as played:
    # given as the board only, so the journal works out the step.
    board = game.position.play(Play.from_str("24/21"))
    recorder.record(game.play(board, accept_illegal=True))
    turns = 0
    while not game.is_finished:
        if turns == 3:
            recorder.record(game.offer_double())
            recorder.record(game.take())
        recorder.record(game.roll(Roll(rng.randint(1, 6), rng.randint(1, 6))))
        recorder.record(game.play(rng.choice(game.legal_plays())))
        turns += 1
    journal.close()
    result = game.result()
    assert result is not None and result.winner is not None
    state = Journal.replay(path)
    (replayed,) = state.replayed.games
    assert replayed.game.result is not None
    assert replayed.game.result.winner == int(result.winner)
    assert replayed.game.result.points == result.points == 2 * result.kind.multiplier
    first = replayed.actions[0]
    assert not first.legal and str(first.action.play) == "24/21"  # type: ignore[union-attr]
    moves = [a for a in replayed.game.actions if isinstance(a, Move)]
    assert len(moves) == turns + 1
    assert state.position is not None and state.position.same_board(game.position)
    # The accepted illegal play keeps the record from being a strictly legal .mat, but it
    # still exports; reading it back flags that first move.
    text = format_mat(state.match)
    assert "\n  1) 31: 24/21 " in text
    assert read_mat(text, strict=False).match.games == state.match.games


def test_play_between_pairs_checkers_highest_first() -> None:
    start = ShortNardy().starting_position()
    after = start.play(Play.from_str("13/7 8/7"))
    play = play_between(start, after)
    assert play is not None and start.play(play).same_board(after)
    backwards = start.play(Play.from_str("8/7")).with_turn(Side.WHITE)
    assert play_between(backwards, start) is None


def test_a_roll_corrected_is_journaled_and_replays_as_played(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    journal = Journal.create(path, MatchHeader(players=("W", "B"), length=0))
    recorder = GameRecorder(journal)
    recorder.start_game(1, (0, 0))
    game = Game(ShortNardy(), starter=Side.WHITE)
    recorder.record(game.roll(Roll(3, 2)))
    (entry,) = recorder.record(game.correct_roll(Roll(3, 1)))
    assert entry.event == RollCorrected(0, (3, 1), read=(3, 2))
    recorder.record(game.play(Play.from_str("8/5 6/5")))
    journal.close()
    (move,) = Journal.replay(path).match.games[0].actions
    assert move == Move(0, (3, 1), Play.from_str("8/5 6/5"))
