"""`referee demo`: a scripted game judged by the rules core, as the referee would at the table.

Until the camera pipeline exists this replays built-in moves (some legal, some not) instead of
frames, prints each verdict, and exits 0 only when every verdict is the one the script expects.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from referee.rules import LongNardy, Play, Position, Roll, ShortNardy, Variant, judge


@dataclass(frozen=True)
class ScriptedMove:
    """A move as a player makes it on the board, and the verdict the referee owes it."""

    dice: tuple[int, int]
    played: str
    legal: bool
    reason: str | None = None


LONG_SCRIPT = (
    ScriptedMove((6, 5), "24/18 18/13", legal=True),
    ScriptedMove((3, 3), "24/21 24/21 21/18 21/18", legal=True),  # first-turn head exception
    ScriptedMove((4, 2), "24/20 24/22", legal=False, reason="head_rule"),
    ScriptedMove((4, 2), "24/20 20/18", legal=True),  # the correction the opponent demanded
    ScriptedMove((6, 1), "18/12 24/23", legal=False, reason="landed_on_opponent"),
    ScriptedMove((6, 1), "24/18 18/17", legal=True),
    ScriptedMove((5, 4), "13/8", legal=False, reason="die_unplayed"),
    ScriptedMove((5, 4), "13/8 8/4", legal=True),
)

SHORT_SCRIPT = (
    ScriptedMove((3, 1), "8/5 6/5", legal=True),
    ScriptedMove((6, 4), "24/18 18/14", legal=True),
    ScriptedMove((5, 5), "24/19 24/19 13/8 13/8", legal=False, reason="landed_on_opponent"),
    ScriptedMove((5, 5), "13/8 13/8 13/8 13/8", legal=True),
)


def run_script(variant: Variant, script: tuple[ScriptedMove, ...]) -> int:
    """Judge each scripted move; a rejected move is taken back, as after a demanded correction.
    Returns how many verdicts differ from the script."""
    position: Position = variant.starting_position()
    mismatches = 0
    print(f"--- {variant.title}")
    for move in script:
        roll = Roll(*move.dice)
        after = position.play(Play.from_str(move.played))
        verdict = judge(position, roll, after)
        expected = move.legal and not verdict.reasons
        agrees = verdict.legal == move.legal and (
            move.reason is None or move.reason in verdict.reasons
        )
        mark = "ok " if agrees else "BAD"
        print(f"[{mark}] {position.turn.label:5} rolls {roll}, plays {move.played:24} -> ", end="")
        print(verdict.message)
        mismatches += not agrees
        if verdict.legal and expected:
            position = after
    return mismatches


def run(_: argparse.Namespace) -> int:
    mismatches = run_script(LongNardy(), LONG_SCRIPT) + run_script(ShortNardy(), SHORT_SCRIPT)
    print("all verdicts as scripted" if not mismatches else f"{mismatches} verdicts differ")
    return 1 if mismatches else 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("demo", help="judge a built-in scripted game and print verdicts")
    parser.set_defaults(func=run)
