"""Judging a physical throw of the dice from what the camera saw (RULES.md §2).

A throw is void, and must be thrown again, when a die is off the board, cocked, resting on a
checker, or the dice lie in different halves (or, with `roll_zone = "right_half"`, outside the
roller's right-hand half). Dice caught while still rolling are void too. A die whose face cannot
be read does not make the throw void: the referee is unsure and asks the players to look.

The opening throw is one die each; each player throws into their own right-hand half, which is
how the referee tells whose die is whose.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.rules import Roll, Side, Variant
from referee.session.config import SessionConfig
from referee.session.observation import DiceObservation, DieObservation, Half


class ThrowFault(enum.StrEnum):
    """Why a throw is void; the same words as the scene generator's ground truth."""

    OFF_BOARD = "off_board"
    COCKED = "cocked"
    ON_CHECKER = "on_checker"
    SPLIT_HALVES = "split_halves"
    WRONG_HALF = "wrong_half"
    ROLLING = "rolling"


FAULT_TEXT: dict[ThrowFault, str] = {
    ThrowFault.OFF_BOARD: "a die is off the board",
    ThrowFault.COCKED: "a die is cocked",
    ThrowFault.ON_CHECKER: "a die rests on a checker",
    ThrowFault.SPLIT_HALVES: "the dice lie in different halves",
    ThrowFault.WRONG_HALF: "the dice are not in the thrower's right-hand half",
    ThrowFault.ROLLING: "the dice were picked up before they came to rest",
}


@dataclass(frozen=True)
class ThrowReading:
    """The judgement of one throw as seen.

    `dice` are the values in the order the throw gives them (for the opening throw: White's
    die, then Black's). `faults` is empty for a throw that stands. `unsure` is set when a face
    could not be read well enough; then the players are asked and nothing is decided. For a
    throw of two dice at rest that is not void, `rolls` are the rolls they may show with the
    probability the reader's confidences give each, likeliest first (`likely_rolls`; for an
    opening throw that is no tie, those that keep its starter, `opening_rolls`): the move
    played may tell them apart, or show a die read for sure misread.
    """

    dice: tuple[int, ...]
    faults: tuple[ThrowFault, ...] = ()
    unsure: bool = False
    confidence: float = 1.0
    message: str = ""
    rolls: tuple[tuple[Roll, float], ...] = ()

    @property
    def valid(self) -> bool:
        return not self.faults and not self.unsure and len(self.dice) == 2

    @property
    def roll(self) -> Roll:
        """The roll of a valid throw."""
        return Roll(self.dice[0], self.dice[1])

    def to_dict(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "faults": [str(fault) for fault in self.faults],
            "unsure": self.unsure,
            "confidence": self.confidence,
            "message": self.message,
            "rolls": [[roll.to_list(), round(p, 6)] for roll, p in self.rolls],
        }


def throw_faults(dice: DiceObservation, zone: Half | None = None) -> tuple[ThrowFault, ...]:
    """Every fault of a throw of two dice, at rest or caught rolling; empty when it stands.

    `zone` is the half both dice must lie in, if any (`Half.right_of(roller)` under
    `roll_zone = "right_half"`). A die not seen counts as off the board: the camera sees the
    whole board, so a missing die lies on the table or the floor. The order is the scene
    labels' precedence (rolling, off_board, cocked, on_checker, split_halves, wrong_half), so
    the first fault is the one a label names. This is the only judge of a throw's validity:
    the session and `referee.vision`'s reading both use it.
    """
    faults: list[ThrowFault] = []
    seen = dice.dice
    if any(die.rolling for die in seen):
        faults.append(ThrowFault.ROLLING)
    if len(seen) < 2 or any(not die.on_board for die in seen):
        faults.append(ThrowFault.OFF_BOARD)
    if any(not die.flat for die in seen):
        faults.append(ThrowFault.COCKED)
    if any(die.on_checker for die in seen):
        faults.append(ThrowFault.ON_CHECKER)
    halves = {die.half for die in seen if die.on_board and die.half is not None}
    if len(halves) > 1:
        faults.append(ThrowFault.SPLIT_HALVES)
    elif zone is not None and halves and halves != {zone}:
        faults.append(ThrowFault.WRONG_HALF)
    return tuple(faults)


def _describe(faults: Sequence[ThrowFault]) -> str:
    return "; ".join(FAULT_TEXT[fault] for fault in faults)


def read_throw(
    dice: DiceObservation, roller: Side, variant: Variant, config: SessionConfig
) -> ThrowReading:
    """Judge `roller`'s throw of two dice, at rest, under the variant's `roll_zone`."""
    zone_option = getattr(variant, "roll_zone", "same_half")
    zone = Half.right_of(roller) if zone_option == "right_half" else None
    if len(dice) > 2:
        return ThrowReading(
            (), unsure=True, confidence=0.0, message=f"{len(dice)} dice on the board"
        )
    faults = throw_faults(dice, zone)
    values = tuple(die.value for die in dice.dice)
    if faults:
        return ThrowReading(
            tuple(v for v in values if v is not None),
            tuple(faults),
            message=f"throw again: {_describe(faults)}",
        )
    reading = _read_faces(values, [die.confidence for die in dice.dice], config)
    return dataclasses.replace(reading, rolls=likely_rolls(*dice.dice))


