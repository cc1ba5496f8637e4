"""`referee legal` / `referee judge` with the variants: names, options, and the `next` field
saying who plays after each play."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from typing import Any

from referee.rules import Play
from referee.rules.long_variants import Gulbar, Mad
from referee.rules.turns import Continuation, Next, OwedMoves
from referee.rules_cli import answer_judge, answer_legal, serve

Answer = Callable[[Mapping[str, Any]], dict[str, Any]]


def ask(answer: Answer, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    out = io.StringIO()
    serve(answer, io.StringIO("\n".join(map(json.dumps, requests)) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_legal_says_what_follows_each_play() -> None:
    start = {**Gulbar().starting_position().to_dict(), "variant": "гюльбар"}
    [reply] = ask(answer_legal, {"position": start, "roll": [6, 6]})
    assert [play["steps"] for play in reply["plays"]] == [[[24, 18], [24, 18]]]
    assert reply["next"] == [{"player": "black", "kind": "passed", "dice": [6, 6], "through": 6}]
    # The position is handed to the side that plays next.
    assert reply["positions"][0]["turn"] == "black"
    # Feeding `next` back gives Black's plays of the passed moves.
    [taken] = ask(answer_legal, {"position": reply["positions"][0], "next": reply["next"][0]})
    assert [play["steps"] for play in taken["plays"]] == [[[24, 18], [24, 18]]]
    assert taken["next"] == [{"player": "black", "kind": "throw"}]
    assert taken["positions"][0]["turn"] == "black"


def test_legal_ladder_and_options() -> None:
    start = {**Mad().starting_position().to_dict(), "variant": "mad_gulbar"}
    start["options"] = {"ladder_moves_per_step": 2}
    [reply] = ask(answer_legal, {"position": start, "roll": [4, 4]})
    assert reply["next"] == [{"player": "white", "kind": "ladder", "dice": [5, 5]}]
    assert reply["positions"][0]["turn"] == "white"
    assert reply["positions"][0]["options"] == {"ladder_moves_per_step": 2}


def test_judge_takes_owed_moves() -> None:
    start = Mad().starting_position()
    four = start.play(Play.from_str("24/20 24/20 20/16 20/16")).with_turn(start.turn)
    fives = Continuation(start.turn, Next.LADDER, OwedMoves.ladder(5)).to_dict()
    legal = four.play(Play.from_str("24/19 19/14 14/9 9/4")).to_dict()
    twice = four.play(Play.from_str("24/19 24/19 19/14 19/14")).to_dict()
    replies = ask(
        answer_judge,
        {"position": four.to_dict(), "next": fives, "after": legal},
        {"position": four.to_dict(), "next": fives, "after": twice},
    )
    assert replies[0]["legal"] is True
    assert replies[1]["reasons"] == ["head_rule"]
    assert replies[1]["message"].startswith("Illegal 5-5:")


def test_bad_next_is_refused_on_its_line() -> None:
    start = Gulbar().starting_position().to_dict()
    replies = ask(
        answer_legal,
        {"position": start, "next": {"player": "white", "kind": "throw"}},
        {"position": start, "next": {"player": "black", "kind": "ladder", "dice": [5, 5]}},
        {"position": start, "next": {"player": "white", "kind": "ladder", "dice": [5, 6]}},
        {"position": start, "next": {"player": "white", "kind": "walk"}},
    )
    errors = [reply["error"] for reply in replies]
    assert "played with a 'roll'" in errors[0]
    assert "black's, not the side to move" in errors[1]
    assert "one number" in errors[2]
    assert "'kind' must be one of" in errors[3]
