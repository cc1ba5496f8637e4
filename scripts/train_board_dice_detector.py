"""Train the board dice detector (YOLO11n from scratch with ultralytics) and export it to ONNX.

The detector finds the dice on and around a board in a whole camera frame, scaled down as the
runtime scales it (`referee/vision/dice_detector.py`, `BoardDiceDetector`: the frame fitted
into 640×384), and calls each one flat, tilted (at rest, not flat: cocked) or rolling. The crop
classifiers still read each die's face at full resolution; the detector places the dice the pip
finder misses (two dice touching, a die the colour of its point, a die caught by a point's
edge) and centres them.

Data: generated scenes (`referee scenes make`; the scene labels give each die's box and state),
never the held-out seeds. Frames with a hand over the board are left out: a die under a hand
is labelled but not seen, and the detector must not learn to guess one there. Each frame is
scaled as the runtime scales it and cut into `--crops` windows of `--crop` px, each holding a
die, so the network trains on small inputs at the scale it runs at. A twentieth of the scenes,
by a stable hash of their path, is kept for validation.

Run in the training venv (`scripts/train_setup.sh`); no network is used:

    .venv-train/bin/python scripts/train_board_dice_detector.py \\
        --scenes out/bdet/s511 out/bdet/s512 out/bdet/s513 out/bdet/s514 out/tilt/s424 \\
        out/tilt/s425 out/tilt/s422 --hours 0.9

The shipped network (run2, `models/dice_board.md`) went on from that run's best epoch for 1.7
hours more with `--init out/train/board_dice/run/weights/best.pt --hours 1.7`.

`--cut-only` cuts the windows and stops; `--data` trains on windows cut before (their
data.yaml). `scripts/train_gpu_board_dice.sh` cuts each folder of scenes in its own process
that way, on every core of a GPU machine, and trains once on all of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / "out" / "ultralytics"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from train_dice_detector import (  # noqa: E402  # scripts/ on path
    add_training_arguments,
    train_and_export,
    write_data_yaml,
)

from referee.vision.dice_detector import BOARD_INPUT_PX, BOARD_STATES  # noqa: E402

# A box less than this share inside its window is left out of the window's labels: a die cut
# in half by the window's edge is neither a die to find nor background to learn.
MIN_INSIDE = 0.6


def is_validation(scene: Path) -> bool:
    """One scene in twenty, by a stable hash of its path below the repository."""
    digest = hashlib.sha1(os.path.relpath(scene, ROOT).encode()).digest()
    return digest[0] % 20 == 0


def state_of(die: dict[str, object]) -> int:
    """The die's class: its index in `BOARD_STATES` (flat, tilted, rolling)."""
    if die.get("rolling"):
        return BOARD_STATES.index("rolling")
    return BOARD_STATES.index("flat" if die["flat"] else "tilted")


def windows(
    label: dict, scale: float, size: tuple[int, int], crop: int, count: int, rng
) -> list[tuple[int, int]]:
    """Top-left corners of `count` windows of `crop` px in the scaled frame of `size` (w, h),
    each holding one die (chosen in turn) at a random place."""
    w, h = size
    out = []
    dice = label["dice"]
    for k in range(count):
        x, y = np.array(dice[k % len(dice)]["center"]) * scale
        lo_x, hi_x = max(0, int(x) - crop + 16), min(w - crop, int(x) - 16)
        lo_y, hi_y = max(0, int(y) - crop + 16), min(h - crop, int(y) - 16)
        x0 = int(rng.integers(lo_x, hi_x + 1)) if hi_x >= lo_x else max(0, min(w - crop, lo_x))
        y0 = int(rng.integers(lo_y, hi_y + 1)) if hi_y >= lo_y else max(0, min(h - crop, lo_y))
        out.append((x0, y0))
    return out


