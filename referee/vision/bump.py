"""The bump watch: has the board or the camera moved since the profile was made?

Cameras and boards get bumped, and a profile a centimetre off reads every point wrong. Looking
for the surface's border where the profile puts it (`board_finder.recheck`) cannot tell: a
raised rim hides the border from an oblique camera and checkers stand against it, so the
nearest edge is often several pixels off on a board that never moved. What does tell is the
picture itself: the frame and the points' bases look the same from one settling to the next
unless the board or the camera moved. So a picture of that ring round the border is kept
(`BoardAnchor`), and each later picture is aligned to it by ECC (`cv2.findTransformECC`, a
homography); the alignment carries the profile's corners to where the board is now. The table
is left out (a board knocked on it leaves it behind), and so are pixels that changed (a checker
set down at a point's base), which would pull the alignment off.
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
        aligned: whether the two pictures could be aligned (correlation high enough), at once
            or with the pixels that changed left out (`changed`).
        correlation: their correlation after the alignment (1: the same picture).
        move_frac: the largest distance a corner moved, as a share of the board's width (as
            the alignment put it, aligned or not).
        moved: aligned, and a corner moved more than `BumpConfig.move_frac`.
        in_place: no corner moved more than that, aligned, or nearly aligned
            (`BumpConfig.min_in_place_correlation`): the ring itself changed (a checker moved
            at a point's base, one borne off into the tray), not where it lies.
        changed: part of the ring changed since the picture was taken; it aligned only with
            those pixels left out.
        corners: the profile's corners (board order) where the board now lies (as they were
            unless it moved).
    """

    aligned: bool
    correlation: float
    move_frac: float
    moved: bool
    in_place: bool
    changed: bool
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


_Warp = NDArray[np.float32]


class BoardAnchor:
    """The ring round the board in `image`, taken when `profile` is known to fit it, and the
    look that finds where a later picture puts the board (`follow`)."""

    def __init__(self, image: NDArray[np.uint8], profile: BoardProfile, config: BumpConfig):
        if not profile.fits_image(image):
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
        grey, _, mask = self._levels[-1]
        self._ring = mask > 0
        self._smooth = cv2.GaussianBlur(grey, (5, 5), 0)
        ring = self._smooth[self._ring]
        self._ring_mean, self._ring_std = float(ring.mean()), float(ring.std())
        gradient = np.hypot(
            cv2.Sobel(self._smooth, cv2.CV_32F, 1, 0), cv2.Sobel(self._smooth, cv2.CV_32F, 0, 1)
        )
        self._edges = np.where(self._ring, gradient, 0.0)
        self._edge_total = float(self._edges.sum())

    def follow(self, image: NDArray[np.uint8]) -> BoardMove:
        """Where `image` puts the board: the anchor's picture aligned to it."""
        corners = np.array(self.profile.corners, np.float64)
        if not self.profile.fits_image(image):
            return BoardMove(False, 0.0, 0.0, False, False, False, corners)
        correlation, warp, now = self._align(image)
        scale = self._levels[-1][1]
        changed = correlation < self.config.min_correlation
        if changed:
            # A checker moved at a point's base pulls an alignment of the whole ring a per cent
            # or so off: tried again with the pixels that differ there left out, and with those
            # that differ where the board was.
            starts = [np.eye(3, dtype=np.float32)] + ([warp] if warp is not None else [])
            tries = [found for found in (self._align_unchanged(now, s) for s in starts) if found]
            if tries:
                correlation, warp = max(tries, key=lambda found: found[0])
        elif warp is not None and self._unchanged(now, warp) is None:
            # Aligned, but with too many of the ring's edges differing: the same pull, with
            # the correlation still high.
            correlation = 0.0
        if warp is None:
            return BoardMove(False, 0.0, 0.0, False, False, False, corners)
        small = np.hstack([corners * scale, np.ones((4, 1))]) @ np.float64(warp).T
        moved = small[:, :2] / small[:, 2:] / scale
        move = float(np.linalg.norm(moved - corners, axis=1).max()) / self.profile.board_width_px()
        small_move = move <= self.config.move_frac
        if correlation < self.config.min_correlation:
            in_place = small_move and correlation >= self.config.min_in_place_correlation
            return BoardMove(False, float(correlation), move, False, in_place, False, corners)
        if small_move:
            return BoardMove(True, float(correlation), move, False, True, changed, corners)
        return BoardMove(True, float(correlation), move, True, False, changed, moved)

    def _align(self, image: NDArray[np.uint8]) -> tuple[float, _Warp | None, NDArray[np.float32]]:
        """The ECC alignment of the anchor's picture with `image`, coarse to fine: the
        correlation and the warp at the finest level (None when that one failed), and `image`
        as that level compares it."""
        warp = np.eye(3, dtype=np.float32)
        correlation, before = 0.0, 1.0
        for level, (grey, scale, mask) in enumerate(self._levels):
            # The coarser level's warp in this level's pixels.
            step = np.diag([scale / before, scale / before, 1.0]).astype(np.float32)
            start = (step @ warp @ np.linalg.inv(step)).astype(np.float32)
            now, _ = _grey(image, grey.shape[1])
            found = self._ecc(grey, now, start, mask)
            if found is not None:
                correlation, warp = found
            elif level == len(self._levels) - 1:
                # The coarse level's failure leaves the fine one to start from where the board
                # was; the fine one's says nothing.
                return 0.0, None, now
            else:
                warp = np.eye(3, dtype=np.float32)
            before = scale
        return correlation, warp, now

    def _ecc(
        self,
        grey: NDArray[np.float32],
        now: NDArray[np.float32],
        start: _Warp,
        mask: NDArray[np.uint8],
    ) -> tuple[float, _Warp] | None:
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, self.config.iterations, 1e-5)
        try:
            correlation, found = cv2.findTransformECC(
                grey, now, start, cv2.MOTION_HOMOGRAPHY, criteria, mask, 5
            )
        except cv2.error:
            # ECC gives up when the pictures do not converge.
            return None
        return float(correlation), np.asarray(found, np.float32)

    def _unchanged(self, now: NDArray[np.float32], warp: _Warp) -> NDArray[np.bool_] | None:
        """The ring's pixels that look the same in `now` aligned by `warp` (the two matched in
        brightness and contrast, as ECC's correlation is), if they hold enough of the ring's
        edges (`BumpConfig.min_kept_edges`) to tell where it lies."""
        size = (self._smooth.shape[1], self._smooth.shape[0])
        blurred = cv2.GaussianBlur(now, (5, 5), 0)
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        there = cv2.warpPerspective(blurred, warp, size, flags=flags)
        b = there[self._ring]
        matched = (there - b.mean()) / (b.std() + 1e-6) * self._ring_std + self._ring_mean
        differ = (np.abs(self._smooth - matched) > self.config.changed_grey).astype(np.uint8)
        grow = 2 * round(self.config.changed_grow_frac * size[0]) + 1
        differ = cv2.dilate(differ, np.ones((grow, grow), np.uint8))
        kept = np.asarray(self._ring & (differ == 0), np.bool_)
        if self._edges[kept].sum() < self.config.min_kept_edges * self._edge_total:
            return None
        return kept

    def _align_unchanged(
        self, now: NDArray[np.float32], start: _Warp
    ) -> tuple[float, _Warp] | None:
        """The fine alignment from `start` with the pixels that differ there left out."""
        kept = self._unchanged(now, start)
        if kept is None:
            return None
        grey, _, _ = self._levels[-1]
        return self._ecc(grey, now, start, kept.astype(np.uint8) * 255)


