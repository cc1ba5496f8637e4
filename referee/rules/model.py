"""The data model of the rules core: sides, rolls, steps, plays and positions.

Every point number here is in the numbering of the side it belongs to: each side counts its points
24 down to 1 in its own direction of travel, home is 1..6, the bar is 25 and borne off is 0.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.rules.errors import InvalidPlayError, InvalidPositionError, InvalidRollError

if TYPE_CHECKING:
    from referee.rules.variants import Variant

BAR = 25
OFF = 0
CHECKERS_PER_SIDE = 15
HOME = range(1, 7)


class Side(enum.IntEnum):
    """A player, named by checker colour; white is the lighter set."""

    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Side:
        return Side(1 - self)

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def from_label(cls, text: str) -> Side:
        try:
            return cls[text.upper()]
        except KeyError:
            raise InvalidPositionError(f"side must be 'white' or 'black', not {text!r}") from None


@dataclass(frozen=True, slots=True)
class Roll:
    """Two dice as thrown."""

    die1: int
    die2: int

    def __post_init__(self) -> None:
        for die in (self.die1, self.die2):
            if type(die) is not int or not 1 <= die <= 6:
                raise InvalidRollError(f"a die shows 1 to 6, not {die!r}")

    @classmethod
    def from_list(cls, dice: Iterable[Any]) -> Roll:
        values = list(dice)
        if len(values) != 2:
            raise InvalidRollError(f"a roll is two dice, not {values!r}")
        return cls(values[0], values[1])

    @property
    def is_double(self) -> bool:
        return self.die1 == self.die2

    @property
    def high(self) -> int:
        return max(self.die1, self.die2)

    @property
    def low(self) -> int:
        return min(self.die1, self.die2)

    @property
    def moves(self) -> tuple[int, ...]:
        """The moves the roll gives: two, or four of the number for a double."""
        return (self.die1,) * 4 if self.is_double else (self.high, self.low)

    def to_list(self) -> list[int]:
        return [self.die1, self.die2]

    def __str__(self) -> str:
        """As players say it: the higher die first, `6-5`."""
        return f"{self.high}-{self.low}"


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die, in the mover's numbering (25 = bar, 0 = off)."""

    start: int
    end: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{self.start}/{self.end}{'*' if self.hit else ''}"

    def to_list(self) -> list[int]:
        return [self.start, self.end]


_STEP_TEXT = re.compile(r"^(bar|off|\d+)((?:/(?:bar|off|\d+)\*?)+)(?:\((\d)\))?$", re.IGNORECASE)


def _point_from_text(text: str) -> int:
    lowered = text.lower()
    if lowered == "bar":
        return BAR
    if lowered == "off":
        return OFF
    point = int(lowered)
    if not OFF <= point <= BAR:
        raise InvalidPlayError(f"point {point} is outside 0..25")
    return point


@dataclass(frozen=True, slots=True)
class Play:
    """The steps of one turn, in the order played, written as GNU Backgammon writes moves."""

    steps: tuple[Step, ...] = ()

    @classmethod
    def from_str(cls, text: str) -> Play:
        """Read `24/18 13/11*`, also `bar/20`, `6/off`, `24/18/13` and `13/7(2)`."""
        steps: list[Step] = []
        for token in text.split():
            match = _STEP_TEXT.match(token)
            if match is None:
                raise InvalidPlayError(f"cannot read the move {token!r} in {text!r}")
            start_text, rest, repeat = match.groups()
            chain: list[Step] = []
            start = _point_from_text(start_text)
            for part in rest.split("/")[1:]:
                end = _point_from_text(part.rstrip("*"))
                chain.append(Step(start, end, part.endswith("*")))
                start = end
            steps.extend(chain * int(repeat or 1))
        return cls(tuple(steps))

    def __str__(self) -> str:
        return " ".join(str(step) for step in self.steps)

    def __repr__(self) -> str:
        return f"Play({str(self)!r})"

    def to_list(self) -> list[list[int]]:
        return [step.to_list() for step in self.steps]


class Status(enum.IntFlag):
    """Why a position cannot occur (like python-chess's `Board.status()`); VALID when none."""

    VALID = 0
    WRONG_POINT_COUNT = enum.auto()
    NEGATIVE_COUNT = enum.auto()
    TOO_MANY_WHITE = enum.auto()
    TOO_MANY_BLACK = enum.auto()
    TOO_FEW_WHITE = enum.auto()
    TOO_FEW_BLACK = enum.auto()
    SHARED_POINT = enum.auto()
    BAR_IN_LONG_NARDY = enum.auto()
    BORNE_OFF_OUTSIDE_HOME = enum.auto()
    BOTH_FINISHED = enum.auto()


STATUS_MESSAGES: dict[Status, str] = {
    Status.WRONG_POINT_COUNT: "each side needs exactly 24 point counts",
    Status.NEGATIVE_COUNT: "a checker count is negative",
    Status.TOO_MANY_WHITE: "white has more than 15 checkers",
    Status.TOO_MANY_BLACK: "black has more than 15 checkers",
    Status.TOO_FEW_WHITE: "white has fewer than 15 checkers",
    Status.TOO_FEW_BLACK: "black has fewer than 15 checkers",
    Status.SHARED_POINT: "white and black checkers share a point",
    Status.BAR_IN_LONG_NARDY: "long nardy has no hitting, so no checker can be on the bar",
    Status.BORNE_OFF_OUTSIDE_HOME: (
        "a side has borne off while some of its checkers are outside home, "
        "which long nardy (no hitting) cannot reach"
    ),
    Status.BOTH_FINISHED: "both sides have borne off all their checkers",
}


