"""Shared helpers for the variant tests: outcomes of a roll, and games that follow the turn
structure (`after_play`) instead of plain alternation."""

from __future__ import annotations

import random
from collections.abc import Iterator

from referee.rules import Play, Position, Roll, Variant
from referee.rules.sampling import random_roll
from referee.rules.turns import Continuation, Next


def outcomes(position: Position, dice: Roll) -> set[tuple[object, ...]]:
    """The boards the legal plays of `dice` reach."""
    return {after.board_key() for after in position.legal_positions(dice)}


def reached(position: Position, *plays: str) -> set[tuple[object, ...]]:
    """The boards the given plays (in text) reach, for comparing with `outcomes`."""
    return {position.play(Play.from_str(play)).board_key() for play in plays}


def following(position: Position, dice: Roll, play: str) -> Continuation:
    return position.variant.after_play(position, dice, Play.from_str(play))


def play_on(position: Position, dice: Roll, play: str) -> Position:
    """The position after `play`, with the turn given to whoever its continuation names."""
    then = following(position, dice, play)
    return position.play(Play.from_str(play)).with_turn(then.player)


def random_turns(
    variant: Variant, rng: random.Random, max_plays: int
) -> Iterator[tuple[Position, Roll, Play, Continuation]]:
    """A game with uniformly random legal plays that follows each play's continuation: each
    position, the dice played in it (thrown or owed), the play, and what follows."""
    position, dice = variant.starting_position(), random_roll(rng)
    for _ in range(max_plays):
        play, after = rng.choice(variant.legal_moves(position, dice))
        then = variant.after_play(position, dice, play)
        yield position, dice, play, then
        if then.kind is Next.GAME_OVER:
            return
        position = after.with_turn(then.player)
        dice = then.owed if then.owed is not None else random_roll(rng)