@dataclasses.dataclass(frozen=True)
class ProfileCheck:
    """`referee calibrate --check`: does the profile still fit a new frame?

    Attributes:
        fits: the board lies where the profile says.
        look: what the comparison with the profile's picture found.
        profile: the profile that fits the frame: as it was, or followed to where a knock
            moved the board; None when the board could not be followed.
        message: the answer in words.
    """

    fits: bool
    look: BoardMove
    profile: BoardProfile | None
    message: str


def check_profile(
    image: NDArray[np.uint8],
    profile: BoardProfile,
    picture: NDArray[np.uint8],
    config: BumpConfig,
) -> ProfileCheck:
    """Whether `profile`, made from `picture`, still fits `image`, by the bump watch's look."""
    if not profile.fits_image(image):
        raise ValueError("the image size differs from the profile's")
    look = BoardAnchor(picture, profile, config).follow(image)
    width = f"{look.move_frac:.1%} of the board's width"
    if look.moved:
        followed = profile.with_corners(look.corners, "followed after a knock")
        return ProfileCheck(False, look, followed, f"board moved {width} since calibration")
    if look.aligned:
        message = f"board in place (moved {width}; correlation {look.correlation:.3f})"
        return ProfileCheck(True, look, profile, message)
    if look.in_place:
        message = (
            f"board in place (moved {width}); the ring round its border changed since"
            f" calibration (correlation {look.correlation:.3f}): checkers or dice at its edge"
        )
        return ProfileCheck(True, look, profile, message)
    message = (
        f"the frame does not match the calibration picture round the board's border"
        f" (correlation {look.correlation:.3f}): the board moved far or something covers its"
        " border; calibrate again"
    )
    return ProfileCheck(False, look, None, message)


__all__ = ["BoardAnchor", "BoardMove", "ProfileCheck", "check_profile", "ring_mask"]
