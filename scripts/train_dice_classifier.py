"""Train the die-crop classifier and export it to ONNX (`models/dice_value.md` has the card).

Needs the training venv (`scripts/train_setup.sh`: CPU torch + onnx), or on a GPU machine its
own CUDA torch with `--device cuda` (`scripts/train_gpu.sh`); the referee itself runs
the exported file with OpenCV. Input: crops from `scripts/make_dice_crops.py`. A tenth of the
source images (whole images, so one die's copies never straddle the split) is kept for
validation; the best epoch by validation accuracy is exported.

    .venv-train/bin/python scripts/train_dice_classifier.py --crops out/train/crops.npz \
        --out models/dice_value.onnx --minutes 12

`--init-onnx models/dice_value.onnx` fine-tunes the shipped network itself (no weights file
beside it is needed): its batch norms, folded into the convolutions on export, stay frozen.
"""

from __future__ import annotations

import argparse
import math
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from referee.vision.dice_classifier import CLASSES


class DiceNet(nn.Module):
    """On a crop and its lean plane (`referee.vision.dice_classifier.to_blob`): four 3x3 conv
    blocks (batch norm, ReLU, pooling after each of the first three), global average pooling
    and a linear layer to `classes` outputs (the crop classifier's `CLASSES` unless told): about
    190k weights at `scale` 1 (the channels are multiplied by `scale`)."""

    def __init__(self, scale: float = 1.0, classes: int = len(CLASSES)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = 4  # BGR and the lean plane
        for k, out in enumerate(round(c * scale) for c in (32, 64, 96, 128)):
            layers += [nn.Conv2d(width, out, 3, padding=1, bias=False), nn.BatchNorm2d(out)]
            layers.append(nn.ReLU(inplace=True))
            if k < 3:
                layers.append(nn.MaxPool2d(2))
            width = out
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Left-right mirror images, brightness/contrast/colour-channel jitter, sometimes a blur,
    and sensor noise, on a batch of crops N x 3 x H x W scaled to 0..1. No turns: a crop is
    turned so that a flat die's lean points down, and a mirror image is the only change that
    keeps it so."""
    n, dev = x.shape[0], x.device
    flip = torch.rand(n, generator=gen, device=dev) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    gain = 1 + 0.35 * (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5)
    channel = 1 + 0.2 * (torch.rand(n, 3, 1, 1, generator=gen, device=dev) - 0.5)
    offset = 0.25 * (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * gain * channel + mean + offset
    # Swapping colour channels makes a red die look blue: die colours are not the label.
    if float(torch.rand(1, generator=gen, device=dev)) < 0.5:
        x = x[:, torch.randperm(3, generator=gen, device=dev)]
    blur = torch.rand(n, generator=gen, device=dev) < 0.25
    if blur.any():
        kernel = torch.tensor([1.0, 2.0, 1.0], device=dev) / 4
        k2 = (kernel[:, None] * kernel[None, :]).expand(3, 1, 3, 3)
        soft = nn.functional.conv2d(x, k2, padding=1, groups=3)
        x = torch.where(blur[:, None, None, None], soft, x)
    noise = torch.randn(x.shape, generator=gen, device=dev)
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=gen, device=dev) * noise
    return x.clamp(0, 1)


def split(images: np.ndarray, fraction: float = 0.1) -> np.ndarray:
    """True for crops whose source image falls in the validation share (a stable hash)."""
    keys = np.array([zlib.crc32(str(name).encode()) % 1000 for name in images])
    return np.asarray(keys < fraction * 1000)


def set_one_cycle_lr(opt: torch.optim.Optimizer, max_lr: float, done: float) -> None:
    """One cycle: warm up over the first tenth of the run (`done`, 0..1), then cosine down to
    zero."""
    for group in opt.param_groups:
        group["lr"] = max_lr * (
            done / 0.1 if done < 0.1 else 0.5 * (1 + math.cos(math.pi * (done - 0.1) / 0.9))
        )


def one_cycle_step(
    opt: torch.optim.Optimizer,
    loss: torch.Tensor,
    max_lr: float,
    step: int,
    total_steps: int,
    start: float,
    minutes: float,
) -> bool:
    """Step `step` (from 1) of a one-cycle run over whichever ends first, `total_steps` or
    `minutes` since `start`: on a shared CPU the speed is not known beforehand, and a run cut
    short by the clock should still end annealed. Sets the learning rate for how far the run
    is and takes one optimiser step on `loss`; False, and no step, once the run is over."""
    done = max(step / total_steps, (time.time() - start) / (60 * minutes))
    if done >= 1:
        return False
    set_one_cycle_lr(opt, max_lr, done)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return True


def cached(path: Path | None, cut: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Arrays read from `path` when it exists, else cut (and kept there when a path is given):
    cutting scenes into crops takes longer than a training run's first epochs."""
    if path is not None and path.is_file():
        with np.load(path) as saved:
            return dict(saved)
    data = cut()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **data)
    return data


