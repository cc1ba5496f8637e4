"""Train the hand cover network and export it to ONNX (`models/hand_cover.md` gives the command
that made the shipped file).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx). The network
(`referee/vision/hand_cover.py`) looks at the whole rectified board, shrunk to
`HAND_INPUT_PX`, and says for every cell of a grid half that size whether a hand or an arm
covers it. Data: generated scene folders whose labels have `hand_outlines`
(`datasets/FORMAT.md`), each rectified with its label's true corners and lens
(`label_profile`), the outlines filled and rectified the same way; a cell is hand where half
of it or more is. A tenth of the scenes (the stable hash of the label's path the other models
use) is kept for validation, where the score is the hand cells' intersection over union. In
training the boards are mirrored left-right and turned round at random (a hand reaches in from
either seat) and get brightness, contrast and noise jitter, but keep their colours: skin and
sleeves are what the network looks for.

    .venv/bin/referee scenes make --n 2500 --seed 1501 --config datasets/hands.json \
        --out out/train/hands_1501
    .venv/bin/referee scenes make --n 1000 --seed 1502 --config datasets/hard.json \
        --out out/train/hands_hard_1502
    .venv-train/bin/python scripts/train_hand_cover.py \
        --scenes out/train/hands_1501 out/train/hands_hard_1502 \
        --cache out/train/hand_cover.npz --out models/hand_cover.onnx

Never run it on the measuring sets (seeds 1, 3, 4, 5, 11) or the tuning sets (61-64).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from train_dice_classifier import cached, export_onnx, split  # scripts/ is on the path
from train_dice_faces import add_fit_arguments, fit, seeded

from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.hand_cover import HAND_INPUT_PX, hand_input, output_size
from referee.vision.pipeline import canvas_for


class HandCoverNet(nn.Module):
    """A strided 3x3 conv and a 3x3 conv at half the input's size; pooled once more, 3x3 convs
    dilated 2, 4 and 8 for a view of much of the board (an arm is long), scaled back up and
    joined to the fine features; a 1x1 conv to two classes per cell (no hand, hand): about
    33k weights."""

    def __init__(self) -> None:
        super().__init__()
        width = 32
        self.fine = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.Conv2d(16, width, 3, padding=1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
        )
        deep: list[nn.Module] = [nn.MaxPool2d(2)]
        for dilation in (2, 4, 8):
            deep += [
                nn.Conv2d(width, width, 3, padding=dilation, dilation=dilation, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(inplace=True),
            ]
        deep.append(nn.Upsample(scale_factor=2, mode="nearest"))
        self.deep = nn.Sequential(*deep)
        self.head = nn.Conv2d(2 * width, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fine = self.fine(x)
        return self.head(torch.cat([fine, self.deep(fine)], dim=1))


def scene_pair(label_path: Path, config: VisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """The network's input board (rows, cols, 3) of one labelled scene and its hand cells."""
    truth = json.loads(label_path.read_text())
    image = cv2.imread(str(label_path.with_suffix(".jpg")))
    if image is None:
        raise OSError(f"cannot read the image of {label_path}")
    profile = label_profile(truth)
    canvas = canvas_for(profile, config)
    mask = np.zeros(image.shape[:2], np.uint8)
    outlines = [np.round(np.array(o)).astype(np.int32) for o in truth["hand_outlines"]]
    if outlines:
        cv2.fillPoly(mask, outlines, 255)
    board = hand_input(profile.rectify(image, canvas))
    cols, rows = output_size()
    shown = cv2.resize(profile.rectify(mask, canvas), (cols, rows), interpolation=cv2.INTER_AREA)
    return board, (shown >= 128).astype(np.uint8)


def cut(folders: list[Path]) -> dict[str, np.ndarray]:
    """Boards, hand cells and label names of every labelled scene in `folders`."""
    config = VisionConfig()
    boards, cells, names = [], [], []
    for folder in folders:
        for label_path in sorted(folder.glob("*.json")):
            if "hand_outlines" not in json.loads(label_path.read_text()):
                raise SystemExit(f"{label_path} has no hand_outlines: make the scenes again")
            board, hand = scene_pair(label_path, config)
            boards.append(board)
            cells.append(hand)
            names.append(str(label_path))
        print(f"{folder}: {len(names)} scenes so far", flush=True)
    return {"boards": np.stack(boards), "cells": np.stack(cells), "names": np.array(names)}


def load(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """The boards, from `--cache` when it is there, else cut and saved there."""
    return cached(args.cache, lambda: cut(args.scenes))


def as_input(boards: np.ndarray) -> torch.Tensor:
    """Boards (N, rows, cols, 3) as the network's input (as `HandCoverNet.cover` gives it)."""
    return torch.from_numpy(boards).permute(0, 3, 1, 2).float() / 255


def jittered(
    x: torch.Tensor, cells: torch.Tensor, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch mirrored left-right and turned round at random (boards and cells alike), with
    brightness, contrast and noise jitter on the boards."""
    n = x.shape[0]
    for dims in ((3,), (2, 3)):
        flip = torch.rand(n, generator=gen) < 0.5
        x = torch.where(flip[:, None, None, None], x.flip(dims), x)
        cells = torch.where(flip[:, None, None], cells.flip([d - 1 for d in dims]), cells)
    gain = 1 + 0.4 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    offset = 0.25 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * gain + mean + offset
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=gen) * torch.randn(x.shape, generator=gen)
    return x.clamp(0, 1), cells


def hand_iou(model: nn.Module, boards: np.ndarray, cells: np.ndarray) -> float:
    """Intersection over union of the cells called hand and the cells that are."""
    model.eval()
    called = []
    with torch.no_grad():
        for i in range(0, len(boards), 64):
            called.append(model(as_input(boards[i : i + 64])).argmax(1).numpy())
    hand = np.concatenate(called).astype(bool)
    truth = cells.astype(bool)
    return float((hand & truth).sum() / max(1, (hand | truth).sum()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--cache", type=Path, help="the boards, cut once and kept here")
    add_fit_arguments(parser, minutes=30.0, epochs=30)
    args = parser.parse_args()
    gen, rng = seeded(args)
    data = load(args)
    boards, cells = data["boards"], data["cells"].astype(np.int64)
    val = split(data["names"])
    train = np.flatnonzero(~val)
    print(
        f"train {len(train)} boards, val {int(val.sum())}; hand cells "
        f"{cells.mean():.3f} of all, boards with a hand {(cells.max(axis=(1, 2)) > 0).mean():.2f}",
        flush=True,
    )
    model = HandCoverNet()
    fit(
        model,
        lambda idx: jittered(as_input(boards[idx]), torch.from_numpy(cells[idx]), gen),
        train,
        lambda: hand_iou(model, boards[val], cells[val]),
        args,
        rng,
    )
    print(f"val hand IoU {hand_iou(model, boards[val], cells[val]):.4f}")
    cols, rows = HAND_INPUT_PX
    export_onnx(model, (3, rows, cols), args.out, input_name="board")


if __name__ == "__main__":
    main()
