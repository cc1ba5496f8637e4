"""From a vision reading to the rules core's `Position` (what `referee.session` consumes)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.rules import Position, variant_from_name
from referee.vision.pipeline import PointResult, VisionResult


def position_dict(result: VisionResult, variant: str, turn: str) -> dict[str, object]:
    """The rules core's JSON form of what `result` shows (each side in its own numbering)."""
    if result.bar is None or result.off is None:
        raise ValueError("the reading has no board (no board was found in the image)")
    rules_variant = variant_from_name(variant)
    white, black = _counts(result.points, rules_variant.opponent_point)
    return {
        "variant": rules_variant.name,
        "turn": turn,
        "white": white,
        "black": black,
        "bar": dict(result.bar),
        "off": dict(result.off),
    }


def to_position(result: VisionResult, variant: str, turn: str, validate: bool = False) -> Position:
    """The `Position` seen; with `validate`, raises `InvalidPositionError` when it cannot occur
    (16 checkers of a side, two colours on a point, ...), else `Position.status()` says."""
    return Position.from_dict(position_dict(result, variant, turn), validate=validate)


def _counts(
    points: Sequence[PointResult], opponent_point: Callable[[int], int]
) -> tuple[list[int], list[int]]:
    """Per side, its 24 counts in its own numbering (black's via `opponent_point`)."""
    white = [0] * 24
    black = [0] * 24
    for p in points:
        if p.color == "white":
            white[p.point - 1] += p.count
        elif p.color == "black":
            black[opponent_point(p.point) - 1] += p.count
    return white, black