def describe_status(status: Status) -> str:
    """One sentence naming every problem in `status`."""
    problems = [text for flag, text in STATUS_MESSAGES.items() if flag in status]
    return "; ".join(problems) if problems else "valid"


@dataclass(frozen=True, slots=True)
class Position:
    """Checkers of both sides, the bar, the borne-off trays and the side to move.

    `points[side][p - 1]` is how many of `side`'s checkers stand on its own point `p`.
    A Position is not validated when built (an observed board may be impossible); `status()`
    says what is wrong and `from_dict` refuses invalid input.
    """

    variant: Variant
    turn: Side
    points: tuple[tuple[int, ...], tuple[int, ...]]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, validate: bool = True) -> Position:
        """Read the JSON form (see README); with `validate`, refuse a position that cannot occur."""
        from referee.rules.variants import variant_from_name

        if not isinstance(data, Mapping):
            raise InvalidPositionError("a position is a JSON object")
        missing = [key for key in ("variant", "turn", "white", "black") if key not in data]
        if missing:
            raise InvalidPositionError(f"the position lacks {', '.join(missing)}")
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise InvalidPositionError("'options' must be an object")
        variant = variant_from_name(str(data["variant"]), **options)
        turn = Side.from_label(str(data["turn"]))
        sides = tuple(_read_counts(data[side.label], side.label) for side in Side)
        bar = _read_side_pair(data.get("bar", {}), "bar")
        off = _read_side_pair(data.get("off", {}), "off")
        position = cls(variant, turn, (sides[0], sides[1]), bar, off)
        if validate:
            position.validate()
        return position

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "turn": self.turn.label,
            "white": list(self.points[Side.WHITE]),
            "black": list(self.points[Side.BLACK]),
            "bar": {"white": self.bar[Side.WHITE], "black": self.bar[Side.BLACK]},
            "off": {"white": self.off[Side.WHITE], "black": self.off[Side.BLACK]},
        }
        options = self.variant.non_default_options()
        if options:
            data["options"] = options
        return data

    # --- facts --------------------------------------------------------------------------------

    def count(self, side: Side) -> int:
        """All of `side`'s checkers: on points, on the bar and borne off."""
        return sum(self.points[side]) + self.bar[side] + self.off[side]

    def same_board(self, other: Position) -> bool:
        """True when the checkers stand the same, whoever is to move."""
        return self.board_key() == other.board_key()

    def board_key(self) -> tuple[Any, ...]:
        return (self.points, self.bar, self.off)

    def status(self) -> Status:
        status = Status.VALID
        if any(len(counts) != 24 for counts in self.points):
            return Status.WRONG_POINT_COUNT
        if any(n < 0 for counts in self.points for n in counts) or min(*self.bar, *self.off) < 0:
            status |= Status.NEGATIVE_COUNT
        too_many = (Status.TOO_MANY_WHITE, Status.TOO_MANY_BLACK)
        too_few = (Status.TOO_FEW_WHITE, Status.TOO_FEW_BLACK)
        for side in Side:
            total = self.count(side)
            if total > CHECKERS_PER_SIDE:
                status |= too_many[side]
            elif total < CHECKERS_PER_SIDE:
                status |= too_few[side]
        white, black = self.points
        if not all(
            w == 0 or b == 0 for w, b in zip(white, self.variant.facing(black), strict=True)
        ):
            status |= Status.SHARED_POINT
        if self.off == (CHECKERS_PER_SIDE, CHECKERS_PER_SIDE):
            status |= Status.BOTH_FINISHED
        return status | self.variant.extra_status(self)

    def is_valid(self) -> bool:
        return self.status() == Status.VALID

    def validate(self) -> None:
        """Raise InvalidPositionError naming every problem, if there is one."""
        status = self.status()
        if status != Status.VALID:
            raise InvalidPositionError(f"impossible position: {describe_status(status)}")

    def winner(self) -> Side | None:
        for side in Side:
            if self.off[side] == CHECKERS_PER_SIDE:
                return side
        return None

    def pip_count(self, side: Side) -> int:
        counts = self.points[side]
        return sum(p * counts[p - 1] for p in range(1, 25)) + BAR * self.bar[side]

    # --- play ---------------------------------------------------------------------------------

    def legal_plays(self, roll: Roll) -> list[Play]:
        """One play per distinct resulting position (an empty play when nothing can move)."""
        return [play for play, _ in self.variant.legal_moves(self, roll)]

    def legal_positions(self, roll: Roll) -> list[Position]:
        """The distinct positions a legal play of `roll` reaches, with the turn passed."""
        return self.variant.legal_positions(self, roll)

    def play(self, play: Play) -> Position:
        """The position after `play` by the side to move, turn passed; checks only bookkeeping.

        Legality is judged by `referee.rules.judge`; this is for replaying recorded games.
        """
        return self.variant.apply_steps(self, play.steps)

    def with_turn(self, turn: Side) -> Position:
        return Position(self.variant, turn, self.points, self.bar, self.off)

    def __str__(self) -> str:
        return self.variant.render(self)


def _read_counts(value: Any, label: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != 24:
        raise InvalidPositionError(f"'{label}' must be a list of 24 checker counts")
    if any(type(n) is not int for n in value):
        raise InvalidPositionError(f"'{label}' must hold whole numbers")
    return tuple(value)


def _read_side_pair(value: Any, label: str) -> tuple[int, int]:
    if not isinstance(value, Mapping):
        raise InvalidPositionError(f"'{label}' must be an object with 'white' and 'black'")
    pair = (value.get("white", 0), value.get("black", 0))
    if any(type(n) is not int for n in pair):
        raise InvalidPositionError(f"'{label}' counts must be whole numbers")
    return (pair[0], pair[1])
