"""Ground truth for one image, read from a scene JSON or from a YOLO dice label file.

Both formats become one `GroundTruth`; fields a format does not carry stay None (a YOLO label
knows dice boxes and values, nothing of the board). Parsing is strict: a missing or malformed
field raises `TruthError` naming it, so a broken label is reported instead of mis-scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from referee.evaluation.basics import Color, Corners, Half, Pixel, RollVerdict, SideCounts
from referee.evaluation.fields import Fields
from referee.rules import Position, RulesError, Side

POINTS = 24
"""Points (triangles) on a nardy board."""

DIE_FACES = range(1, 7)

ROLL_REASONS = frozenset(
    {"off_board", "cocked", "on_checker", "split_halves", "wrong_half", "rolling"}
)
"""Reasons a throw is void, as the scene generator writes them (RULES.md §2)."""

HAND_HIDDEN_OUT_OF_VIEW = 0.5
"""A checker or die with at least this share of its outline under a hand is out of view: what
the labels count there, nothing in the picture shows."""


class TruthError(ValueError):
    """A ground-truth label that cannot be used; the message names the field and the problem."""


_F = Fields(TruthError)


@dataclass(frozen=True)
class TruthPoint:
    """One triangle: its number in white's numbering, where it is, what stands on it, and
    whether all of that is in view (no checker of it under a hand)."""

    point: int
    base: Pixel
    tip: Pixel
    color: Color | None
    count: int
    in_view: bool = True


@dataclass(frozen=True)
class Box:
    """An axis-aligned pixel box, corners (x0, y0) top-left and (x1, y1) bottom-right."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, p: Pixel, margin_frac: float = 0.0) -> bool:
        """Whether `p` lies in the box grown by `margin_frac` of its size on every side."""
        mx = (self.x1 - self.x0) * margin_frac
        my = (self.y1 - self.y0) * margin_frac
        return self.x0 - mx <= p[0] <= self.x1 + mx and self.y0 - my <= p[1] <= self.y1 + my


@dataclass(frozen=True)
class TruthDie:
    """One die. Attributes a format does not record (YOLO: all but value and box) are None."""

    value: int
    center: Pixel
    box: Box
    flat: bool | None = None
    on_checker: bool | None = None
    on_board: bool | None = None
    half: Half | None = None
    in_view: bool = True


@dataclass(frozen=True)
class TruthBoard:
    """The board: outer corners (TL, TR, BR, BL), width in pixels, 24 points, bar, borne off;
    which corners are in view (not under a hand), and whether every checker is (none under a
    hand, on a point, the bar or in the tray)."""

    corners: Corners
    width_px: float
    points: tuple[TruthPoint, ...]
    bar: SideCounts
    off: SideCounts
    corners_in_view: tuple[bool, bool, bool, bool] = (True, True, True, True)
    checkers_in_view: bool = True


@dataclass(frozen=True)
class GroundTruth:
    """Everything known about one image. `board` and `roll` are None where not labelled.

    `hand` is whether a hand or arm is over the board in the picture (False where the format
    does not say, as in YOLO dice labels).
    """

    board: TruthBoard | None
    dice: tuple[TruthDie, ...]
    roll: RollVerdict | None = None
    variant: str | None = None
    roller: Color | None = None
    roll_zone: str | None = None
    hand: bool = False


def parse_scene_truth(obj: object) -> GroundTruth:
    """Ground truth from a scene generator JSON (see datasets/FORMAT.md)."""
    top = _F.mapping(obj, "label")
    try:
        position = Position.from_dict(_F.mapping(top.get("position"), "position"))
    except RulesError as exc:
        raise TruthError(f"position: {exc}") from exc
    variant = position.variant.name
    # Per point of white's numbering: (white checkers, black checkers). The numbering is an
    # involution between the sides, so black's point bp is white's opponent_point(bp).
    on_point = {p: [position.points[Side.WHITE][p - 1], 0] for p in range(1, POINTS + 1)}
    for bp in range(1, POINTS + 1):
        on_point[position.variant.opponent_point(bp)][1] += position.points[Side.BLACK][bp - 1]

    board_obj = _F.mapping(top.get("board"), "board")
    corners = _F.corners(board_obj.get("corners"), "board.corners")
    width_px = _F.number(board_obj.get("width_px"), "board.width_px")
    if width_px <= 0:
        raise TruthError(f"board.width_px: must be positive, got {width_px}")

    hidden_places = _places_under_hand(top.get("checkers", []))
    hidden_points = {place for place in hidden_places if isinstance(place, int)}
    corners_in_view = _corners_in_view(board_obj.get("corners_hand_hidden"))
    points: list[TruthPoint] = []
    for i, p_obj in enumerate(_F.array(board_obj.get("points"), "board.points")):
        where = f"board.points[{i}]"
        p = _F.mapping(p_obj, where)
        number = _F.integer(p.get("point"), f"{where}.point")
        if number not in on_point:
            raise TruthError(f"{where}.point: expected 1..24, got {number}")
        # A valid position (checked above) never has both colours on one point.
        white, black = on_point[number]
        color: Color | None = "white" if white else "black" if black else None
        points.append(
            TruthPoint(
                point=number,
                base=_F.pixel(p.get("base"), f"{where}.base"),
                tip=_F.pixel(p.get("tip"), f"{where}.tip"),
                color=color,
                count=white + black,
                in_view=number not in hidden_points,
            )
        )
    if sorted(p.point for p in points) != list(range(1, POINTS + 1)):
        raise TruthError("board.points: expected each of the points 1..24 exactly once")

    dice = tuple(
        _scene_die(d, f"dice[{i}]") for i, d in enumerate(_F.array(top.get("dice", []), "dice"))
    )
    roll: RollVerdict | None = None
    roller: Color | None = None
    roll_zone: str | None = None
    if top.get("roll") is not None:
        roll_obj = _F.mapping(top.get("roll"), "roll")
        valid = _F.flag(roll_obj.get("valid"), "roll.valid")
        reason = roll_obj.get("reason")
        if valid and reason is not None:
            raise TruthError(f"roll.reason: a valid roll has no reason, got {reason!r}")
        if not valid and reason not in ROLL_REASONS:
            raise TruthError(f"roll.reason: expected one of {sorted(ROLL_REASONS)}, got {reason!r}")
        roll = RollVerdict(valid=valid, reason=None if valid else str(reason))
        roller = _F.color(roll_obj.get("roller"), "roll.roller")
        zone = roll_obj.get("roll_zone")
        roll_zone = None if zone is None else _F.text(zone, "roll.roll_zone")
    # The generator always writes the key; a hand-written label may leave it out (no hand).
    hand = _F.flag(top["hand"], "hand") if "hand" in top else False

    return GroundTruth(
        board=TruthBoard(
            corners=corners,
            width_px=width_px,
            points=tuple(sorted(points, key=lambda tp: tp.point)),
            bar=SideCounts(position.bar[Side.WHITE], position.bar[Side.BLACK]),
            off=SideCounts(position.off[Side.WHITE], position.off[Side.BLACK]),
            corners_in_view=corners_in_view,
            checkers_in_view=not hidden_places,
        ),
        dice=dice,
        roll=roll,
        variant=variant,
        roller=roller,
        roll_zone=roll_zone,
        hand=hand,
    )