def export_onnx(
    model: nn.Module,
    input_shape: tuple[int, int, int],
    out: Path,
    input_name: str = "crop",
    output_name: str = "logits",
) -> None:
    """`model` (in eval mode) as ONNX at `out`: input `input_name` (N x `input_shape`), output
    `output_name`, any batch size, opset 13 (OpenCV's DNN module reads it)."""
    model.eval()
    torch.onnx.export(
        model,
        (torch.zeros(1, *input_shape),),
        str(out),
        input_names=[input_name],
        output_names=[output_name],
        dynamic_axes={input_name: {0: "n"}, output_name: {0: "n"}},
        opset_version=13,
        dynamo=False,
    )
    print("wrote", out, out.stat().st_size, "bytes")


class BestEpoch:
    """Reports each epoch, keeps the weights of the best by validation accuracy (the last of
    equals) in memory and at `path`, and says when the time budget is spent."""

    def __init__(self, model: nn.Module, path: Path, start: float, minutes: float) -> None:
        self.model, self.path, self.start, self.minutes = model, path, start, minutes
        self.accuracy = -1.0
        self.state: dict[str, torch.Tensor] | None = None

    def end_epoch(self, epoch: int, mean_loss: float, accuracy: float) -> bool:
        """Report and keep epoch `epoch` (from 0); True when the time budget is spent."""
        elapsed = (time.time() - self.start) / 60
        print(
            f"epoch {epoch + 1} loss {mean_loss:.4f} val acc {accuracy:.4f} {elapsed:.1f} min",
            flush=True,
        )
        if accuracy >= self.accuracy:
            self.accuracy = accuracy
            self.state = cpu_state(self.model)
            torch.save(self.state, self.path)
        if elapsed >= self.minutes:
            print("time budget reached", flush=True)
            return True
        return False

    def restore(self) -> None:
        """Put the best epoch's weights back into the model."""
        assert self.state is not None, "no epoch ended"
        self.model.load_state_dict(self.state)


def cpu_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """A copy of `model`'s weights on the CPU (a state saved on a GPU then loads anywhere)."""
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def with_lean(crops: torch.Tensor, lean: torch.Tensor) -> torch.Tensor:
    """Crops (N x 3 x S x S, 0..1) with their lean as a fourth plane, as `to_blob` feeds them."""
    n, _, h, w = crops.shape
    return torch.cat([crops, lean[:, None, None, None].expand(n, 1, h, w)], dim=1)


def evaluate(
    model: nn.Module,
    x: torch.Tensor,
    lean: torch.Tensor,
    y: torch.Tensor,
    classes: int = len(CLASSES),
) -> tuple[float, np.ndarray]:
    """Accuracy and the confusion matrix (truth rows, prediction columns) of a network with
    `classes` outputs."""
    model.eval()
    with torch.no_grad():
        pred = torch.cat(
            [
                model(with_lean(x[i : i + 512].float() / 255, lean[i : i + 512])).argmax(1)
                for i in range(0, len(x), 512)
            ]
        )
    confusion = np.zeros((classes, classes), np.int64)
    np.add.at(confusion, (y.cpu().numpy(), pred.cpu().numpy()), 1)
    return float((pred == y).float().mean()), confusion


