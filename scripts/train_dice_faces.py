"""Train the face reader for photos of dice alone and export it to ONNX (`models/dice_face.md`).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx); the referee runs the
exported file with OpenCV. Data: YOLO-labelled photo folders (the real photos' training splits),
each die cut once, wide, and cut again for every batch turned by any angle, scaled, shifted and
colour-jittered, at the geometry `referee.vision.dice_classifier.crop_face` cuts at run time.
A tenth of the photos (the stable hash of the label file's path that the other dice models
use) is kept for validation, read as the referee reads it: the box's crop at four quarter
turns, probabilities averaged. The best epoch by validation accuracy is exported.

    .venv-train/bin/python scripts/train_dice_faces.py \
        --yolo ../shared/real/dice/d6-tray/train ../shared/real/dice/webcam-desk/Train \
        --out models/dice_face.onnx --minutes 20
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from train_dice_classifier import (  # scripts/ is on the path when run
    BestEpoch,
    augment,
    export_onnx,
    one_cycle_step,
    split,
)

from referee.vision.dice_classifier import FACE_CROP_PX, FACE_CROP_SIDES, crop_face

ROOT = Path(__file__).resolve().parents[1]
# Each die is cut once this many die sides wide, so that any turn, shift and zoom of the
# training crop stays inside it.
WIDE_SIDES = 2.4
WIDE_PX = round(FACE_CROP_PX * WIDE_SIDES / FACE_CROP_SIDES)


def conv_blocks(width: int, outs: Sequence[int]) -> nn.Sequential:
    """3x3 conv blocks from `width` channels to each of `outs` in turn (batch norm, ReLU),
    with 2x2 max-pooling after each but the last."""
    layers: list[nn.Module] = []
    for k, out in enumerate(outs):
        layers += [nn.Conv2d(width, out, 3, padding=1, bias=False), nn.BatchNorm2d(out)]
        layers.append(nn.ReLU(inplace=True))
        if k < len(outs) - 1:
            layers.append(nn.MaxPool2d(2))
        width = out
    return nn.Sequential(*layers)


class FaceNet(nn.Module):
    """Five 3x3 conv blocks (batch norm, ReLU; 2x2 max-pooling after each of the first four),
    global average pooling and a linear layer to the six faces: about 400k weights."""

    def __init__(self) -> None:
        super().__init__()
        self.features = conv_blocks(3, (32, 64, 96, 128, 192))
        self.head = nn.Linear(192, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


def load_dice(
    folders: list[Path], wide_px: int = WIDE_PX
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every labelled die's wide crop (N x `wide_px` x `wide_px` x 3, `WIDE_SIDES` box sides),
    face index and photo name."""
    crops, faces, names = [], [], []
    for folder in folders:
        for label in sorted(folder.glob("*.txt")):
            photo = label.with_suffix(".jpg")
            if label.name == "classes.txt" or not photo.is_file():
                continue
            image = np.asarray(cv2.imread(str(photo)), np.uint8)
            h, w = image.shape[:2]
            for row in label.read_text(encoding="utf-8").split("\n"):
                if not row.strip():
                    continue
                c, cx, cy, bw, bh = (float(v) for v in row.split())
                side = max(bw * w, bh * h) * WIDE_SIDES / FACE_CROP_SIDES
                crops.append(crop_face(image, (cx * w, cy * h), side, wide_px))
                faces.append(int(c))
                names.append(os.path.relpath(label, ROOT))
    return np.stack(crops), np.array(faces, np.int64), np.array(names)


