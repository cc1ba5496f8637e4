"""How often a tilt reader calls real dice tilted: a check against overfitting the renderer.

    .venv/bin/python scripts/check_tilt_real.py [MODEL.onnx ...] [--real ../shared/real/dice]

The tilt reader (`models/dice_tilt.md`) learns mostly from generated scenes (up to run3 from
nothing else; run5 adds the real training splits' dice as flat). The real photos' test splits
(`../shared/real/dice`: d6-tray/test, webcam-desk/Valid; never copied here, never trained on)
show dice at rest on a table, nearly all lying flat, so the share of them a reader calls tilted
is a floor on its false alarms on real dice. Each labelled box is cut as the
reader cuts a die on a board (`crop_die`, 1.8 sides of a die as large as 0.8 of the box's
longer side), turned as if the camera stood beyond the photo's bottom edge
(`photographer_turn`), and read mirrored too (`TiltReader.tilted`) with a lean plane of
`--lean` die sides (the photos have no board to give one; 0.3 is the generated training crops'
median, and a reader trained on real crops with lean 0 learnt that lean 0 means flat). Prints,
per model, split and lean, the dice read, how many the reader calls tilted from 0.5, 0.6 and
0.7, and the median probability. Skips, saying so, without the photos.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.evaluation.truth import parse_yolo_dice
from referee.vision.dice_classifier import DEFAULT_TILT_MODEL, TiltReader, crop_die

SPLITS = ("d6-tray/test", "webcam-desk/Valid")
THRESHOLDS = (0.5, 0.6, 0.7)
# A labelled box holds the die's top face and some of its sides; the reader's crop on a board
# is sized by the top face.
BOX_TO_SIDE = 0.8


def photographer_turn(center: tuple[float, float], width: int, height: int) -> float:
    """The turn (`Lean.turn_deg`) that puts a die's seen side faces down in its crop, taking the
    camera's foot at the middle of the photo's bottom edge: the real sets are a webcam before a
    desk and a phone held over a tray, both from the near side."""
    return math.degrees(math.atan2(width / 2 - center[0], center[1] - height))


def real_dice(
    folder: Path,
) -> Iterator[tuple[NDArray[np.uint8], str, list[tuple[tuple[float, float], float, float]]]]:
    """Each labelled photo in `folder` (YOLO boxes): the image, its label's path, and each die's
    centre, side (`BOX_TO_SIDE` of the box's longer side) and turn (`photographer_turn`)."""
    for image_path in sorted(folder.glob("*.jpg")):
        image = cv2.imread(str(image_path))
        label = image_path.with_suffix(".txt")
        if image is None or not label.is_file():
            continue
        h, w = image.shape[:2]
        truth = parse_yolo_dice(label.read_text(encoding="utf-8"), w, h)
        dice = [
            (
                die.center,
                BOX_TO_SIDE * max(die.box.x1 - die.box.x0, die.box.y1 - die.box.y0),
                photographer_turn(die.center, w, h),
            )
            for die in truth.dice
        ]
        yield np.asarray(image, np.uint8), str(label), dice


def tilt_probabilities(reader: TiltReader, folder: Path, lean: float) -> np.ndarray:
    """The reader's probability that each labelled die in `folder` (YOLO boxes) is tilted, read
    with a lean plane of `lean` die sides."""
    out: list[float] = []
    for image, _, dice in real_dice(folder):
        crops = [crop_die(image, centre, side, turn_deg=turn) for centre, side, turn in dice]
        out += reader.tilted(crops, [lean] * len(crops)).tolist()
    return np.array(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, default=[DEFAULT_TILT_MODEL])
    parser.add_argument("--real", type=Path, default=Path("../shared/real/dice"))
    parser.add_argument("--lean", nargs="+", type=float, default=[0.0, 0.3], help="die sides")
    args = parser.parse_args(argv)
    folders = [args.real / split for split in SPLITS]
    if not all(folder.is_dir() for folder in folders):
        print(f"skipped: the real dice photos are not in {args.real}")
        return 0
    for model in args.models:
        reader = TiltReader(model)
        for split, folder in zip(SPLITS, folders, strict=True):
            for lean in args.lean:
                p = tilt_probabilities(reader, folder, lean)
                called = ", ".join(f"from {t}: {int((p >= t).sum())}" for t in THRESHOLDS)
                median = float(np.median(p))
                print(
                    f"{model} {split} lean {lean}: {len(p)} dice, called tilted {called}; "
                    f"median {median:.3f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
