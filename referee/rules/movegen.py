"""The search over one roll shared by every variant.

A variant supplies a `StepRules` object for one position and roll: an internal hashable state
(the mover's and opponent's checkers from the mover's side, plus whatever a rule must remember
within the turn, like checkers taken from the head), the single steps a die allows from a state,
and whether a state may end the turn. The search plays the dice in every order, merges equal
states level by level (so doubles stay small), and applies the dice rules of RULES.md §1: use as
many dice as possible; if only one of two different dice can be used, the larger.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Protocol

from referee.rules.model import Roll

# A step inside the search: (from, to, hit), in the mover's numbering.
RawStep = tuple[int, int, bool]
RawSteps = tuple[RawStep, ...]
Level = dict[Hashable, RawSteps]


class StepRules(Protocol):
    """What the search needs to know about one variant, for one position and roll."""

    def initial(self) -> Hashable: ...

    def steps(self, state: Hashable, die: int) -> Iterable[tuple[RawStep, Hashable]]: ...

    def may_end_turn(self, state: Hashable) -> bool: ...


def expand(rules: StepRules, level: Level, die: int) -> Level:
    """Every state one step of `die` away from a state of `level`, with the steps that reach it."""
    following: Level = {}
    for state, steps in level.items():
        for step, reached in rules.steps(state, die):
            if reached not in following:
                following[reached] = (*steps, step)
    return following


@dataclass(frozen=True)
class SearchTree:
    """The states reachable with each number of dice, split by which die a single step used.

    `levels[k]` holds the states after k dice. For a non-double, `levels[1]` is the union of
    `after_high` and `after_low`, kept apart for the larger-die rule.
    """

    roll: Roll
    levels: tuple[Level, ...]
    after_high: Level
    after_low: Level

    def candidates(self) -> Iterable[Level]:
        """Groups of end states, most dice first; the first group with a state that may end the
        turn holds the legal plays."""
        if self.roll.is_double:
            yield from reversed(self.levels)
            return
        if len(self.levels) > 2:
            yield self.levels[2]
        yield self.after_high
        yield self.after_low
        yield self.levels[0]

    @property
    def max_dice(self) -> int:
        return len(self.levels) - 1


def search(rules: StepRules, roll: Roll) -> SearchTree:
    start: Level = {rules.initial(): ()}
    if roll.is_double:
        levels = [start]
        # Four moves for a thrown double; owed moves (a ladder step, passed moves) may be fewer.
        for _ in range(len(roll.moves)):
            following = expand(rules, levels[-1], roll.die1)
            if not following:
                break
            levels.append(following)
        return SearchTree(roll, tuple(levels), {}, {})
    after_high = expand(rules, start, roll.high)
    after_low = expand(rules, start, roll.low)
    both = expand(rules, after_high, roll.low)
    for state, steps in expand(rules, after_low, roll.high).items():
        both.setdefault(state, steps)
    after_one = {**after_low, **after_high}
    levels = [start] + ([after_one] if after_one else []) + ([both] if both else [])
    return SearchTree(roll, tuple(levels), after_high, after_low)


def legal_end_states(rules: StepRules, tree: SearchTree) -> list[tuple[RawSteps, Hashable]]:
    """The end states of legal plays: the first candidate group that has any that may end the
    turn; the unmoved state when nothing can be played.

    When no state at all may end the turn, the position already breaks a rule about where a
    turn ends (a block that must be broken, as in fevga when all fifteen opponent checkers
    gather in front of it) and no play of the roll mends it: the roll is then played as if that
    rule did not exist, rather than not at all.
    """
    groups = [group for group in tree.candidates() if group]
    for group in groups:
        legal = [(steps, state) for state, steps in group.items() if rules.may_end_turn(state)]
        if legal:
            return legal
    return [(steps, state) for state, steps in groups[0].items()]
