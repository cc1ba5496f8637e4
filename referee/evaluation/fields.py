"""Strict readers for fields of parsed JSON, shared by the ground-truth and reading parsers.

Each check raises the caller's own error type with the field's path in the message, so a broken
file is reported as e.g. "board.points[3].base: expected [x, y], got None".
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.evaluation.basics import Color, Corners, Half, Pixel


class Fields:
    """Field checks that raise `error` (a ValueError subclass) on the first bad value."""

    def __init__(self, error: type[ValueError]) -> None:
        self.error = error

    def mapping(self, obj: object, where: str) -> Mapping[str, object]:
        if not isinstance(obj, Mapping):
            raise self.error(f"{where}: missing or not an object")
        return obj

    def array(self, obj: object, where: str) -> list[object]:
        if not isinstance(obj, list | tuple):
            raise self.error(f"{where}: missing or not a list")
        return list(obj)

    def number(self, obj: object, where: str) -> float:
        # bool is an int subclass in Python; true/false where a number belongs is an error.
        if isinstance(obj, bool) or not isinstance(obj, int | float):
            raise self.error(f"{where}: expected a number, got {obj!r}")
        return float(obj)

    def integer(self, obj: object, where: str) -> int:
        if isinstance(obj, bool) or not isinstance(obj, int):
            raise self.error(f"{where}: expected an integer, got {obj!r}")
        return obj

    def flag(self, obj: object, where: str) -> bool:
        if not isinstance(obj, bool):
            raise self.error(f"{where}: expected true or false, got {obj!r}")
        return obj

    def text(self, obj: object, where: str) -> str:
        if not isinstance(obj, str):
            raise self.error(f"{where}: expected a string, got {obj!r}")
        return obj

    def color(self, obj: object, where: str) -> Color | None:
        if obj is None:
            return None
        if obj == "white":
            return "white"
        if obj == "black":
            return "black"
        raise self.error(f"{where}: expected 'white', 'black' or null, got {obj!r}")

    def pixel(self, obj: object, where: str) -> Pixel:
        items = self.array(obj, where)
        if len(items) != 2:
            raise self.error(f"{where}: expected [x, y], got {obj!r}")
        return (self.number(items[0], f"{where}[0]"), self.number(items[1], f"{where}[1]"))

    def corners(self, obj: object, where: str) -> Corners:
        items = self.array(obj, where)
        if len(items) != 4:
            raise self.error(f"{where}: expected 4 corners, got {len(items)}")
        return (
            self.pixel(items[0], f"{where}[0]"),
            self.pixel(items[1], f"{where}[1]"),
            self.pixel(items[2], f"{where}[2]"),
            self.pixel(items[3], f"{where}[3]"),
        )

    def half(self, obj: object, where: str) -> Half | None:
        if obj is None:
            return None
        if obj == "left":
            return "left"
        if obj == "right":
            return "right"
        raise self.error(f"{where}: expected 'left', 'right' or null, got {obj!r}")