def ranked(roll: Roll) -> Roll:
    """`roll` with its higher die first: how `likely_rolls` names every roll, so that a roll
    in the order thrown finds its probability there."""
    return Roll(roll.high, roll.low)


def likely_rolls(first: DieObservation, second: DieObservation) -> tuple[tuple[Roll, float], ...]:
    """Every roll two dice may show, with its probability, likeliest first; each roll with its
    higher die first (`ranked`), whatever the dice's order. A die's chance of each face is the
    reader's `faces` where it gives them; else a die read as `v` with confidence `c` shows `v`
    with probability `c` and each other face `(1 - c) / 5`, and an unread die any face alike."""
    weights: dict[Roll, float] = {}
    for a, b in itertools.product(range(1, 7), repeat=2):
        roll = ranked(Roll(a, b))
        weights[roll] = weights.get(roll, 0.0) + _face_chance(first, a) * _face_chance(second, b)
    return _likeliest_first(weights)


def opening_rolls(white: DieObservation, black: DieObservation) -> tuple[tuple[Roll, float], ...]:
    """The rolls an opening throw of White's die `white` and Black's `black` may give its
    starter to play: every pair of faces that keeps the starter read (the move played is that
    starter's), each with the starter's die first and its probability among all 36 pairs of
    faces, likeliest first (a face's chance as in `likely_rolls`)."""
    assert white.value is not None and black.value is not None and white.value != black.value
    white_starts = white.value > black.value
    weights: dict[Roll, float] = {}
    total = 0.0
    for a, b in itertools.product(range(1, 7), repeat=2):
        chance = _face_chance(white, a) * _face_chance(black, b)
        total += chance
        if a != b and (a > b) == white_starts:
            weights[ranked(Roll(a, b))] = chance
    return _likeliest_first(weights, total)


def _face_chance(die: DieObservation, shown: int) -> float:
    if die.faces:
        return die.faces[shown - 1]
    if die.value is None:
        return 1 / 6
    return die.confidence if shown == die.value else (1 - die.confidence) / 5


def _likeliest_first(
    weights: dict[Roll, float], total: float | None = None
) -> tuple[tuple[Roll, float], ...]:
    """`weights` as probabilities (of `total`, or of their sum), likeliest first."""
    total = sum(weights.values()) if total is None else total
    likeliest = sorted(weights.items(), key=lambda item: -item[1])
    return tuple((roll, weight / total) for roll, weight in likeliest)


def read_opening_throw(dice: DiceObservation, config: SessionConfig) -> ThrowReading:
    """Judge the opening throw of two dice at rest: one die each, each in its thrower's
    right-hand half.

    The result's `dice` are (White's, Black's). Both dice in one half cannot be told apart,
    so such a throw is void (WRONG_HALF).
    """
    if len(dice) > 2:
        return ThrowReading(
            (), unsure=True, confidence=0.0, message=f"{len(dice)} dice on the board"
        )
    faults = [fault for fault in throw_faults(dice) if fault is not ThrowFault.SPLIT_HALVES]
    halves = [die.half for die in dice.dice]
    if not faults and None in halves:
        return ThrowReading(
            (), unsure=True, confidence=0.0, message="cannot tell whose die is whose"
        )
    if not faults and halves[0] == halves[1]:
        faults.append(ThrowFault.WRONG_HALF)
    if faults:
        return ThrowReading(
            tuple(die.value for die in dice.dice if die.value is not None),
            tuple(faults),
            message=f"throw again: {_describe(faults)}; one die each, into your right-hand half",
        )
    white, black = sorted(dice.dice, key=lambda die: die.half != Half.right_of(Side.WHITE))
    reading = _read_faces((white.value, black.value), [white.confidence, black.confidence], config)
    if reading.unsure or reading.dice[0] == reading.dice[1]:
        return reading  # nobody plays it yet
    return dataclasses.replace(reading, rolls=opening_rolls(white, black))


def read_placed_dice(dice: DiceObservation, config: SessionConfig) -> ThrowReading:
    """Read two dice set down by hand to show moves owed without a throw (RULES.md §4: a
    doubles ladder's next double, moves passed over). Nothing is thrown, so no throw rule
    applies: only the faces count."""
    if len(dice) != 2:
        message = f"set two dice to show the owed moves ({len(dice)} on the board)"
        return ThrowReading((), unsure=True, confidence=0.0, message=message)
    return _read_faces(
        tuple(die.value for die in dice.dice), [die.confidence for die in dice.dice], config
    )


def _read_faces(
    values: tuple[int | None, ...], confidences: list[float], config: SessionConfig
) -> ThrowReading:
    if any(value is None for value in values) or min(confidences) < config.dice_confidence:
        confidence = min(confidences)
        return ThrowReading(
            tuple(v for v in values if v is not None),
            unsure=True,
            confidence=confidence,
            message="cannot read the dice: please check them",
        )
    faces = tuple(v for v in values if v is not None)
    confidence = 1.0
    for c in confidences:
        confidence *= c
    return ThrowReading(faces, confidence=confidence)


__all__ = [
    "FAULT_TEXT",
    "ThrowFault",
    "ThrowReading",
    "likely_rolls",
    "opening_rolls",
    "ranked",
    "read_opening_throw",
    "read_placed_dice",
    "read_throw",
    "throw_faults",
]
