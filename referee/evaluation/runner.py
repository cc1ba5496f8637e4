"""Running a reader over a data set: decode, read, score, one image at a time.

Files that cannot be scored (unreadable image, broken label) are set aside as problems and the
run goes on. A reader that raises on an image is a reader failure, not a data problem: it is
reported too, and the image is scored as an empty reading, so crashing never improves a score.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import Dataset, Problem, load_truth, read_image
from referee.evaluation.metrics import ImageScore, Summary, score_image, summarize
from referee.evaluation.reading import BoardReader, ReadHints, Reading
from referee.evaluation.truth import TruthError

Progress = Callable[[int, int], None]
"""Called after each image with (images done, images in total)."""

DECODE_STAGE = "harness.decode"
READ_STAGE = "harness.read"
"""Harness stages: image decoding, and the wall time of the reader's `read` call."""

READER_STAGE_PREFIX = "reader."
"""Prefix of the reader's own stage names, so they cannot collide with the harness's."""


@dataclass(frozen=True)
class EvalResult:
    """One run: per-image scores, the totals, files not scored, and the reader's failures."""

    scores: tuple[ImageScore, ...]
    summary: Summary
    problems: tuple[Problem, ...]
    reader_failures: tuple[Problem, ...]


def evaluate(
    dataset: Dataset,
    reader: BoardReader,
    config: EvalConfig,
    progress: Progress | None = None,
    limit: int | None = None,
) -> EvalResult:
    """Score `reader` on the samples of `dataset` (the first `limit` of them, if given)."""
    samples = dataset.samples if limit is None else dataset.samples[:limit]
    scores: list[ImageScore] = []
    problems = list(dataset.problems)
    failures: list[Problem] = []
    for done, sample in enumerate(samples, start=1):
        start = time.perf_counter()
        image = read_image(sample.image_path)
        decoded = time.perf_counter()
        if image is None:
            problems.append(Problem(sample.name, "image cannot be read or decoded"))
        else:
            try:
                truth = load_truth(sample.label_path, dataset.format, image.shape)
            except TruthError as exc:
                problems.append(Problem(sample.name, f"bad label: {exc}"))
            else:
                hints = ReadHints(
                    image_path=sample.image_path,
                    variant=truth.variant,
                    roller=truth.roller,
                    roll_zone=truth.roll_zone,
                )
                read_start = time.perf_counter()
                try:
                    reading = reader.read(image, hints)
                except Exception as exc:  # any reader bug is reported, never a traceback
                    failures.append(Problem(sample.name, f"{type(exc).__name__}: {exc}"))
                    reading = Reading()
                read_ms = (time.perf_counter() - read_start) * 1e3
                timings = {DECODE_STAGE: (decoded - start) * 1e3, READ_STAGE: read_ms}
                timings |= {READER_STAGE_PREFIX + k: v for k, v in reading.timings_ms.items()}
                scores.append(score_image(sample.name, truth, reading, timings, config))
        if progress is not None:
            progress(done, len(samples))
    return EvalResult(
        scores=tuple(scores),
        summary=summarize(scores, config),
        problems=tuple(sorted(problems, key=lambda p: p.name)),
        reader_failures=tuple(failures),
    )
