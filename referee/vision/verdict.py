"""The throw's verdict from facts about the dice (RULES.md §2), free of any pixels.

A throw is void when, after the dice came to rest, a die is off the board, cocked (not flat),
resting on a checker, or the two dice lie in different halves; with `roll_zone="right_half"`
(short nardy's default) both must also lie in the roller's right-hand half. When several defects
coexist the first of this order is reported, as the scene generator labels them: rolling,
off_board, cocked, on_checker, split_halves, wrong_half.

A die that is not seen at all is taken to be off the board: the camera sees the whole board, so a
die it cannot find on it lies on the table or the floor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

Half = Literal["left", "right"]
RollZone = Literal["same_half", "right_half"]

ROLL_ZONES: tuple[RollZone, ...] = ("same_half", "right_half")

DICE_PER_THROW = 2


@dataclasses.dataclass(frozen=True)
class DieFacts:
    """What the referee needs to know about one die; `half` is as the roller sees the board."""

    value: int | None
    flat: bool = True
    on_checker: bool = False
    on_board: bool = True
    half: Half | None = None
    moving: bool = False


@dataclasses.dataclass(frozen=True)
class ThrowVerdict:
    """Whether the throw stands, and why not (None when valid)."""

    valid: bool
    reason: str | None = None


def judge_throw(dice: Sequence[DieFacts], zone: RollZone = "same_half") -> ThrowVerdict:
    """The verdict on the two dice of one throw."""
    if zone not in ROLL_ZONES:
        raise ValueError(f"roll_zone must be one of {ROLL_ZONES}, not {zone!r}")
    if any(d.moving for d in dice):
        return ThrowVerdict(False, "rolling")
    if len(dice) < DICE_PER_THROW or any(not d.on_board for d in dice):
        return ThrowVerdict(False, "off_board")
    if any(not d.flat for d in dice):
        return ThrowVerdict(False, "cocked")
    if any(d.on_checker for d in dice):
        return ThrowVerdict(False, "on_checker")
    halves = {d.half for d in dice}
    if len(halves) > 1:
        return ThrowVerdict(False, "split_halves")
    if zone == "right_half" and halves != {"right"}:
        return ThrowVerdict(False, "wrong_half")
    return ThrowVerdict(True, None)


def roller_half(white_half: Half, roller: Literal["white", "black"]) -> Half:
    """The half as `roller` sees it, given the half as white sees it (black faces white)."""
    if roller == "white":
        return white_half
    return "left" if white_half == "right" else "right"
