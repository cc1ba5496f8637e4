"""Reading the board through the rules: which legal play, if any, does an observation show?

The camera cannot always count: a head of 15 checkers is a tower whose lower checkers hide
each other, a hand's shadow darkens a point. The referee knows more than the picture, though:
the position before the move and the roll, hence every board a legal play can leave. So an
observation is not judged on its own; `interpret` asks which of those boards explain it, and
calls a play illegal only when the observation contradicts every one of them with confidence.

The rule, per candidate board `c` (one per distinct legal result of the roll):

- A *place* is one of White's points 1..24, or one colour's bar or bear-off tray. The reading
  *fits* `c` at a place when `c`'s checkers there are among the counts the reading allows, of
  the colour it saw (or it saw no colour).
- Given a reading of the board before the move (the one its throw was read on), a mistake it
  made is carried over: where it read a place `d` checkers off the position's count, the
  reading now also allows `d` off what it reads. A reader's mistakes repeat while a place
  looks alike: a glint read as a checker on an untouched point, a stack counted one short
  as it grows or shrinks. So a steady misread does not count against the plays that explain
  the rest of the board.
- `support(c)` is the product, over the places where the reading does not fit `c`, of
  `(1 - q) / q`, with `q` the reader's confidence at that place (taken as at least 0.5: a reading
  less sure than a coin says nothing). It is the odds that the reader misread every one of those
  places, so 1 when the reading fits `c` everywhere and tiny when it contradicts `c` confidently.
- The *illegal* hypothesis, that the board is one no legal play leaves, gets `illegal_prior`
  (odds of an illegal play against one legal play) when some board that fits the reading
  everywhere (with 15 checkers a side, when the reading allows that) is not a legal result.
- The probabilities are these weights normalised. The verdict is LEGAL (the likeliest play)
  or ILLEGAL when its probability reaches `verdict_confidence`, UNSURE otherwise. So several
  legal results that fit equally split the probability and the players are asked; an uncounted
  head resolves itself when the other points and checker conservation leave one explanation.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from referee.rules import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    InvalidPlayError,
    Play,
    Position,
    Roll,
    Side,
    Step,
    Verdict,
    judge,
)
from referee.session.config import SessionConfig
from referee.session.observation import POINTS, BoardObservation

BAR_LIGHT = 25
OFF_LIGHT = 0
NO_INFORMATION = 0.5
"""A reader's confidence below this says nothing: it is treated as this."""


class Outcome(enum.StrEnum):
    """What the referee makes of a finished move."""

    LEGAL = "legal"
    ILLEGAL = "illegal"
    UNSURE = "unsure"


@dataclass(frozen=True, order=True)
class Place:
    """A place checkers stand: White's point `number` (1..24), or `side`'s bar or tray."""

    kind: Literal["point", "bar", "off"]
    number: int
    """White's point number for a point; the `Side` value for the bar and the tray."""

    @property
    def light(self) -> int:
        """The place's light in the physical numbering: the point, 25 the bar, 0 the tray."""
        return {"point": self.number, "bar": BAR_LIGHT, "off": OFF_LIGHT}[self.kind]

    def __str__(self) -> str:
        if self.kind == "point":
            return f"point {self.number}"
        return f"{Side(self.number).label} {'bar' if self.kind == 'bar' else 'borne off'}"


PLACES: tuple[Place, ...] = (
    *(Place("point", n) for n in range(1, POINTS + 1)),
    *(Place(kind, side) for kind in ("bar", "off") for side in Side),
)

# Per place, the checkers standing there as (white, black).
Board = tuple[tuple[int, int], ...]


def board_of(position: Position) -> Board:
    """`position`'s checkers per place of `PLACES`."""
    variant = position.variant
    white, black = position.points
    board = [(white[p - 1], black[variant.opponent_point(p) - 1]) for p in range(1, POINTS + 1)]
    for counts in (position.bar, position.off):
        board.extend(((counts[Side.WHITE], 0), (0, counts[Side.BLACK])))
    return tuple(board)


def position_of(board: Board, like: Position, turn: Side) -> Position:
    """The position holding `board`'s checkers, of `like`'s variant, with `turn` to move."""
    variant = like.variant
    white = [0] * POINTS
    black = [0] * POINTS
    for p in range(1, POINTS + 1):
        w, b = board[p - 1]
        white[p - 1] = w
        black[variant.opponent_point(p) - 1] = b
    bar = (board[POINTS][0], board[POINTS + 1][1])
    off = (board[POINTS + 2][0], board[POINTS + 3][1])
    return Position(variant, turn, (tuple(white), tuple(black)), bar, off)


