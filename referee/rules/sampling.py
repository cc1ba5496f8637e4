"""Random games and positions, for tests, benchmarks and the scene generator."""

from __future__ import annotations

import random
from collections.abc import Iterator

from referee.rules.model import Position, Roll
from referee.rules.variants import Variant


def random_roll(rng: random.Random) -> Roll:
    return Roll(rng.randint(1, 6), rng.randint(1, 6))


def random_game(
    variant: Variant, rng: random.Random, max_turns: int = 1000
) -> Iterator[tuple[Position, Roll]]:
    """The positions of one game played with uniformly random legal plays, each with the roll
    thrown in it, until a side has borne off all its checkers."""
    position = variant.starting_position()
    for _ in range(max_turns):
        if position.winner() is not None:
            return
        roll = random_roll(rng)
        yield position, roll
        position = rng.choice(position.legal_positions(roll))


def random_positions(
    variant: Variant, count: int, seed: int = 0
) -> Iterator[tuple[Position, Roll]]:
    """`count` (position, roll) pairs from consecutive random games."""
    rng = random.Random(seed)
    produced = 0
    while True:
        for pair in random_game(variant, rng):
            yield pair
            produced += 1
            if produced == count:
                return
