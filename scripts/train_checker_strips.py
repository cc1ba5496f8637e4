"""Train the board-strip checker network and export it to ONNX (`models/checker_strip.md`).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx), or on a GPU machine its
own CUDA torch with `--device cuda` (`scripts/train_gpu.sh`); the referee runs the
exported file with OpenCV. Input: strips from `scripts/make_checker_strips.py`. A tenth of the
training scenes (scene index % 10 == 0) is kept for validation, and `--check` files (other
seeds, never the measuring sets) are scored too; the epoch with the best point count accuracy
(mean over validation and `--check`) is exported. `--init` starts from earlier weights, which
an epoch must then beat to be exported.

    .venv-train/bin/python scripts/train_checker_strips.py out/chk/strips32.npz \
        --check out/chk/strips31.npz --out models/checker_strip.onnx --epochs 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from train_dice_classifier import cpu_state, freeze_norms, load_folded, set_one_cycle_lr

from referee.vision.checker_model import HEIGHTS, SLOTS, STRIP_PX, count_loglik


class StripNet(nn.Module):
    """Four 3x3 conv blocks, the strip's width averaged out, two linear layers; `scale`
    multiplies the channels."""

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        c1, c2, c3, c4 = (round(c * scale) for c in (16, 24, 48, 64))

        def block(cin: int, cout: int, pool: bool) -> list[nn.Module]:
            layers: list[nn.Module] = [
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            ]
            if pool:
                layers.append(nn.MaxPool2d(2))
            return layers

        w, h = STRIP_PX
        self.features = nn.Sequential(
            *block(3, c1, True),
            *block(c1, c2, True),
            *block(c2, c3, True),
            *block(c3, c4, False),
            nn.AvgPool2d((1, w // 8)),
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(c4 * (h // 8), 128),
            nn.ReLU(inplace=True),
            nn.Dropout(0.2),
            nn.Linear(128, SLOTS * HEIGHTS),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def augment(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Mirror across the point, colour and lighting jitter, channel swaps, noise: uint8 strips
    N x H x W x 3 in, float N x 3 x H x W (0..1) out, on the strips' device."""
    dev = batch.device

    def uniform(low: float, high: float, *shape: int) -> torch.Tensor:
        return low + (high - low) * torch.rand(shape, generator=gen, device=dev)

    x = batch.permute(0, 3, 1, 2).float() / 255.0
    n, _, h, _ = x.shape
    flip = uniform(0, 1, n) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    # Swapping colour channels (three strips in ten) keeps colours from being the label.
    order = torch.argsort(uniform(0, 1, n, 3), dim=1)
    keep = torch.arange(3, device=dev).expand(n, 3)
    order = torch.where((uniform(0, 1, n) < 0.3)[:, None], order, keep)
    x = torch.gather(x, 1, order[:, :, None, None].expand_as(x))
    gain = uniform(0.7, 1.3, n, 1, 1, 1) * uniform(0.9, 1.1, n, 3, 1, 1)
    x = x * gain + uniform(-0.1, 0.1, n, 1, 1, 1)
    # A lighting gradient along the strip (glare, shadow).
    slope = uniform(-0.1, 0.1, n, 1, 1, 1)
    ramp = torch.linspace(-1, 1, h, device=dev)[None, None, :, None] * slope
    noise = torch.randn(x.shape, generator=gen, device=dev) * uniform(0, 0.03, n, 1, 1, 1)
    return (x + ramp + noise).clamp(0, 1)


def to_tensor(x: np.ndarray, device: torch.device) -> torch.Tensor:
    """Float strips N x H x W x 3 as an N x 3 x H x W tensor on `device`."""
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2), dtype=np.float32)).to(
        device
    )


KINDS = ("point", "bar", "tray")


def evaluate(
    net: nn.Module, strips: np.ndarray, heights: np.ndarray, counts: np.ndarray, kinds: np.ndarray
) -> tuple[float, float, str]:
    """Slot accuracy, point count accuracy, and count accuracy per kind (on strips without
    hidden slots)."""
    net.eval()
    device = next(net.parameters()).device
    probs = []
    with torch.no_grad():
        for i in range(0, len(strips), 256):
            logits = net(to_tensor(strips[i : i + 256].astype(np.float32) / 255.0, device))
            probs.append(torch.softmax(logits.view(-1, SLOTS, HEIGHTS), dim=2).cpu().numpy())
    p = np.concatenate(probs)
    known = heights >= 0
    slot_acc = float((p.argmax(axis=2) == heights)[known].mean())
    full = known.all(axis=1)
    accs = []
    for k, kind in enumerate(KINDS):
        mask = full & (kinds == k)
        pred = count_loglik(p[mask], kind).argmax(axis=1)
        accs.append(float((pred == counts[mask]).mean()) if mask.any() else float("nan"))
    text = " ".join(f"{kind} {a:.4f}" for kind, a in zip(KINDS, accs, strict=True))
    return slot_acc, accs[0], text


