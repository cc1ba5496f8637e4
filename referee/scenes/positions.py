"""Positions to show, drawn from random games played by the rules core.

A data set with seed S plays `games_per_variant` games per variant, game k seeded from (S, k);
each image picks a game and a moment of it by its own random generator. Games are played once
per process and cached, and a game depends only on its seed, so an image is the same whichever
order or process renders it.

Kinds: `start` (a starting position, either side to move), `opening` (the first ten plies: in
long nardy the heads still hold 10..15), `middle` (anything between), `bearoff` (a side has
begun bearing off), `bar` (short nardy, checkers on the bar; long nardy has no bar and shows a
middle position instead).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from typing import Any

import numpy as np

from referee.rules import Position, Roll, Side, variant_from_name
from referee.rules.sampling import random_game

OPENING_PLIES = 10


@dataclasses.dataclass(frozen=True)
class Moment:
    """A position as JSON (the rules core's format) and the roll its side to move threw."""

    position: dict[str, Any]
    roll: tuple[int, int]


@functools.lru_cache(maxsize=64)
def played_game(variant: str, seed: int, game: int) -> tuple[tuple[Position, Roll], ...]:
    """Every (position, roll) of the random game `game` of a data set seeded `seed`."""
    rng = random.Random(seed * 1_000_003 + game)
    return tuple(random_game(variant_from_name(variant), rng))


def _candidates(kind: str, game: tuple[tuple[Position, Roll], ...]) -> list[int]:
    """Ply indices of `game` whose position is of kind `kind`."""
    plies = range(len(game))
    if kind == "opening":
        return [i for i in plies if 1 <= i <= OPENING_PLIES]
    if kind == "bearoff":
        return [i for i in plies if any(game[i][0].off)]
    if kind == "bar":
        return [i for i in plies if any(game[i][0].bar)]
    return [i for i in plies if OPENING_PLIES < i < len(game) - 1]


def sample_moment(
    rng: np.random.Generator, variant: str, kind: str, seed: int, games: int
) -> Moment:
    """A position of kind `kind` (see the module text) and the roll thrown in it."""
    if kind == "start":
        turn = Side.WHITE if rng.random() < 0.5 else Side.BLACK
        position = variant_from_name(variant).starting_position(turn)
        return Moment(position.to_dict(), (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
    game = played_game(variant, seed, int(rng.integers(0, games)))
    indices = _candidates(kind, game) or _candidates("middle", game)
    position, roll = game[int(rng.choice(indices))]
    return Moment(position.to_dict(), (roll.die1, roll.die2))
