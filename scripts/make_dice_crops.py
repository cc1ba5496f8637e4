"""Cut labelled die crops for training the dice classifier (`models/dice_value.md`).

Sources, never the held-out sets: generated scene folders (`referee scenes make`, JSON labels)
and real photo folders in YOLO dice form (class = value - 1), given by the caller. Each die is
cut several times with the centre, scale and angle jittered the way run-time localisation errs;
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
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.config import DiceConfig
from referee.vision.dice import find_dice, find_dice_on_plain
from referee.vision.dice_classifier import CLASSES, COCKED, CROP_SIDES, NONE, ROLLING, crop_die
from referee.vision.geometry import BoardModel

Box = tuple[float, float, float, float]
# Candidates are proposed by the classical finders alone, with a lower pip contrast than their
# default so that the negatives cover the faint spots the model-checked reader proposes.
CANDIDATES = DiceConfig(min_pip_contrast=18.0, use_model=False)
# How many of an image's candidates, strongest first, become crops: more than the reader's
# `model_max_candidates`, so that checker rings, triangle tips and table texture that outrank
# the dice on an image without a throw are learnt as "no die".
CANDIDATES_PER_IMAGE = 32
RUNTIME_DIE_MM = BoardModel().die_mm


def jittered(
    image: NDArray[np.uint8],
    center: tuple[float, float],
    side: float,
    rng: np.random.Generator,
    shift: float = 0.25,
) -> NDArray[np.uint8]:
    """One crop of the die at `center`, moved by up to `shift` sides, scaled 0.8-1.25 and
    turned by a random angle (crops are turned by whole quarter turns again when training)."""
    s = side * float(rng.uniform(0.8, 1.25))
    c = (
        center[0] + rng.uniform(-shift, shift) * side,
        center[1] + rng.uniform(-shift, shift) * side,
    )
    angle = float(rng.uniform(-45, 45))
    # Turn a native-resolution patch round the centre (wide enough that the turned crop has no
    # empty corners), then cut the crop from its middle.
    half = int(np.ceil(CROP_SIDES * s)) + 2
    x = min(max(round(c[0]), 0), image.shape[1] - 1)
    y = min(max(round(c[1]), 0), image.shape[0] - 1)
    padded = cv2.copyMakeBorder(image, half, half, half, half, cv2.BORDER_REPLICATE)
    patch = padded[y : y + 2 * half + 1, x : x + 2 * half + 1]
    m = cv2.getRotationMatrix2D((half + c[0] - x, half + c[1] - y), angle, 1.0)
    turned = np.asarray(cv2.warpAffine(patch, m, patch.shape[1::-1]), np.uint8)
    return crop_die(turned, (half + c[0] - x, half + c[1] - y), s)


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


def add_image(
    image: NDArray[np.uint8],
    dice: list[tuple[Box, int, float]],
    candidates: list[tuple[tuple[float, float], float]],
    copies: int,
    name: str,
    rng: np.random.Generator,
    out: list[tuple[NDArray[np.uint8], int, str]],
) -> None:
    """Crops of image `name`: `copies` jittered crops per die (box, class, side), the candidate
    crops (centre, side) labelled by the truth, and as many random background crops as dice."""
    for box, cls, side in dice:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        for _ in range(copies):
            out.append((jittered(image, centre, side, rng), cls, name))
    boxes = [(box, cls) for box, cls, _ in dice]
    for centre, side in candidates[:CANDIDATES_PER_IMAGE]:
        cls = label_of(centre, boxes)
        if cls is not None:
            out.append((jittered(image, centre, side, rng, shift=0.1), cls, name))
    h, w = image.shape[:2]
    side = float(np.median([d[2] for d in dice])) if dice else 0.05 * min(h, w)
    for _ in range(max(2, len(dice))):
        p = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
        if label_of(p, boxes) == NONE:
            out.append((jittered(image, p, side, rng), NONE, name))


def scene_images(
    folder: Path, rng: np.random.Generator, out: list[tuple[NDArray[np.uint8], int, str]]
) -> None:
    """Crops from a generated scene folder."""
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
        add_image(image, dice, candidates, 6, str(label), rng, out)


def yolo_images(
    folder: Path, rng: np.random.Generator, out: list[tuple[NDArray[np.uint8], int, str]]
) -> None:
    """Crops from a real photo folder with YOLO dice labels."""
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
        add_image(image, dice, candidates, 3 if len(dice) > 6 else 5, str(label), rng, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--yolo", nargs="*", default=[], type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    crops: list[NDArray[np.uint8]] = []
    labels: list[int] = []
    sources: list[int] = []
    images: list[str] = []
    for k, folder in enumerate([*args.scenes, *args.yolo]):
        part: list[tuple[NDArray[np.uint8], int, str]] = []
        (scene_images if folder in args.scenes else yolo_images)(folder, rng, part)
        crops += [c for c, _, _ in part]
        labels += [y for _, y, _ in part]
        images += [n for _, _, n in part]
        sources += [k] * len(part)
        counts = np.bincount([y for _, y, _ in part], minlength=len(CLASSES))
        print(folder, len(part), dict(zip(CLASSES, counts.tolist(), strict=True)), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        x=np.stack(crops),
        y=np.array(labels, np.int64),
        source=np.array(sources),
        image=np.array(images),
    )
    print("wrote", args.out, len(crops))


if __name__ == "__main__":
    main()
