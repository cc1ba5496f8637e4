"""Train the face reader for dice on a board and export it to ONNX (`models/dice_board_face.md`).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx). The crop classifier
(`models/dice_value.md`) reads a die from a crop 1.8 die sides wide that takes in whatever lies
beside it, and it answers nine classes at once; this network answers only which face a die
the reader already holds to lie flat shows, from a tight crop of that die
(`referee.vision.dice_classifier.crop_face` at `BOARD_FACE_CROP_PX`: 1.25 die sides, turned
so that the lean points down, as the classifier's crops are).

Data: flat dice of generated scene folders (not rolling, not half or more under a hand), each
cut once wide round its top face's centre, turned by the lean the label's camera gives there,
and the real photos' training dice (YOLO folders; no camera known, so turned by any angle). For
every batch each is cut again as `crop_face` would: shifted up to `--shift` die sides
(the reader's centre is its pip groups', a median quarter side off the die's middle; 0.3
still keeps every pip in the crop, and the reader reads a grid of crops round it), zoomed
0.85-1.2x (the reader sizes the crop by the profile's die, not the die on the table), turned
10 degrees either way (scenes) or any way (photos), then colour-jittered as the crop
classifier's crops are. A tenth of the
images (the stable hash of the label's path the other dice models use) is kept for
validation, read as the reader reads it: the centred crop and its mirror image, averaged.

    .venv-train/bin/python scripts/train_board_faces.py --scenes out/train/touching_302 ... \
        --yolo ../shared/real/dice/d6-tray/train ../shared/real/dice/webcam-desk/Train \
        --cache out/train/board_faces.npz --out models/dice_board_face.onnx --epochs 40
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
from train_dice_classifier import (  # scripts/ is on the path when run
    augment,
    cached,
    export_onnx,
    split,
)
from train_dice_faces import (
    WIDE_SIDES,
    FaceNet,
    add_fit_arguments,
    as_input,
    fit,
    load_dice,
    seeded,
)

from referee.vision.checker_truth import label_profile
from referee.vision.dice_classifier import (
    BOARD_FACE_CROP_PX,
    FACE_CROP_SIDES,
    crop_face,
)
from referee.vision.geometry import BoardModel
from referee.vision.pipeline import die_lean

ROOT = Path(__file__).resolve().parents[1]
# Each die is cut once `WIDE_SIDES` die sides wide (as for the photo face reader), so that
# any shift, turn and zoom of the training crop stays inside it.
WIDE_PX = round(BOARD_FACE_CROP_PX * WIDE_SIDES / FACE_CROP_SIDES)
# Dice half or more under a hand are not what the reader is asked to read.
MAX_HIDDEN = 0.5


def scene_dice(folders: list[Path]) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Every flat die's wide crop of generated scene folders, turned by its lean, sized as the
    reader sizes it (the profile's die at that spot), its face index and label path."""
    crops, faces, names = [], [], []
    model = BoardModel()
    for folder in folders:
        for label in sorted(folder.glob("*.json")):
            if label.name == "manifest.json":
                continue
            truth = json.loads(label.read_text(encoding="utf-8"))
            dice = [
                d
                for d in truth["dice"]
                if d["flat"] and not d["rolling"] and d.get("hand_hidden", 0.0) < MAX_HIDDEN
            ]
            if not dice:
                continue
            image = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
            profile = label_profile(truth)
            lean = die_lean(profile)
            side_px = model.die_mm * profile.px_per_mm()
            for d in dice:
                centre = (float(d["top_center"][0]), float(d["top_center"][1]))
                [how] = lean([centre])
                side = side_px * how.scale * WIDE_SIDES / FACE_CROP_SIDES
                crops.append(crop_face(image, centre, side, WIDE_PX, how.turn_deg))
                faces.append(int(d["value"]) - 1)
                names.append(os.path.relpath(label, ROOT))
    return crops, faces, names