def window_labels(
    label: dict, scale: float, corner: tuple[int, int], crop: int
) -> list[tuple[int, float, float, float, float]]:
    """YOLO rows (class, centre x, centre y, width, height; shares of the window) of the dice
    mostly inside the window at `corner`."""
    x0, y0 = corner
    rows = []
    for die in label["dice"]:
        bx0, by0, bx1, by1 = (np.array(die["box"]) * scale).tolist()
        cx0, cy0 = max(bx0 - x0, 0.0), max(by0 - y0, 0.0)
        cx1, cy1 = min(bx1 - x0, float(crop)), min(by1 - y0, float(crop))
        inside = max(cx1 - cx0, 0.0) * max(cy1 - cy0, 0.0)
        if inside < MIN_INSIDE * (bx1 - bx0) * (by1 - by0):
            continue
        rows.append(
            (
                state_of(die),
                (cx0 + cx1) / 2 / crop,
                (cy0 + cy1) / 2 / crop,
                (cx1 - cx0) / crop,
                (cy1 - cy0) / crop,
            )
        )
    return rows


def build_dataset(scenes: list[Path], out: Path, crop: int, crops: int, seed: int) -> Path:
    """The windows as a YOLO dataset folder and its data.yaml."""
    if out.exists():
        shutil.rmtree(out)
    for part in ("train", "val"):
        (out / "images" / part).mkdir(parents=True)
        (out / "labels" / part).mkdir(parents=True)
    rng = np.random.default_rng(seed)
    counts = {"train": 0, "val": 0, "hands": 0, "dice": 0}
    input_w, input_h = BOARD_INPUT_PX
    for folder in scenes:
        for path in sorted(folder.glob("[0-9]*.json")):
            label = json.loads(path.read_text())
            if label.get("hand") or not label["dice"]:
                counts["hands"] += bool(label.get("hand"))
                continue
            image = cv2.imread(str(path.with_suffix(".jpg")))
            h, w = image.shape[:2]
            scale = min(input_w / w, input_h / h)
            size = (round(w * scale), round(h * scale))
            small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            part = "val" if is_validation(path) else "train"
            for n, corner in enumerate(windows(label, scale, size, crop, crops, rng)):
                x0, y0 = corner
                name = f"{folder.name}_{path.stem}_{n}"
                window = small[y0 : y0 + crop, x0 : x0 + crop]
                cv2.imwrite(str(out / "images" / part / f"{name}.jpg"), window)
                rows = window_labels(label, scale, corner, crop)
                (out / "labels" / part / f"{name}.txt").write_text(
                    "".join(f"{c} {x:.6f} {y:.6f} {bw:.6f} {bh:.6f}\n" for c, x, y, bw, bh in rows)
                )
                counts[part] += 1
                counts["dice"] += len(rows)
    print(
        f"dataset: {counts['train']} training windows, {counts['val']} validation windows, "
        f"{counts['dice']} dice; {counts['hands']} frames with a hand left out"
    )
    return write_data_yaml(out, BOARD_STATES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--work", type=Path, default=ROOT / "out" / "train" / "board_dice")
    parser.add_argument("--out", type=Path, default=ROOT / "models" / "dice_board.onnx")
    parser.add_argument("--crop", type=int, default=320, help="training window side, px")
    parser.add_argument("--crops", type=int, default=1, help="windows cut from each frame")
    parser.add_argument(
        "--cut-only", action="store_true", help="cut the windows into --work/data and stop"
    )
    parser.add_argument(
        "--data", type=Path, help="train on this data.yaml (windows cut before) instead"
    )
    add_training_arguments(parser, batch=32)
    args = parser.parse_args()
    if (args.data is None) == (not args.scenes):
        parser.error("give --scenes or --data")

    if args.data is not None:
        data = args.data
    else:
        data = build_dataset(args.scenes, args.work / "data", args.crop, args.crops, args.seed)
    if args.cut_only:
        return
    input_w, input_h = BOARD_INPUT_PX
    # The frame's scale is fixed at run time: little zoom. A die reads the same mirrored or
    # upside down; its colour is not its class.
    train_and_export(
        data,
        args.work,
        args.out,
        args.crop,
        (input_h, input_w),
        args,
        scale=0.25,
        flipud=0.5,
        fliplr=0.5,
        hsv_h=0.5,
    )


if __name__ == "__main__":
    main()
