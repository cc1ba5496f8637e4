"""The `vision` board reader for `referee eval`: this package's pipeline behind the harness's
`BoardReader` interface.

Options (`--reader-option KEY=VALUE`): `profile=FILE` reads every image with one saved board
profile instead of finding the board in each; `config=FILE` loads thresholds from a JSON file
(see `referee.vision.config`); `scale=F` (0 < F <= 1) reads each image shrunk by F, as a camera
of lower resolution (or one farther off) would see it, and puts the reading back on the
image's pixels to be scored (`profile` then is for the shrunk images).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np

from referee.evaluation.basics import Image, RollVerdict, SideCounts
from referee.evaluation.readers import ReaderOptionError
from referee.evaluation.reading import DieReading, PointReading, ReadHints, Reading
from referee.rules import Side, Variant, variant_from_name
from referee.vision.calibration import CalibrationError, load_profile
from referee.vision.config import load_config
from referee.vision.pipeline import ROLL_ZONES, Color, RollZone, VisionPipeline, VisionResult

_OPTIONS = ("profile", "config", "scale")


def hinted_variant(hints: ReadHints) -> Variant | None:
    """The game's variant the harness names (a scene's label), or None when it names none."""
    return variant_from_name(hints.variant) if hints.variant else None


def hinted_zone(hints: ReadHints) -> RollZone:
    """Where the throw's dice must lie: the zone the harness names, else short nardy's right
    half where the variant is short, else one half (long nardy's rule)."""
    if hints.roll_zone in ROLL_ZONES:
        return hints.roll_zone
    return "right_half" if hints.variant == "short" else "same_half"


def to_reading(result: VisionResult, roller: Color = "white") -> Reading:
    """The harness's `Reading` of a pipeline result (a board-less result gives only dice).

    A die's half is written as `roller` names it from its seat (the scene labels' and
    `referee read --json`'s convention); the pipeline's is White's seat.
    """
    side = Side.from_label(roller)
    corners = None
    if result.corners is not None:
        c = result.corners
        corners = (c[0], c[1], c[2], c[3])
    return Reading(
        corners=corners,
        points=tuple(
            PointReading(p.base, p.tip, p.color, p.count, p.confidence, p.point)
            for p in result.points
        ),
        bar=None if result.bar is None else SideCounts(result.bar["white"], result.bar["black"]),
        off=None if result.off is None else SideCounts(result.off["white"], result.off["black"]),
        dice=tuple(
            DieReading(
                d.center,
                d.value,
                d.flat,
                d.on_checker,
                d.on_board,
                None if d.half is None else d.half.seen_by(side).value,
            )
            for d in result.dice
        ),
        roll=None if result.corners is None else RollVerdict(result.roll.valid, result.roll.reason),
        timings_ms=dict(result.timings_ms),
    )


def scaled_reading(reading: Reading, factor: float) -> Reading:
    """`reading` with every pixel position (corners, points' bases and tips, dice) multiplied
    by `factor`."""

    def at(pixel: tuple[float, float]) -> tuple[float, float]:
        return (pixel[0] * factor, pixel[1] * factor)

    corners = reading.corners
    return dataclasses.replace(
        reading,
        corners=None
        if corners is None
        else (at(corners[0]), at(corners[1]), at(corners[2]), at(corners[3])),
        points=tuple(
            dataclasses.replace(p, base=at(p.base), tip=at(p.tip)) for p in reading.points
        ),
        dice=tuple(dataclasses.replace(d, center=at(d.center)) for d in reading.dice),
    )


class VisionReader:
    """Reads each image with the classical vision pipeline (see `referee/vision`)."""

    name = "vision"

    def __init__(self, options: Mapping[str, str]) -> None:
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ReaderOptionError(
                f"unknown option(s) {', '.join(unknown)}; accepted: {', '.join(_OPTIONS)}"
            )
        try:
            config = load_config(options.get("config"))
            profile = load_profile(Path(options["profile"])) if "profile" in options else None
        except (OSError, ValueError, CalibrationError) as exc:
            raise ReaderOptionError(str(exc)) from exc
        scale = options.get("scale", "1")
        try:
            self.scale = float(scale)
        except ValueError:
            self.scale = math.nan
        if not 0 < self.scale <= 1:
            raise ReaderOptionError(f"scale must be a number over 0 and at most 1, not {scale!r}")
        self.pipeline = VisionPipeline(config, profile)

    def read(self, image: Image, hints: ReadHints) -> Reading:
        if self.scale == 1:
            return self._read(image, hints)
        height, width = image.shape[:2]
        size = (max(1, round(width * self.scale)), max(1, round(height * self.scale)))
        shrunk = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
        return scaled_reading(self._read(shrunk, hints), width / size[0])

    def _read(self, image: Image, hints: ReadHints) -> Reading:
        if hints.variant is None and self.pipeline.profile is None:
            # No game context: a photo of dice alone (the real dice sets), not of a board.
            return to_reading(self.pipeline.read_dice_only(image))
        roller = hints.roller or "white"
        result = self.pipeline.read(
            image, roller, hinted_zone(hints), variant=hinted_variant(hints)
        )
        return to_reading(result, roller)
