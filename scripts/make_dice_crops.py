"""Cut labelled die crops for training the dice classifier (`models/dice_value.md`).

Sources, never the held-out sets: generated scene folders (`referee scenes make`, JSON labels)
and real photo folders in YOLO dice form (class = value - 1), given by the caller. Each die is
cut several times with the centre, scale and angle jittered the way run-time localisation errs,
turned as the reader turns it (`referee.vision.dice_classifier.Lean`, from the label's camera);
the crops the classical candidate finders produce are added too (labelled by the truth box
they fall in, or `none` when they fall in no die), plus random background crops as `none`.

    .venv/bin/python scripts/make_dice_crops.py --scenes out/train/throws21 \
        --out out/train/crops_throws21.npz
    .venv/bin/python scripts/make_dice_crops.py --yolo ../shared/real/dice/d6-tray/train \
        ../shared/real/dice/webcam-desk/Train --out out/train/crops_real.npz
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.checker_truth import label_profile
from referee.vision.config import DiceConfig
from referee.vision.dice import LeanAt, find_dice, find_dice_on_plain
from referee.vision.dice_classifier import (
    CLASSES,
    COCKED,
    CROP_PX,
    NONE,
    ROLLING,
    STRAIGHT_DOWN,
    crop_die,
)
from referee.vision.geometry import BoardModel
from referee.vision.pipeline import die_lean

Box = tuple[float, float, float, float]
# Candidates are proposed by the classical finders alone, with a lower pip contrast than their
# default so that the negatives cover the faint spots the model-checked reader proposes.
CANDIDATES = DiceConfig(min_pip_contrast=18.0, use_model=False)
# How many of an image's candidates, strongest first, become crops: more than the reader's
# `model_max_candidates`, so that checker rings, triangle tips and table texture that outrank
# the dice on an image without a throw are learnt as "no die".
CANDIDATES_PER_IMAGE = 32
RUNTIME_DIE_MM = BoardModel().die_mm


@dataclass
class Cutter:
    """Cuts `size_px` training crops the way the reader cuts them at run time (turned by the
    spot's `Lean` where the camera is known) and keeps them with their class, source image and
    lean (`Lean.sides`)."""

    rng: np.random.Generator
    size_px: int
    crops: list[NDArray[np.uint8]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    leans: list[float] = field(default_factory=list)

    def add(
        self,
        image: NDArray[np.uint8],
        center: tuple[float, float],
        side: float,
        label: int,
        name: str,
        lean: LeanAt | None,
        shift: float = 0.25,
    ) -> None:
        """One crop of `image` at `center`, moved by up to `shift` sides, scaled 0.8-1.25 and
        turned: by the lean's turn give or take 10 degrees where the camera is known, by up to
        45 degrees either way where it is not (the reader then turns nothing)."""
        rng = self.rng
        s = side * float(rng.uniform(0.8, 1.25))
        c = (
            center[0] + rng.uniform(-shift, shift) * side,
            center[1] + rng.uniform(-shift, shift) * side,
        )
        how = STRAIGHT_DOWN if lean is None else lean([c])[0]
        spread = 45.0 if lean is None else 10.0
        angle = how.turn_deg + float(rng.uniform(-spread, spread))
        self.crops.append(crop_die(image, c, s, self.size_px, turn_deg=angle))
        self.labels.append(label)
        self.images.append(name)
        self.leans.append(how.sides)

    def add_image(
        self,
        image: NDArray[np.uint8],
        dice: list[tuple[Box, int, float]],
        candidates: list[tuple[tuple[float, float], float]],
        copies: int,
        name: str,
        lean: LeanAt | None,
    ) -> None:
        """Crops of image `name`: `copies` jittered crops per die (box, class, side), the
        candidate crops (centre, side) labelled by the truth, and as many random background
        crops as dice."""
        for box, cls, side in dice:
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            for _ in range(copies):
                self.add(image, centre, side, cls, name, lean)
        boxes = [(box, cls) for box, cls, _ in dice]
        for centre, side in candidates[:CANDIDATES_PER_IMAGE]:
            cls = label_of(centre, boxes)
            if cls is not None:
                self.add(image, centre, side, cls, name, lean, shift=0.1)
        h, w = image.shape[:2]
        side = float(np.median([d[2] for d in dice])) if dice else 0.05 * min(h, w)
        for _ in range(max(2, len(dice))):
            p = (float(self.rng.uniform(0, w)), float(self.rng.uniform(0, h)))
            if label_of(p, boxes) == NONE:
                self.add(image, p, side, NONE, name, lean)


def inside(p: tuple[float, float], box: Box, grow: float) -> bool:
    """Whether `p` lies in `box` grown by `grow` of its size on every side."""
    x0, y0, x1, y1 = box
    gx, gy = grow * (x1 - x0), grow * (y1 - y0)
    return x0 - gx <= p[0] <= x1 + gx and y0 - gy <= p[1] <= y1 + gy


def label_of(p: tuple[float, float], dice: list[tuple[Box, int]]) -> int | None:
    """The class of the die whose box holds `p`; NONE far from all; None when near one (an
    ambiguous crop, left out)."""
    for box, cls in dice:
        if inside(p, box, 0.0):
            return cls
    if any(inside(p, box, 0.6) for box, _ in dice):
        return None
    return NONE


def scene_images(folder: Path, cutter: Cutter) -> None:
    """Crops from a generated scene folder, turned by the lean the label's board and camera
    give (the reader takes it from its profile)."""
    for label in sorted(folder.glob("*.json")):
        if label.name == "manifest.json":
            continue
        truth = json.loads(label.read_text(encoding="utf-8"))
        image = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
        dice = []
        for d in truth["dice"]:
            box = tuple(d["box"])
            cls = ROLLING if d["rolling"] else (d["value"] - 1 if d["flat"] else COCKED)
            # The box holds the whole cube; its top face, which the reader sizes, is smaller.
            side = 0.85 * min(box[2] - box[0], box[3] - box[1])
            if cls == ROLLING:
                side = 0.85 * float(np.sqrt((box[2] - box[0]) * (box[3] - box[1])) / 1.5)
            dice.append((box, cls, side))
        sides = [s for _, c, s in dice if c != ROLLING] or [20.0]
        # The reader sizes its search by the profile's die size (`BoardModel.die_mm`), not by
        # the dice on the table: propose candidates the way it does.
        sizes = [d["size_mm"] for d in truth["dice"] if not d["rolling"]] or [RUNTIME_DIE_MM]
        side = float(np.median(sides)) * RUNTIME_DIE_MM / float(np.median(sizes))
        found = find_dice(image, side, CANDIDATES)
        candidates = [(d.center, side) for d in sorted(found, key=lambda d: -d.score)]
        lean = die_lean(label_profile(truth))
        cutter.add_image(image, dice, candidates, 6, str(label), lean)


def yolo_images(folder: Path, cutter: Cutter) -> None:
    """Crops from a real photo folder with YOLO dice labels (no camera known: no lean)."""
    for label in sorted(folder.glob("*.txt")):
        if label.name == "classes.txt" or not label.with_suffix(".jpg").is_file():
            continue
        image = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
        h, w = image.shape[:2]
        dice = []
        for row in label.read_text(encoding="utf-8").split("\n"):
            if not row.strip():
                continue
            c, cx, cy, bw, bh = (float(v) for v in row.split())
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            dice.append((box, int(c), max(bw * w, bh * h)))
        found = find_dice_on_plain(image, CANDIDATES)
        candidates = [(d.center, d.side_px) for d in found]
        copies = 3 if len(dice) > 6 else 5
        cutter.add_image(image, dice, candidates, copies, str(label), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--yolo", nargs="*", default=[], type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--crop-px", type=int, default=CROP_PX, help="crop side (the model's input size)"
    )
    args = parser.parse_args()
    cutter = Cutter(np.random.default_rng(args.seed), args.crop_px)
    sources: list[int] = []
    for k, folder in enumerate([*args.scenes, *args.yolo]):
        before = len(cutter.labels)
        (scene_images if folder in args.scenes else yolo_images)(folder, cutter)
        part = cutter.labels[before:]
        sources += [k] * len(part)
        counts = np.bincount(part, minlength=len(CLASSES))
        print(folder, len(part), dict(zip(CLASSES, counts.tolist(), strict=True)), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        x=np.stack(cutter.crops),
        y=np.array(cutter.labels, np.int64),
        lean=np.array(cutter.leans, np.float32),
        source=np.array(sources),
        image=np.array(cutter.images),
    )
    print("wrote", args.out, len(cutter.labels))


if __name__ == "__main__":
    main()
