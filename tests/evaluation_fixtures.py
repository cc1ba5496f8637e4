"""Tiny hand-made scenes for the evaluation tests: a known board geometry and labels around it.

The board is drawn nowhere; only the label's numbers matter. Geometry (image 800×600): board
corners (50, 50), (750, 50), (750, 550), (50, 550), so the board is 700 px wide. Points sit 50 px
apart, following the scene generator's layout: white's 1..6 along the bottom of the right half
from right to left, 7..12 along the bottom of the left half, 13..18 along the top of the left
half from left to right, 19..24 along the top of the right half. Bottom bases lie at y = 540
with tips at y = 340; top bases at y = 60 with tips at y = 260.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

WIDTH, HEIGHT = 800, 600
CORNERS = [[50.0, 50.0], [750.0, 50.0], [750.0, 550.0], [50.0, 550.0]]
BOARD_WIDTH_PX = 700.0
SPACING = 50.0


def point_x(point: int) -> float:
    """The x pixel of white's point `point` (1..24)."""
    if point <= 6:
        return 715.0 - SPACING * (point - 1)
    if point <= 12:
        return 335.0 - SPACING * (point - 7)
    if point <= 18:
        return 85.0 + SPACING * (point - 13)
    return 465.0 + SPACING * (point - 19)


def point_geometry(point: int) -> dict[str, Any]:
    """The label's entry for white's point `point`: number, polygon, base and tip."""
    x = point_x(point)
    base_y, tip_y = (540.0, 340.0) if point <= 12 else (60.0, 260.0)
    return {
        "point": point,
        "polygon": [[x - 25, base_y], [x + 25, base_y], [x, tip_y]],
        "base": [x, base_y],
        "tip": [x, tip_y],
    }


def short_start() -> tuple[list[int], list[int]]:
    """Short nardy's starting checkers per side, in each side's own numbering."""
    side = [0] * 24
    for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[point - 1] = n
    return side, list(side)


def die(
    value: int, center: tuple[float, float], half: str = "right", flat: bool = True
) -> dict[str, Any]:
    """A die label 20 px wide around `center`."""
    cx, cy = center
    return {
        "value": value,
        "center": [cx, cy],
        "box": [cx - 10, cy - 10, cx + 10, cy + 10],
        "flat": flat,
        "cocked_against": None,
        "on_checker": False,
        "on_board": True,
        "half": half,
        "rolling": False,
    }


def scene_label(
    image: str = "000000.png",
    variant: str = "short",
    white: list[int] | None = None,
    black: list[int] | None = None,
    bar: tuple[int, int] = (0, 0),
    off: tuple[int, int] = (0, 0),
    dice: list[dict[str, Any]] | None = None,
    valid: bool = True,
    reason: str | None = None,
    hand: bool = False,
) -> dict[str, Any]:
    """A complete scene label in the agreed format (short-nardy start unless told otherwise)."""
    start_white, start_black = short_start()
    dice = dice if dice is not None else [die(3, (560.0, 300.0)), die(5, (620.0, 300.0))]
    return {
        "image": image,
        "width": WIDTH,
        "height": HEIGHT,
        "variant": variant,
        "position": {
            "variant": variant,
            "turn": "white",
            "white": white if white is not None else start_white,
            "black": black if black is not None else start_black,
            "bar": {"white": bar[0], "black": bar[1]},
            "off": {"white": off[0], "black": off[1]},
        },
        "camera": {},
        "board": {
            "corners": CORNERS,
            "width_px": BOARD_WIDTH_PX,
            "points": [point_geometry(p) for p in range(1, 25)],
        },
        "checkers": [],
        "dice": dice,
        "roll": {
            "roller": "white",
            "valid": valid,
            "reason": reason,
            "roll_zone": "right_half",
        },
        "hand": hand,
    }


def write_scene(folder: Path, stem: str, label: dict[str, Any] | None = None) -> Path:
    """A blank image `stem`.png with its label JSON in `folder`; returns the image path."""
    folder.mkdir(parents=True, exist_ok=True)
    image = folder / f"{stem}.png"
    cv2.imwrite(str(image), np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8))
    label = label if label is not None else scene_label(image=image.name)
    (folder / f"{stem}.json").write_text(json.dumps(label))
    return image
