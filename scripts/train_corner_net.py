"""Train the corner network (`referee/vision/corner_model.py`, card `models/board_corners.md`)
on generated scenes and export it to ONNX.

Each scene's true corners (`board.corners`, as seen) are moved the way the board finder errs:
each side's line shifted at each end by up to `--reach` of the board's width (half of the
sides left where they are), so that a side lands on a neighbouring straight edge, and the
corners put where the moved lines cross. The four patches of the moved quadrilateral are cut as
the referee cuts them (`corner_patches`), each labelled with the true corner's offset from its
middle (`offsets_mm`). A tenth of the scenes (by a stable hash of the image path) is kept for
validation; the epoch with the most validation corners within 2 mm is exported.

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx).

    .venv-train/bin/python scripts/train_corner_net.py out/r/train/*/ out/r/tilt/s6?? \\
        --patches out/r/corner/patches.npz --out out/r/corner/board_corners.onnx --minutes 45 \\
        --epochs 5
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from train_dice_classifier import cached, export_onnx  # scripts/ is on the path when run

from referee.vision.corner_model import (
    PATCH_PX,
    corner_patches,
    long_side_first,
    offsets_mm,
)
from referee.vision.geometry import BoardModel
from referee.vision.onnx_net import bgr_blob

COPIES = 3


def moved_quad(seen: np.ndarray, width_px: float, reach: float, rng: np.random.Generator):
    """`seen` (TL, TR, BR, BL) with each side's line shifted along its normal by its own amount
    at each end (up to `reach` of `width_px`; half of the sides not at all), the corners
    where the moved lines cross."""
    lines = []
    for j in range(4):
        a, b = seen[j], seen[(j + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        n = np.array([-d[1], d[0]])
        shift = rng.uniform(-reach, reach, 2) * width_px
        if rng.random() < 0.5:
            shift[:] = 0.0
        lines.append((a + shift[0] * n, b + shift[1] * n))
    corners = []
    for i in range(4):
        (p1, p2), (q1, q2) = lines[i - 1], lines[i]
        r, s = p2 - p1, q2 - q1
        t = np.cross(q1 - p1, s) / np.cross(r, s)
        corners.append(p1 + t * r)
    return np.asarray(corners) + rng.normal(0.0, 0.5, (4, 2))


def cut_folder(folder: Path, seed: int, reach: float) -> dict[str, np.ndarray]:
    """`COPIES` moved quadrilaterals of every scene in `folder`: patches, offsets, image ids."""
    rng = np.random.default_rng(seed)
    model = BoardModel()
    patches, targets, images = [], [], []
    for path in sorted(folder.glob("[0-9]*.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        image = cv2.imread(str(path.with_suffix(".jpg")))
        if image is None:
            continue
        seen = np.asarray(truth["board"]["corners"], np.float64)
        shift = long_side_first(seen)
        true = np.roll(seen, -shift, axis=0)
        key = zlib.crc32(str(path).encode())
        for _ in range(COPIES):
            found = np.roll(moved_quad(seen, truth["board"]["width_px"], reach, rng), -shift, 0)
            patches.append(corner_patches(image, found, model))
            targets.append(offsets_mm(found, true, model))
            images.append(np.full(4, key))
    print(folder, len(patches) * 4, "patches", flush=True)
    return {
        "x": np.concatenate(patches),
        "y": np.concatenate(targets).astype(np.float32),
        "image": np.concatenate(images).astype(np.int64),
    }


class CornerNet(nn.Module):
    """Four 3x3 conv blocks (2x2 max-pool after each) and two linear layers; the feature map is
    flattened, not averaged, so the answer keeps where things are."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        channels = 3
        for out in (24, 48, 64, 96):
            layers += [
                nn.Conv2d(channels, out, 3, padding=1, bias=False),
                nn.BatchNorm2d(out),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
            ]
            channels = out
        self.features = nn.Sequential(*layers)
        side = PATCH_PX // 16
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(96 * side * side, 128), nn.ReLU(inplace=True), nn.Linear(128, 2)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Brightness, contrast and per-channel gain, as lamps and cameras vary."""
    n = x.shape[0]
    gain = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    channel = 1 + 0.1 * (torch.rand(n, 3, 1, 1, generator=gen) - 0.5)
    offset = 0.1 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return (x * gain * channel + offset).clamp(0, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--patches", type=Path, help="patches cut before (read), or to keep")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--reach", type=float, default=0.025, help="side shift, share of width")
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2, help="processes cutting folders")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)

    def cut() -> dict[str, np.ndarray]:
        tasks = [(f, 1000 + i, args.reach) for i, f in enumerate(args.folders)]
        with multiprocessing.Pool(args.jobs) as pool:
            parts = pool.starmap(cut_folder, tasks)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    data = cached(args.patches, cut)
    val = data["image"] % 10 == 0
    x = torch.from_numpy(data["x"])
    y = torch.from_numpy(data["y"])
    x_train, y_train, x_val, y_val = x[~val], y[~val], x[val], y[val]
    print(f"train {len(y_train)} val {len(y_val)}", flush=True)
    net = CornerNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(y_train) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    loss_fn = nn.SmoothL1Loss(beta=1.0)
    gen = torch.Generator().manual_seed(0)
    start = time.time()
    best, best_state = -1.0, None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(y_train), generator=gen)
        total = 0.0
        for i in range(len(y_train) // args.batch):
            idx = order[i * args.batch : (i + 1) * args.batch]
            batch = augment(torch.from_numpy(bgr_blob(x_train[idx].numpy())), gen)
            loss = loss_fn(net(batch), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            pred = torch.cat(
                [
                    net(torch.from_numpy(bgr_blob(x_val[i : i + 512].numpy())))
                    for i in range(0, len(y_val), 512)
                ]
            )
        err = (pred - y_val).norm(dim=1)
        before = y_val.norm(dim=1)
        within = float((err <= 2.0).float().mean())
        print(
            f"epoch {epoch + 1} loss {total / (i + 1):.3f} val: within 2 mm {within:.3f} "
            f"(unmoved {float((before <= 2.0).float().mean()):.3f}), median {err.median():.2f} "
            f"mm, p95 {err.quantile(0.95):.2f} mm, {time.time() - start:.0f} s",
            flush=True,
        )
        if within > best:
            best, best_state = within, {k: v.clone() for k, v in net.state_dict().items()}
            export_onnx(net, (3, PATCH_PX, PATCH_PX), args.out, "patch", "offset")
        if time.time() - start > args.minutes * 60:
            break
    assert best_state is not None
    print(f"best within 2 mm {best:.3f}")


if __name__ == "__main__":
    main()
