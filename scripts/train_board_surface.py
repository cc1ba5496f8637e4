"""Train the surface network (`referee/vision/surface_model.py`, card `models/board_surface.md`)
on generated scenes and export it to ONNX.

Each scene's picture is shrunk as the board finder shrinks it (`work_image`) and stretched to
the network's input (`net_input`); its label is the share of each output pixel
the playing surface's quadrilateral (`board.corners`, as seen) covers: the whole surface,
whatever hides it. A twentieth of the scenes (by a stable hash of the image path) is kept for
validation; each epoch the validation masks are turned into quadrilaterals as the referee does
(`quad_from_mask`), and the epoch with the most boards whose four corners all fall within
`--within` of the board's width is exported.

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx).

    .venv-train/bin/python scripts/train_board_surface.py out/train/*/ \\
        --cache out/train/surface.npz --out out/train/board_surface.onnx --minutes 40
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

from referee.vision.board_finder import work_image
from referee.vision.calibration import order_seen
from referee.vision.config import CalibrationConfig
from referee.vision.onnx_net import bgr_blob
from referee.vision.surface_model import (
    INPUT_H,
    INPUT_W,
    OUTPUT_STRIDE,
    net_input,
    quad_from_mask,
)

OUT_W, OUT_H = INPUT_W // OUTPUT_STRIDE, INPUT_H // OUTPUT_STRIDE
# The label is drawn this many times finer than the output, then shrunk to it.
SUPERSAMPLE = 8


def cut_folder(folder: Path) -> dict[str, np.ndarray]:
    """Every scene in `folder`: input picture, surface label, true corners and board width
    (output pixels), image key."""
    config = CalibrationConfig()
    xs, ys, corners, widths, keys = [], [], [], [], []
    for path in sorted(folder.glob("[0-9]*.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        image = cv2.imread(str(path.with_suffix(".jpg")))
        if image is None:
            continue
        small, _ = work_image(image, config)
        h, w = image.shape[:2]
        # Pixel centres map to pixel centres, as cv2.resize maps them.
        scale = np.array([OUT_W / w, OUT_H / h])
        seen = (np.asarray(truth["board"]["corners"], np.float64) + 0.5) * scale - 0.5
        xs.append(net_input(small))
        ys.append(coverage(seen))
        corners.append(order_seen(seen))
        widths.append(truth["board"]["width_px"] * OUT_W / w)
        keys.append(zlib.crc32(str(path).encode()))
    print(folder, len(xs), "scenes", flush=True)
    return {
        "x": np.stack(xs),
        "y": np.stack(ys),
        "corners": np.asarray(corners, np.float32),
        "width": np.asarray(widths, np.float32),
        "key": np.asarray(keys, np.int64),
    }


def coverage(seen: np.ndarray) -> np.ndarray:
    """How much of each output pixel (0..255) the quadrilateral `seen` (output pixels) covers,
    from a drawing `SUPERSAMPLE` times finer. (An anti-aliased `fillPoly` draws its edge half
    a pixel outside: a label 5 % too large.)"""
    fine = np.zeros((OUT_H * SUPERSAMPLE, OUT_W * SUPERSAMPLE), np.uint8)
    cv2.fillPoly(fine, [np.round((seen + 0.5) * SUPERSAMPLE - 0.5).astype(np.int32)], 255)
    return np.asarray(cv2.resize(fine, (OUT_W, OUT_H), interpolation=cv2.INTER_AREA), np.uint8)


def block(inp: int, out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(inp, out, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(out),
        nn.ReLU(inplace=True),
    )


class SurfaceNet(nn.Module):
    """A small U-Net: four stride-2 stages down to a sixteenth (dilated convolutions there see
    the whole board), three up again with the skips; logits at half the input size."""

    def __init__(self) -> None:
        super().__init__()
        self.down2 = nn.Sequential(block(3, 24, 2), block(24, 24))
        self.down4 = nn.Sequential(block(24, 32, 2), block(32, 32))
        self.down8 = nn.Sequential(block(32, 48, 2), block(48, 48))
        self.down16 = nn.Sequential(
            block(48, 64, 2), block(64, 64, dilation=2), block(64, 64, dilation=4)
        )
        self.up8 = block(64 + 48, 48)
        self.up4 = block(48 + 32, 32)
        self.up2 = block(32 + 24, 24)
        self.head = nn.Conv2d(24, 1, 1)
        self.upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d2 = self.down2(x)
        d4 = self.down4(d2)
        d8 = self.down8(d4)
        d16 = self.down16(d8)
        u8 = self.up8(torch.cat([self.upsample(d16), d8], 1))
        u4 = self.up4(torch.cat([self.upsample(u8), d4], 1))
        u2 = self.up2(torch.cat([self.upsample(u4), d2], 1))
        return self.head(u2)


def augment(
    x: torch.Tensor, y: torch.Tensor, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mirror either way (picture and label together); brightness, contrast and per-channel
    gain, as lamps and cameras vary."""
    if torch.rand(1, generator=gen) < 0.5:
        x, y = x.flip(3), y.flip(3)
    if torch.rand(1, generator=gen) < 0.5:
        x, y = x.flip(2), y.flip(2)
    n = x.shape[0]
    gain = 1 + 0.4 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    channel = 1 + 0.15 * (torch.rand(n, 3, 1, 1, generator=gen) - 0.5)
    offset = 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return (x * gain * channel + offset).clamp(0, 1), y


