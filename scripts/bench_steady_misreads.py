"""How the live session copes with a reader that misreads one place the same way on every frame.

A real camera's mistakes repeat: a glint on an empty point read as a checker is read so again
in the next frame, and the next; a tall stack counted one short stays one short. This plays
random games of legal moves through the session from scripted observations (`TableScript`),
every still read with one such steady mistake, and counts what the session made of the legal
moves: called legal, asked about, or called illegal. The mistakes: a glint (a point chosen
per game, read as a checker of a chosen colour at 0.95 while it is empty), and every stack of
8 or more counted one short at 0.9. The same games read by a perfect reader are the
reference, in the same run. Whenever the session asks or calls a move illegal, the opponent
accepts it, so games go on.

    .venv/bin/python scripts/bench_steady_misreads.py [--games 30] [--moves 30] [--variant long]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from referee.record import MatchHeader
from referee.rules import Roll, Side, variant_from_name
from referee.session import (
    BoardObservation,
    Count,
    EventKind,
    Phase,
    PointObservation,
    Session,
    TableScript,
)
from referee.session.script import Degrade
from referee.signals import Decision

ASKED = (Phase.UNSURE, Phase.DISPUTE, Phase.CORRECTION)
MOVE_VERDICTS = (EventKind.MOVE_LEGAL, EventKind.MOVE_UNSURE, EventKind.MOVE_ILLEGAL)


def glint(point: int, colour: Side) -> Degrade:
    """White's point `point`, while empty, read as one checker of `colour`."""

    def misread(board: BoardObservation) -> BoardObservation:
        if board.point(point).count != Count.exactly(0):
            return board
        return board.with_point(point, PointObservation(colour, Count.exactly(1), 0.95))

    return misread


def stacks_one_short(board: BoardObservation) -> BoardObservation:
    """Every stack of 8 or more read one short."""
    for number, point in enumerate(board.points, start=1):
        height = max(point.count.values)
        if height >= 8:
            short = PointObservation(point.colour, Count.exactly(height - 1), 0.9)
            board = board.with_point(number, short)
    return board


def play_game(variant_name: str, seed: int, moves: int, misreads: Degrade | None) -> Counter[str]:
    """One game of random legal moves; the session's verdict on each move, counted."""
    rng = random.Random(seed)
    variant = variant_from_name(variant_name)
    session = Session.new(MatchHeader(length=0, variant=variant.name))
    script = TableScript(variant, misreads=misreads)
    verdicts: Counter[str] = Counter()

    def run() -> None:
        for observation in script.take_observations():
            for event in session.observe(observation):
                if event.kind in MOVE_VERDICTS:
                    verdicts[str(event.kind)] += 1
        if session.phase in ASKED:
            session.decide(Decision.ACCEPT)

    white, black = rng.sample(range(1, 7), 2)
    script.opening(white, black)
    run()
    for _ in range(moves):
        if session.game.is_finished:
            break
        side = session.position.turn
        if session.phase is Phase.AWAIT_THROW:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            script.throw(side, roll.die1, roll.die2)
            run()
        script.position = session.position  # what stood, asked about or not
        play = rng.choice(session.game.legal_plays())
        script.play(play).pick_up()
        run()
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--moves", type=int, default=30, help="moves per game at most")
    parser.add_argument("--variant", default="long")
    args = parser.parse_args()
    names = ("perfect reader", "a glint", "stacks one short")
    totals: dict[str, Counter[str]] = {name: Counter() for name in names}
    for seed in range(args.games):
        rng = random.Random(seed + 1000)
        readers = (None, glint(rng.randint(1, 24), rng.choice(list(Side))), stacks_one_short)
        for name, misreads in zip(names, readers, strict=True):
            totals[name] += play_game(args.variant, seed, args.moves, misreads)
    print(f"{args.games} games of {args.variant} nardy, legal moves only, up to {args.moves} each")
    for name, verdicts in totals.items():
        moves = sum(verdicts.values())
        counts = ", ".join(
            f"{kind.value.removeprefix('move_')} {verdicts[str(kind)]}" for kind in MOVE_VERDICTS
        )
        print(f"  {name:16s} {moves} moves: {counts}")


if __name__ == "__main__":
    main()