def load_weights(net: StripNet, path: Path) -> None:
    """Start from saved weights: a state dict (.pt) or an exported model (.onnx, whose batch
    norms are folded into the convolutions: they start as identities with the folded bias;
    `load_folded`)."""
    if path.suffix != ".onnx":
        net.load_state_dict(torch.load(path, map_location="cpu"))
        return
    tensors = load_folded(net.features, path)
    state = net.state_dict()
    with torch.no_grad():
        for name in ("head.1.weight", "head.1.bias", "head.4.weight", "head.4.bias"):
            state[name].copy_(tensors[name])


def export(net: nn.Module, out: Path) -> None:
    """Write `net` as ONNX (batch size free), left in training mode afterwards."""
    net.eval()
    w, h = STRIP_PX
    device = next(net.parameters()).device
    torch.onnx.export(
        net,
        (torch.zeros(1, 3, h, w, device=device),),
        str(out),
        input_names=["strip"],
        output_names=["logits"],
        dynamic_axes={"strip": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )
    net.train()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--check", type=Path, nargs="*", default=[])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--scale", type=float, default=1.0, help="channel width multiplier")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--init", type=Path, help="start from these weights: a .pt state dict or an .onnx export"
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument(
        "--tray-weight",
        type=float,
        default=1.0,
        help="loss weight of the tray's strips (its piles are the weakest reading)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    device = torch.device(args.device)
    gen = torch.Generator(device=device).manual_seed(args.seed)

    parts = [np.load(p) for p in args.data]
    strips = np.concatenate([d["strips"] for d in parts])
    heights = np.concatenate([d["heights"] for d in parts])
    counts = np.concatenate([d["counts"] for d in parts])
    kinds = np.concatenate([d["kinds"] for d in parts])
    scenes = np.concatenate([d["scenes"] + 100000 * i for i, d in enumerate(parts)])
    val = scenes % 10 == 0
    checks = [np.load(p) for p in args.check]
    print(f"train {int((~val).sum())} strips, validation {int(val.sum())}", file=sys.stderr)

    net = StripNet(args.scale)
    if args.init:
        load_weights(net, args.init)
    net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    train_idx = np.nonzero(~val)[0]
    # The training strips move to the device once, as uint8 (100k strips are 2 GB).
    train_strips = torch.from_numpy(strips[train_idx]).to(device)
    train_heights = torch.from_numpy(heights[train_idx]).to(device)
    train_weights = torch.from_numpy(
        np.where(kinds[train_idx] == KINDS.index("tray"), args.tray_weight, 1.0).astype(np.float32)
    ).to(device)
    batch = args.batch
    steps = max(1, args.epochs * (len(train_idx) // batch))
    loss_fn = nn.CrossEntropyLoss(ignore_index=-1, reduction="none")

    def score() -> tuple[float, str]:
        """The mean point count accuracy over validation and `--check`, and the figures."""
        slot_acc, count_acc, text = evaluate(
            net, strips[val], heights[val], counts[val], kinds[val]
        )
        line = f"val slots {slot_acc:.4f} counts {text}"
        scores = [count_acc]
        for path, d in zip(args.check, checks, strict=True):
            s, c, text = evaluate(net, d["strips"], d["heights"], d["counts"], d["kinds"])
            line += f"; {path.stem} slots {s:.4f} counts {text}"
            scores.append(c)
        return float(np.mean(scores)), line

    best = -1.0
    if args.init:
        # A fine-tune must beat where it started to be exported.
        best, text = score()
        print(f"start: {text}", file=sys.stderr, flush=True)
    best_state = cpu_state(net)
    start = time.time()
    step, done = 0, 0.0
    # Norms folded out of an exported network are identities now, not the statistics of
    # the conv outputs: they stay frozen (`freeze_norms`).
    frozen_norms = args.init is not None and args.init.suffix == ".onnx"
    for epoch in range(args.epochs):
        net.train()
        if frozen_norms:
            freeze_norms(net)
        order = torch.from_numpy(rng.permutation(len(train_idx))).to(device)
        total = 0.0
        for b in range(len(order) // batch):
            idx = order[b * batch : (b + 1) * batch]
            x = augment(train_strips[idx], gen)
            y = train_heights[idx].reshape(-1)
            w = train_weights[idx].repeat_interleave(SLOTS)
            # One cycle over whichever ends first, the epochs or the time budget, so that a
            # run cut short by the clock still ends annealed.
            step += 1
            done = max(step / steps, (time.time() - start) / (60 * args.minutes))
            if done >= 1:
                break
            set_one_cycle_lr(opt, args.lr, done)
            logits = net(x).view(-1, HEIGHTS)
            known = y >= 0
            loss = (loss_fn(logits, y) * w)[known].sum() / w[known].sum().clamp(min=1e-6)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
        mean_loss = total / max(1, len(order) // batch)
        count_acc, text = score()
        print(
            f"epoch {epoch + 1}: loss {mean_loss:.4f}, {text} ({time.time() - start:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
        if count_acc >= best:
            best = count_acc
            best_state = cpu_state(net)
            export(net, args.out)
            torch.save(best_state, args.out.with_suffix(".pt"))
        if done >= 1:
            print("epochs or time budget spent", file=sys.stderr)
            break
    net.load_state_dict(best_state)
    export(net, args.out)
    print(f"best point count accuracy {best:.4f}; written {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
