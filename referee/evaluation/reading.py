"""What a board reader says about one image, and the plug-in interface every reader implements.

A `Reading` is the in-memory form of the `referee read --json` output; `reading_from_json` and
`reading_to_json` convert between the two, so a reader that runs elsewhere can be scored from its
saved JSON, and the harness never depends on how a reader works inside.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from referee.evaluation.basics import Color, Corners, Half, Image, Pixel, RollVerdict, SideCounts
from referee.evaluation.fields import Fields


class ReadingFormatError(ValueError):
    """A reader's JSON output does not have the documented shape."""


_F = Fields(ReadingFormatError)


@dataclass(frozen=True)
class PointReading:
    """One triangle as a reader sees it: where it is, and what stands on it; `point`, its
    number in white's numbering where the reader numbers points (which says where it puts
    white's seat and home)."""

    base: Pixel
    tip: Pixel
    color: Color | None
    count: int
    confidence: float = 1.0
    point: int | None = None


@dataclass(frozen=True)
class DieReading:
    """One die as a reader sees it. `value` is None when the reader could not read the face;
    `half` is the roller's left or right (see `Half`), None for a die off the board."""

    center: Pixel
    value: int | None
    flat: bool = True
    on_checker: bool = False
    on_board: bool = True
    half: Half | None = None


@dataclass(frozen=True)
class Reading:
    """Everything one reader reports for one image.

    Fields a reader does not produce stay None (or empty): a dice-only reader returns just `dice`.
    `corners` are the board's outer corners in the order top-left, top-right, bottom-right,
    bottom-left. `points` may come in any order: the harness pairs them with the ground truth by
    position. `timings_ms` maps the reader's own stage names to milliseconds.
    """

    corners: Corners | None = None
    points: tuple[PointReading, ...] = ()
    bar: SideCounts | None = None
    off: SideCounts | None = None
    dice: tuple[DieReading, ...] = ()
    roll: RollVerdict | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ReadHints:
    """What the harness tells a reader besides the pixels.

    `image_path` lets a reader find files beside the image (the oracle reads its ground truth
    there; a real reader must not). `variant`, `roller` and `roll_zone` are game context the live
    referee knows anyway, and a throw's validity depends on them (RULES.md §2).
    """

    image_path: Path | None = None
    variant: str | None = None
    roller: Color | None = None
    roll_zone: str | None = None


class BoardReader(Protocol):
    """A board reader: turns one camera image into a `Reading`."""

    @property
    def name(self) -> str:
        """Short name shown in reports."""
        ...

    def read(self, image: Image, hints: ReadHints) -> Reading:
        """Read one image (BGR, as `cv2.imread` returns it)."""
        ...


def reading_to_json(reading: Reading) -> dict[str, object]:
    """The `referee read --json` form of `reading` (fields the reader left out are omitted)."""
    out: dict[str, object] = {}
    if reading.corners is not None:
        out["corners"] = [list(c) for c in reading.corners]
    if reading.points:
        out["points"] = [
            {
                "base": list(p.base),
                "tip": list(p.tip),
                "color": p.color,
                "count": p.count,
                "confidence": p.confidence,
            }
            | ({} if p.point is None else {"point": p.point})
            for p in reading.points
        ]
    if reading.bar is not None:
        out["bar"] = {"white": reading.bar.white, "black": reading.bar.black}
    if reading.off is not None:
        out["off"] = {"white": reading.off.white, "black": reading.off.black}
    out["dice"] = [
        {
            "center": list(d.center),
            "value": d.value,
            "flat": d.flat,
            "on_checker": d.on_checker,
            "on_board": d.on_board,
            "half": d.half,
        }
        for d in reading.dice
    ]
    if reading.roll is not None:
        out["roll"] = {"valid": reading.roll.valid, "reason": reading.roll.reason}
    out["timings_ms"] = dict(reading.timings_ms)
    return out


def reading_from_json(obj: object) -> Reading:
    """Parse a `referee read --json` object; raises `ReadingFormatError` naming the bad field."""
    top = _F.mapping(obj, "reading")
    corners = None if top.get("corners") is None else _F.corners(top["corners"], "corners")
    points = tuple(
        _point(p, f"points[{i}]") for i, p in enumerate(_F.array(top.get("points", []), "points"))
    )
    dice = tuple(_die(d, f"dice[{i}]") for i, d in enumerate(_F.array(top.get("dice", []), "dice")))
    roll: RollVerdict | None = None
    if top.get("roll") is not None:
        roll_obj = _F.mapping(top["roll"], "roll")
        reason = roll_obj.get("reason")
        roll = RollVerdict(
            valid=_F.flag(roll_obj.get("valid"), "roll.valid"),
            reason=None if reason is None else _F.text(reason, "roll.reason"),
        )
    timings = {
        str(k): _F.number(v, f"timings_ms.{k}")
        for k, v in _F.mapping(top.get("timings_ms", {}), "timings_ms").items()
    }
    return Reading(
        corners=corners,
        points=points,
        bar=_side_counts(top.get("bar"), "bar"),
        off=_side_counts(top.get("off"), "off"),
        dice=dice,
        roll=roll,
        timings_ms=timings,
    )


def _point(obj: object, where: str) -> PointReading:
    m = _F.mapping(obj, where)
    return PointReading(
        base=_F.pixel(m.get("base"), f"{where}.base"),
        tip=_F.pixel(m.get("tip"), f"{where}.tip"),
        color=_F.color(m.get("color"), f"{where}.color"),
        count=_F.integer(m.get("count"), f"{where}.count"),
        confidence=_F.number(m.get("confidence", 1.0), f"{where}.confidence"),
        point=None if m.get("point") is None else _F.integer(m.get("point"), f"{where}.point"),
    )


def _die(obj: object, where: str) -> DieReading:
    m = _F.mapping(obj, where)
    value = m.get("value")
    return DieReading(
        center=_F.pixel(m.get("center"), f"{where}.center"),
        value=None if value is None else _F.integer(value, f"{where}.value"),
        flat=_F.flag(m.get("flat", True), f"{where}.flat"),
        on_checker=_F.flag(m.get("on_checker", False), f"{where}.on_checker"),
        on_board=_F.flag(m.get("on_board", True), f"{where}.on_board"),
        half=_F.half(m.get("half"), f"{where}.half"),
    )


def _side_counts(obj: object, where: str) -> SideCounts | None:
    if obj is None:
        return None
    m = _F.mapping(obj, where)
    return SideCounts(
        white=_F.integer(m.get("white", 0), f"{where}.white"),
        black=_F.integer(m.get("black", 0), f"{where}.black"),
    )
