"""What the camera pipeline hands the live session for one settled frame: never pixels.

A `BoardObservation` says, per point in White's numbering (1..24, the table's physical
numbering, see `referee.signals.indication`), which colour stands there, how many checkers the
reader allows (a set of plausible counts: a tall head stack may only be "at least 10") and how
sure the reader is. A `DiceObservation` lists each die seen with the facts a throw's validity
depends on (RULES.md §2). An `Observation` joins them with the `SceneState`: whether the board is
at rest, something moves, or hands are over it.

Every class here is a frozen dataclass with a JSON form (`to_dict` / `from_dict`), so scripted
observations can be stored and replayed exactly.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.rules import CHECKERS_PER_SIDE, Position, Side

POINTS = 24


class ObservationError(ValueError):
    """An observation that cannot describe a board: a count outside 0..15, 23 points, ..."""


@dataclass(frozen=True)
class Count:
    """How many checkers a reading allows on one place: a non-empty set of plausible counts."""

    values: frozenset[int]

    def __post_init__(self) -> None:
        if not self.values:
            raise ObservationError("a count allows at least one value")
        if any(
            type(n) is not int or not 0 <= n <= CHECKERS_PER_SIDE for n in self.values
        ):  # bool is an int: refuse it too
            raise ObservationError(f"checker counts are 0..15, not {sorted(self.values)}")

    @classmethod
    def exactly(cls, n: int) -> Count:
        return cls(frozenset((n,)))

    @classmethod
    def at_least(cls, n: int) -> Count:
        """`n` or more: what a reader says of a stack whose lower checkers it cannot see."""
        return cls(frozenset(range(n, CHECKERS_PER_SIDE + 1)))

    @classmethod
    def one_of(cls, values: Iterable[int]) -> Count:
        return cls(frozenset(values))

    @property
    def exact(self) -> int | None:
        """The count when only one is allowed, else None."""
        return next(iter(self.values)) if len(self.values) == 1 else None

    def __contains__(self, n: object) -> bool:
        return n in self.values

    def __str__(self) -> str:
        ordered = sorted(self.values)
        if len(ordered) == 1:
            return str(ordered[0])
        if ordered[-1] == CHECKERS_PER_SIDE and ordered == list(range(ordered[0], 16)):
            return f">={ordered[0]}"
        return "{" + ",".join(map(str, ordered)) + "}"

    def to_json(self) -> int | list[int]:
        exact = self.exact
        return exact if exact is not None else sorted(self.values)

    @classmethod
    def from_json(cls, value: Any, where: str) -> Count:
        if type(value) is int:
            return cls.exactly(value)
        if isinstance(value, str) and value.startswith(">="):
            return cls.at_least(_integer(value[2:], where))
        if isinstance(value, list) and all(type(n) is int for n in value):
            return cls.one_of(value)
        raise ObservationError(f"{where}: a count is n, [n, ...] or '>=n', not {value!r}")


def _integer(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ObservationError(f"{where}: {text!r} is not a whole number") from None


def _check_confidence(confidence: float, where: str) -> None:
    if not (isinstance(confidence, int | float) and math.isfinite(confidence)):
        raise ObservationError(f"{where}: confidence must be a number, not {confidence!r}")
    if not 0.0 <= confidence <= 1.0:
        raise ObservationError(f"{where}: confidence must be in 0..1, not {confidence}")


@dataclass(frozen=True)
class PointObservation:
    """One point as read: its colour, the counts it allows, and the reader's confidence.

    `colour` is None for an empty point, or when the reader saw checkers but not their colour.
    `confidence` is the reader's probability that this reading (colour and count set) is right.
    """

    colour: Side | None = None
    count: Count = field(default_factory=lambda: Count.exactly(0))
    confidence: float = 1.0

    def __post_init__(self) -> None:
        _check_confidence(self.confidence, "point")

    def admits(self, colour: Side | None, n: int) -> bool:
        """Whether `n` checkers of `colour` (None when n is 0) fit this reading."""
        if n not in self.count:
            return False
        return n == 0 or self.colour is None or self.colour is colour

    def same_reading(self, other: PointObservation) -> bool:
        """Equal colour and counts, whatever the confidences."""
        return self.colour is other.colour and self.count == other.count


@dataclass(frozen=True)
class CountObservation:
    """The checkers of one colour on the bar or in the bear-off tray, as read."""

    count: Count = field(default_factory=lambda: Count.exactly(0))
    confidence: float = 1.0

    def __post_init__(self) -> None:
        _check_confidence(self.confidence, "count")


@dataclass(frozen=True)
class CubeObservation:
    """The doubling cube as seen: the face up and whose side of the board it lies on.

    `owner` None is the middle (nobody owns it: a cube in the middle shows 64 until it is first
    turned); `offered` is True while it lies in the middle turned up to the value offered, the
    sign of a double on offer.
    """

    value: int = 64
    owner: Side | None = None
    offered: bool = False


@dataclass(frozen=True)
class BoardObservation:
    """The checkers as read from one frame.

    `points[i]` is White's point i + 1 (the physical numbering). `bar` and `off` are indexed by
    `Side`. `cube` is None when the reader does not look for the cube (long nardy has none).
    """

    points: tuple[PointObservation, ...]
    bar: tuple[CountObservation, CountObservation] = (CountObservation(), CountObservation())
    off: tuple[CountObservation, CountObservation] = (CountObservation(), CountObservation())
    cube: CubeObservation | None = None

    def __post_init__(self) -> None:
        if len(self.points) != POINTS:
            raise ObservationError(f"a board has 24 points, not {len(self.points)}")

    def point(self, number: int) -> PointObservation:
        """White's point `number` (1..24)."""
        return self.points[number - 1]

    @classmethod
    def from_position(cls, position: Position, confidence: float = 1.0) -> BoardObservation:
        """The reading a perfect reader would give of `position`, every place at `confidence`."""
        variant = position.variant
        points: list[PointObservation] = []
        for white_point in range(1, POINTS + 1):
            white = position.points[Side.WHITE][white_point - 1]
            black = position.points[Side.BLACK][variant.opponent_point(white_point) - 1]
            if white and black:
                raise ObservationError(f"point {white_point} holds both colours")
            colour = Side.WHITE if white else Side.BLACK if black else None
            points.append(PointObservation(colour, Count.exactly(white + black), confidence))

        def pair(counts: tuple[int, int]) -> tuple[CountObservation, CountObservation]:
            return (
                CountObservation(Count.exactly(counts[0]), confidence),
                CountObservation(Count.exactly(counts[1]), confidence),
            )

        return cls(tuple(points), pair(position.bar), pair(position.off))

    def with_point(self, number: int, reading: PointObservation) -> BoardObservation:
        """This board with White's point `number` read as `reading`."""
        points = list(self.points)
        points[number - 1] = reading
        return BoardObservation(tuple(points), self.bar, self.off, self.cube)

    def reading_key(self) -> tuple[Any, ...]:
        """What was read, without the confidences: equal keys mean the same board was seen."""
        return (
            tuple((p.colour, p.count) for p in self.points),
            tuple(c.count for c in self.bar),
            tuple(c.count for c in self.off),
            self.cube,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": [
                {
                    "colour": None if p.colour is None else p.colour.label,
                    "count": p.count.to_json(),
                    "confidence": p.confidence,
                }
                for p in self.points
            ],
            "bar": _pair_to_dict(self.bar),
            "off": _pair_to_dict(self.off),
            "cube": None
            if self.cube is None
            else {
                "value": self.cube.value,
                "owner": None if self.cube.owner is None else self.cube.owner.label,
                "offered": self.cube.offered,
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BoardObservation:
        raw_points = data.get("points")
        if not isinstance(raw_points, list):
            raise ObservationError("board: 'points' must be a list of 24 points")
        points = tuple(
            PointObservation(
                _side(p.get("colour"), f"points[{i}].colour"),
                Count.from_json(p.get("count", 0), f"points[{i}].count"),
                float(p.get("confidence", 1.0)),
            )
            for i, p in enumerate(_mappings(raw_points, "points"))
        )
        cube_data = data.get("cube")
        cube = None
        if isinstance(cube_data, Mapping):
            cube = CubeObservation(
                int(cube_data.get("value", 64)),
                _side(cube_data.get("owner"), "cube.owner"),
                bool(cube_data.get("offered", False)),
            )
        return cls(
            points,
            _pair_from_dict(data.get("bar", {}), "bar"),
            _pair_from_dict(data.get("off", {}), "off"),
            cube,
        )


def _pair_to_dict(pair: tuple[CountObservation, CountObservation]) -> dict[str, Any]:
    return {
        side.label: {"count": pair[side].count.to_json(), "confidence": pair[side].confidence}
        for side in Side
    }


def _pair_from_dict(data: Any, where: str) -> tuple[CountObservation, CountObservation]:
    if not isinstance(data, Mapping):
        raise ObservationError(f"{where}: expected an object with 'white' and 'black'")
    found: list[CountObservation] = []
    for side in Side:
        item = data.get(side.label, 0)
        if isinstance(item, Mapping):
            found.append(
                CountObservation(
                    Count.from_json(item.get("count", 0), f"{where}.{side.label}"),
                    float(item.get("confidence", 1.0)),
                )
            )
        else:
            found.append(CountObservation(Count.from_json(item, f"{where}.{side.label}")))
    return (found[0], found[1])


def _side(value: Any, where: str) -> Side | None:
    if value is None:
        return None
    if value in ("white", "black"):
        return Side.from_label(value)
    raise ObservationError(f"{where}: expected 'white', 'black' or null, not {value!r}")


def _mappings(items: list[Any], where: str) -> list[Mapping[str, Any]]:
    if not all(isinstance(item, Mapping) for item in items):
        raise ObservationError(f"{where}: every entry must be an object")
    return items


class Half(enum.StrEnum):
    """A half of the board as seen from White's seat; the bar divides the halves.

    White's right-hand half holds White's points 1..6 and 19..24; Black, sitting opposite, has
    the other half on its right.
    """

    RIGHT = "right"
    LEFT = "left"

    @staticmethod
    def right_of(side: Side) -> Half:
        """The half on `side`'s right hand."""
        return Half.RIGHT if side is Side.WHITE else Half.LEFT

    def seen_by(self, side: Side) -> Half:
        """This half (as White sees it) as `side` names it from its seat.

        The one place where the two conventions meet: observations and the pipeline's dice use
        White's seat, scene labels and `referee read --json` the roller's. The players face
        each other, so the swap is its own inverse: it also takes a half named by `side` back
        to White's seat.
        """
        if side is Side.WHITE:
            return self
        return Half.LEFT if self is Half.RIGHT else Half.RIGHT


@dataclass(frozen=True)
class DieObservation:
    """One die as read.

    `value` is None when the face could not be read. `flat` is False for a cocked die (leaning
    on a checker, the rim or the other die); `on_checker` for a die resting on a checker;
    `on_board` False for a die off the playing surface (on the table, the rim). `half` is the
    board half it lies in (None when unknown or off the board); `rolling` is True while it still
    moves; `confidence` is the reader's confidence in `value`; `faces`, when the reader gives
    them, its probability of each face 1..6 (they sum to 1): what else the die may show.
    """

    value: int | None
    flat: bool = True
    on_checker: bool = False
    on_board: bool = True
    half: Half | None = None
    rolling: bool = False
    confidence: float = 1.0
    faces: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.value is not None and (type(self.value) is not int or not 1 <= self.value <= 6):
            raise ObservationError(f"a die shows 1 to 6, not {self.value!r}")
        _check_confidence(self.confidence, "die")
        if self.faces:
            if len(self.faces) != 6:
                raise ObservationError(f"die faces: six probabilities, not {len(self.faces)}")
            for p in self.faces:
                _check_confidence(p, "die face")
            if not math.isclose(sum(self.faces), 1.0, abs_tol=1e-2):
                raise ObservationError(f"die faces: probabilities sum to 1, not {sum(self.faces)}")

    def key(self) -> tuple[Any, ...]:
        """What tells one resting throw from another: face, place and lie, not confidence."""
        return (self.value, self.half, self.flat, self.on_checker, self.on_board)


@dataclass(frozen=True)
class DiceObservation:
    """Every die seen in a frame (the board and the table around it), in no particular order."""

    dice: tuple[DieObservation, ...] = ()

    def __len__(self) -> int:
        return len(self.dice)

    def key(self) -> tuple[tuple[Any, ...], ...]:
        """The dice's keys, sorted: equal keys mean the same throw still lies there."""
        return tuple(sorted((die.key() for die in self.dice), key=repr))

    @property
    def rolling(self) -> bool:
        return any(die.rolling for die in self.dice)

    def to_list(self) -> list[dict[str, Any]]:
        return [
            {
                "value": d.value,
                "flat": d.flat,
                "on_checker": d.on_checker,
                "on_board": d.on_board,
                "half": None if d.half is None else d.half.value,
                "rolling": d.rolling,
                "confidence": d.confidence,
                "faces": list(d.faces),
            }
            for d in self.dice
        ]

    @classmethod
    def from_list(cls, items: Any) -> DiceObservation:
        if not isinstance(items, list):
            raise ObservationError("dice: expected a list")
        dice: list[DieObservation] = []
        for i, d in enumerate(_mappings(items, "dice")):
            half = d.get("half")
            if half not in (None, "left", "right"):
                raise ObservationError(f"dice[{i}].half: expected 'left', 'right' or null")
            faces = d.get("faces", [])
            if not isinstance(faces, list):
                raise ObservationError(f"dice[{i}].faces: expected a list of six probabilities")
            dice.append(
                DieObservation(
                    value=d.get("value"),
                    flat=bool(d.get("flat", True)),
                    on_checker=bool(d.get("on_checker", False)),
                    on_board=bool(d.get("on_board", True)),
                    half=None if half is None else Half(half),
                    rolling=bool(d.get("rolling", False)),
                    confidence=float(d.get("confidence", 1.0)),
                    faces=tuple(float(p) for p in faces),
                )
            )
        return cls(tuple(dice))


class SceneState(enum.StrEnum):
    """What the camera sees happening over the board."""

    STILL = "still"
    """At rest, with dice on the board or near it."""
    NO_DICE = "no_dice"
    """At rest, and no die anywhere: the dice have been picked up."""
    MOVING = "moving"
    """Something moves: dice rolling, a checker being slid."""
    HANDS = "hands"
    """A hand or arm is over the board."""


@dataclass(frozen=True)
class Observation:
    """What vision reports about one frame.

    A settled frame (STILL or NO_DICE) carries the board as read; MOVING and HANDS frames may
    carry no board (what can be seen then is not to be trusted) but still say that the table is
    busy, and which dice are seen rolling. `time` is the frame's time in seconds (the source's
    clock), `frame` its number from the source.
    """

    scene: SceneState
    board: BoardObservation | None = None
    dice: DiceObservation = DiceObservation()
    time: float = 0.0
    frame: int = 0

    def __post_init__(self) -> None:
        if self.scene in (SceneState.STILL, SceneState.NO_DICE) and self.board is None:
            raise ObservationError(f"a {self.scene} observation must carry the board")
        if self.scene is SceneState.NO_DICE and len(self.dice):
            raise ObservationError("a no_dice observation cannot list dice")
        if self.scene is SceneState.STILL and not len(self.dice):
            raise ObservationError("a still observation without dice is no_dice")

    @classmethod
    def settled(
        cls,
        board: BoardObservation,
        dice: Iterable[DieObservation] = (),
        *,
        time: float = 0.0,
        frame: int = 0,
    ) -> Observation:
        """A frame at rest: STILL when dice are seen, NO_DICE when none are."""
        seen = DiceObservation(tuple(dice))
        scene = SceneState.STILL if len(seen) else SceneState.NO_DICE
        return cls(scene, board, seen, time, frame)

    @property
    def is_settled(self) -> bool:
        return self.scene in (SceneState.STILL, SceneState.NO_DICE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scene": self.scene.value,
            "board": None if self.board is None else self.board.to_dict(),
            "dice": self.dice.to_list(),
            "time": self.time,
            "frame": self.frame,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Observation:
        try:
            scene = SceneState(str(data.get("scene")))
        except ValueError:
            raise ObservationError(f"unknown scene state {data.get('scene')!r}") from None
        board = data.get("board")
        return cls(
            scene,
            None if board is None else BoardObservation.from_dict(board),
            DiceObservation.from_list(data.get("dice", [])),
            float(data.get("time", 0.0)),
            int(data.get("frame", 0)),
        )


__all__ = [
    "POINTS",
    "BoardObservation",
    "Count",
    "CountObservation",
    "CubeObservation",
    "DiceObservation",
    "DieObservation",
    "Half",
    "Observation",
    "ObservationError",
    "PointObservation",
    "SceneState",
]