def _hand_hidden(entry: Mapping[str, object], where: str) -> bool:
    """Whether a checker's or die's label puts it out of view under a hand (labels made before
    the generator wrote `hand_hidden` have it in view)."""
    hidden = entry.get("hand_hidden", 0.0)
    return _F.number(hidden, f"{where}.hand_hidden") >= HAND_HIDDEN_OUT_OF_VIEW


def _places_under_hand(obj: object) -> set[int | str]:
    """The places with a checker out of view under a hand: white's numbers of points, and the
    labels' names of the other places (the bar, the trays)."""
    hidden: set[int | str] = set()
    for i, c_obj in enumerate(_F.array(obj, "checkers")):
        checker = _F.mapping(c_obj, f"checkers[{i}]")
        if _hand_hidden(checker, f"checkers[{i}]"):
            place = checker.get("point")
            hidden.add(place if isinstance(place, int) else str(place))
    return hidden


def _corners_in_view(obj: object) -> tuple[bool, bool, bool, bool]:
    """Which board corners are in view, from `board.corners_hand_hidden` (all where absent)."""
    if obj is None:
        return (True, True, True, True)
    flags = [
        not _F.flag(f, "board.corners_hand_hidden")
        for f in _F.array(obj, "board.corners_hand_hidden")
    ]
    if len(flags) != 4:
        raise TruthError(f"board.corners_hand_hidden: expected 4 flags, got {len(flags)}")
    return (flags[0], flags[1], flags[2], flags[3])


def parse_yolo_dice(text: str, width: int, height: int) -> GroundTruth:
    """Ground truth from a YOLO label (`class cx cy w h` per line, normalised, class = value-1)."""
    dice: list[TruthDie] = []
    for n, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            raise TruthError(f"line {n}: expected 'class cx cy w h', got {line.strip()!r}")
        try:
            cls = int(fields[0])
            cx, cy, w, h = (float(f) for f in fields[1:])
        except ValueError as exc:
            raise TruthError(f"line {n}: not numbers: {line.strip()!r}") from exc
        if cls + 1 not in DIE_FACES:
            raise TruthError(f"line {n}: class {cls} is no die face (expected 0..5)")
        if not (0.0 <= cx <= 1.0 and 0.0 <= cy <= 1.0 and 0.0 < w <= 1.0 and 0.0 < h <= 1.0):
            raise TruthError(f"line {n}: box {cx} {cy} {w} {h} is not normalised to 0..1")
        center = (cx * width, cy * height)
        box = Box(
            (cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height
        )
        dice.append(TruthDie(value=cls + 1, center=center, box=box))
    return GroundTruth(board=None, dice=tuple(dice))


def _scene_die(obj: object, where: str) -> TruthDie:
    d = _F.mapping(obj, where)
    value = _F.integer(d.get("value"), f"{where}.value")
    if value not in DIE_FACES:
        raise TruthError(f"{where}.value: expected 1..6, got {value}")
    box_list = _F.array(d.get("box"), f"{where}.box")
    if len(box_list) != 4:
        raise TruthError(f"{where}.box: expected [x0, y0, x1, y1], got {box_list!r}")
    x0, y0, x1, y1 = (_F.number(v, f"{where}.box") for v in box_list)
    if x1 < x0 or y1 < y0:
        raise TruthError(f"{where}.box: expected [x0, y0, x1, y1] with x0<=x1, y0<=y1")
    return TruthDie(
        value=value,
        center=_F.pixel(d.get("center"), f"{where}.center"),
        box=Box(x0, y0, x1, y1),
        flat=_F.flag(d.get("flat"), f"{where}.flat"),
        on_checker=_F.flag(d.get("on_checker"), f"{where}.on_checker"),
        on_board=_F.flag(d.get("on_board"), f"{where}.on_board"),
        half=_F.half(d.get("half"), f"{where}.half"),
        in_view=not _hand_hidden(d, where),
    )