def _readings(observation: BoardObservation) -> list[tuple[frozenset[tuple[int, int]], float]]:
    """Per place, the (white, black) checkers the reading allows there, and its confidence."""
    readings: list[tuple[frozenset[tuple[int, int]], float]] = []
    for point in observation.points:
        allowed: set[tuple[int, int]] = set()
        for n in point.count.values:
            if n == 0:
                allowed.add((0, 0))
            if n and point.colour in (None, Side.WHITE):
                allowed.add((n, 0))
            if n and point.colour in (None, Side.BLACK):
                allowed.add((0, n))
        readings.append((frozenset(allowed), point.confidence))
    for pair in (observation.bar, observation.off):
        for side in Side:
            reading = pair[side]
            allowed = {(n, 0) if side is Side.WHITE else (0, n) for n in reading.count.values}
            readings.append((frozenset(allowed), reading.confidence))
    return readings


def _as_before(
    observation: BoardObservation, before: Position, as_before: BoardObservation | None
) -> list[tuple[frozenset[tuple[int, int]], float]]:
    """`observation`'s readings, with each mistake `as_before` (a reading of `before`'s board)
    made carried over: where it read a place `d` checkers off what `before` had there, a
    reading now also allows `d` fewer (or more) than it reads. A reader that misreads a place
    misreads it the same way while the place looks the same, and a stack counted one short
    stays one short as it grows or shrinks: so a place read just as before also fits what
    `before` had there, and a steady misread is no sign of a change."""
    readings = _readings(observation)
    if as_before is None:
        return readings
    carried: list[tuple[frozenset[tuple[int, int]], float]] = []
    for (allowed, confidence), (then, _), (w0, b0) in zip(
        readings, _readings(as_before), board_of(before), strict=True
    ):
        if (w0, b0) not in then:
            errors = {(w - w0, b - b0) for w, b in then}
            allowed |= {
                (w - dw, b - db) for w, b in allowed for dw, db in errors if w >= dw and b >= db
            }
        carried.append((allowed, confidence))
    return carried


def misfits(
    observation: BoardObservation,
    position: Position,
    as_before: BoardObservation | None = None,
) -> tuple[Place, ...]:
    """The places where `observation` does not fit `position` (`as_before`, a reading of
    `position`'s board, as in `interpret`)."""
    readings = _as_before(observation, position, as_before)
    return tuple(
        place
        for place, (allowed, _), here in zip(PLACES, readings, board_of(position), strict=True)
        if here not in allowed
    )


def play_text(play: Play) -> str:
    """A play as players read it: its steps, or "no move"."""
    return str(play) or "no move"


def play_between(before: Position, after: Position) -> Play | None:
    """Steps of the side to move in `before` that leave the board `after`, or None when no
    forward steps do (checkers moved backwards, a count changed, the opponent's checkers moved).

    Used to record an illegal play the opponent accepted: the record stores plays, not boards.
    Checkers leaving points are paired with checkers arriving, highest with highest; a blot hit
    on the way (short nardy) is a point a checker passed through.
    """
    mover = before.turn
    variant = before.variant

    def slots(position: Position) -> list[int]:
        return [position.off[mover], *position.points[mover], position.bar[mover]]

    was, now = slots(before), slots(after)
    starts = [slot for slot in range(OFF, BAR + 1) for _ in range(was[slot] - now[slot])]
    ends = [slot for slot in range(OFF, BAR + 1) for _ in range(now[slot] - was[slot])]
    for point in range(1, BAR):
        theirs = variant.opponent_point(point) - 1
        hit = before.points[mover.other][theirs] == 1 and after.points[mover.other][theirs] == 0
        if hit and now[point] == was[point]:
            starts.append(point)
            ends.append(point)
    starts.sort(reverse=True)
    ends.sort(reverse=True)
    if len(starts) != len(ends) or any(
        end >= start for start, end in zip(starts, ends, strict=True)
    ):
        return None
    play = Play(tuple(Step(start, end) for start, end in zip(starts, ends, strict=True)))
    try:
        reached = before.play(play)
    except InvalidPlayError:
        return None
    return play if reached.same_board(after) else None


