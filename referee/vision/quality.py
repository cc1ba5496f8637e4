"""Whether the camera's picture of the board is large, sharp and well exposed enough to read.

The checkers survive a poor picture; the dice do not. On a generated tuning set a Gaussian
blur of 1.5 pixels, or the light doubled, cost a fifth of the flat dice's values, while the
boards barely changed (`scripts/bench_picture.py`; README, "Reading the board"). A referee
that misreads every throw on a badly focused camera and says nothing about it looks broken;
one that says "focus the camera" at calibration is set up in a minute. So the picture is
measured where the board is known to be, from its profile (`QualityConfig` holds the limits,
each set where no generated scene as made crosses it):

- **Size**: the playing surface's width in pixels. Generated scenes shrunk to put the board
  under about 300 pixels wide read their dice visibly worse.
- **Sharpness**: the points' sides are straight edges between a triangle and the field, and
  where they run there is nothing else (checkers stand on the points' bases, so only the
  outer part of each side is used). Across each side the grey level steps from one colour to
  the other; blurred by a Gaussian of width sigma, the steepest slope of a step of height h
  is h / (sigma * sqrt(2 pi)). The median over every side that shows a clear step is the
  picture's edge width, in pixels: what a blur would have to be to make it (0.76 px in the
  median generated scene as made; a blur added to it adds in quadrature).
- **Exposure**: the grey level of the lightest things on the playing surface (its 98th
  percentile: light checkers, a light field or points, the dice) and the share of it clipped
  white (a colour channel at its top). Boards differ: a navy felt with dark checkers is dark
  and a white-painted board up to 45 % clipped in a good picture, so only what no generated
  board shows in a good picture is called too dark or overexposed.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.board_finder import model_segments
from referee.vision.calibration import BoardProfile, CalibrationError
from referee.vision.config import QualityConfig

# Where along each point's side (0 at the base, 1 at the tip) the edge is sampled: past most
# rows of checkers, short of the tip where the two sides meet.
_ALONG = np.linspace(0.45, 0.85, 5)
# Across the edge: offsets (pixels) either side of where the profile puts it, allowing for a
# calibration a few pixels off, and the sampling step.
_REACH_PX = 6.0
_STEP_PX = 0.5
# A step's ends: the mean of this many samples at each end of the profile.
_END_SAMPLES = 3
_SQRT_2PI = math.sqrt(2 * math.pi)
# The exposure is sampled on this grid (columns, rows) over the playing surface.
_SURFACE_GRID = (96, 72)
# A colour channel this high is clipped; grey is the BGR pixels' weighted sum (OpenCV's).
_CLIPPED = 254
_LIGHT_PERCENTILE = 98
_GREY_WEIGHTS = np.array([0.114, 0.587, 0.299], np.float32)

PictureFault = Literal["small", "blurred", "overexposed", "dark"]


@dataclasses.dataclass(frozen=True)
class PictureQuality:
    """The picture of the board as measured: `board_px` the playing surface's width (pixels);
    `edge_px` the width (pixels, a Gaussian's sigma)
    of the points' sides, None where too few show a clear step; `edges` how many did;
    `light` the grey level (0-255) of the lightest things on the playing surface (its 98th
    percentile); `clipped` the share of it clipped white."""

    board_px: float
    edge_px: float | None
    edges: int
    light: float
    clipped: float

    def faults(self, config: QualityConfig) -> tuple[PictureFault, ...]:
        """What makes this picture unfit to read; empty where nothing does."""
        found: list[tuple[PictureFault, bool]] = [
            ("small", self.board_px < config.min_board_px),
            ("blurred", self.edge_px is not None and self.edge_px > config.max_edge_px),
            ("overexposed", self.clipped > config.max_clipped),
            ("dark", self.light < config.min_light),
        ]
        return tuple(fault for fault, there in found if there)

    def notes(self, config: QualityConfig) -> list[str]:
        """What to tell the player about this picture, a sentence per fault."""
        said: dict[PictureFault, str] = {
            "small": f"the board is only {self.board_px:.0f} px wide in the picture (under "
            f"{config.min_board_px:g} dice and checkers are misread): bring the camera closer "
            "or raise its resolution",
            "blurred": f"the picture is blurred (the board's edges {self.edge_px or 0.0:.1f} px "
            f"wide, over {config.max_edge_px:g}): focus the camera, or hold it still; dice are "
            "misread",
            "overexposed": f"the picture is overexposed ({self.clipped:.0%} of the board clipped "
            "white): less light or a shorter exposure; dice and checker colours are misread",
            "dark": f"the picture is too dark (the lightest things on the board at grey "
            f"{self.light:.0f}, under {config.min_light:g}): more light on the table or a "
            "longer exposure; dice are misread",
        }
        return [said[fault] for fault in self.faults(config)]


def measure_quality(
    image: NDArray[np.uint8], profile: BoardProfile, config: QualityConfig
) -> PictureQuality:
    """Measure the picture `image` (BGR) of the board `profile` places."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    widths = _edge_widths(grey, profile, config.min_step)
    enough = len(widths) >= config.min_edges
    pixels = _surface_pixels(image, profile)
    if not len(pixels):
        raise CalibrationError("the board profile puts the playing surface outside the picture")
    light = float(np.percentile(pixels.astype(np.float32) @ _GREY_WEIGHTS, _LIGHT_PERCENTILE))
    clipped = float(np.mean(pixels.max(axis=1) >= _CLIPPED))
    return PictureQuality(
        profile.board_width_px(),
        float(np.median(widths)) if enough else None,
        len(widths),
        light,
        clipped,
    )


def _surface_pixels(image: NDArray[np.uint8], profile: BoardProfile) -> NDArray[np.uint8]:
    """The BGR pixels (N, 3) under a grid of `_SURFACE_GRID` points over the playing surface
    (a sample: masking the whole surface made the check eight times as long)."""
    model = profile.model
    cols, rows = _SURFACE_GRID
    xs = (np.arange(cols) + 0.5) * model.width_mm / cols
    ys = (np.arange(rows) + 0.5) * model.depth_mm / rows
    mm = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    at = np.round(profile.board_to_image(mm)).astype(np.int64)
    height, width = image.shape[:2]
    seen = (at[:, 0] >= 0) & (at[:, 0] < width) & (at[:, 1] >= 0) & (at[:, 1] < height)
    return np.asarray(image[at[seen, 1], at[seen, 0]])


def _edge_widths(
    grey: NDArray[np.float32], profile: BoardProfile, min_step: float
) -> NDArray[np.float64]:
    """The edge width (pixels) across each sampled place of the points' sides that shows a
    clear step of at least `min_step` grey levels."""
    _, sides = model_segments(profile.model)
    ends = np.array(sides)  # (sides, 2 ends, 2)
    base, tip = ends[:, 0], ends[:, 1]
    along = base[:, None, :] + _ALONG[None, :, None] * (tip - base)[:, None, :]
    centres_mm = along.reshape(-1, 2)
    direction_mm = np.repeat(
        (tip - base) / np.linalg.norm(tip - base, axis=1, keepdims=True), len(_ALONG), axis=0
    )
    centres = profile.board_to_image(centres_mm)
    ahead = profile.board_to_image(centres_mm + direction_mm)
    tangent = ahead - centres
    normals = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
    offsets = np.arange(-_REACH_PX, _REACH_PX + _STEP_PX / 2, _STEP_PX)
    grid = centres[:, None, :] + offsets[None, :, None] * normals[:, None, :]
    height, width = grey.shape
    inside = np.all((grid >= 0) & (grid <= np.array([width - 1, height - 1])), axis=(1, 2))
    samples = cv2.remap(
        grey,
        np.ascontiguousarray(grid[..., 0], np.float32),
        np.ascontiguousarray(grid[..., 1], np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float64)
    step = np.abs(samples[:, -_END_SAMPLES:].mean(axis=1) - samples[:, :_END_SAMPLES].mean(axis=1))
    slope = np.abs(np.diff(samples, axis=1)).max(axis=1) / _STEP_PX
    # A clear step: tall enough, and the profile's full swing no more than the step (no other
    # edge, a checker's rim or a pip, inside the window).
    swing = samples.max(axis=1) - samples.min(axis=1)
    clear = inside & (step >= min_step) & (swing <= 1.2 * step)
    return np.asarray(step[clear] / (slope[clear] * _SQRT_2PI))
