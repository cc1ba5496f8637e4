"""Where thrown dice come to rest, for each situation the throw rules distinguish.

Each situation puts exactly one defect into the throw (or none for `valid`), so the verdict that
`dice.judge_roll` derives from the dice's geometry is the situation's own.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from referee.scenes.config import DiceConfig
from referee.scenes.dice import (
    DiePose,
    RollZone,
    cocked_pose,
    flat_pose,
    random_rotation,
    support_distance,
    top_value,
)
from referee.scenes.layout import BoardLayout, Region
from referee.scenes.placement import CheckerItem

FloatArray = NDArray[np.float64]
Circle = tuple[float, float, float]
FIELDS = ("left", "right")
# Footprint radius of a die, as a fraction of its edge (half the diagonal, plus a little air).
_FOOTPRINT = 0.74
# The gap (mm) left between a die and what it is set against: touching, not inside.
_AIR_MM = 0.3


def field_for(half: Literal["left", "right"], roller: str) -> str:
    """The board field (by x) that is `half` as the roller sees it (white faces +y, black -y)."""
    right = "right" if roller == "white" else "left"
    return right if half == "right" else ("left" if right == "right" else "right")


def _clear(x: float, y: float, radius: float, obstacles: list[Circle]) -> bool:
    return all(math.hypot(x - ox, y - oy) >= radius + r for ox, oy, r in obstacles)


def _free_spot(
    rng: np.random.Generator, region: Region, radius: float, obstacles: list[Circle]
) -> tuple[float, float] | None:
    for _ in range(400):
        x = float(rng.uniform(region.x0 + radius, region.x1 - radius))
        y = float(rng.uniform(region.y0 + radius, region.y1 - radius))
        if _clear(x, y, radius, obstacles):
            return x, y
    return None


class Thrower:
    """Places two dice among the checkers of one scene."""

    def __init__(
        self,
        rng: np.random.Generator,
        config: DiceConfig,
        layout: BoardLayout,
        checkers: list[CheckerItem],
        size: float,
    ) -> None:
        self.rng = rng
        self.config = config
        self.layout = layout
        self.size = size
        r = layout.dims.checker_diameter / 2
        on_floor = [c for c in checkers if c.region in FIELDS]
        self.obstacles: list[Circle] = [(float(c.base[0]), float(c.base[1]), r) for c in on_floor]
        # Top of each stack: the checker a die can lean on or sit on.
        self.tops: list[tuple[CheckerItem, float]] = []
        if on_floor:
            xy = np.array([c.base[:2] for c in on_floor])
            layers = np.array([c.layer for c in on_floor])
            near = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) < r
            # A checker is a stack's top when nothing near it lies in a higher layer.
            higher = near & (layers[None, :] > layers[:, None])
            thickness = layout.dims.checker_thickness
            self.tops = [
                (c, float(c.base[2]) + thickness)
                for c, covered in zip(on_floor, higher.any(axis=1), strict=True)
                if not covered
            ]

    @property
    def radius(self) -> float:
        """The die's footprint radius, for keeping it clear of other things."""
        return _FOOTPRINT * self.size

    def _tilt(self) -> float:
        return math.radians(float(self.rng.uniform(*self.config.cocked_tilt_deg)))

    def _quarter(self) -> int:
        return int(self.rng.integers(0, 4))

    def flat(self, field: str, value: int, avoid: list[Circle]) -> DiePose | None:
        """A die lying flat at a free spot of `field`, clear of `avoid` too."""
        spot = _free_spot(self.rng, self.layout.regions[field], self.radius, self.obstacles + avoid)
        if spot is None:
            return None
        yaw = float(self.rng.uniform(0, 2 * math.pi))
        return flat_pose(value, self.size, spot[0], spot[1], 0.0, yaw)

    def footprint(self, die: DiePose) -> Circle:
        """The circle a die at rest covers on the floor."""
        return (float(die.center[0]), float(die.center[1]), self.radius)

    def _fits(self, die: DiePose, field: str, obstacles: list[Circle]) -> bool:
        """True when a die stands inside `field` and clear of `obstacles`."""
        x, y = float(die.center[0]), float(die.center[1])
        region = self.layout.regions[field]
        return region.contains(x, y, self.radius) and _clear(x, y, self.radius, obstacles)

    def against_checker(self, fields: list[str], value: int) -> DiePose | None:
        """A die cocked against the side or top edge of a checker stack."""
        tops = [(c, h) for c, h in self.tops if c.region in fields]
        r = self.layout.dims.checker_diameter / 2
        for _ in range(80 if tops else 0):
            checker, height = tops[int(self.rng.integers(0, len(tops)))]
            tilt = self._tilt()
            angle = float(self.rng.uniform(0, 2 * math.pi))
            toward = np.array([math.cos(angle), math.sin(angle), 0.0])
            gap = support_distance(self.size, height, tilt)
            pivot = np.array([*checker.base[:2], 0.0]) - toward * (r + gap)
            die = cocked_pose(value, self.size, pivot, toward, tilt, self._quarter(), "checker")
            others = [
                o
                for o in self.obstacles
                if math.hypot(o[0] - checker.base[0], o[1] - checker.base[1]) > 1
            ]
            if self._fits(die, checker.region, others):
                return die
        return None

    def _wall_spot(self, field: str, span: tuple[float, float]) -> tuple[FloatArray, FloatArray]:
        """A random spot along one of `field`'s walls (frame rim or bar), within `span` of its
        length, and the wall's normal (x, y), pointing into the field."""
        walls = [w for w in self.layout.walls if w.region == field]
        wall = walls[int(self.rng.integers(0, len(walls)))]
        a, b = np.array(wall.a), np.array(wall.b)
        return a + (b - a) * float(self.rng.uniform(*span)), np.array(wall.normal)

    def against_rim(self, field: str, value: int) -> DiePose | None:
        """A die cocked against one of the field's walls (frame rim or bar)."""
        for _ in range(80):
            edge, normal = self._wall_spot(field, (0.15, 0.85))
            tilt = self._tilt()
            gap = support_distance(self.size, self.layout.dims.rim_height, tilt)
            pivot = np.array([*(edge + normal * (gap + 0.3)), 0.0])
            toward = np.array([-normal[0], -normal[1], 0.0])
            die = cocked_pose(value, self.size, pivot, toward, tilt, self._quarter(), "rim")
            x, y = float(die.center[0]), float(die.center[1])
            if self.layout.regions[field].contains(x, y) and _clear(
                x, y, self.radius, self.obstacles
            ):
                return die
        return None

    def _side_axis(self, flat_die: DiePose) -> FloatArray | None:
        """One of a flat die's local axes drawn at random, (x, y), where it lies level: a side
        face's normal up to its sign (the faces point along the rotated axes); None when the
        draw falls on the upright one."""
        axis = flat_die.rotation[:, int(self.rng.integers(0, 3))]
        return None if abs(axis[2]) > 0.5 else np.asarray(axis[:2])

    def against_die(self, flat_die: DiePose, field: str, value: int) -> DiePose | None:
        """A die cocked against a side face of the other, flat die."""
        for _ in range(40):
            axis = self._side_axis(flat_die)
            if axis is None:
                continue
            normal = axis * (1 if self.rng.random() < 0.5 else -1)
            normal = np.array([normal[0], normal[1], 0.0]) / math.hypot(normal[0], normal[1])
            lateral = np.array([-normal[1], normal[0], 0.0]) * float(
                self.rng.uniform(-0.25, 0.25) * flat_die.size
            )
            edge = np.array([*flat_die.center[:2], 0.0]) + normal * flat_die.size / 2 + lateral
            tilt = self._tilt()
            gap = support_distance(self.size, flat_die.size, tilt)
            pivot = edge + normal * (gap + 0.3)
            die = cocked_pose(value, self.size, pivot, -normal, tilt, self._quarter(), "die")
            if self._fits(die, field, []):
                x, y = float(die.center[0]), float(die.center[1])
                if _clear(x, y, self.radius, self.obstacles):
                    return die
        return None

    def _lies_clear(self, x: float, y: float, yaw: float, field: str) -> bool:
        """True when a flat die at (x, y), turned `yaw`, lies inside `field` (a wall it is
        set against may touch it) and its square clears every checker's disc on the floor."""
        region = self.layout.regions[field]
        if not region.contains(x, y, self.size / 2):
            return False
        c, s = math.cos(yaw), math.sin(yaw)
        r = self.layout.dims.checker_diameter / 2
        for ox, oy, _ in self.obstacles:
            # The checker's centre in the die's frame, then its distance from the die's square.
            lx, ly = c * (ox - x) + s * (oy - y), -s * (ox - x) + c * (oy - y)
            if math.hypot(max(abs(lx) - self.size / 2, 0), max(abs(ly) - self.size / 2, 0)) < r:
                return False
        return True

    def flat_by_checker(self, fields: list[str], value: int) -> DiePose | None:
        """A die lying flat with a side face against a checker stack: valid, it leans on
        nothing."""
        r = self.layout.dims.checker_diameter / 2
        floor = [(ox, oy) for ox, oy, _ in self.obstacles]
        stacks = [(c, h) for c, h in self.tops if c.region in fields]
        for _ in range(80 if stacks else 0):
            checker, _ = stacks[int(self.rng.integers(0, len(stacks)))]
            yaw = float(self.rng.uniform(0, 2 * math.pi))
            # The stack's bottom checker is the one on the floor the die lies against.
            bx, by = min(
                floor, key=lambda o: math.hypot(o[0] - checker.base[0], o[1] - checker.base[1])
            )
            reach = r + self.size / 2 + _AIR_MM
            x, y = bx - reach * math.cos(yaw), by - reach * math.sin(yaw)
            if self._lies_clear(x, y, yaw, checker.region):
                return flat_pose(value, self.size, x, y, 0.0, yaw)
        return None

    def flat_by_rim(self, field: str, value: int) -> DiePose | None:
        """A die lying flat with a side face against one of the field's walls (rim or bar)."""
        for _ in range(80):
            edge, normal = self._wall_spot(field, (0.1, 0.9))
            x, y = edge + normal * (self.size / 2 + _AIR_MM)
            yaw = math.atan2(normal[1], normal[0])
            if self._lies_clear(float(x), float(y), yaw, field):
                return flat_pose(value, self.size, float(x), float(y), 0.0, yaw)
        return None

    def flat_by_die(self, flat_die: DiePose, field: str, value: int) -> DiePose | None:
        """A die lying flat with a side face against a side face of the other, flat die."""
        for _ in range(40):
            axis = self._side_axis(flat_die)
            if axis is None:
                continue
            yaw = math.atan2(axis[1], axis[0]) + (math.pi if self.rng.random() < 0.5 else 0.0)
            normal = np.array([math.cos(yaw), math.sin(yaw)])
            lateral = np.array([-normal[1], normal[0]]) * float(
                self.rng.uniform(-0.4, 0.4) * flat_die.size
            )
            reach = (flat_die.size + self.size) / 2 + _AIR_MM
            x, y = np.asarray(flat_die.center[:2]) + normal * reach + lateral
            if self._lies_clear(float(x), float(y), yaw, field):
                return flat_pose(value, self.size, float(x), float(y), 0.0, yaw)
        return None

    def on_checker(self, fields: list[str], value: int) -> DiePose | None:
        """A die lying flat on top of a checker stack."""
        tops = [(c, h) for c, h in self.tops if c.region in fields]
        if not tops:
            return None
        checker, height = tops[int(self.rng.integers(0, len(tops)))]
        r = self.layout.dims.checker_diameter / 2
        angle = float(self.rng.uniform(0, 2 * math.pi))
        shift = float(self.rng.uniform(*self.config.on_checker_offset)) * r
        x = float(checker.base[0]) + shift * math.cos(angle)
        y = float(checker.base[1]) + shift * math.sin(angle)
        yaw = float(self.rng.uniform(0, 2 * math.pi))
        die = flat_pose(value, self.size, x, y, height, yaw)
        return DiePose(die.value, die.size, die.center, die.rotation, flat=True, on_checker=True)

    def rolling(self, field: str, canvas_width: int) -> DiePose | None:
        """A die still tumbling above the field, smeared by its motion."""
        spot = _free_spot(self.rng, self.layout.regions[field], self.radius, [])
        if spot is None:
            return None
        lift = float(self.rng.uniform(*self.config.rolling_height_mm))
        rotation = random_rotation(self.rng)
        length = float(self.rng.uniform(*self.config.rolling_blur_px)) * canvas_width / 1280
        angle = float(self.rng.uniform(0, 2 * math.pi))
        center = np.array([spot[0], spot[1], self.size * 0.8 + lift])
        return DiePose(
            top_value(rotation),
            self.size,
            center,
            rotation,
            flat=False,
            rolling=True,
            streak=(length * math.cos(angle), length * math.sin(angle)),
        )

    def on_table(self, spot: tuple[float, float], value: int) -> DiePose:
        """A die that fell off the board onto the table."""
        yaw = float(self.rng.uniform(0, 2 * math.pi))
        die = flat_pose(value, self.size, spot[0], spot[1], -self.layout.dims.floor, yaw)
        return DiePose(die.value, die.size, die.center, die.rotation, flat=True, on_board=False)