def loss_fn(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Pixel cross-entropy plus the soft Dice loss (the board is a third of the picture or
    less; Dice keeps its edge from being traded for the table's many easy pixels)."""
    bce = nn.functional.binary_cross_entropy_with_logits(logits, target)
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum((1, 2, 3))
    dice = 1 - (2 * inter + 1) / (prob.sum((1, 2, 3)) + target.sum((1, 2, 3)) + 1)
    return bce + dice.mean()


def corner_errors(logits: np.ndarray, corners: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Each board's worst corner error as a share of its width (inf where no quadrilateral is
    found), from masks as the referee reads them."""
    out = np.full(len(logits), np.inf)
    for i, (logit, true, width) in enumerate(zip(logits, corners, widths, strict=True)):
        quad = quad_from_mask(logit[0] >= 0.0, 0.02)
        if quad is not None:
            out[i] = np.linalg.norm(quad - true, axis=1).max() / width
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--cache", type=Path, help="scenes cut before (read), or to keep")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--within", type=float, default=0.03, help="corner error, share of width")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2, help="processes cutting folders")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)

    def cut() -> dict[str, np.ndarray]:
        with multiprocessing.Pool(args.jobs) as pool:
            parts = pool.map(cut_folder, args.folders)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    data = cached(args.cache, cut)
    val = data["key"] % 20 == 0
    x_train, x_val = data["x"][~val], data["x"][val]
    y_train = torch.from_numpy(data["y"][~val][:, None].astype(np.float32) / 255.0)
    print(f"train {len(x_train)} val {len(x_val)}", flush=True)
    net = SurfaceNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = len(x_train) // args.batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.epochs * per_epoch)
    gen = torch.Generator().manual_seed(0)
    start = time.time()
    best = -1.0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(x_train), generator=gen).numpy()
        total = 0.0
        for i in range(per_epoch):
            idx = order[i * args.batch : (i + 1) * args.batch]
            batch, target = augment(torch.from_numpy(bgr_blob(x_train[idx])), y_train[idx], gen)
            loss = loss_fn(net(batch), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            logits = np.concatenate(
                [
                    net(torch.from_numpy(bgr_blob(x_val[i : i + 64]))).numpy()
                    for i in range(0, len(x_val), 64)
                ]
            )
        errors = corner_errors(logits, data["corners"][val], data["width"][val])
        within = float((errors <= args.within).mean())
        print(
            f"epoch {epoch + 1} loss {total / per_epoch:.3f} val: boards within "
            f"{args.within:.0%} {within:.3f}, within 1% {(errors <= 0.01).mean():.3f}, "
            f"median {np.median(errors):.4f}, none {np.isinf(errors).mean():.3f}, "
            f"{time.time() - start:.0f} s",
            flush=True,
        )
        if within > best:
            best = within
            export_onnx(net, (3, INPUT_H, INPUT_W), args.out, "image", "surface")
        if time.time() - start > args.minutes * 60:
            break
    print(f"best within {args.within:.0%}: {best:.3f}")


if __name__ == "__main__":
    main()
