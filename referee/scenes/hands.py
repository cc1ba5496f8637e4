"""A player's hand and forearm over the board, built from tapered capsules and a palm.

The hand is seen palm down. Its pose is a few numbers (wrist position, heading, finger curl), so
a video can move it smoothly by interpolating them.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Finger offsets across the hand (mm, toward the thumb), lengths and radii: index .. little.
_FINGERS = ((27.0, 72.0, 9.5), (9.0, 80.0, 10.0), (-9.0, 75.0, 9.5), (-26.0, 60.0, 8.5))
# Half length and half width of the back of the hand (mm), and how square its outline is.
_PALM = (52.0, 44.0, 3.0)


@dataclasses.dataclass(frozen=True)
class Capsule:
    """A tapered cylinder with round ends from `a` (radius `ra`) to `b` (radius `rb`)."""

    a: FloatArray
    b: FloatArray
    ra: float
    rb: float
    colour: str


@dataclasses.dataclass(frozen=True)
class HandPose:
    """Where the hand is: the wrist (mm), the heading of the fingers (radians from +x, in the
    board plane), how curled the fingers are (0 flat .. 1 gripping), and which hand."""

    wrist: tuple[float, float, float]
    heading: float
    curl: float
    right: bool
    skin: str
    sleeve: str


@dataclasses.dataclass(frozen=True)
class Hand:
    """A hand ready to draw: capsules back to front, and the palm's outline."""

    pose: HandPose
    capsules: tuple[Capsule, ...]
    palm: FloatArray

    def fingertip(self) -> FloatArray:
        """Between the thumb's and the index finger's tips: where a held checker or die is."""
        index_tip = self.capsules[3].b
        thumb_tip = self.capsules[-1].b
        return np.asarray((index_tip + thumb_tip) / 2, dtype=np.float64)


def make_hand(pose: HandPose) -> Hand:
    """The capsules and palm of a hand in `pose`."""
    wrist = np.array(pose.wrist, dtype=np.float64)
    f = np.array([math.cos(pose.heading), math.sin(pose.heading), 0.0])
    up = np.array([0.0, 0.0, 1.0])
    # Palm down, a right hand has its thumb on the left of the fingers' direction.
    side = np.cross(up, f) * (1.0 if pose.right else -1.0)
    skin, sleeve = pose.skin, pose.sleeve
    elbow = wrist - f * 270 + up * 120
    capsules = [
        Capsule(elbow, wrist - f * 4, 40.0, 29.0, skin),
        Capsule(elbow - f * 120 + up * 60, wrist - f * 120 + up * 52, 47.0, 41.0, sleeve),
    ]
    bend1 = math.radians(10 + 35 * pose.curl)
    bend2 = bend1 + math.radians(50 * pose.curl)
    for offset, length, radius in _FINGERS:
        # Fingers fan out a little, more the straighter they are.
        fan = offset * 0.006 * (1.0 - pose.curl)
        ahead = f * math.cos(fan) + side * math.sin(fan)
        knuckle = wrist + f * 92 + side * offset - up * 4
        middle = knuckle + (ahead * math.cos(bend1) - up * math.sin(bend1)) * length * 0.55
        tip = middle + (ahead * math.cos(bend2) - up * math.sin(bend2)) * length * 0.45
        capsules.append(Capsule(knuckle, middle, radius, radius * 0.92, skin))
        capsules.append(Capsule(middle, tip, radius * 0.92, radius * 0.8, skin))
    thumb_base = wrist + f * 26 + side * 34 - up * 8
    thumb_dir = f * 0.7 + side * 0.55 - up * (0.25 + 0.4 * pose.curl)
    thumb_dir /= np.linalg.norm(thumb_dir)
    thumb_joint = thumb_base + thumb_dir * 36
    thumb_tip_dir = thumb_dir - side * 0.35 * pose.curl
    thumb_tip_dir /= np.linalg.norm(thumb_tip_dir)
    capsules.append(Capsule(thumb_base, thumb_joint, 14.0, 11.5, skin))
    capsules.append(Capsule(thumb_joint, thumb_joint + thumb_tip_dir * 32, 11.5, 9.5, skin))
    half_length, half_width, square = _PALM
    centre = wrist + f * 48 + up * 8
    angles = np.linspace(0, 2 * math.pi, 32, endpoint=False)
    # A rounded rectangle (superellipse), sloping down toward the knuckles.
    cos, sin = np.cos(angles), np.sin(angles)
    u = np.sign(cos) * np.abs(cos) ** (2 / square) * half_length
    v = np.sign(sin) * np.abs(sin) ** (2 / square) * half_width
    along = f * math.cos(math.radians(12)) - up * math.sin(math.radians(12))
    palm = centre + np.outer(u, along) + np.outer(v, side)
    return Hand(pose, tuple(capsules), palm)


def lerp_pose(a: HandPose, b: HandPose, t: float) -> HandPose:
    """The pose a fraction `t` of the way from `a` to `b` (eased at both ends)."""
    s = 0.5 - 0.5 * math.cos(math.pi * min(max(t, 0.0), 1.0))
    wrist = tuple(float(x + (y - x) * s) for x, y in zip(a.wrist, b.wrist, strict=True))
    turn = (b.heading - a.heading + math.pi) % (2 * math.pi) - math.pi
    return dataclasses.replace(
        a,
        wrist=(wrist[0], wrist[1], wrist[2]),
        heading=a.heading + turn * s,
        curl=a.curl + (b.curl - a.curl) * s,
    )
