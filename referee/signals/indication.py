"""What the referee shows at the table (indications) and what the players answer (decisions).

Points are given in the table's *physical numbering*: White's own numbering, as seen by the
player sitting on the side of the LED strip (White). Seen from that seat, points 1..12 run along
the near edge from right to left (1 is the near right-hand triangle, 1..6 White's home), and
points 13..24 run along the far edge from left to right. Two extra lights complete the strip:
`OFF` (0, the bear-off tray) and `BAR` (25). Use `physical_point` to convert a point from the
mover's own numbering (the rules core's) into this one.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

OFF = 0
"""The bear-off tray's light: a checker borne off goes to "point 0"."""

BAR = 25
"""The bar's light: short nardy's hit checkers wait there."""


class Kind(enum.Enum):
    """What an indication tells the players."""

    LEGAL = "legal"
    """The play stands."""
    ILLEGAL = "illegal"
    """The play breaks a rule: the opponent may accept it or demand a correct move."""
    RETHROW = "rethrow"
    """The throw is void (a die off the board, cocked, dice in different halves): throw again."""
    WAITING = "waiting"
    """Waiting for a throw, for the dice to settle or for a move to be finished."""
    UNSURE = "unsure"
    """The referee cannot read the board well enough: the players are asked to check."""
    GAME_OVER = "game_over"
    """The game has been won."""
    IDLE = "idle"
    """Nothing to show: all lights off."""


class Decision(enum.Enum):
    """A player's answer, from the buttons at the table."""

    ACCEPT = "accept"
    """The opponent accepts the reported move as played."""
    DEMAND = "demand"
    """The opponent demands a correct move."""
    NEW_GAME = "new_game"
    """Start a new game."""


def point_name(point: int) -> str:
    """The plain-language name of a light: "5", "bar" or "off"."""
    return {OFF: "off", BAR: "bar"}.get(point, str(point))


def physical_point(point: int, *, black: bool, long_nardy: bool) -> int:
    """Converts a point from the mover's own numbering into the physical (White's) numbering.

    `point` is 1..24 counted in the mover's direction of travel (RULES.md), or `OFF`/`BAR`,
    which have one light each and stay as they are. Black's point p is White's 25 - p in short
    nardy (opposite directions) and ((p + 11) mod 24) + 1 in long nardy (same direction, heads
    diagonally opposite).
    """
    _check_light(point, "point")
    if not black or point in (OFF, BAR):
        return point
    return (point + 11) % 24 + 1 if long_nardy else 25 - point


@dataclass(frozen=True)
class Indication:
    """One thing for the table to show, from the moment it is shown until the next one.

    `points` are the lights the indication is about, in the physical numbering (module
    docstring): where the offence is for ILLEGAL, the points that could not be read for UNSURE.
    `destinations` are the throw's legal destination points, shown only in teaching mode.
    `confidence` is the verdict's confidence in 0..1, or None when not measured. Points are
    stored sorted and without repeats, so equal indications compare equal.
    """

    kind: Kind
    message: str = ""
    points: tuple[int, ...] = ()
    destinations: tuple[int, ...] = ()
    confidence: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            raise TypeError(f"kind must be a Kind, not {self.kind!r}")
        for field in ("points", "destinations"):
            lights = tuple(getattr(self, field))
            for light in lights:
                _check_light(light, field)
            # Frozen dataclass: normalising in __post_init__ needs object.__setattr__.
            object.__setattr__(self, field, tuple(sorted(set(lights))))
        if self.confidence is not None and not (
            isinstance(self.confidence, int | float)
            and math.isfinite(self.confidence)
            and 0.0 <= self.confidence <= 1.0
        ):
            raise ValueError(f"confidence must be in 0..1 or None, not {self.confidence!r}")


def _check_light(light: int, what: str) -> None:
    if isinstance(light, bool) or not isinstance(light, int) or not OFF <= light <= BAR:
        raise ValueError(f"{what}: {light!r} is not a point 1..24, OFF ({OFF}) or BAR ({BAR})")