@dataclass(frozen=True)
class Candidate:
    """A legal play of the roll, the board it leaves, and how well the observation fits it."""

    play: Play
    position: Position
    probability: float
    misfits: tuple[Place, ...]
    """Places where the reading does not fit this board (empty: it fits everywhere)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "play": str(self.play),
            "position": self.position.to_dict(),
            "probability": round(self.probability, 6),
            "misfits": [str(place) for place in self.misfits],
        }


@dataclass(frozen=True)
class Interpretation:
    """What an observed board means after `roll` from the position before.

    `candidates` are the legal plays, likeliest first (the `shown_alternatives` likeliest and
    every one that fits). `observed` is the board the reading most plausibly shows when no
    legal result fits it everywhere, and `verdict` the rules core's judgement of it (reasons,
    closest legal plays). `lights` are the places to point the players at: where the offence is
    for ILLEGAL, where the doubt is for UNSURE.
    """

    outcome: Outcome
    confidence: float
    roll: Roll
    candidates: tuple[Candidate, ...]
    illegal_probability: float
    legal_results: int
    """How many distinct boards a legal play of the roll can leave."""
    fitting: int
    """How many of them fit the reading everywhere."""
    observed: Position | None
    verdict: Verdict | None
    lights: tuple[int, ...]
    message: str

    @property
    def best(self) -> Candidate:
        """The likeliest legal play."""
        return self.candidates[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": str(self.outcome),
            "confidence": round(self.confidence, 6),
            "roll": self.roll.to_list(),
            "candidates": [candidate.to_dict() for candidate in self.candidates],
            "illegal_probability": round(self.illegal_probability, 6),
            "legal_results": self.legal_results,
            "fitting": self.fitting,
            "observed": None if self.observed is None else self.observed.to_dict(),
            "reasons": [] if self.verdict is None else [str(r) for r in self.verdict.reasons],
            "lights": list(self.lights),
            "message": self.message,
        }


def interpret(
    before: Position,
    roll: Roll,
    observation: BoardObservation,
    config: SessionConfig | None = None,
    as_before: BoardObservation | None = None,
) -> Interpretation:
    """Which legal play of `roll` by the side to move in `before` does `observation` show?

    `before` must be a valid position. `as_before` is a reading of `before`'s board (the one
    its throw was read on), if any: the mistakes it made are taken to be made again, so a
    steady misread does not count against a play. See the module docstring for the rule;
    pure, no I/O.
    """
    config = SessionConfig() if config is None else config
    readings = _as_before(observation, before, as_before)
    options = before.variant.legal_moves(before, roll)
    scored: list[tuple[float, Play, Position, tuple[Place, ...]]] = []
    for play, position in options:
        support = 1.0
        missed: list[Place] = []
        for place, (allowed, confidence), here in zip(
            PLACES, readings, board_of(position), strict=True
        ):
            if here not in allowed:
                missed.append(place)
                support *= _misread_odds(confidence)
        scored.append((support, play, position, tuple(missed)))
    fitting = sum(1 for _, _, _, missed in scored if not missed)
    illegal_weight = config.illegal_prior if _fits_more_than(readings, fitting) else 0.0
    total = sum(support for support, _, _, _ in scored) + illegal_weight
    # Likeliest first; among equals, fewer misfits, then the rules core's order.
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], len(scored[i][3]), i))
    ranked = [
        Candidate(play, position, support / total, missed)
        for support, play, position, missed in (scored[i] for i in order)
    ]
    shown = tuple(c for i, c in enumerate(ranked) if i < config.shown_alternatives or not c.misfits)
    illegal_probability = illegal_weight / total
    best = shown[0]
    observed = verdict = None
    if best.misfits:
        observed = position_of(
            _nearest_board(readings, board_of(best.position)), before, before.turn.other
        )
        verdict = judge(before, roll, observed)
    if best.probability >= config.verdict_confidence:
        outcome, confidence = Outcome.LEGAL, best.probability
    elif illegal_probability >= config.verdict_confidence:
        outcome, confidence = Outcome.ILLEGAL, illegal_probability
    else:
        outcome, confidence = Outcome.UNSURE, max(best.probability, illegal_probability)
    lights = _lights(outcome, shown, observed, verdict)
    message = _message(outcome, roll, shown, verdict, lights)
    return Interpretation(
        outcome,
        confidence,
        roll,
        shown,
        illegal_probability,
        len(options),
        fitting,
        observed,
        verdict,
        lights,
        message,
    )


def _misread_odds(confidence: float) -> float:
    q = max(confidence, NO_INFORMATION)
    return (1.0 - q) / q


def _fits_more_than(readings: Sequence[tuple[frozenset[tuple[int, int]], float]], n: int) -> bool:
    """Whether more than `n` boards fit every reading: with 15 checkers a side when the reading
    allows such a board, else any board (then none is a legal result, which has 15 a side)."""
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for allowed, _ in readings:
        following: dict[tuple[int, int], int] = {}
        for (w, b), count in ways.items():
            for dw, db in allowed:
                key = (w + dw, b + db)
                if key[0] <= CHECKERS_PER_SIDE and key[1] <= CHECKERS_PER_SIDE:
                    following[key] = following.get(key, 0) + count
        ways = following
    conserving = ways.get((CHECKERS_PER_SIDE, CHECKERS_PER_SIDE), 0)
    return conserving > n if conserving else True


def _nearest_board(
    readings: Sequence[tuple[frozenset[tuple[int, int]], float]], target: Board
) -> Board:
    """The board fitting every reading that moves the fewest checkers away from `target`,
    with 15 checkers a side when the reading allows it."""
    # Dynamic programme over the places, keyed by the (white, black) totals so far; each level
    # keeps, per total, the cheapest cost and the (previous total, choice) it came from.
    levels: list[dict[tuple[int, int], tuple[int, tuple[int, int], tuple[int, int]]]] = []
    costs: dict[tuple[int, int], int] = {(0, 0): 0}
    for (allowed, _), (tw, tb) in zip(readings, target, strict=True):
        level: dict[tuple[int, int], tuple[int, tuple[int, int], tuple[int, int]]] = {}
        for (w, b), cost in costs.items():
            for dw, db in sorted(allowed):
                key = (w + dw, b + db)
                step = cost + abs(dw - tw) + abs(db - tb)
                if key not in level or step < level[key][0]:
                    level[key] = (step, (w, b), (dw, db))
        levels.append(level)
        costs = {key: entry[0] for key, entry in level.items()}
    full = (CHECKERS_PER_SIDE, CHECKERS_PER_SIDE)
    key = full if full in costs else min(costs, key=lambda k: (costs[k], k))
    chosen: list[tuple[int, int]] = []
    for level in reversed(levels):
        _, key, choice = level[key]
        chosen.append(choice)
    return tuple(reversed(chosen))


def _differences(a: Board, b: Board) -> Iterator[Place]:
    return (place for place, x, y in zip(PLACES, a, b, strict=True) if x != y)


def _lights(
    outcome: Outcome,
    shown: Sequence[Candidate],
    observed: Position | None,
    verdict: Verdict | None,
) -> tuple[int, ...]:
    places: set[Place] = set()
    if outcome is Outcome.ILLEGAL and observed is not None and verdict is not None:
        if verdict.closest:
            places.update(_differences(board_of(observed), board_of(verdict.closest[0].position)))
    elif outcome is Outcome.UNSURE:
        contenders = [c for c in shown if c.probability >= 0.05] or list(shown[:1])
        for candidate in contenders:
            places.update(candidate.misfits)
        boards = [board_of(c.position) for c in contenders]
        for other in boards[1:]:
            places.update(_differences(boards[0], other))
    return tuple(sorted({place.light for place in places}))


def _message(
    outcome: Outcome,
    roll: Roll,
    shown: Sequence[Candidate],
    verdict: Verdict | None,
    lights: Sequence[int],
) -> str:
    best = shown[0]
    if outcome is Outcome.LEGAL:
        return f"Legal {roll}: {play_text(best.play)}."
    if outcome is Outcome.ILLEGAL:
        assert verdict is not None
        return verdict.message
    fits = [c for c in shown if not c.misfits]
    if len(fits) > 1:
        plays = " or ".join(play_text(c.play) for c in fits[:3])
        return f"Several legal plays of {roll} fit what is seen ({plays}): please check the board."
    names = {BAR_LIGHT: "bar", OFF_LIGHT: "off"}
    where = ", ".join(names.get(light, str(light)) for light in lights) or "the board"
    guess = f"{play_text(best.play)} ({best.probability:.0%})"
    return f"Not sure of the board at {where}: please check. Likeliest: {guess}."


__all__ = [
    "PLACES",
    "Candidate",
    "Interpretation",
    "Outcome",
    "Place",
    "board_of",
    "interpret",
    "misfits",
    "play_between",
    "play_text",
    "position_of",
]
