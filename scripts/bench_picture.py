"""A worse picture of the board: how much of a reading it costs, and whether the referee says
so (`referee.vision.quality`).

    .venv/bin/python scripts/bench_picture.py --scenes out/r/tune61 [--limit N]

Each generated scene (`referee scenes make`) is read as it is, and then blurred (a Gaussian of
1 to 3 px), darkened or brightened (every pixel times 0.3 to 2, clipped), and shrunk (to a
quarter to a half of its width, as a camera of lower resolution or farther off would see it).
Each picture is read with its label's board profile (its true corners and lens, shrunk with
it: `checker_truth.label_profile`), so the picture alone changes, not where the board is
found, and scored with the evaluation harness (a shrunk picture's reading put back on the
scene's pixels). Prints per picture: boards exactly right, flat dice's values right, throw
verdicts right, and how many of the pictures the quality check calls unfit to read (the notes
`referee read` and `referee calibrate` give), for every scene and for those without a hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import load_truth
from referee.evaluation.metrics import ImageScore, score_image
from referee.evaluation.reading import ReadHints
from referee.vision.calibration import BoardProfile
from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.pipeline import VisionPipeline
from referee.vision.reader import hinted_variant, hinted_zone, scaled_reading, to_reading

Image = NDArray[np.uint8]


@dataclasses.dataclass(frozen=True)
class Picture:
    """One way to spoil a picture: `change` makes it, `scale` is how much it shrinks."""

    name: str
    change: Callable[[Image], Image]
    scale: float = 1.0


def _blurred(sigma: float) -> Picture:
    return Picture(
        f"blurred {sigma:g} px", lambda im: np.asarray(cv2.GaussianBlur(im, (0, 0), sigma))
    )


def _lit(gain: float) -> Picture:
    return Picture(
        f"light x {gain:g}",
        lambda im: np.clip(im.astype(np.float32) * gain, 0, 255).astype(np.uint8),
    )


def _shrunk(scale: float) -> Picture:
    def change(im: Image) -> Image:
        size = (round(im.shape[1] * scale), round(im.shape[0] * scale))
        return np.asarray(cv2.resize(im, size, interpolation=cv2.INTER_AREA))

    return Picture(f"shrunk to {scale:g}", change, scale)


PICTURES = (
    [Picture("as made", lambda im: im)]
    + [_blurred(s) for s in (1.0, 1.5, 2.0, 3.0)]
    + [_lit(g) for g in (0.3, 0.4, 0.5, 1.5, 2.0)]
    + [_shrunk(s) for s in (0.25, 0.375, 0.5)]
)


def shrunk_profile(profile: BoardProfile, scale: float) -> BoardProfile:
    """`profile` for its picture shrunk by `scale` (corners and the lens's focal length and
    centre with it; the distortion is in normalised units and stays)."""
    if scale == 1.0:
        return profile
    (fx, s, cx), (_, fy, cy), last = profile.lens.K
    k = ((fx * scale, s * scale, cx * scale), (0.0, fy * scale, cy * scale), last)
    lens = dataclasses.replace(profile.lens, K=k)
    width, height = profile.image_size
    return dataclasses.replace(
        profile,
        image_size=(round(width * scale), round(height * scale)),
        corners=tuple((x * scale, y * scale) for x, y in profile.corners),
        lens=lens,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", required=True, type=Path, help="a folder of generated scenes")
    parser.add_argument("--limit", type=int, default=0, help="only the first N scenes")
    args = parser.parse_args()
    labels = sorted(args.scenes.glob("*.json"))
    if args.limit:
        labels = labels[: args.limit]
    config = VisionConfig()
    eval_config = EvalConfig()
    rows: dict[str, list[tuple[ImageScore, bool]]] = {p.name: [] for p in PICTURES}
    for label_path in labels:
        label = json.loads(label_path.read_text(encoding="utf-8"))
        image = np.asarray(cv2.imread(str(label_path.with_suffix(".jpg")), cv2.IMREAD_COLOR))
        truth = load_truth(label_path, "scene", image.shape)
        roll = label.get("roll") or {}
        hints = ReadHints(None, label.get("variant"), roll.get("roller"), roll.get("roll_zone"))
        roller = hints.roller or "white"
        as_made = label_profile(label)
        for picture in PICTURES:
            profile = shrunk_profile(as_made, picture.scale)
            seen = np.ascontiguousarray(picture.change(image))
            result = VisionPipeline(config, profile).read(
                seen, roller, hinted_zone(hints), variant=hinted_variant(hints)
            )
            reading = scaled_reading(to_reading(result, roller), 1.0 / picture.scale)
            score = score_image(label_path.stem, truth, reading, {}, eval_config)
            # The read measured the picture (`VisionResult.picture`).
            unfit = result.picture is not None and bool(result.picture.faults(config.quality))
            rows[picture.name].append((score, unfit))
    print(f"{len(labels)} scenes of {args.scenes}, read with their labels' profiles")
    print(
        f"{'picture':<18} {'boards right':>14} {'flat dice right':>16} {'verdicts right':>15} "
        f"{'called unfit':>13}   {'the same, no hand':>40}"
    )
    for picture in PICTURES:
        scored = rows[picture.name]
        plain = [(s, u) for s, u in scored if not s.hand]
        print(f"{picture.name:<18} {_figures(scored)}   {_figures(plain)}")


def _figures(scored: list[tuple[ImageScore, bool]]) -> str:
    boards = [s.board.exact for s, _ in scored if s.board is not None]
    flat = [d.value_right for s, _ in scored for d in s.dice.dice if d.truth_flat]
    verdicts = [s.roll.truth == s.roll.predicted for s, _ in scored if s.roll is not None]
    unfit = [u for _, u in scored]
    return " ".join(
        f"{sum(values):>6}/{len(values):<6}" for values in (boards, flat, verdicts, unfit)
    )


if __name__ == "__main__":
    main()
