"""Legal-play enumeration speed of the rules core against GNU Backgammon's generator (gnubg-nn).

Both enumerate every distinct position reachable by a legal play, on the same short-nardy
positions from random games. gnubg-nn is timed three ways: keys only; keys decoded into raw board
tuples (`board_from_position_key`); and decoded into the same `Position` objects the rules core
returns, the like-for-like reference. Prints input positions per second for each and the ratios
(target: at least 0.25x gnubg-nn with boards decoded). Run:
.venv/bin/python scripts/bench_rules.py
"""

from __future__ import annotations

import argparse
import time

import gnubg_nn

from referee.rules import LongNardy, Position, ShortNardy, Side
from referee.rules.sampling import random_positions
from referee.rules.variants import encode_side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many timed passes")
    args = parser.parse_args()

    sample = list(random_positions(ShortNardy(), args.positions, seed=7))
    boards = []
    for position, roll in sample:
        mover, opponent = (encode_side(position, s) for s in (position.turn, position.turn.other))
        boards.append(([list(opponent[1:26]), list(mover[1:26])], roll.die1, roll.die2))

    def run_ours() -> int:
        return sum(len(position.legal_positions(roll)) for position, roll in sample)

    def run_gnubg_keys() -> int:
        return sum(len(gnubg_nn.moves(board, d1, d2)) or 1 for board, d1, d2 in boards)

    def run_gnubg_boards() -> int:
        total = 0
        for board, d1, d2 in boards:
            keys = gnubg_nn.moves(board, d1, d2)
            total += len([gnubg_nn.board_from_position_key(key) for key in keys]) or 1
        return total

    def run_gnubg_positions() -> int:
        total = 0
        for (position, _), (board, d1, d2) in zip(sample, boards, strict=True):
            mover, variant = position.turn, position.variant
            decoded = []
            for key in gnubg_nn.moves(board, d1, d2):
                opponent, own = gnubg_nn.board_from_position_key(key)
                sides = (own, opponent) if mover is Side.WHITE else (opponent, own)
                decoded.append(
                    Position(
                        variant,
                        mover.other,
                        (tuple(sides[0][:24]), tuple(sides[1][:24])),
                        (sides[0][24], sides[1][24]),
                        (15 - sum(sides[0]), 15 - sum(sides[1])),
                    )
                )
            total += len(decoded) or 1
        return total

    def best_rate(run: object) -> tuple[float, int]:
        best, results = float("inf"), 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            results = run()  # type: ignore[operator]
            best = min(best, time.perf_counter() - start)
        return len(sample) / best, results

    ours, our_results = best_rate(run_ours)
    print(f"short nardy, {len(sample)} positions from random games, best of {args.repeat}")
    print(f"  referee rules core, Position objects : {ours:10,.0f} positions/s ({our_results})")
    for label, run in (
        ("gnubg-nn, keys only                  ", run_gnubg_keys),
        ("gnubg-nn, keys decoded to board tuples", run_gnubg_boards),
        ("gnubg-nn, decoded to Position objects ", run_gnubg_positions),
    ):
        theirs, their_results = best_rate(run)
        print(
            f"  {label}: {theirs:10,.0f} positions/s ({their_results}), ratio {ours / theirs:.2f}x"
        )

    long_sample = list(random_positions(LongNardy(), args.positions // 4, seed=7))
    start = time.perf_counter()
    for position, roll in long_sample:
        position.legal_positions(roll)
    rate = len(long_sample) / (time.perf_counter() - start)
    print(
        f"long nardy, {len(long_sample)} positions: {rate:,.0f} positions/s (no reference exists)"
    )


if __name__ == "__main__":
    main()
