"""Shared pieces of the record tests: where the real records are, and made-up matches."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from referee.record import Game, Match, MatchHeader, Move, Result, bear_off_points
from referee.record.model import End
from referee.rules import Position, Roll, Variant
from referee.rules.sampling import random_game

REAL_RECORDS = Path(__file__).resolve().parents[1] / ".." / "shared" / "real" / "records"
REAL_MAT = REAL_RECORDS / "charlot1-charlot2_7p_2025-11-08-2305.mat"
REAL_SGF = REAL_RECORDS / "charlot1-charlot2_7p_2025-11-08-2305.sgf"
REAL_SGF_2 = REAL_RECORDS / "charlot1-charlot2_7p_2025-11-08-2308.sgf"


def real(path: Path) -> Path:
    """`path`, or skip the test, saying why, where the real records are absent."""
    if not path.is_file():
        pytest.skip(f"real record {path.name} not found in {REAL_RECORDS} (../shared/real/)")
    return path


def random_moves(variant: Variant, seed: int, starter: int = 0) -> tuple[list[Move], Position]:
    """The moves of one `random_game`, played by players 0/1 with `starter` moving first, and
    the final position (in the sides of `random_game`, where White starts)."""
    pairs = list(random_game(variant, random.Random(seed)))
    moves = []
    final = pairs[-1][0]
    for index, (position, roll) in enumerate(pairs):
        options = variant.legal_moves(position, roll)
        if index + 1 < len(pairs):
            following = pairs[index + 1][0]
            play, final = next((p, q) for p, q in options if q.same_board(following))
        else:  # random_game does not show the last position: any finishing play will do
            play, final = next((p, q) for p, q in options if q.winner() is not None)
        player = int(position.turn) ^ starter
        moves.append(Move(player, (roll.die1, roll.die2), play))
    return moves, final


def random_match(variant: Variant, seeds: list[int], *, length: int = 0, **header: object) -> Match:
    """A match of one random game per seed, starters alternating, results by the board."""
    games = []
    score = [0, 0]
    for number, seed in enumerate(seeds):
        starter = number % 2
        moves, final = random_moves(variant, seed, starter)
        winner_side = final.winner()
        assert winner_side is not None
        points = bear_off_points(final, winner_side, 1)
        winner = int(winner_side) ^ starter
        games.append(Game((score[0], score[1]), tuple(moves), Result(winner, points, End.BEAR_OFF)))
        score[winner] += points
    options = {} if variant.name == "short" else variant.non_default_options()
    match_header = MatchHeader(
        players=("Алиса", "Bob"),
        length=length,
        variant=variant.name,
        options=options,
        **header,  # type: ignore[arg-type]
    )
    return Match(match_header, tuple(games))


def greedy_moves(variant: Variant, seed: int) -> tuple[list[Move], Position]:
    """A game where each side plays the legal move leaving it the fewest pips (a race, so both
    finish close together), White first; stops when the board has a winner."""
    rng = random.Random(seed)
    position = variant.starting_position()
    moves = []
    while position.winner() is None:
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        mover = position.turn
        play, position = min(
            variant.legal_moves(position, roll), key=lambda o: (o[1].pip_count(mover), str(o[0]))
        )
        moves.append(Move(int(mover), (roll.die1, roll.die2), play))
    return moves, position
