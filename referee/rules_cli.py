"""`referee legal` and `referee judge`: the rules core as a JSON-lines filter for tools and tests.

Each input line gets exactly one output line, so a batch stays aligned: the answer, or
`{"error": "line N: ..."}` for a line that is not a valid request. The exit status is 1 when any
line was refused, 0 otherwise.

A request names what is played either as `"roll": [d1, d2]` (dice thrown) or as `"next": N`, a
continuation of kind `ladder` or `passed` from an earlier answer (moves owed without a throw,
RULES.md §4). `referee legal` answers, beside `positions` and `plays`, a list `next` aligned with
`plays`: what follows each play (`referee.rules.turns.Continuation.to_dict`), e.g.
`{"player": "white", "kind": "ladder", "dice": [5, 5, 5, 5]}`; each position's `turn` is that
`player`, except after the last checker is borne off (kind `game_over`), where the turn passes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from referee.rules import Position, Roll, RulesError, judge
from referee.rules.turns import Continuation, Next


class RequestError(ValueError):
    """A request line that is not of the documented shape."""


def _field(request: Mapping[str, Any], name: str) -> Any:
    if name not in request:
        raise RequestError(f"the request lacks {name!r}")
    return request[name]


def _roll(request: Mapping[str, Any]) -> Roll:
    dice = _field(request, "roll")
    if not isinstance(dice, list):
        raise RequestError("'roll' must be a list of two dice")
    return Roll.from_list(dice)


def _dice(request: Mapping[str, Any], position: Position) -> Roll:
    """The thrown `roll`, or the moves owed by a `next` continuation."""
    if "roll" in request or "next" not in request:
        return _roll(request)
    following = Continuation.from_dict(_field(request, "next"))
    if following.owed is None:
        raise RequestError(f"a 'next' of kind {following.kind} is played with a 'roll'")
    if following.player is not position.turn:
        raise RequestError(f"the owed moves are {following.player.label}'s, not the side to move")
    return following.owed


def answer_legal(request: Mapping[str, Any]) -> dict[str, Any]:
    position = Position.from_dict(_field(request, "position"))
    dice = _dice(request, position)
    plays, following = [], []
    for play, after in position.variant.legal_moves(position, dice):
        then = position.variant.after_play(position, dice, play)
        if then.kind is not Next.GAME_OVER:
            after = after.with_turn(then.player)
        plays.append({"steps": play.to_list(), "position": after.to_dict()})
        following.append(then.to_dict())
    return {"positions": [play["position"] for play in plays], "plays": plays, "next": following}


def answer_judge(request: Mapping[str, Any]) -> dict[str, Any]:
    before = Position.from_dict(_field(request, "position"))
    after = Position.from_dict(_field(request, "after"), validate=False)
    if after.variant.name != before.variant.name:
        raise RequestError("'position' and 'after' must be of the same variant")
    return judge(before, _dice(request, before), after).to_dict()


def serve(answer: Callable[[Mapping[str, Any]], dict[str, Any]], lines: TextIO, out: TextIO) -> int:
    """Answer each JSON line of `lines` on `out`; 1 if any line was refused."""
    status = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise RequestError("each line must be a JSON object")
            reply = answer(request)
        except json.JSONDecodeError as error:
            reply, status = {"error": f"line {number}: not JSON ({error.msg})"}, 1
        except (RulesError, RequestError) as error:
            reply, status = {"error": f"line {number}: {error}"}, 1
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return status


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    legal = subparsers.add_parser(
        "legal",
        help="every legal play of a roll (JSON lines on stdin)",
        description='Reads {"position": P, "roll": [d1, d2]} lines (or "next": N instead of '
        '"roll", for moves owed in a variant); writes {"positions": [...], "plays": '
        '[{"steps": [[from, to], ...], "position": P}], "next": [N, ...]}, where next[i] '
        'says who plays after plays[i] and what: {"player": "white", "kind": "throw" | '
        '"throw_again" | "ladder" | "passed" | "game_over", "dice": [...], "through": n}.',
    )
    legal.set_defaults(func=lambda _: serve(answer_legal, sys.stdin, sys.stdout))
    judge_parser = subparsers.add_parser(
        "judge",
        help="judge observed moves (JSON lines on stdin)",
        description='Reads {"position": P, "roll": [d1, d2], "after": P2} lines (or "next": N '
        'instead of "roll", as for legal); writes '
        '{"legal": bool, "reasons": [...], "message": "...", "closest": [...]}.',
    )
    judge_parser.set_defaults(func=lambda _: serve(answer_judge, sys.stdin, sys.stdout))