def load_folded(features: nn.Sequential, path: Path, prefix: str = "") -> dict[str, torch.Tensor]:
    """The convolutions of an exported network (ONNX, each batch norm folded into its conv) into
    `features`, where each conv is followed by its batch norm: the conv takes the folded weights
    and the norm becomes the identity plus the folded bias, so the layers compute what the file
    does. Those norms must stay frozen in training (`freeze_norms`) for that to hold: their
    statistics are no longer the conv outputs'. `prefix` picks one member of a file joined by
    `scripts/ensemble_nets.py` (its `member_prefix`). Returns every tensor of the file
    by name with `prefix` taken off, for the layers after them."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    tensors = {
        t.name.removeprefix(prefix): torch.from_numpy(numpy_helper.to_array(t).copy())
        for t in graph.initializer
        if t.name.startswith(prefix)
    }
    convs = [
        node for node in graph.node if node.op_type == "Conv" and node.input[1].startswith(prefix)
    ]
    layers = list(features)
    pairs = [(m, layers[i + 1]) for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    if len(convs) != len(pairs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, norm) in zip(convs, pairs, strict=True):
            assert isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d)
            conv.weight.copy_(tensors[node.input[1].removeprefix(prefix)])
            norm.reset_running_stats()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(tensors[node.input[2].removeprefix(prefix)])
    return tensors


def load_exported(model: DiceNet, path: Path, prefix: str = "") -> None:
    """Weights of an exported DiceNet (ONNX; `prefix` picks a joined file's member) into
    `model` (`load_folded`, then the head)."""
    tensors = load_folded(model.features, path, prefix)
    with torch.no_grad():
        model.head.weight.copy_(tensors["head.weight"])
        model.head.bias.copy_(tensors["head.bias"])


def freeze_norms(model: nn.Module) -> None:
    """Batch norms use and keep their running statistics (call after `model.train()`)."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crops", nargs="+", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--minutes", type=float, default=12.0, help="training time budget")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--scale", type=float, default=1.0, help="channel width multiplier")
    parser.add_argument("--init", type=Path, help="start from these weights (a .pt state dict)")
    parser.add_argument(
        "--init-onnx",
        type=Path,
        help="start from an exported network (e.g. models/dice_value.onnx); its folded batch "
        "norms stay frozen",
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument(
        "--boost", nargs="*", default=[], metavar="CLASS=FACTOR", help="weight a class's loss more"
    )
    parser.add_argument(
        "--keep-none", type=float, default=1.0, help="share of the no-die crops to train on"
    )
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    parts = [np.load(p) for p in args.crops]
    x_all = np.concatenate([p["x"] for p in parts])
    y_all = np.concatenate([p["y"] for p in parts])
    lean_all = np.concatenate([p["lean"] for p in parts])
    val = split(np.concatenate([p["image"] for p in parts]))
    # Crops stay uint8 until a batch is drawn: 120k float crops would take 3 GB.
    x = torch.from_numpy(x_all).permute(0, 3, 1, 2)
    lean = torch.from_numpy(lean_all).float()
    y = torch.from_numpy(y_all).long()
    # Fine-tuning on the scarce classes can leave most of the plentiful no-die crops out.
    keep = torch.rand(len(y), generator=torch.Generator().manual_seed(args.seed)) < args.keep_none
    train = torch.from_numpy(~val) & ((y != CLASSES.index("none")) | keep)
    # The whole set moves to the device once (uint8: 300k crops are 2 GB).
    x_train, y_train = x[train].to(device), y[train].to(device)
    x_val, y_val = x[val].to(device), y[val].to(device)
    lean_train, lean_val = lean[train].to(device), lean[val].to(device)
    crop_px = x.shape[-1]
    print(f"train {len(y_train)} val {len(y_val)} crops of {crop_px}px", flush=True)
    # Classes are far from balanced (many `none`, few rolling): weight the loss by 1/sqrt(count).
    counts = torch.bincount(y_train, minlength=len(CLASSES)).float().clamp(min=1)
    weights = (counts.sum() / counts).sqrt()
    for name, factor in (item.split("=") for item in args.boost):
        weights[CLASSES.index(name)] *= float(factor)
    loss_fn = nn.CrossEntropyLoss(
        weight=(weights / weights.mean()).to(device), label_smoothing=0.05
    )
    model = DiceNet(args.scale)
    if args.init is not None:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    if args.init_onnx is not None:
        load_exported(model, args.init_onnx)
    model.to(device)
    max_lr = args.lr
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    batch = args.batch
    steps_per_epoch = (len(y_train) + batch - 1) // batch
    total_steps = args.epochs * steps_per_epoch
    args.out.parent.mkdir(parents=True, exist_ok=True)
    start = time.time()
    step = 0
    best = BestEpoch(model, args.out.with_suffix(".pt"), start, args.minutes)
    for epoch in range(args.epochs):
        model.train()
        if args.init_onnx is not None:
            freeze_norms(model)
        order = torch.randperm(len(y_train), generator=gen, device=device)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            crops = augment(x_train[idx].float() / 255, gen)
            loss = loss_fn(model(with_lean(crops, lean_train[idx])), y_train[idx])
            step += 1
            if not one_cycle_step(opt, loss, max_lr, step, total_steps, start, args.minutes):
                break
            total += float(loss.detach()) * len(idx)
        acc, confusion = evaluate(model, x_val, lean_val, y_val)
        if best.end_epoch(epoch, total / len(y_train), acc):
            break
    best.restore()
    acc, confusion = evaluate(model, x_val, lean_val, y_val)
    print(f"best val acc {acc:.4f}\nconfusion (rows truth, cols predicted; {CLASSES}):")
    print(confusion)
    export_onnx(model.cpu(), (4, crop_px, crop_px), args.out)


if __name__ == "__main__":
    main()
