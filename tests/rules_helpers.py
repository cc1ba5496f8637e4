"""Building positions by hand for rules tests."""

from __future__ import annotations

from referee.rules import Play, Position, Roll, Side, Variant


def board(
    variant: Variant,
    white: dict[int, int],
    black: dict[int, int],
    turn: str = "white",
    off: tuple[int, int] = (0, 0),
    bar: tuple[int, int] = (0, 0),
) -> Position:
    """A position from {point: count} maps in each side's own numbering; must be valid."""
    sides = []
    for stacks in (white, black):
        counts = [0] * 24
        for point, n in stacks.items():
            counts[point - 1] = n
        sides.append(tuple(counts))
    position = Position(variant, Side.from_label(turn), (sides[0], sides[1]), bar, off)
    position.validate()
    return position


def results(position: Position, dice: tuple[int, int]) -> set[tuple[object, ...]]:
    return {after.board_key() for after in position.legal_positions(Roll(*dice))}


def after(position: Position, play: str) -> Position:
    return position.play(Play.from_str(play))


def stacks(position: Position, side: Side) -> dict[int, int]:
    return {p: n for p, n in enumerate(position.points[side], start=1) if n}
