"""Train the tilt reader, a die-crop network that says only whether a die lies flat or tilted,
and export it to ONNX (`models/dice_tilt.md` has the card).

The crop classifier (`models/dice_value.md`) tells nine classes apart on every candidate, most
of them board texture; this network sees only crops round dice and learns the one question the
throw verdict most often gets wrong. Crops are cut as the reader cuts them at run time: near a
die (up to `--shift` die sides off its centre), sized by the board profile's die
(`BoardModel.die_mm`, not the die's own size), turned so that a flat die's lean points down,
with the lean as a fourth plane (`scripts/make_dice_crops.Cutter`). A crop is tilted when a
tilted die lies within `--reach` die sides of its centre.

`--real` adds the dice of real photo folders in YOLO form (the training splits of
`../shared/real/dice`, never their test splits) as flat crops: those photos show dice at rest on
a table, and a reader trained on generated dice alone called a third to half of the real test
splits' dice tilted (`scripts/check_tilt_real.py`). They are cut as that check cuts them,
turned as if the camera stood beyond the photo's bottom edge (`photographer_turn`). The photos
give no lean, so each real crop gets the lean of a generated crop drawn at random: with lean 0
on every real crop (run4) the network learnt that lean 0 means flat.

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx). A tenth of the scenes
(the stable hash the other dice models use) is kept for validation; the best epoch by balanced
accuracy (the mean of the flat and tilted recalls) is exported.

    .venv-train/bin/python scripts/train_tilt_classifier.py \
        --scenes out/tilt/s421 out/tilt/s422 out/tilt/s423 out/tilt/s424 \
        --crops out/tilt/crops2.npz --out out/tilt/run2/dice_tilt.onnx --minutes 35 --epochs 14
    .venv-train/bin/python scripts/train_tilt_classifier.py \
        --scenes out/tilt/s421 out/tilt/s422 out/tilt/s423 \
        out/tilt/s424 out/tilt/s425 out/tilt/s426 --crops out/tilt/crops3.npz \
        --real ../shared/real/dice/d6-tray/train ../shared/real/dice/webcam-desk/Train \
        --real-crops out/tilt/crops_real2.npz --out out/tilt/run5/dice_tilt.onnx \
        --minutes 45 --epochs 11

On a GPU machine (the shipped file, `models/dice_tilt.md`), with the scene folders cut by 16
processes and the network trained from scratch on CUDA:

    python3 scripts/train_tilt_classifier.py --scenes s631 ... s646 --jobs 16 \
        --crops crops.npz --real-crops crops_real_q.npz --device cuda --batch 256 --lr 3e-3 \
        --epochs 80 --minutes 4 --threads 4 --out dice_tilt.onnx
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from check_tilt_real import real_dice  # scripts/ is on the path when run
from ensemble_nets import member_prefix
from make_dice_crops import RUNTIME_DIE_MM, Cutter
from torch import nn
from train_dice_classifier import (
    BestEpoch,
    DiceNet,
    augment,
    cached,
    evaluate,
    export_onnx,
    freeze_norms,
    load_exported,
    one_cycle_step,
    split,
    with_lean,
)

from referee.vision.checker_truth import label_profile
from referee.vision.dice_classifier import TILT_CLASSES, Lean
from referee.vision.pipeline import die_lean

# Jittered crops cut per die: the reader reads a die from several crops round its centre too.
COPIES = 8
FLAT, TILTED = TILT_CLASSES.index("flat"), TILT_CLASSES.index("tilted")


def cut_scenes(
    folders: list[Path], seed: int, shift: float, reach: float, jobs: int
) -> dict[str, np.ndarray]:
    """`COPIES` crops round every die at rest, on or off the board, in generated scene `folders`
    (rolling dice are left to the crop classifier), centred up to `shift` die sides off it, each
    labelled tilted when a tilted die's centre lies within `reach` die sides of the crop's
    centre, else flat: the throw is cocked when any die is, and the reader's centre of a die
    touching a cocked one can lie nearer the cocked one than its own. The folders are cut by
    `jobs` processes, each folder with its own random stream."""
    tasks = [(folder, (seed, i), shift, reach) for i, folder in enumerate(folders)]
    with multiprocessing.Pool(jobs) as pool:
        parts = pool.starmap(cut_folder, tasks)
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def cut_folder(
    folder: Path, seed: tuple[int, int], shift: float, reach: float
) -> dict[str, np.ndarray]:
    """`cut_scenes` for one folder."""
    rng = np.random.default_rng(seed)
    cutter = Cutter(rng, 48)
    for path in sorted(folder.glob("*.json")):
        if path.name == "manifest.json":
            continue
        truth = json.loads(path.read_text(encoding="utf-8"))
        dice = [d for d in truth["dice"] if not d["rolling"]]
        if not dice:
            continue
        image = np.asarray(cv2.imread(str(path.with_suffix(".jpg"))), np.uint8)
        profile = label_profile(truth)
        lean = die_lean(profile)
        side = RUNTIME_DIE_MM * profile.px_per_mm()
        centres = [((d["box"][0] + d["box"][2]) / 2, (d["box"][1] + d["box"][3]) / 2) for d in dice]
        tilted_centres = [c for c, d in zip(centres, dice, strict=True) if not d["flat"]]
        tilted = np.array(tilted_centres).reshape(-1, 2)
        for centre in centres:
            for _ in range(COPIES):
                at = np.asarray(centre) + rng.uniform(-shift, shift, 2) * side
                near = len(tilted) and np.linalg.norm(tilted - at, axis=1).min() < reach * side
                label = TILTED if near else FLAT
                cutter.add(image, (float(at[0]), float(at[1])), side, label, str(path), lean, 0.0)
    print(folder, len(cutter.labels), "crops", flush=True)
    return arrays(cutter)


def arrays(cutter: Cutter) -> dict[str, np.ndarray]:
    """The crops `cutter` has cut, with their labels, leans and source images, as arrays."""
    return {
        "x": np.stack(cutter.crops),
        "y": np.array(cutter.labels, np.int64),
        "lean": np.array(cutter.leans, np.float32),
        "image": np.array(cutter.images),
    }


def cut_real(
    folders: list[Path], seed: int, shift: float, leans: np.ndarray
) -> dict[str, np.ndarray]:
    """`COPIES` flat crops round every labelled die of real photo `folders` (YOLO dice labels),
    centred up to `shift` die sides off it, sized and turned as `check_tilt_real` cuts them
    (give or take 10 degrees), each with a lean drawn from `leans`."""
    rng = np.random.default_rng(seed)
    cutter = Cutter(rng, 48)
    for folder in folders:
        for image, name, dice in real_dice(folder):
            for centre, side, turn in dice:
                for _ in range(COPIES):
                    lean = Lean(turn, float(rng.choice(leans)))
                    cutter.add(image, centre, side, FLAT, name, lambda _, lean=lean: [lean], shift)
        print(folder, len(cutter.labels), "real crops so far", flush=True)
    return arrays(cutter)


def recalls(model: nn.Module, x: torch.Tensor, lean: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    """Each class's recall on the validation crops."""
    _, confusion = evaluate(model, x, lean, y, len(TILT_CLASSES))
    return np.asarray(confusion.diagonal() / confusion.sum(axis=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", nargs="*", default=[], type=Path)
    parser.add_argument("--crops", type=Path, help="crops cut before (read), or to keep (written)")
    parser.add_argument("--real", nargs="*", default=[], type=Path, help="YOLO folders: flat dice")
    parser.add_argument("--real-crops", type=Path, help="as --crops, for the --real crops")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--minutes", type=float, default=30.0, help="training time budget")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1, help="processes cutting scene folders")
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--shift", type=float, default=0.5, help="crop centres off a die, sides")
    parser.add_argument("--reach", type=float, default=1.0, help="tilted die within, sides")
    parser.add_argument(
        "--init-onnx",
        type=Path,
        help="fine-tune an exported network; its folded batch norms stay frozen",
    )
    parser.add_argument(
        "--init-member",
        type=int,
        help="with --init-onnx, the member of a joined file to fine-tune (models/dice_tilt.onnx "
        "holds two: 0 and 1)",
    )
    args = parser.parse_args()
    if args.init_member is not None and args.init_onnx is None:
        parser.error("--init-member names a member of the --init-onnx file; give that file too")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = cached(
        args.crops, lambda: cut_scenes(args.scenes, args.seed, args.shift, args.reach, args.jobs)
    )
    real = np.zeros(len(data["y"]), bool)
    if args.real or args.real_crops is not None:
        more = cached(
            args.real_crops, lambda: cut_real(args.real, args.seed, args.shift, data["lean"])
        )
        data = {k: np.concatenate([data[k], more[k]]) for k in data}
        real = np.concatenate([real, np.ones(len(more["y"]), bool)])
    device = torch.device(args.device)
    val = torch.from_numpy(split(data["image"]))
    real_val = torch.from_numpy(real)[val].to(device)
    # The whole set moves to the device once, as uint8.
    x = torch.from_numpy(data["x"]).permute(0, 3, 1, 2)
    y = torch.from_numpy(data["y"]).long()
    lean = torch.from_numpy(data["lean"]).float()
    x_train, y_train, lean_train = (t[~val].to(device) for t in (x, y, lean))
    x_val, y_val, lean_val = (t[val].to(device) for t in (x, y, lean))
    counts = torch.bincount(y_train, minlength=len(TILT_CLASSES)).float()
    print(f"train {len(y_train)} ({counts.tolist()} flat/tilted) val {len(y_val)}", flush=True)
    loss_fn = nn.CrossEntropyLoss(weight=counts.sum() / counts / 2, label_smoothing=0.05)
    model = DiceNet(classes=len(TILT_CLASSES))
    if args.init_onnx is not None:
        prefix = "" if args.init_member is None else member_prefix(args.init_member)
        load_exported(model, args.init_onnx, prefix)
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    total_steps = args.epochs * ((len(y_train) + args.batch - 1) // args.batch)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start = time.time()
    best = BestEpoch(model, args.out.with_suffix(".pt"), start, args.minutes)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        if args.init_onnx is not None:
            freeze_norms(model)
        order = torch.randperm(len(y_train), generator=gen, device=device)
        total = 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i : i + args.batch]
            crops = augment(x_train[idx].float() / 255, gen)
            loss = loss_fn(model(with_lean(crops, lean_train[idx])), y_train[idx])
            step += 1
            if not one_cycle_step(opt, loss, args.lr, step, total_steps, start, args.minutes):
                break
            total += float(loss.detach()) * len(idx)
        per_class = recalls(model, x_val, lean_val, y_val)
        print(f"  recall flat {per_class[FLAT]:.4f} tilted {per_class[TILTED]:.4f}", flush=True)
        if real_val.any():
            _, on_real = evaluate(model, x_val[real_val], lean_val[real_val], y_val[real_val], 2)
            print(f"  recall flat, real photos {on_real[FLAT, FLAT] / on_real[FLAT].sum():.4f}")
        if best.end_epoch(epoch, total / len(y_train), float(per_class.mean())):
            break
    best.restore()
    per_class = recalls(model, x_val, lean_val, y_val)
    print(f"best: recall flat {per_class[FLAT]:.4f} tilted {per_class[TILTED]:.4f}")
    model.cpu()
    export_onnx(model, (4, x.shape[-1], x.shape[-1]), args.out)


if __name__ == "__main__":
    main()
