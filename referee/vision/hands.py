"""Hands over the board: is an arm reaching in, though the picture has stopped moving?

The scene gate says when the picture is still, but a player's hand often rests over the board
for a moment while moving a checker, and a reading then sees fingers for dice and misses the
checkers underneath. An arm always reaches in from outside the board: compared with the last
still scene without hands (`EarlierScene`), it is a large changed region that lies on the
playing surface and reaches beyond the board's outline or to the edge of the picture. Checkers
moved, dice thrown and dice picked up change the picture only on the board (or, for a die off
the board, over a small area), so they do not look like an arm.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

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


def hands_over_board(
    image: NDArray[np.uint8],
    earlier: NDArray[np.uint8],
    profile: BoardProfile,
    config: HandConfig,
) -> bool:
    """Whether an arm reaches over the board in `image`, judged against `earlier`, a still
    picture of the same table without hands (both BGR, the profile's size)."""
    if image.shape != earlier.shape:
        return False
    scale = config.width_px / image.shape[1]
    now = _small(image, config.width_px)
    then = _small(earlier, config.width_px)
    raw = (_change(now, then) >= config.min_change).astype(np.uint8)
    changed = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    # Where the regions are: the change that is solid, not thin lines (edges shifted a pixel
    # by a knocked camera make a net of those over the whole board), with pieces `join_px`
    # apart joined: an arm's change breaks where the skin matches what lay beneath it (a
    # light table, the frame's edge).
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    size = 2 * config.join_px + 1
    joined = cv2.dilate(solid, np.ones((size, size), np.uint8))
    model = profile.model
    surface = profile.region_mask((0.0, 0.0, model.width_mm, model.depth_mm), changed.shape, scale)
    outline = profile.region_mask(model.outline_box(profile.home), changed.shape, scale)
    count, labels = cv2.connectedComponents(joined, connectivity=8)
    area = float(surface.sum())
    least = config.min_area_frac * area
    edge = np.zeros_like(surface)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    for i in range(1, count):
        region = (labels == i) & (changed > 0)
        if np.count_nonzero(region) < least:
            continue
        on_board = int(np.count_nonzero(region & surface))
        beyond = int(np.count_nonzero(region & ~outline))
        at_edge = bool(np.any(region & edge))
        if on_board >= least / 2 and (beyond >= config.min_beyond_frac * area or at_edge):
            return True
    return False
