"""The bump watch: has the board or the camera moved since the profile was made?

Cameras and boards get bumped, and a profile a centimetre off reads every point wrong. Looking
for the surface's border where the profile puts it (`board_finder.recheck`) cannot tell: a
raised rim hides the border from an oblique camera and checkers stand against it, so the
nearest edge is often several pixels off on a board that never moved. What does tell is the
picture itself: the frame, the tray and the points' bases look the same from one settling to
the next unless the board or the camera moved. So a picture of that ring round the border is
kept (`BoardAnchor`), and each later picture is aligned to it by ECC (`cv2.findTransformECC`,
a homography); the alignment carries the profile's corners to where the board is now.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.calibration import BoardProfile
from referee.vision.camera import FloatArray
from referee.vision.config import BumpConfig


@dataclasses.dataclass(frozen=True)
class BoardMove:
    """What one look found.

    Attributes:
        aligned: whether the two pictures could be aligned (correlation high enough).
        correlation: their correlation after the alignment (1: the same picture).
        move_frac: the largest distance a corner moved, as a share of the board's width (as
            the alignment put it, aligned or not).
        moved: aligned, and a corner moved more than `BumpConfig.move_frac`.
        in_place: no corner moved more than that, aligned, or nearly aligned
            (`BumpConfig.min_in_place_correlation`): the ring itself changed (a checker moved
            at a point's base, one borne off into the tray), not where it lies.
        corners: the profile's corners (board order) where the board now lies (as they were
            unless it moved).
    """

    aligned: bool
    correlation: float
    move_frac: float
    moved: bool
    in_place: bool
    corners: FloatArray


def _grey(image: NDArray[np.uint8], width: int) -> tuple[NDArray[np.float32], float]:
    """`image` shrunk to `width` (never enlarged), grey, as float; and the scale used."""
    scale = min(1.0, width / image.shape[1])
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return np.asarray(grey, np.float32), scale


def ring_mask(profile: BoardProfile, scale: float, config: BumpConfig) -> NDArray[np.uint8]:
    """The ring round the playing surface's border the watch compares, on the shrunk picture."""
    model = profile.model
    w, d = model.width_mm, model.depth_mm

    def quad(margin_frac: float) -> NDArray[np.int32]:
        m = margin_frac * w
        mm = np.array([[-m, -m], [w + m, -m], [w + m, d + m], [-m, d + m]])
        return np.round(profile.board_to_image(mm) * scale).astype(np.int32)

    size = (round(profile.image_size[1] * scale), round(profile.image_size[0] * scale))
    mask = np.zeros(size, np.uint8)
    cv2.fillPoly(mask, [quad(config.ring_out_frac)], 255)
    cv2.fillPoly(mask, [quad(-config.ring_in_frac)], 0)
    return mask


class BoardAnchor:
    """The ring round the board in `image`, taken when `profile` is known to fit it, and the
    look that finds where a later picture puts the board (`follow`)."""

    def __init__(self, image: NDArray[np.uint8], profile: BoardProfile, config: BumpConfig):
        if (image.shape[1], image.shape[0]) != profile.image_size:
            raise ValueError("the image size differs from the profile's")
        self.profile = profile
        self.config = config
        # Coarse to fine: a half-width alignment brings a knock of several per cent within
        # the reach of the full one (alone, that one stopped short on one bump in 40).
        widths = (config.width_px // 2, config.width_px)
        self._levels = [
            (grey, scale, ring_mask(profile, scale, config))
            for grey, scale in (_grey(image, width) for width in widths)
        ]

    def follow(self, image: NDArray[np.uint8]) -> BoardMove:
        """Where `image` puts the board: the anchor's picture aligned to it."""
        corners = np.array(self.profile.corners, np.float64)
        if (image.shape[1], image.shape[0]) != self.profile.image_size:
            return BoardMove(False, 0.0, 0.0, False, False, corners)
        warp = np.eye(3, dtype=np.float32)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, self.config.iterations, 1e-5)
        correlation, before = 0.0, 1.0
        for level, (grey, scale, mask) in enumerate(self._levels):
            # The coarser level's warp in this level's pixels.
            step = np.diag([scale / before, scale / before, 1.0]).astype(np.float32)
            start = (step @ warp @ np.linalg.inv(step)).astype(np.float32)
            now, _ = _grey(image, grey.shape[1])
            try:
                correlation, found = cv2.findTransformECC(
                    grey, now, start, cv2.MOTION_HOMOGRAPHY, criteria, mask, 5
                )
                warp = np.asarray(found, np.float32)
            except cv2.error:
                # ECC gives up when the pictures do not converge: the coarse level's failure
                # leaves the fine one to start from where the board was; the fine one's says
                # nothing.
                if level == len(self._levels) - 1:
                    return BoardMove(False, 0.0, 0.0, False, False, corners)
                warp = np.eye(3, dtype=np.float32)
            before = scale
        small = np.hstack([corners * before, np.ones((4, 1))]) @ np.float64(warp).T
        moved = small[:, :2] / small[:, 2:] / before
        move = float(np.linalg.norm(moved - corners, axis=1).max()) / self.profile.board_width_px()
        small_move = move <= self.config.move_frac
        if correlation < self.config.min_correlation:
            in_place = small_move and correlation >= self.config.min_in_place_correlation
            return BoardMove(False, float(correlation), move, False, in_place, corners)
        if small_move:
            return BoardMove(True, float(correlation), move, False, True, corners)
        return BoardMove(True, float(correlation), move, True, False, moved)


__all__ = ["BoardAnchor", "BoardMove", "ring_mask"]
