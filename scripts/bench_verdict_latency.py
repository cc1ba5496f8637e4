"""Verdict latency: from the frame that shows a move finished (the dice picked up) to the verdict.

What is timed is `Session.observe` on that frame: reading the board through the rules
(`interpret`), the judge's reasons when the move is not a legal play, the events and the
signals (a sink that only records). The camera pipeline's own time is not included; it comes
on top. Moves come from random games of both variants, read three ways: exactly (legal), with
the head an uncounted stack and a shadowed point (legal, read through the rules), and with one
die left unplayed (illegal: the judge runs).

    .venv/bin/python scripts/bench_verdict_latency.py [--games 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

from referee.record import MatchHeader
from referee.rules import Play, Position, Roll, Variant, variant_from_name
from referee.session import (
    BoardObservation,
    Count,
    DieObservation,
    EventKind,
    Half,
    Observation,
    Phase,
    PointObservation,
    Session,
    SessionEvent,
)
from referee.session.machine import POST_MOVE
from referee.signals import Decision, Indication

Reading = Callable[[Position, Position], BoardObservation]


class Recorder:
    def show(self, indication: Indication) -> None:
        """Signals are recorded, not shown: only the session's own time is measured."""


def exact(before: Position, after: Position) -> BoardObservation:
    return BoardObservation.from_position(after, 0.98)


def uncertain(before: Position, after: Position) -> BoardObservation:
    """The tallest stack counted only as "at least n - 3", a changed point in a hand's shadow."""
    board = BoardObservation.from_position(after, 0.95)
    tallest = max(range(1, 25), key=lambda p: max(board.point(p).count.values))
    top = board.point(tallest)
    low = max(1, max(top.count.values) - 3)
    board = board.with_point(tallest, PointObservation(top.colour, Count.at_least(low), 0.6))
    changed = [
        p
        for p in range(1, 25)
        if p != tallest
        and not board.point(p).same_reading(BoardObservation.from_position(before).point(p))
    ]
    if changed:
        shadowed = board.point(changed[0])
        board = board.with_point(changed[0], PointObservation(None, shadowed.count, 0.55))
    return board


def measure(
    variant: Variant, games: int, rng: random.Random
) -> tuple[dict[str, list[float]], dict[str, Counter[str]]]:
    """Milliseconds per verdict, and the verdicts given, by the kind of reading."""
    timings: dict[str, list[float]] = {"exact": [], "uncertain": [], "illegal": []}
    verdicts: dict[str, Counter[str]] = {kind: Counter() for kind in timings}
    for _ in range(games):
        header = MatchHeader(variant=variant.name)
        session = Session.new(header, signals=Recorder())
        # Opening throw: the higher die in White's right half starts.
        white, black = rng.sample(range(1, 7), 2)
        dice = (DieObservation(white, half=Half.RIGHT), DieObservation(black, half=Half.LEFT))
        session.observe(Observation.settled(BoardObservation.from_position(session.position), dice))
        for turn in range(400):
            if session.roll is None:
                side = session.position.turn
                roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
                half = Half.right_of(side)
                throw = (DieObservation(roll.die1, half=half), DieObservation(roll.die2, half=half))
                board = BoardObservation.from_position(session.position)
                session.observe(Observation.settled(board, throw))
            before, roll = session.position, session.roll
            assert roll is not None
            plays = before.legal_plays(roll)
            play = rng.choice(plays)
            kind = ("exact", "uncertain", "illegal")[turn % 3]
            reading: Reading = uncertain if kind == "uncertain" else exact
            if kind == "illegal":
                if len(play.steps) < 2:
                    kind, reading = "exact", exact
                else:
                    play = Play(play.steps[:-1])  # a die left unplayed
            after = before.play(play)
            finished = Observation.settled(reading(before, after))
            start = time.perf_counter()
            events: list[SessionEvent] = session.observe(finished)
            timings[kind].append((time.perf_counter() - start) * 1000)
            verdicts[kind].update(e.kind.value[5:] for e in events if e.kind.value[:5] == "move_")
            if any(e.kind is not EventKind.MOVE_LEGAL for e in events):
                # The opponent accepts the move as played (or the unsure reading's likeliest
                # play); a board that cannot stand is put right as a legal play.
                session.decide(Decision.ACCEPT)
                fixed = BoardObservation.from_position(before.play(plays[0]))
                while session.phase in POST_MOVE:
                    session.observe(Observation.settled(fixed))
            if session.phase is Phase.GAME_OVER:
                break
    return timings, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per variant")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("verdict latency, ms per finished move (Session.observe on the dice-picked-up frame)")
    print(
        f"{'variant':8} {'reading':10} {'moves':>6} {'median':>8} {'p95':>8} {'max':>8}  verdicts"
    )
    for name in ("long", "short"):
        timings, verdicts = measure(variant_from_name(name), args.games, rng)
        for kind, values in timings.items():
            if not values:
                continue
            ordered = sorted(values)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            given = " ".join(f"{v} {n}" for v, n in sorted(verdicts[kind].items()))
            print(
                f"{name:8} {kind:10} {len(values):6d} {statistics.median(values):8.2f} "
                f"{p95:8.2f} {ordered[-1]:8.2f}  {given}"
            )


if __name__ == "__main__":
    main()
