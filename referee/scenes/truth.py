"""The ground truth written beside every image (datasets/FORMAT.md describes each field)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from referee.scenes.camera import Camera
from referee.scenes.dice import DiePose, RollZone, die_half, judge_roll
from referee.scenes.placement import CheckerItem
from referee.scenes.render import Frame, Look, Painted
from referee.scenes.scene import dice_halves

FloatArray = NDArray[np.float64]
_RING = 16  # points per checker edge used for its box


def _r(values: FloatArray | Sequence[float], digits: int = 2) -> list[float]:
    return [round(float(v), digits) for v in np.asarray(values).ravel()]


def _box(points: FloatArray, camera: Camera) -> list[float]:
    """Bounding box [x1, y1, x2, y2] of image points, clipped to the image."""
    x1 = min(max(float(points[:, 0].min()), 0.0), camera.width - 1.0)
    y1 = min(max(float(points[:, 1].min()), 0.0), camera.height - 1.0)
    x2 = min(max(float(points[:, 0].max()), 0.0), camera.width - 1.0)
    y2 = min(max(float(points[:, 1].max()), 0.0), camera.height - 1.0)
    return _r([x1, y1, x2, y2], 1)


def image_corners(points: FloatArray) -> FloatArray:
    """Four image points ordered top-left, top-right, bottom-right, bottom-left."""
    return points[corner_order(points)]


def corner_order(points: FloatArray) -> NDArray[np.intp]:
    """The indices that order four image points top-left, top-right, bottom-right,
    bottom-left."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    # Image y runs down, so increasing angle goes clockwise on screen; start at top-left.
    order = np.argsort(angles)
    ordered = points[order]
    start = int(np.argmin(ordered[:, 0] + ordered[:, 1]))
    return np.roll(order, -start)


def camera_truth(camera: Camera) -> dict[str, Any]:
    """The `camera` label: intrinsics, distortion, pose, tilt and height."""
    return {
        "K": [_r(row, 4) for row in camera.K],
        "dist": _r(camera.dist, 6),
        "rvec": _r(camera.rvec, 6),
        "tvec": _r(camera.t, 3),
        "tilt_deg": round(camera.tilt_deg, 2),
        "height_mm": round(float(camera.center[2]), 1),
    }


def board_truth(look: Look) -> dict[str, Any]:
    """The `board` label: corners, width, the 24 points, the bar and trays."""
    camera, layout = look.camera, look.layout
    corners = image_corners(camera.project(layout.playing_corners()))
    top = float(np.linalg.norm(corners[1] - corners[0]))
    bottom = float(np.linalg.norm(corners[2] - corners[3]))
    triangles = np.array([layout.point_triangle(point) for point in range(1, 25)])
    bases = (triangles[:, 0] + triangles[:, 1]) / 2
    image = camera.project(np.concatenate([triangles, bases[:, None]], axis=1).reshape(-1, 3))
    points = [
        {
            "point": point,
            "polygon": [_r(p, 1) for p in quad[:3]],
            "base": _r(quad[3], 1),
            "tip": _r(quad[2], 1),
        }
        for point, quad in zip(range(1, 25), image.reshape(24, 4, 2), strict=True)
    ]
    rim = layout.dims.rim_height
    trays = {
        color: [_r(p, 1) for p in camera.project(layout.regions[f"tray_{color}"].corners())]
        for color in ("white", "black")
    }
    return {
        "style": look.board.name,
        "corners": [_r(c, 1) for c in corners],
        "width_px": round((top + bottom) / 2, 1),
        "points": points,
        "bar_polygon": [_r(p, 1) for p in camera.project(layout.blocks["bar"].top(rim))],
        "off_trays": trays,
        "checker_diameter_mm": layout.dims.checker_diameter,
        "checker_thickness_mm": layout.dims.checker_thickness,
    }


def checkers_truth(
    look: Look, checkers: Sequence[CheckerItem], visible: Sequence[float], threshold: float
) -> list[dict[str, Any]]:
    """The `checkers` label: one entry per checker with its box and visibility."""
    if not checkers:
        return []
    dims = look.layout.dims
    angles = np.linspace(0, 2 * math.pi, _RING, endpoint=False)
    circle = (
        np.stack([np.cos(angles), np.sin(angles), np.zeros(_RING)], axis=1)
        * dims.checker_diameter
        / 2
    )
    lift = np.array([0.0, 0.0, dims.checker_thickness])
    rings = np.concatenate(
        [
            np.concatenate([c.base + circle, c.base + circle + lift, (c.base + lift)[None]])
            for c in checkers
        ]
    )
    image = look.camera.project(rings).reshape(len(checkers), 2 * _RING + 1, 2)
    out = []
    for item, points, fraction in zip(checkers, image, visible, strict=True):
        out.append(
            {
                "color": item.color,
                "point": item.place,
                "layer": item.layer,
                "box": _box(points[:-1], look.camera),
                "center": _r(points[-1], 1),
                "visible": bool(fraction >= threshold),
                "visible_fraction": round(float(fraction), 3),
            }
        )
    return out