def jittered(wide: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Training crops from wide ones: turned by any angle, zoomed 0.85-1.2x, the centre moved
    up to a tenth of a side (a detector's box is that loose), as `crop_face` would cut them."""
    out = np.empty((len(wide), FACE_CROP_PX, FACE_CROP_PX, 3), np.uint8)
    middle = (WIDE_PX - 1) / 2
    side_px = WIDE_PX / WIDE_SIDES
    for k, crop in enumerate(wide):
        zoom = (FACE_CROP_PX / (FACE_CROP_SIDES * side_px)) * rng.uniform(0.85, 1.2)
        turn = cv2.getRotationMatrix2D((middle, middle), rng.uniform(0, 360), zoom)
        shift = rng.uniform(-0.1, 0.1, 2) * side_px * zoom
        turn[:, 2] += (FACE_CROP_PX - 1) / 2 - middle + shift
        out[k] = cv2.warpAffine(
            crop,
            turn,
            (FACE_CROP_PX, FACE_CROP_PX),
            flags=cv2.INTER_AREA,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def centred(wide: np.ndarray) -> np.ndarray:
    """The crops `crop_face` cuts at run time, from the wide ones."""
    margin = (WIDE_PX - round(WIDE_PX * FACE_CROP_SIDES / WIDE_SIDES)) // 2
    middle = wide[:, margin : WIDE_PX - margin, margin : WIDE_PX - margin]
    return np.stack(
        [cv2.resize(c, (FACE_CROP_PX, FACE_CROP_PX), interpolation=cv2.INTER_AREA) for c in middle]
    )


def as_input(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255


def evaluate(model: nn.Module, crops: np.ndarray, faces: np.ndarray) -> tuple[float, np.ndarray]:
    """Accuracy reading each crop at its four quarter turns, and the confusion matrix."""
    model.eval()
    x = as_input(crops)
    with torch.no_grad():
        p = sum(torch.softmax(model(torch.rot90(x, k, (2, 3))), 1) for k in range(4))
    pred = p.argmax(1).numpy()
    confusion = np.zeros((6, 6), np.int64)
    np.add.at(confusion, (faces, pred), 1)
    return float((pred == faces).mean()), confusion


def add_fit_arguments(parser: argparse.ArgumentParser, minutes: float, epochs: int) -> None:
    """The arguments `fit` and `seeded` read: --out, --minutes, --epochs (these two defaulting
    to `minutes` and `epochs`), --seed, --threads, --lr."""
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--minutes", type=float, default=minutes, help="training time budget")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")


def seeded(args: argparse.Namespace) -> tuple[torch.Generator, np.random.Generator]:
    """Seed torch from `args.seed`, run it on `args.threads` threads, and give a torch and a
    numpy generator seeded the same."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    return torch.Generator().manual_seed(args.seed), np.random.default_rng(args.seed)


def fit(
    model: nn.Module,
    batch_of: Callable[[np.ndarray], tuple[torch.Tensor, torch.Tensor]],
    train: np.ndarray,
    accuracy: Callable[[], float],
    args: argparse.Namespace,
    rng: np.random.Generator,
) -> None:
    """Train `model` on the examples at indices `train` (`batch_of` makes a batch's input and
    labels from their indices) for `args.epochs` or `args.minutes`, whichever ends first
    (batch 64, AdamW, one cycle to `args.lr`, label smoothing 0.05), and leave it with the
    weights of the epoch `accuracy` (on the validation examples) found best, also saved beside
    `args.out` as `.pt`."""
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    batch = 64
    total_steps = args.epochs * math.ceil(len(train) / batch)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start, step = time.time(), 0
    best = BestEpoch(model, args.out.with_suffix(".pt"), start, args.minutes)
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(train)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            inputs, labels = batch_of(idx)
            loss = loss_fn(model(inputs), labels)
            step += 1
            if not one_cycle_step(opt, loss, args.lr, step, total_steps, start, args.minutes):
                break
            total += float(loss.detach()) * len(idx)
        if best.end_epoch(epoch, total / len(train), accuracy()):
            break
    best.restore()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--yolo", nargs="+", required=True, type=Path)
    add_fit_arguments(parser, minutes=20.0, epochs=60)
    args = parser.parse_args()
    gen, rng = seeded(args)
    wide, faces, names = load_dice(args.yolo)
    val = split(names)
    train_wide, train_faces = wide[~val], faces[~val]
    val_crops, val_faces = centred(wide[val]), faces[val]
    print(f"train {len(train_faces)} dice, val {len(val_faces)}", flush=True)
    model = FaceNet()
    fit(
        model,
        lambda idx: (
            augment(as_input(jittered(train_wide[idx], rng)), gen),
            torch.from_numpy(train_faces[idx]),
        ),
        np.arange(len(train_faces)),
        lambda: evaluate(model, val_crops, val_faces)[0],
        args,
        rng,
    )
    acc, confusion = evaluate(model, val_crops, val_faces)
    print(f"best val acc {acc:.4f}\nconfusion (rows truth 1..6, cols predicted):\n{confusion}")
    export_onnx(model, (3, FACE_CROP_PX, FACE_CROP_PX), args.out)


if __name__ == "__main__":
    main()
