"""Whole games refereed live through the camera pipeline: how many verdicts come out right.

The held-out sets score single frames; a referee at a table is judged over games, where the
session reads each still through the rules and the game so far (a stacked head, a hidden
checker). This renders game videos of long nardy (or short, `--variant short`) with
`referee.scenes.video.game_script` (from the starting position each side in turn throws,
plays a random legal play and picks the dice up; every `--illegal-every`-th move is an
illegal one-checker play, which the next throw accepts), referees each with the real pipeline
as `referee demo` does (the board found in the first frame; the opening throw, White's 6
against Black's 1, told to the session), and matches the referee's verdicts with the
script's.

    .venv/bin/python scripts/bench_games.py --seeds 201-204 --turns 24 --out out/games
    .venv/bin/python scripts/bench_games.py --seeds 211-214 --config datasets/club_overhead.json
    .venv/bin/python scripts/bench_games.py --seeds 201-204 --out out/games --rendered  # again

Verdicts are matched in order (`difflib`), so one missed or extra verdict costs only itself.
Printed per game and in total: throws read right, legal moves called legal, illegal moves
called illegal, legal moves called illegal (the buzzer sounding at a good play), moves the
referee asked the players about, verdicts the script owed that the referee never gave, and
verdicts it gave that the script did not owe.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from referee.demo import DEMO_SCENE, Verdict, run_live, scripted_verdicts
from referee.scenes.config import config_from_dict, load_config
from referee.scenes.video import game_script, make_video


def seed_range(text: str) -> list[int]:
    """`201-204` or `201,205` as a list of seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    return seeds


def tally(owed: list[Verdict], given: list[Verdict]) -> Counter[str]:
    """Counts of how the referee's verdicts match the script's (see the module text)."""
    counts: Counter[str] = Counter()
    for verdict in owed:
        counts[f"owed {verdict.what}"] += 1
    matcher = difflib.SequenceMatcher(None, [v.key() for v in owed], [v.key() for v in given])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for verdict in owed[i1:i2]:
                counts[f"right {verdict.what}"] += 1
            continue
        wanted, said = owed[i1:i2], given[j1:j2]
        # Pair a replaced stretch verdict by verdict: a move called otherwise, a throw misread.
        for k in range(max(len(wanted), len(said))):
            want = wanted[k] if k < len(wanted) else None
            got = said[k] if k < len(said) else None
            if want is None:
                counts["extra verdicts"] += 1
            elif got is None:
                counts["owed, never given"] += 1
            elif want.what == "legal" and got.what == "illegal":
                counts["legal called illegal"] += 1
            elif want.what == "illegal" and got.what == "legal":
                counts["illegal called legal"] += 1
            elif want.what in ("legal", "illegal") and got.what == "unsure":
                counts["move asked about"] += 1
            else:
                counts[f"{want.what} given as {got.what}"] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="201-204", help="e.g. 201-204 (default)")
    parser.add_argument("--turns", type=int, default=24, help="turns per game (default 24)")
    parser.add_argument("--illegal-every", type=int, default=5, help="default 5")
    parser.add_argument("--config", type=Path, help="scene config (default: the demo's table)")
    parser.add_argument("--size", default="1280x720", help="frame size (default 1280x720)")
    parser.add_argument(
        "--variant", choices=("long", "short"), default="long", help="long (default) or short nardy"
    )
    parser.add_argument("--out", type=Path, default=Path("out/games"))
    parser.add_argument(
        "--rendered",
        action="store_true",
        help="referee the videos already in --out (gameSEED.avi and its script) again",
    )
    args = parser.parse_args()
    config = load_config(args.config) if args.config else config_from_dict(DEMO_SCENE)
    width, height = (int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    total: Counter[str] = Counter()
    for seed in seed_range(args.seeds):
        video = args.out / f"game{seed}.avi"
        start = time.perf_counter()
        if args.rendered:
            if not video.exists() or not video.with_suffix(".json").exists():
                print(f"{video} or its script is missing: render it first", file=sys.stderr)
                return 2
            script: dict[str, Any] = json.loads(video.with_suffix(".json").read_text("utf-8"))
        else:
            script = make_video(
                video,
                seed,
                config,
                size=(width, height),
                variant=args.variant,
                script=game_script(args.turns, args.illegal_every),
            )
        rendered = time.perf_counter() - start
        run = run_live(video, script, args.out / f"game{seed}.jsonl", truth=False, show=False)
        owed = scripted_verdicts(script)
        counts = tally(owed, run.given)
        total += counts
        (args.out / f"game{seed}.verdicts.json").write_text(
            json.dumps(
                {
                    "calibration": run.calibration,
                    "owed": [str(v) for v in owed],
                    "given": [f"{v} (frame {v.frame})" for v in run.given],
                    "counts": dict(counts),
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(
            f"seed {seed}: {script['frame_count']} frames "
            f"({'rendered before' if args.rendered else f'rendered in {rendered:.0f} s'}, "
            f"refereed in {sum(run.step_ms) / 1e3:.0f} s); {run.calibration}"
        )
        print("  " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))
        sys.stdout.flush()
    print("all games: " + ", ".join(f"{name} {n}" for name, n in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
