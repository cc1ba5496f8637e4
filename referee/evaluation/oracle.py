"""Two readers for testing the harness itself: `oracle` and `perturbed`.

`oracle` reads the ground-truth label beside the image and reports it, so it must score 100 %.
`perturbed` does the same, then makes an exact, seeded number of mistakes (`Perturbation`), so
a test knows what every metric has to come out as. Neither looks at the pixels.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from referee.evaluation.basics import Color, Image, Pixel, RollVerdict, SideCounts
from referee.evaluation.dataset import FORMATS, LABEL_SUFFIX, load_truth
from referee.evaluation.readers import ReaderOptionError, parse_options
from referee.evaluation.reading import DieReading, PointReading, ReadHints, Reading
from referee.evaluation.truth import GroundTruth

# Far outside any image, so an invented die can never fall inside a true die's box.
NOWHERE: Pixel = (-1.0e6, -1.0e6)


def truth_beside(image_path: Path | None, image: Image) -> GroundTruth:
    """The ground truth in the label file beside `image_path` (scene JSON first, then YOLO)."""
    if image_path is None:
        raise ValueError("this reader needs hints.image_path to find the label beside the image")
    for fmt in FORMATS:
        label = image_path.with_suffix(LABEL_SUFFIX[fmt])
        if label.is_file():
            return load_truth(label, fmt, image.shape)
    raise FileNotFoundError(f"no label beside {image_path.name}")


def truth_to_reading(truth: GroundTruth) -> Reading:
    """What a perfect reader would report for `truth`."""
    board = truth.board
    return Reading(
        corners=None if board is None else board.corners,
        points=()
        if board is None
        else tuple(
            PointReading(p.base, p.tip, p.color, p.count, point=p.point) for p in board.points
        ),
        bar=None if board is None else board.bar,
        off=None if board is None else board.off,
        dice=tuple(
            DieReading(
                center=d.center,
                value=d.value,
                # YOLO labels do not record these; the photos' dice lie flat on their tables.
                flat=True if d.flat is None else d.flat,
                on_checker=bool(d.on_checker),
                on_board=True if d.on_board is None else d.on_board,
                half=d.half,
            )
            for d in truth.dice
        ),
        roll=truth.roll,
    )


class OracleReader:
    """Reports the ground truth beside each image: a perfect reader, to check the harness."""

    name = "oracle"

    def __init__(self, options: Mapping[str, str]) -> None:
        if options:
            raise ReaderOptionError("the oracle takes no options")

    def read(self, image: Image, hints: ReadHints) -> Reading:
        start = time.perf_counter()
        reading = truth_to_reading(truth_beside(hints.image_path, image))
        return replace(reading, timings_ms={"load_truth": (time.perf_counter() - start) * 1e3})


@dataclass(frozen=True)
class Perturbation:
    """The mistakes `perturbed` makes on every image (counts are capped by what exists).

    Attributes:
        seed: with the image's file name, picks which points and dice are hit and how.
        wrong_counts: points whose count is read one too high (an empty point as one white).
        wrong_colors: other, occupied points whose colour is swapped.
        missed_points: other points left out of the reading altogether.
        point_jitter_px: every point's base and tip moved this far in a random direction.
        corner_shift_px: every board corner moved this far in a random direction.
        wrong_bar: one white checker too many on the bar.
        wrong_off: one white checker too many borne off.
        wrong_dice: dice whose value is read as another face.
        missed_dice: other dice left out.
        extra_dice: dice invented far outside the image.
        wrong_verdict: a valid throw called cocked, a void one called valid.
        shuffle_points: report the points in random order, as a real reader may.
    """

    seed: int = 0
    wrong_counts: int = 0
    wrong_colors: int = 0
    missed_points: int = 0
    point_jitter_px: float = 0.0
    corner_shift_px: float = 0.0
    wrong_bar: bool = False
    wrong_off: bool = False
    wrong_dice: int = 0
    missed_dice: int = 0
    extra_dice: int = 0
    wrong_verdict: bool = False
    shuffle_points: bool = True


def perturb(reading: Reading, p: Perturbation, rng: np.random.Generator) -> Reading:
    """`reading` with the mistakes `p` describes, chosen with `rng`."""
    points = list(reading.points)
    order = [int(i) for i in rng.permutation(len(points))] if p.shuffle_points else None
    # Disjoint sets of victims, drawn in the order the fields are documented.
    free = [int(i) for i in rng.permutation(len(points))]
    wrong_count = _take(free, p.wrong_counts)
    wrong_color = _take([i for i in free if points[i].count > 0], p.wrong_colors)
    free = [i for i in free if i not in wrong_color]
    missed = set(_take(free, p.missed_points))
    new_points = []
    for i in order if order is not None else range(len(points)):
        pt = points[i]
        if i in missed:
            continue
        if i in wrong_count:
            pt = replace(pt, count=pt.count + 1, color=pt.color or "white")
        if i in wrong_color:
            pt = replace(pt, color=_other(pt.color))
        if p.point_jitter_px:
            pt = replace(
                pt,
                base=_shift(pt.base, p.point_jitter_px, rng),
                tip=_shift(pt.tip, p.point_jitter_px, rng),
            )
        new_points.append(pt)

    dice = list(reading.dice)
    free_dice = [int(i) for i in rng.permutation(len(dice))]
    wrong_value = _take(free_dice, p.wrong_dice)
    missed_dice = set(_take(free_dice, p.missed_dice))
    new_dice = []
    for i, d in enumerate(dice):
        if i in missed_dice:
            continue
        if i in wrong_value and d.value is not None:
            d = replace(d, value=(d.value - 1 + int(rng.integers(1, 6))) % 6 + 1)
        new_dice.append(d)
    new_dice += [DieReading(center=NOWHERE, value=1) for _ in range(p.extra_dice)]

    corners = reading.corners
    if corners is not None and p.corner_shift_px:
        c0, c1, c2, c3 = (_shift(c, p.corner_shift_px, rng) for c in corners)
        corners = (c0, c1, c2, c3)
    roll = reading.roll
    if roll is not None and p.wrong_verdict:
        roll = RollVerdict(False, "cocked") if roll.valid else RollVerdict(True, None)
    return replace(
        reading,
        corners=corners,
        points=tuple(new_points),
        bar=_one_more_white(reading.bar) if p.wrong_bar else reading.bar,
        off=_one_more_white(reading.off) if p.wrong_off else reading.off,
        dice=tuple(new_dice),
        roll=roll,
    )


class PerturbedReader:
    """The oracle with seeded, exactly counted mistakes (`--reader-option` sets `Perturbation`)."""

    name = "perturbed"

    def __init__(self, options: Mapping[str, str]) -> None:
        self.perturbation = parse_options(Perturbation, options)

    def read(self, image: Image, hints: ReadHints) -> Reading:
        start = time.perf_counter()
        truth = truth_beside(hints.image_path, image)
        loaded = time.perf_counter()
        # One stream per image, so the mistakes on an image do not depend on the run's order.
        name = "" if hints.image_path is None else hints.image_path.name
        rng = np.random.default_rng([self.perturbation.seed, zlib.crc32(name.encode())])
        reading = perturb(truth_to_reading(truth), self.perturbation, rng)
        done = time.perf_counter()
        return replace(
            reading,
            timings_ms={"load_truth": (loaded - start) * 1e3, "perturb": (done - loaded) * 1e3},
        )


def _take(pool: list[int], n: int) -> set[int]:
    """Remove and return the first `n` entries of `pool` (fewer if it runs out)."""
    taken = set(pool[:n])
    del pool[:n]
    return taken


def _other(color: Color | None) -> Color:
    return "black" if color == "white" else "white"


def _shift(p: Pixel, distance: float, rng: np.random.Generator) -> Pixel:
    angle = float(rng.uniform(0.0, 2.0 * math.pi))
    return (p[0] + distance * math.cos(angle), p[1] + distance * math.sin(angle))


def _one_more_white(counts: SideCounts | None) -> SideCounts:
    base = counts or SideCounts()
    return SideCounts(white=base.white + 1, black=base.black)
