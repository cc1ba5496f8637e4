"""Finding dice by their pips, reading their values, and placing them on the board.

Classical pip counting on the camera image. Pips are small round spots much darker (on light
dice) or lighter (on dark dice) than the face round them; a morphological black-hat and top-hat
sized to the expected pip bring them out, and connected components of the right size and shape
are kept (`find_pips`). Pips of one die are joined when they are close (under `group_distance`
die sides) and the straight path between them crosses only die face, not a gap or an edge
(`group_pips`). A group is a die; its value is its number of round pips (a tilted side face's
pips are flattened and not counted), its centre the middle of those pips.

The die's size in pixels comes from the board profile (dice are about `BoardModel.die_mm` wide);
without a profile (photos of dice alone) a few sizes are tried and the one that explains the
pips best is kept.

Where a learned detector is needed: pips under 3 pixels across (a die under ~18 px), motion
blur (a rolling die shows no pips; it is reported as missing), dice touching each other with
the same colour, and telling a cocked die from a flat one (done here only from the shape of
the pip pattern, which is weak).
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray
from referee.vision.config import DiceConfig


@dataclasses.dataclass(frozen=True)
class Pip:
    """One pip candidate: centre (x, y), diameter in pixels, elongation, contrast, polarity
    (+1 dark pip on a light face, -1 light pip on a dark face), the face's grey level."""

    x: float
    y: float
    diameter: float
    elongation: float
    contrast: float
    polarity: int
    face: float


@dataclasses.dataclass(frozen=True)
class DieSeen:
    """A die found in the image: where, its value (None when unreadable), pips, and shape.

    `center` is the middle of its top face's pips; `side_px` the die size the search assumed;
    `flat` False when the pip pattern does not fit a face seen from above; `score` how sure the
    detection is (higher is surer), used to keep the two best when more groups are found.
    """

    center: tuple[float, float]
    value: int | None
    pips: tuple[Pip, ...]
    side_px: float
    flat: bool
    score: float


def _grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)


