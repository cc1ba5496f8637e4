"""Judging an observed transition: was the new position a legal play of the roll, and if not, why.

This is what players see at the table, so a verdict carries reason codes, one plain sentence and
the legal plays closest to what was done.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from referee.rules.model import CHECKERS_PER_SIDE, Play, Position, Roll, Side
from referee.rules.movegen import SearchTree
from referee.rules.variants import Relax, VariantStepRules, encode_side, tree_for


class Reason(enum.StrEnum):
    """Why a play is illegal."""

    HEAD_RULE = Relax.HEAD_RULE
    LANDED_ON_OPPONENT = Relax.LANDED_ON_OPPONENT
    SIX_BLOCK = Relax.SIX_BLOCK
    BORE_OFF_NOT_HOME = Relax.BORE_OFF_NOT_HOME
    BAR_FIRST = Relax.BAR_FIRST
    BORE_OFF_INEXACT = Relax.BORE_OFF_INEXACT
    MOVED_INSIDE_HOME = Relax.MOVED_INSIDE_HOME
    HIT_THEN_JOIN = Relax.HIT_THEN_JOIN
    BORE_OFF_AFTER_HIT = Relax.BORE_OFF_AFTER_HIT
    DIE_UNPLAYED = "die_unplayed"
    SMALLER_DIE = "smaller_die"
    CHECKER_COUNT_CHANGED = "checker_count_changed"
    NOT_REACHABLE = "not_reachable"


_CLAUSES: dict[Reason, str] = {
    Reason.HEAD_RULE: "more than one checker left the head (24) this turn",
    Reason.LANDED_ON_OPPONENT: "a checker stopped on a point the opponent holds",
    Reason.SIX_BLOCK: "it leaves a block of six points with no opponent checker ahead of it",
    Reason.BORE_OFF_NOT_HOME: "a checker was borne off before all fifteen were home",
    Reason.BAR_FIRST: "a checker moved while another waited on the bar",
    Reason.BORE_OFF_INEXACT: "a checker was borne off with a die other than its point's number",
    Reason.MOVED_INSIDE_HOME: "a checker moved inside home once all fifteen were home",
    Reason.HIT_THEN_JOIN: "a checker that hit inside home moved on onto a point of its own side",
    Reason.BORE_OFF_AFTER_HIT: "a checker that hit inside home was borne off in the same turn",
    Reason.DIE_UNPLAYED: "a die was left unplayed that could have been played",
    Reason.SMALLER_DIE: "only one die could be played, and then it must be the larger",
    Reason.CHECKER_COUNT_CHANGED: "the number of checkers changed",
    Reason.NOT_REACHABLE: "no play of this roll leads to this position",
}


@dataclass(frozen=True)
class LegalOption:
    """A legal play and the position it reaches."""

    play: Play
    position: Position

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.play.to_list(), "position": self.position.to_dict()}


@dataclass(frozen=True)
class Verdict:
    """The judgement of one observed move."""

    legal: bool
    reasons: tuple[Reason, ...]
    message: str
    closest: tuple[LegalOption, ...]
    misplaced: int
    """Checkers out of place between what was done and the closest legal play (0 when legal)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reasons": [str(reason) for reason in self.reasons],
            "message": self.message,
            "closest": [option.to_dict() for option in self.closest],
        }


def checkers_out_of_place(a: Position, b: Position) -> int:
    """How many checkers would have to move to turn board `a` into board `b`."""
    moved = 0
    for side in Side:
        moved += sum(
            max(0, x - y) for x, y in zip(encode_side(a, side), encode_side(b, side), strict=True)
        )
    return moved


def judge(before: Position, roll: Roll, after: Position) -> Verdict:
    """Is `after` a legal play of `roll` by the side to move in `before`?

    `before` must be a valid position (InvalidPositionError otherwise); `after` is what was
    observed and may be impossible (a checker too many, two colours on one point).
    """
    variant = before.variant
    options = [LegalOption(play, position) for play, position in variant.legal_moves(before, roll)]
    for option in options:
        if option.position.same_board(after):
            return Verdict(
                True, (), f"Legal play of {roll}: {option.play or 'no move'}.", (option,), 0
            )
    distances = [checkers_out_of_place(after, option.position) for option in options]
    nearest = min(distances)
    closest = tuple(o for o, d in zip(options, distances, strict=True) if d == nearest)
    reasons, detail = _explain(before, roll, after, len(options[0].play.steps))
    clauses = [variant.clause(reason) or _CLAUSES[reason] for reason in reasons]
    if detail:
        clauses.append(detail)
    plays = " or ".join(str(option.play) or "no move" for option in closest[:3])
    message = f"Illegal {roll}: {'; '.join(clauses)}; the closest legal play is {plays}."
    return Verdict(False, reasons, message, closest, nearest)


def _explain(
    before: Position, roll: Roll, after: Position, legal_dice: int
) -> tuple[tuple[Reason, ...], str]:
    counts = [after.count(side) for side in Side]
    if counts != [CHECKERS_PER_SIDE] * 2 or min(*after.bar, *after.off) < 0:
        return (Reason.CHECKER_COUNT_CHANGED,), f"white has {counts[0]}, black {counts[1]}"
    if after.off[before.turn.other] != before.off[before.turn.other] or (
        after.bar[before.turn] > before.bar[before.turn]
    ):
        return (Reason.NOT_REACHABLE,), "the checkers of the side not to move changed"
    target = after.board_key()
    rules, tree = tree_for(before, roll)
    found = _find(rules, tree, target)
    if found is not None:
        dice, state, high_used = found
        if not rules.may_end_turn(state):
            return (Reason.SIX_BLOCK,), rules.explain(state)
        if legal_dice == 1 and dice == 1 and not roll.is_double and not high_used:
            return (Reason.SMALLER_DIE,), ""
        return (Reason.DIE_UNPLAYED,), ""
    relaxations = before.variant.relaxable()
    for size in (1, 2):
        explained: list[Reason] = []
        for combo in itertools.combinations(relaxations, size):
            relaxed_rules, relaxed_tree = tree_for(before, roll, frozenset(combo))
            hit = _find(relaxed_rules, relaxed_tree, target)
            if hit is not None:
                explained.extend(Reason(r) for r in combo if Reason(r) not in explained)
                if hit[0] < legal_dice and Reason.DIE_UNPLAYED not in explained:
                    explained.append(Reason.DIE_UNPLAYED)
        if explained:
            return tuple(explained), ""
    return (Reason.NOT_REACHABLE,), ""


def _find(
    rules: VariantStepRules, tree: SearchTree, target: tuple[Any, ...]
) -> tuple[int, Hashable, bool] | None:
    """(dice used, state, whether a lone step used the higher die) of a state whose board is
    `target`, searching the fullest levels first; None when no level holds it."""
    for dice in range(tree.max_dice, -1, -1):
        for state in tree.levels[dice]:
            if rules.to_position(state).board_key() == target:
                return dice, state, state in tree.after_high
    return None


__all__ = ["LegalOption", "Reason", "Verdict", "checkers_out_of_place", "judge"]
