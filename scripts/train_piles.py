"""Train the pile or stack reader and export it to ONNX (`models/checker_pile.md`,
`models/checker_stack.md`, which give the commands that made the shipped files).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx). The reader
(`referee/vision/piles.py`) cuts, for a place where checkers may stand, a crop of the
rectified board turned so that the camera's slant points up (`pile_crop`), and this network
says how many checkers stand there, 0 to 5, from the crop and the slant's size (the input's
fourth channel). `--kind tray` (the pile reader) learns the tray's pile places, `--kind
stacks` (the stack reader) the slots of the points' rows.

Data: generated scene folders, each read with its label's true corners and lens
(`label_profile`, as `make_checker_strips.py` does). The tray: per compartment, every pile
(its height from the label's borne-off checkers in placement order, `TRAY_PILE` a pile) whose
top checker is not half or more under a hand, the place after the last pile (height 0), and
an empty compartment's first place a fifth of the time (`tray_places`). The points: every
slot of a stacked point and the slot after its row, two slots of a full single row
(`point_places`). Each place is cut `--copies` times turned up to 8 degrees and moved up to
`--shift-mm` (the reader's board model puts a foot a few millimetres off on boards of other
proportions; a found board's corners are a pixel or two off), plus once as the reader cuts
it, for validation. A tenth of the scenes (the stable hash of the label's path the other
models use) is kept for validation. In training the crops get the dice crop classifier's
colour jitter and mirror images.

    .venv/bin/referee scenes make --n 2000 --seed 1401 --config datasets/bearoff.json \
        --out out/train/bearoff_1401
    .venv-train/bin/python scripts/train_piles.py --scenes out/train/bearoff_1401 \
        --cache out/train/piles.npz --out models/checker_pile.onnx --epochs 40

Never run it on the measuring sets (seeds 1, 3, 4, 5, 11) or the tuning sets (61-64).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from train_dice_classifier import augment, cached, export_onnx, split  # scripts/ is on the path
from train_dice_faces import add_fit_arguments, conv_blocks, fit, seeded

from referee.vision.board_finder import RaisedView
from referee.vision.checker_model import HEIGHTS, SLOTS, TRAY_PILE
from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.geometry import POINTS
from referee.vision.piles import PILE_CROP_PX, pile_crop, pile_slants, place_edges, place_feet
from referee.vision.pipeline import canvas_for

ROOT = Path(__file__).resolve().parents[1]
MAX_HIDDEN = 0.5
EMPTY_TRAY_SHARE = 0.2


class PileNet(nn.Module):
    """Five 3x3 conv blocks (batch norm, ReLU; 2x2 max-pooling after each of the first four),
    the crop's width averaged out (a pile's height is how far up it reaches), then two linear
    layers to the six heights: about 255k weights."""

    def __init__(self) -> None:
        super().__init__()
        width = 128
        self.features = conv_blocks(4, (24, 48, 64, 96, width))
        rows = PILE_CROP_PX[1] // 16
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(width * rows, 64), nn.ReLU(inplace=True), nn.Linear(64, HEIGHTS)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=3))


def tray_piles(truth: dict) -> list[list[tuple[int, float]]]:
    """Per compartment (white's, black's): each pile's height and how much of its top checker
    a hand hides, from the label's borne-off checkers in placement order."""
    out: list[list[tuple[int, float]]] = [[], []]
    for side, colour in enumerate(("white", "black")):
        off = [c for c in truth["checkers"] if c["point"] == "off" and c["color"] == colour]
        for start in range(0, len(off), TRAY_PILE):
            pile = off[start : start + TRAY_PILE]
            out[side].append((len(pile), float(pile[-1].get("hand_hidden", 0.0))))
    return out