def find_pips(
    grey: NDArray[np.uint8],
    pip_px: float,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
) -> list[Pip]:
    """Pip candidates of about `pip_px` diameter, dark and light, optionally inside `mask`.

    A pip is a local peak of the black-hat (dark pips) or top-hat (light pips) response, at
    least `min_pip_contrast` strong; neighbouring pips of a five or six blur into each other at
    small sizes, so peaks are used rather than connected blobs. The face's grey level round
    the peak (median of a ring one pip diameter out) is kept for grouping.
    """
    size = max(3, round(pip_px * 2.2) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    peak_size = max(3, round(pip_px * 0.9) | 1)
    peak_kernel = np.ones((peak_size, peak_size), np.uint8)
    theta = np.linspace(0.0, 2 * math.pi, 12, endpoint=False)
    ring = np.stack([np.cos(theta), np.sin(theta)], axis=1) * max(pip_px * 1.1, 2.0)
    smooth = cv2.GaussianBlur(grey, (3, 3), 0)
    h, w = grey.shape
    pips: list[Pip] = []
    for polarity, op in ((1, cv2.MORPH_BLACKHAT), (-1, cv2.MORPH_TOPHAT)):
        response = cv2.morphologyEx(smooth, op, kernel)
        peaks = (response >= config.min_pip_contrast) & (
            response == cv2.dilate(response, peak_kernel)
        )
        if mask is not None:
            peaks &= mask.astype(bool)
        # A flat-topped peak is several touching pixels: one pip at their centre.
        peak_mask = np.asarray(peaks, dtype=np.uint8)
        count, _, _, centroids = cv2.connectedComponentsWithStats(peak_mask, connectivity=8)
        if count <= 1:
            continue
        xs = np.clip(np.round(centroids[1:, 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(centroids[1:, 1]).astype(int), 0, h - 1)
        # Keep spots, drop ridges (a triangle's edge, a checker's rim): both curvatures of the
        # response must be strong, as for SIFT's edge test.
        r = cv2.GaussianBlur(response.astype(np.float32), (0, 0), max(pip_px / 3, 0.8))
        dxx = cv2.Sobel(r, cv2.CV_32F, 2, 0, ksize=3)[ys, xs]
        dyy = cv2.Sobel(r, cv2.CV_32F, 0, 2, ksize=3)[ys, xs]
        dxy = cv2.Sobel(r, cv2.CV_32F, 1, 1, ksize=3)[ys, xs]
        det = dxx * dyy - dxy * dxy
        trace = dxx + dyy
        ratio = config.pip_max_ridge
        spot = (det > 0) & (trace * trace < det * (ratio + 1) ** 2 / ratio)
        ys, xs = ys[spot], xs[spot]
        if len(xs) == 0:
            continue
        pts = np.stack([xs, ys], axis=1)[:, None, :] + ring[None]
        rx = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        ry = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        face = np.median(smooth[ry, rx].astype(np.float64), axis=1)
        strength = response[ys, xs].astype(np.float64)
        for x, y, f, c in zip(xs, ys, face, strength, strict=True):
            pips.append(Pip(float(x), float(y), pip_px, 1.0, float(c), polarity, float(f)))
    return pips


def _elongation(blob: NDArray[np.bool_]) -> float:
    """Ratio of a blob's principal axes (1 for a round blob)."""
    ys, xs = np.nonzero(blob)
    if len(xs) < 3:
        return 1.0
    cov = np.cov(np.stack([xs, ys]).astype(np.float64))
    eig = np.linalg.eigvalsh(cov + np.eye(2) * 0.08)
    return float(math.sqrt(eig[1] / eig[0]))


def group_pips(
    grey: NDArray[np.uint8], pips: list[Pip], side_px: float, config: DiceConfig
) -> list[list[Pip]]:
    """Pips gathered into dice, greedily: the pip with the most pip strength within reach
    (`group_distance_frac` die sides) seeds a die; the die takes the pips of its polarity
    within half a side of their common centre (six at most), and they are removed."""
    groups: list[list[Pip]] = []
    reach = config.group_distance_frac * side_px
    for polarity in (1, -1):
        chosen = [p for p in pips if p.polarity == polarity]
        if not chosen:
            continue
        xy = np.array([[p.x, p.y] for p in chosen])
        strength = np.array([p.contrast for p in chosen])
        alive = np.ones(len(chosen), dtype=bool)
        while alive.any():
            idx = np.nonzero(alive)[0]
            d = np.linalg.norm(xy[idx][:, None, :] - xy[idx][None, :, :], axis=2)
            support = ((d <= reach) * strength[idx][None, :]).sum(axis=1)
            seed = idx[int(np.argmax(support))]
            near = idx[np.linalg.norm(xy[idx] - xy[seed], axis=1) <= reach]
            centre = xy[near].mean(axis=0)
            member = idx[np.linalg.norm(xy[idx] - centre, axis=1) <= 0.5 * side_px]
            if seed not in member:
                member = np.append(member, seed)
            member = member[np.argsort(-strength[member])][:6]
            groups.append([chosen[int(k)] for k in member])
            alive[member] = False
    return groups


def _read_group(group: list[Pip], side_px: float, config: DiceConfig) -> DieSeen | None:
    """A die from a group of pips, or None when the group cannot be one die's face.

    More than six pips, or pips spread over more than a die, are texture or a board edge (or
    dice touching, which this reader cannot part). The score favours several strong pips.
    """
    xs = np.array([p.x for p in group])
    ys = np.array([p.y for p in group])
    extent = float(max(np.ptp(xs), np.ptp(ys)))
    if extent > config.max_extent_frac * side_px:
        return None
    contrast = np.array([p.contrast for p in group])
    # A face's pips are equally strong; edge artefacts mix strong and faint peaks.
    evenness = float(contrast.min() / contrast.max())
    score = float(contrast.mean()) * (1 + 0.5 * (len(group) - 1)) * (0.5 + 0.5 * evenness)
    flat = extent <= config.flat_max_size_ratio * 0.6 * side_px
    return DieSeen(
        (float(xs.mean()), float(ys.mean())), len(group), tuple(group), side_px, flat, score
    )


def find_dice(
    image: NDArray[np.uint8],
    side_px: float,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
) -> list[DieSeen]:
    """Dice of about `side_px` in `image` (BGR or grey), optionally only inside `mask`."""
    grey = _grey(image)
    pip_px = max(2.0, config.pip_diameter_frac * side_px)
    pips = find_pips(grey, pip_px, config, mask)
    dice = []
    for group in group_pips(grey, pips, side_px, config):
        die = _read_group(group, side_px, config)
        if die is not None:
            dice.append(die)
    return dice


def find_dice_any_size(image: NDArray[np.uint8], config: DiceConfig) -> list[DieSeen]:
    """Dice in a photo with no board profile: the die size that reads most pips into valid
    faces (one to six pips each) wins."""
    short = min(image.shape[:2])
    base = config.die_px_no_profile * short
    lo, hi = config.scale_range
    best: tuple[float, list[DieSeen]] = (-1.0, [])
    for factor in np.geomspace(lo, hi, 5):
        dice = find_dice(image, float(base * factor), config)
        explained = sum(len(d.pips) for d in dice if d.value is not None and d.flat)
        if explained > best[0]:
            best = (float(explained), dice)
    return best[1]


def box_of(die: DieSeen) -> FloatArray:
    """An axis-aligned box [x0, y0, x1, y1] one die side wide round the die's centre."""
    h = die.side_px / 2
    x, y = die.center
    return np.array([x - h, y - h, x + h, y + h])
