"""Dice: the pip layout, poses for every resting state, and the throw's verdict (RULES.md §2).

A die's local frame has its faces on the axes: +z shows 1, -z 6, +x 2, -x 5, +y 3, -y 4, so
opposite faces sum to seven and 1, 2, 3 run counter-clockwise round their shared corner, as on
Western dice. A pose is the world position of the die's centre and the rotation taking local
to world coordinates.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Support = Literal["checker", "rim", "die"]

FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0),
    6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0),
    5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0),
    4: (0.0, -1.0, 0.0),
}

# Pip centres on a face in face coordinates (u, v), each in -1..1 (scaled to the die later).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 0.0), (1.0, 1.0)),
}


def face_basis(value: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(normal, u, v) of the face showing `value`, right-handed: u x v = normal."""
    normal = np.array(FACE_NORMALS[value])
    helper = np.array([0.0, 0.0, 1.0]) if abs(normal[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
    u = np.cross(helper, normal)
    u /= np.linalg.norm(u)
    return normal, u, np.cross(normal, u)


def rot_z(angle: float) -> FloatArray:
    """Rotation by `angle` (radians) about the vertical axis."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_axis(axis: FloatArray, angle: float) -> FloatArray:
    """Rotation by `angle` about unit vector `axis` (Rodrigues)."""
    a = axis / np.linalg.norm(axis)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    rotation = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    return np.asarray(rotation, dtype=np.float64)


def face_up(value: int) -> FloatArray:
    """A rotation that turns the face showing `value` to point up (+z)."""
    normal = np.array(FACE_NORMALS[value])
    up = np.array([0.0, 0.0, 1.0])
    axis = np.cross(normal, up)
    if np.linalg.norm(axis) < 1e-9:
        return np.eye(3) if normal[2] > 0 else rot_axis(np.array([1.0, 0.0, 0.0]), math.pi)
    return rot_axis(axis, math.acos(float(np.clip(normal @ up, -1, 1))))


def top_value(rotation: FloatArray) -> int:
    """The value on the face pointing most upward for a die turned by `rotation`."""
    return max(FACE_NORMALS, key=lambda v: float((rotation @ np.array(FACE_NORMALS[v]))[2]))


@dataclasses.dataclass(frozen=True)
class DiePose:
    """Where one die is and how it lies; the flags are the ground truth the rules care about."""

    value: int
    size: float
    center: FloatArray
    rotation: FloatArray
    flat: bool
    cocked_against: Support | None = None
    on_checker: bool = False
    on_board: bool = True
    rolling: bool = False
    # Motion streak of a rolling die in canvas pixels (dx, dy); zero when at rest.
    streak: tuple[float, float] = (0.0, 0.0)

    def corners(self) -> FloatArray:
        """The cube's eight corners in world coordinates."""
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
        return np.asarray(self.center + (signs * self.size / 2) @ self.rotation.T, dtype=np.float64)

    @property
    def lowest_z(self) -> float:
        """Height of the die's lowest corner."""
        return float(self.corners()[:, 2].min())


def flat_pose(value: int, size: float, x: float, y: float, z: float, yaw: float) -> DiePose:
    """A die lying flat on a surface at height z, showing `value`, turned `yaw` about vertical."""
    rotation = rot_z(yaw) @ face_up(value)
    return DiePose(value, size, np.array([x, y, z + size / 2]), rotation, flat=True)


def support_distance(size: float, support_height: float, tilt: float) -> float:
    """Horizontal distance from a cocked die's resting edge to the support's near edge.

    The die pivots on one bottom edge and leans, tilted by `tilt`, on a support: a low support
    (lower than the lifted edge) holds the bottom face on its top edge, a tall one (a rim, a die,
    a stack) meets the lifted bottom edge on its side.
    """
    return min(support_height / math.tan(tilt), size * math.cos(tilt))


def cocked_pose(
    value: int,
    size: float,
    pivot: FloatArray,
    toward: FloatArray,
    tilt: float,
    quarter_turns: int,
    support: Support,
) -> DiePose:
    """A die resting on the edge through `pivot` (on the surface) and leaning toward `toward`."""
    d = np.array([toward[0], toward[1], 0.0])
    d /= np.linalg.norm(d)
    yaw = math.atan2(d[1], d[0]) + quarter_turns * math.pi / 2
    flat_rotation = rot_z(yaw) @ face_up(value)
    flat_center = pivot + d * size / 2 + np.array([0.0, 0.0, size / 2])
    axis = np.cross(d, np.array([0.0, 0.0, 1.0]))
    tip = rot_axis(axis, tilt)
    center = pivot + tip @ (flat_center - pivot)
    rotation = tip @ flat_rotation
    return DiePose(top_value(rotation), size, center, rotation, flat=False, cocked_against=support)


def random_rotation(rng: np.random.Generator) -> FloatArray:
    """A rotation drawn uniformly (QR of a Gaussian matrix, signs fixed)."""
    q, r = np.linalg.qr(rng.standard_normal((3, 3)))
    q = q @ np.diag(np.sign(np.diag(r)))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return np.asarray(q, dtype=np.float64)


RollReason = Literal["off_board", "cocked", "on_checker", "split_halves", "wrong_half", "rolling"]
RollZone = Literal["same_half", "right_half"]


def die_half(x: float, roller: str) -> Literal["left", "right"]:
    """Which half of the board (the bar at x = 0 divides them) a die at board x is in, as the
    roller sees it: white sits at the near edge facing +y, black at the far edge facing -y."""
    right = x > 0 if roller == "white" else x < 0
    return "right" if right else "left"


def judge_roll(
    dice: list[DiePose], halves: list[str | None], zone: RollZone
) -> tuple[bool, RollReason | None]:
    """The verdict of RULES.md §2 on dice that have come to rest (or not yet); `halves` are the
    dice's halves as the roller sees them.

    When several defects coexist the first of this order is reported: rolling (no verdict can be
    given yet), off_board, cocked, on_checker, split_halves, wrong_half.
    """
    if any(die.rolling for die in dice):
        return False, "rolling"
    if any(not die.on_board for die in dice):
        return False, "off_board"
    if any(die.cocked_against is not None for die in dice):
        return False, "cocked"
    if any(die.on_checker for die in dice):
        return False, "on_checker"
    if len(set(halves)) > 1:
        return False, "split_halves"
    if zone == "right_half" and any(half != "right" for half in halves):
        return False, "wrong_half"
    return True, None