def die_truth(look: Look, die: DiePose, half: str | None) -> dict[str, Any]:
    """One `dice` entry: value, pixels, pose and the state flags."""
    camera = look.camera
    top_centre = die.center + np.array([0.0, 0.0, die.size / 2])
    image = camera.project(np.vstack([die.corners(), die.center[None], top_centre[None]]))
    corners = image[:8]
    box = _box(corners, camera)
    if die.rolling:
        # The box covers the whole motion streak (measured on the canvas, nearly the photo).
        half_streak = np.array(die.streak) / 2
        streaked = np.concatenate([corners - half_streak, corners + half_streak])
        box = _box(streaked, camera)
    return {
        "value": die.value,
        "center": _r(image[8], 1),
        "top_center": _r(image[9], 1),
        "box": box,
        "size_mm": round(die.size, 2),
        "pose": {
            "position_mm": _r(die.center, 2),
            "rotation_matrix": [_r(row, 5) for row in die.rotation],
        },
        "flat": die.flat,
        "cocked_against": die.cocked_against,
        "on_checker": die.on_checker,
        "on_board": die.on_board,
        "half": half,
        # The same half named from White's seat, whoever rolled (x > 0 is White's right).
        "half_from_white": die_half(float(die.center[0]), "white") if die.on_board else None,
        "rolling": die.rolling,
    }


def roll_truth(dice: Sequence[DiePose], roller: str, zone: RollZone) -> dict[str, Any] | None:
    """The throw's verdict, or None when no dice are on the table."""
    if not dice:
        return None
    valid, reason = judge_roll(list(dice), dice_halves(dice, roller), zone)
    return {
        "roller": roller,
        "valid": valid,
        "reason": reason,
        "roll_zone": zone,
        "values": [d.value for d in dice],
    }


def style_truth(look: Look) -> dict[str, Any]:
    """The `style` label: what the scene was drawn with."""
    light = look.light
    style: dict[str, Any] = {
        "board": look.board.name,
        "checkers": look.checkers.name,
        "dice": look.dice.name,
        "table": look.table,
        "clutter": [c.kind for c in look.clutter],
        "light": {
            "position_mm": _r(light.position, 1),
            "kelvin": round(light.kelvin),
            "glare": round(light.glare, 3),
            "ambient": round(light.ambient, 3),
        },
        "imaging": {
            "noise_sigma": round(look.imaging.noise_sigma, 2),
            "blur_sigma": round(look.imaging.blur_sigma, 2),
            "vignette": round(look.imaging.vignette, 3),
            "jpeg_quality": look.imaging.jpeg_quality,
        },
    }
    if look.onlooker is not None:
        style["onlooker"] = True
    return style


def scene_truth(
    image_name: str,
    look: Look,
    frame: Frame,
    position: dict[str, Any],
    roller: str,
    zone: RollZone,
    painted: Painted,
    visible_threshold: float,
) -> dict[str, Any]:
    """The complete label of one image."""
    halves = dice_halves(frame.dice, roller)
    board = board_truth(look)
    order = corner_order(look.camera.project(look.layout.playing_corners()))
    board["corners_hand_hidden"] = [painted.corner_hand_hidden[i] for i in order]
    checkers = checkers_truth(look, frame.checkers, painted.checker_visible, visible_threshold)
    for checker, hidden in zip(checkers, painted.checker_hand_hidden, strict=True):
        checker["hand_hidden"] = round(hidden, 3)
    dice = [die_truth(look, d, h) for d, h in zip(frame.dice, halves, strict=True)]
    for die, hidden in zip(dice, painted.die_hand_hidden, strict=True):
        die["hand_hidden"] = round(hidden, 3)
    return {
        "image": image_name,
        "width": look.camera.width,
        "height": look.camera.height,
        "variant": position["variant"],
        "position": position,
        "camera": camera_truth(look.camera),
        "board": board,
        "checkers": checkers,
        "dice": dice,
        "roll": roll_truth(frame.dice, roller, zone),
        "hand": bool(frame.hands),
        "hand_outlines": [[_r(point, 1) for point in outline] for outline in painted.hand_outlines],
        "style": style_truth(look),
    }
