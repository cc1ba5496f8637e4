"""Hands over the board: is an arm reaching in, though the picture has stopped moving?

The scene gate says when the picture is still, but a player's hand often rests over the board
for a moment while moving a checker, and a reading then sees fingers for dice and misses the
checkers underneath. An arm always reaches in from outside the board: compared with the last
still scene without hands (`EarlierScene`), it is a large changed region that lies on the
playing surface and reaches beyond the board's outline or to the edge of the picture. Checkers
moved, dice thrown and dice picked up change the picture only on the board (or, for a die off
the board, over a small area), so they do not look like an arm.

A dark sleeve over a dark frame changes nothing where it crosses the frame, and the arm's
change falls apart into a piece on the surface and a piece beyond the outline. Joined across
the frame, they are an arm (`Arm.ACROSS_FRAME`), but a knocked camera or board shifts the
frame's edges on both sides the same way: that look counts as an arm only where the bump
watch finds the board in place. So does a large change on the surface alone, reaching in from
its border (`Arm.ON_SURFACE`: a sleeve that matches both the table and the frame). A knock
large enough to look like an arm outright is told by the watch finding the board moved
(`arm_stands`, asked by `live.py`).
"""

from __future__ import annotations

import enum

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.bump import BoardMove
from referee.vision.calibration import BoardProfile
from referee.vision.config import HandConfig


def _small(image: NDArray[np.uint8], width: int) -> NDArray[np.uint8]:
    h, w = image.shape[:2]
    shrunk = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(shrunk, (5, 5), 0), np.uint8)


def _change(now: NDArray[np.uint8], then: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Per pixel, the largest change of any colour channel: skin over light wood changes the
    grey level little (an arm over a maple board fell apart into pieces too small to count)
    but its blue a lot."""
    diff = cv2.absdiff(now, then)
    return np.asarray(diff.max(axis=2) if diff.ndim == 3 else diff, np.uint8)


class Arm(enum.Enum):
    """What `arm_over_board` saw.

    NONE: no arm. SEEN: an arm-like change that reaches beyond the board's outline or to the
    picture's edge. ACROSS_FRAME: one only when changed pieces facing each other across the
    board's frame are joined. ON_SURFACE: a change on the surface alone, large and reaching
    in from its border (a sleeve that matches the table and the frame). The last two are arms
    only where the board and the camera did not move (`arm_stands`).
    """

    NONE = "none"
    SEEN = "seen"
    ACROSS_FRAME = "across_frame"
    ON_SURFACE = "on_surface"


def arm_over_board(
    image: NDArray[np.uint8],
    earlier: NDArray[np.uint8],
    profile: BoardProfile,
    config: HandConfig,
) -> Arm:
    """Whether an arm reaches over the board in `image`, judged against `earlier`, a still
    picture of the same table without hands (both BGR, the profile's size)."""
    if image.shape != earlier.shape:
        return Arm.NONE
    scale = config.width_px / image.shape[1]
    now = _small(image, config.width_px)
    then = _small(earlier, config.width_px)
    raw = (_change(now, then) >= config.min_change).astype(np.uint8)
    changed = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    # Where the regions are: the change that is solid, not thin lines (edges shifted a pixel
    # by a knocked camera make a net of those over the whole board), with pieces `join_px`
    # apart joined: an arm's change breaks where the skin matches what lay beneath it (a
    # light table, the frame's edge).
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    size = 2 * config.join_px + 1
    joined = np.asarray(cv2.dilate(solid, np.ones((size, size), np.uint8)), np.uint8)
    model = profile.model
    surface = profile.region_mask((0.0, 0.0, model.width_mm, model.depth_mm), changed.shape, scale)
    outline = profile.region_mask(model.outline_box(profile.home), changed.shape, scale)
    first = _arm_region(joined, changed, surface, outline, config)
    if first is Arm.SEEN:
        return Arm.SEEN
    # Within the frame, pieces facing each other across it are joined: each reaches half the
    # frame's width (its mean width in pixels: its area over the surface's border) into it.
    frame = outline & ~surface
    inner = cv2.erode(surface.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    border = max(int(np.count_nonzero(surface & ~inner)), 1)
    reach = int(np.ceil(np.count_nonzero(frame) / border / 2)) + 1
    across = cv2.dilate(solid, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    bridged = np.where(frame, np.maximum(across, joined), joined).astype(np.uint8)
    if _arm_region(bridged, changed, surface, outline, config) is Arm.SEEN:
        return Arm.ACROSS_FRAME
    return first


def arm_stands(arm: Arm, look: BoardMove | None) -> bool:
    """Whether what `arm_over_board` saw is an arm, given the bump watch's look at the same
    picture (None: the watch has nothing to compare it with). A knocked camera or board
    changes the picture much as an arm does, its shifted edges thick where the shift is large:
    where the watch finds the board moved, it is a knock. An arm seen only across the frame
    or on the surface needs the watch to find the board in place (a board knocked too far to
    follow changes the surface alike)."""
    if arm is Arm.NONE:
        return False
    if arm is Arm.SEEN:
        return look is None or not look.moved
    return look is not None and look.in_place


def _arm_region(
    joined: NDArray[np.uint8],
    changed: NDArray[np.uint8],
    surface: NDArray[np.bool_],
    outline: NDArray[np.bool_],
    config: HandConfig,
) -> Arm:
    """Whether one of `joined`'s regions holds an arm's change: large, half of it at least on
    the surface, and reaching beyond the outline or to the picture's edge (SEEN); or larger
    still on the surface alone, reaching in from its border (ON_SURFACE: a sleeve that
    matches the table and the frame changes nothing beyond the board)."""
    count, labels = cv2.connectedComponents(joined, connectivity=8)
    area = float(surface.sum())
    least = config.min_area_frac * area
    edge = np.zeros_like(surface)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    inner = cv2.erode(surface.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    border = surface & ~inner
    found = Arm.NONE
    for i in range(1, count):
        region = (labels == i) & (changed > 0)
        if np.count_nonzero(region) < least:
            continue
        on_board = int(np.count_nonzero(region & surface))
        beyond = int(np.count_nonzero(region & ~outline))
        at_edge = bool(np.any(region & edge))
        if on_board >= least / 2 and (beyond >= config.min_beyond_frac * area or at_edge):
            return Arm.SEEN
        if on_board >= config.min_surface_arm_frac * area and np.any(region & border):
            found = Arm.ON_SURFACE
    return found