def point_places(truth: dict, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """(point index, slot, height) of the points' row slots a stack reader learns from: every
    slot of a stacked point (more checkers than its row is long) and the slot after its row,
    two slots of a full single row (5 or more), none whose top checker is half or more under
    a hand."""
    rows: dict[int, list[dict]] = {}
    for checker in truth["checkers"]:
        if isinstance(checker["point"], int):
            rows.setdefault(checker["point"], []).append(checker)
    out: list[tuple[int, int, int]] = []
    for point, items in rows.items():
        row = sum(1 for c in items if c["layer"] == 1)
        if len(items) < 5:
            continue
        heights = np.zeros(SLOTS, np.int64)
        top: dict[int, dict] = {}
        for index, checker in enumerate(items):
            if index % row < SLOTS:
                heights[index % row] += 1
                top[index % row] = checker
        seen = [k for k in range(min(row, SLOTS)) if top[k].get("hand_hidden", 0.0) < MAX_HIDDEN]
        if len(items) > row:
            out += [(point - 1, k, min(HEIGHTS - 1, int(heights[k]))) for k in seen]
            if row < SLOTS:
                out.append((point - 1, row, 0))
        else:
            picked = rng.choice(seen, min(2, len(seen)), replace=False)
            out += [(point - 1, int(k), 1) for k in picked]
    return out


def tray_places(truth: dict, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """(place index, pile, height) of the tray's pile places a pile reader learns from: every
    pile whose top checker is not half or more under a hand, the place after the last pile,
    and an empty compartment's first place `EMPTY_TRAY_SHARE` of the time."""
    out: list[tuple[int, int, int]] = []
    for side, piles in enumerate(tray_piles(truth)):
        for k, (height, hidden) in enumerate(piles):
            if hidden < MAX_HIDDEN:
                out.append((POINTS + side, k, height))
        if len(piles) < SLOTS and (piles or rng.random() < EMPTY_TRAY_SHARE):
            out.append((POINTS + side, len(piles), 0))
    return out


def cut(
    folders: list[Path], kind: str, copies: int, shift_mm: float, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Every place's crops (`copies` turned up to 8 degrees and moved up to `shift_mm`, then
    one as cut at run time), height, slant size and label path."""
    config = VisionConfig()
    places_of = point_places if kind == "stacks" else tray_places
    crops, heights, slants, names = [], [], [], []
    for folder in folders:
        for label in sorted(folder.glob("*.json")):
            if label.name == "manifest.json":
                continue
            truth = json.loads(label.read_text(encoding="utf-8"))
            places = places_of(truth, rng)
            if not places:
                continue
            image = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
            profile = label_profile(truth)
            canvas = canvas_for(profile, config)
            rectified = profile.rectify(image, canvas)
            view = RaisedView(profile.inverse, profile.image_size, profile.lens)
            feet = place_feet(canvas, profile.home)
            edges = place_edges(canvas, profile.home)
            index = np.array([(n, k) for n, k, _ in places])
            slant = pile_slants(profile, view, feet[index[:, 0], index[:, 1]])
            for (n, k, height), foot_slant in zip(places, slant, strict=True):
                turns = [*rng.uniform(-8, 8, copies), 0.0]
                shifts = [*rng.uniform(-shift_mm, shift_mm, (copies, 2)), (0.0, 0.0)]
                crops.append(
                    [
                        pile_crop(rectified, canvas, feet[n, k], foot_slant, edges[n], t, s)
                        for t, s in zip(turns, shifts, strict=True)
                    ]
                )
                heights.append(height)
                slants.append(float(np.hypot(*foot_slant)))
                names.append(os.path.relpath(label, ROOT))
    return {
        "crops": np.array(crops, np.uint8),
        "heights": np.array(heights, np.int64),
        "slants": np.array(slants, np.float32),
        "names": np.array(names),
    }


def load(args: argparse.Namespace, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The crops, from `--cache` when it is there, else cut and saved there."""
    return cached(args.cache, lambda: cut(args.scenes, args.kind, args.copies, args.shift_mm, rng))


def as_input(crops: np.ndarray, slants: np.ndarray) -> torch.Tensor:
    """Crops (N, rows, cols, 3) and slant sizes (N,) as the network's input (`piles.to_blob`)."""
    x = torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255
    plane = torch.from_numpy(slants).float()[:, None, None, None].expand(-1, 1, *x.shape[2:])
    return torch.cat([x, plane], dim=1)


def evaluate(
    model: nn.Module, crops: np.ndarray, slants: np.ndarray, heights: np.ndarray
) -> tuple[float, np.ndarray]:
    """Accuracy on crops cut as at run time, and the confusion matrix (rows: truth 0..5)."""
    model.eval()
    with torch.no_grad():
        pred = model(as_input(crops, slants)).argmax(1).numpy()
    confusion = np.zeros((HEIGHTS, HEIGHTS), np.int64)
    np.add.at(confusion, (heights, pred), 1)
    return float((pred == heights).mean()), confusion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--cache", type=Path, help="the crops, cut once and kept here")
    parser.add_argument(
        "--kind", choices=("tray", "stacks"), default="tray", help="the tray's piles or rows"
    )
    parser.add_argument("--copies", type=int, default=3, help="jittered crops per place")
    parser.add_argument("--shift-mm", type=float, default=4.0, help="largest move of a crop")
    add_fit_arguments(parser, minutes=30.0, epochs=30)
    args = parser.parse_args()
    gen, rng = seeded(args)
    data = load(args, rng)
    crops, heights, slants = data["crops"], data["heights"], data["slants"]
    val = split(data["names"])
    train = np.flatnonzero(~val)
    copies = crops.shape[1] - 1
    print(
        f"train {len(train)} pile places, val {int(val.sum())}; heights "
        f"{np.bincount(heights, minlength=HEIGHTS).tolist()}",
        flush=True,
    )

    def batch_of(idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        pick = crops[idx, rng.integers(0, copies, len(idx))]
        x = as_input(pick, slants[idx])
        return torch.cat([augment(x[:, :3], gen), x[:, 3:]], dim=1), torch.from_numpy(heights[idx])

    val_crops = crops[val, -1]
    model = PileNet()
    fit(
        model,
        batch_of,
        train,
        lambda: evaluate(model, val_crops, slants[val], heights[val])[0],
        args,
        rng,
    )
    acc, confusion = evaluate(model, val_crops, slants[val], heights[val])
    print(f"val acc {acc:.4f}, confusion (rows truth 0..5):\n{confusion}")
    export_onnx(model, (4, PILE_CROP_PX[1], PILE_CROP_PX[0]), args.out)


if __name__ == "__main__":
    main()