def throw(
    thrower: Thrower,
    situation: str,
    roller: str,
    zone: RollZone,
    values: tuple[int, int],
    off_spot: tuple[float, float] | None,
    canvas_width: int,
) -> list[DiePose] | None:
    """Two dice showing `situation`; None when this board leaves no room for it."""
    rng = thrower.rng
    # The field both dice should land in: fixed by the zone rule, or either.
    home = field_for("right", roller) if zone == "right_half" else FIELDS[int(rng.integers(0, 2))]
    first, second = values
    # Where a checker-bound defect may happen: any field unless the zone rule fixes one.
    fields = [home] if zone == "right_half" else list(FIELDS)
    if situation == "valid":
        a = thrower.flat(home, first, [])
    elif situation == "wrong_half":
        home = field_for("left", roller)
        a = thrower.flat(home, first, [])
    elif situation == "split_halves":
        a = thrower.flat(home, first, [])
        home = "left" if home == "right" else "right"
    elif situation == "cocked_checker":
        a = thrower.against_checker(fields, first)
    elif situation == "cocked_rim":
        a = thrower.against_rim(home, first)
    elif situation in ("cocked_die", "by_die"):
        # The flat die first, then the other set against it, cocked or lying flat.
        b = thrower.flat(home, second, [])
        against = thrower.against_die if situation == "cocked_die" else thrower.flat_by_die
        a = None if b is None else against(b, home, first)
        return None if a is None or b is None else [a, b]
    elif situation == "by_checker":
        a = thrower.flat_by_checker(fields, first)
    elif situation == "by_rim":
        a = thrower.flat_by_rim(home, first)
    elif situation == "on_checker":
        a = thrower.on_checker(fields, first)
    elif situation == "off_board":
        assert off_spot is not None
        a = thrower.on_table(off_spot, first)
    elif situation == "rolling":
        a = thrower.rolling(home, canvas_width)
    else:
        raise ValueError(f"unknown dice situation {situation!r}")
    if a is None:
        return None
    if a.on_board and situation != "split_halves":
        home = thrower.layout.region_of(float(a.center[0]), float(a.center[1])) or home
    avoid = [thrower.footprint(a)] if a.on_board else []
    if situation == "rolling" and rng.random() < thrower.config.both_rolling:
        b = thrower.rolling(home, canvas_width)
    else:
        b = thrower.flat(home, second, avoid)
    return None if b is None else [a, b]
