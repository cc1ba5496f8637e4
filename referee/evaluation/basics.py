"""Small value types shared by readings and ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray

Color: TypeAlias = Literal["white", "black"]
"""Checker colour; "white" is always the lighter set, whatever the real colours."""

Half: TypeAlias = Literal["left", "right"]
"""Board half of a die as the roller sees it from their seat (the scene labels' convention,
which the `right_half` roll zone of RULES.md §2 needs); the bar divides the halves."""

Pixel: TypeAlias = tuple[float, float]
"""An (x, y) image position in pixels."""

Corners: TypeAlias = tuple[Pixel, Pixel, Pixel, Pixel]
"""A board's outer corners in the order top-left, top-right, bottom-right, bottom-left."""

Image: TypeAlias = NDArray[np.uint8]
"""A decoded image as OpenCV gives it: height × width × 3, BGR."""


@dataclass(frozen=True)
class SideCounts:
    """A number of checkers per colour (on the bar, or borne off)."""

    white: int = 0
    black: int = 0


@dataclass(frozen=True)
class RollVerdict:
    """Whether a throw stands; `reason` names why not (RULES.md §2), None when it is valid."""

    valid: bool
    reason: str | None = None
