"""Compare short nardy's legal plays with GNU Backgammon's move generator on many positions.

On positions from random games (bar entry, closed boards, bear-off, rolls with no play), the set
of positions reachable by a legal play must be identical to gnubg-nn's. Prints the count checked,
the hard cases covered and every difference. Exit status 1 on any difference.
Run: .venv/bin/python scripts/verify_gnubg.py --positions 100000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.rules import ShortNardy
from referee.rules.sampling import random_positions
from tests.gnubg_reference import gnubg_results, our_results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    differences = on_bar = bearing_off = no_play = doubles = 0
    start = time.perf_counter()
    for number, (position, roll) in enumerate(
        random_positions(ShortNardy(), args.positions, seed=args.seed), start=1
    ):
        ours, theirs = our_results(position, roll), gnubg_results(position, roll)
        if ours != theirs:
            differences += 1
            print(f"DIFFERENT {roll}: {position.to_dict()} ours {len(ours)} gnubg {len(theirs)}")
        on_bar += position.bar[position.turn] > 0
        bearing_off += position.off[position.turn] > 0
        no_play += position.legal_plays(roll)[0].steps == ()
        doubles += roll.is_double
        if number % 20_000 == 0:
            print(f"  {number} positions checked", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print(f"{args.positions} positions from random games, seed {args.seed}, {elapsed:.0f} s")
    print(f"  mover on the bar: {on_bar}, bearing off: {bearing_off}, no legal play: {no_play}")
    print(f"  doubles: {doubles}")
    print(f"  differences from gnubg-nn: {differences}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
