"""What follows a play: the turn structure of the variants, as data (RULES.md §4).

In the classic games a play ends the turn and the opponent throws. Some long-nardy variants
go on without a throw: mad nardy's doubles ladder (after 4-4 the same player plays 5-5, then
6-6), gulbar's second throw after a fully played double, and moves one side could not play that
pass to the other. `Variant.after_play` answers with a `Continuation`; when the next play needs
no throw, its `owed` moves are handed to `legal_moves`, `judge` and `after_play` like a roll.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.rules.errors import GameFlowError, InvalidRollError
from referee.rules.model import Roll, Side


@dataclass(frozen=True, slots=True)
class OwedMoves(Roll):
    """Moves of one number that a side plays without throwing: the next double of a doubles
    ladder, or moves the other side could not play and passed over.

    It is a `Roll` showing the number twice, so whatever plays or judges a roll plays it; `moves`
    has `count` entries instead of a thrown double's four. For passed moves, `through` is the
    last number of the passed ladder: the side that took them over plays each higher double up
    to it in turn (equal to the number itself when only these moves passed).
    """

    count: int = 4
    passed: bool = False
    through: int = 6

    def __post_init__(self) -> None:
        # Named explicitly: zero-argument super() fails in slotted dataclasses.
        Roll.__post_init__(self)
        if self.die1 != self.die2:
            raise InvalidRollError(f"owed moves are of one number, not {self.die1} and {self.die2}")
        if type(self.count) is not int or not 1 <= self.count <= 4:
            raise InvalidRollError(f"owed moves number 1 to 4, not {self.count!r}")
        if type(self.through) is not int or not self.die1 <= self.through <= 6:
            raise InvalidRollError(f"passed moves run through {self.die1}..6, not {self.through!r}")

    @classmethod
    def ladder(cls, die: int, count: int = 4) -> OwedMoves:
        """The double `die`-`die` of a ladder, played `count` times."""
        return cls(die, die, count)

    @classmethod
    def passed_over(cls, die: int, count: int, through: int) -> OwedMoves:
        """`count` moves of `die` passed to the other side, whose ladder then runs to `through`."""
        return cls(die, die, count, passed=True, through=through)

    @property
    def moves(self) -> tuple[int, ...]:
        return (self.die1,) * self.count

    def __str__(self) -> str:
        times = "" if self.count == 4 else f" ×{self.count}"
        return f"{'passed ' if self.passed else ''}{self.die1}-{self.die1}{times}"


class Next(enum.StrEnum):
    """The kind of what follows a play."""

    THROW = "throw"
    """`player` throws the dice for a turn (the ordinary case: the opponent's turn)."""
    THROW_AGAIN = "throw_again"
    """`player`, who has just played, throws again (gulbar, after a fully played double)."""
    LADDER = "ladder"
    """`player` plays the next double of the ladder (`owed`) without throwing."""
    PASSED = "passed"
    """`player` plays the moves (`owed`) the other side could not play, without throwing."""
    GAME_OVER = "game_over"
    """`player` has borne off all fifteen checkers; the game flow decides the result."""


_OWING = (Next.LADDER, Next.PASSED)


@dataclass(frozen=True, slots=True)
class Continuation:
    """Who plays after a play, and whether they throw or play owed moves."""

    player: Side
    kind: Next
    owed: OwedMoves | None = None

    def __post_init__(self) -> None:
        owing = self.kind in _OWING
        if (self.owed is not None) != owing:
            raise GameFlowError(f"owed moves go with ladder or passed, not {self.kind}")
        if owing and self.owed is not None and self.owed.passed != (self.kind is Next.PASSED):
            raise GameFlowError("passed moves go with a passed continuation only")

    @property
    def needs_throw(self) -> bool:
        """True when the next play waits for `player` to throw the dice."""
        return self.kind in (Next.THROW, Next.THROW_AGAIN)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: `player`, `kind`, and for owed moves `dice` (one entry per move) and,
        for passed ones, `through`."""
        data: dict[str, Any] = {"player": self.player.label, "kind": str(self.kind)}
        if self.owed is not None:
            data["dice"] = list(self.owed.moves)
            if self.owed.passed:
                data["through"] = self.owed.through
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Continuation:
        """Read the JSON form written by `to_dict`."""
        if not isinstance(data, Mapping):
            raise GameFlowError("a continuation is a JSON object")
        try:
            kind = Next(str(data.get("kind")))
        except ValueError:
            kinds = ", ".join(kind.value for kind in Next)
            raise GameFlowError(f"'kind' must be one of {kinds}") from None
        player = Side.from_label(str(data.get("player")))
        if kind not in _OWING:
            return cls(player, kind)
        dice = data.get("dice")
        if not isinstance(dice, list) or not dice or len(set(map(repr, dice))) != 1:
            raise GameFlowError("'dice' must list one to four moves of one number")
        passed = kind is Next.PASSED
        through = data.get("through", dice[0]) if passed else 6
        return cls(player, kind, OwedMoves(dice[0], dice[0], len(dice), passed, through))