def load(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """The wide crops, from `--cache` when it is there, else cut and saved there."""

    def cut() -> dict[str, np.ndarray]:
        scene = scene_dice(args.scenes)
        # Photographed dice round their box, sized by it, not turned.
        photo = (
            load_dice(args.yolo, WIDE_PX)
            if args.yolo
            else (np.zeros((0, WIDE_PX, WIDE_PX, 3)),) * 3
        )
        return {
            "wide": np.concatenate([np.stack(scene[0]), photo[0]]).astype(np.uint8),
            "faces": np.concatenate([np.array(scene[1], np.int64), photo[1]]).astype(np.int64),
            "names": np.concatenate([np.array(scene[2]), photo[2]]),
            "photo": np.array([False] * len(scene[1]) + [True] * len(photo[1])),
        }

    return cached(args.cache, cut)


def jittered(
    wide: np.ndarray, photo: np.ndarray, shift: float, rng: np.random.Generator
) -> np.ndarray:
    """Training crops from wide ones, as `crop_face` would cut them from a centre up to
    `shift` die sides off, zoomed 0.85-1.2x, turned 10 degrees either way (any way for
    photos)."""
    size = BOARD_FACE_CROP_PX
    out = np.empty((len(wide), size, size, 3), np.uint8)
    middle = (WIDE_PX - 1) / 2
    side_px = WIDE_PX / WIDE_SIDES
    for k, crop in enumerate(wide):
        zoom = (size / (FACE_CROP_SIDES * side_px)) * rng.uniform(0.85, 1.2)
        spread = 180.0 if photo[k] else 10.0
        turn = cv2.getRotationMatrix2D((middle, middle), rng.uniform(-spread, spread), zoom)
        turn[:, 2] += (size - 1) / 2 - middle + rng.uniform(-shift, shift, 2) * side_px * zoom
        out[k] = cv2.warpAffine(
            crop, turn, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    return out


def centred(wide: np.ndarray) -> np.ndarray:
    """The crops `crop_face` cuts at run time at the true centre, from the wide ones."""
    size = BOARD_FACE_CROP_PX
    zoom = size / (FACE_CROP_SIDES * WIDE_PX / WIDE_SIDES)
    middle = (WIDE_PX - 1) / 2
    turn = cv2.getRotationMatrix2D((middle, middle), 0.0, zoom)
    turn[:, 2] += (size - 1) / 2 - middle
    return np.stack([cv2.warpAffine(c, turn, (size, size), flags=cv2.INTER_LINEAR) for c in wide])


def evaluate(model: nn.Module, crops: np.ndarray, faces: np.ndarray) -> tuple[float, np.ndarray]:
    """Accuracy reading each crop and its mirror image, and the confusion matrix."""
    model.eval()
    x = as_input(crops)
    with torch.no_grad():
        p = torch.softmax(model(x), 1) + torch.softmax(model(x.flip(3)), 1)
    pred = p.argmax(1).numpy()
    confusion = np.zeros((6, 6), np.int64)
    np.add.at(confusion, (faces, pred), 1)
    return float((pred == faces).mean()), confusion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--yolo", nargs="*", default=[], type=Path)
    parser.add_argument("--cache", type=Path, help="the wide crops, cut once and kept here")
    add_fit_arguments(parser, minutes=30.0, epochs=40)
    parser.add_argument("--shift", type=float, default=0.3, help="centre error, die sides")
    args = parser.parse_args()
    gen, rng = seeded(args)
    data = load(args)
    wide, faces, photo = data["wide"], data["faces"], data["photo"]
    val = split(data["names"])
    train = np.flatnonzero(~val)
    val_crops, val_faces = centred(wide[val]), faces[val]
    print(
        f"train {len(train)} dice ({int(photo[train].sum())} photographed), "
        f"val {len(val_faces)} ({int(photo[val].sum())})",
        flush=True,
    )
    model = FaceNet()
    fit(
        model,
        lambda idx: (
            augment(as_input(jittered(wide[idx], photo[idx], args.shift, rng)), gen),
            torch.from_numpy(faces[idx]),
        ),
        train,
        lambda: evaluate(model, val_crops, val_faces)[0],
        args,
        rng,
    )
    for name, rows in (("generated", ~photo[val]), ("photographed", photo[val])):
        acc, confusion = evaluate(model, val_crops[rows], val_faces[rows])
        print(f"{name} val acc {acc:.4f}, confusion (rows truth 1..6):\n{confusion}")
    export_onnx(model, (3, BOARD_FACE_CROP_PX, BOARD_FACE_CROP_PX), args.out)


if __name__ == "__main__":
    main()
