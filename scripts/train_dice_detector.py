"""Train the dice detector (YOLO11n from scratch with ultralytics) and export it to ONNX.

The detector finds dice in photos of dice alone (a tray, a desk: no board in view) and gives
each a box and a face value; `referee/vision/dice_detector.py` runs the exported ONNX with
OpenCV's DNN module, so the runtime needs neither torch nor ultralytics.

Data: the real dice photos' training splits (`../shared/real/dice/*/train|Train`), never their
test splits. A tenth of the images, by the same stable hash of the label file's path as
`train_dice_classifier.py` uses, is kept for validation, so the classifier and the detector are
judged on the same unseen photos.

Run in the training venv (`scripts/train_setup.sh`); no network is used.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Offline and self-contained: no connection attempts, no pip installs on demand, settings kept
# under out/ rather than in the user's home.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / "out" / "ultralytics"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from train_dice_classifier import split  # noqa: E402  # scripts/ is on the path when run

CLASSES = ["1", "2", "3", "4", "5", "6"]


def supply_torchvision_nms() -> torch.library.Library | None:
    """Register torchvision's NMS operators with a pure-torch kernel where torch is the CPU
    build; the operators stay registered while the returned library is alive. None with a
    CUDA build of torch, whose torchvision brings its own (and would refuse a second).

    PyPI's torchvision is built against CUDA torch; beside the CPU torch build its C++ operators
    are missing and ultralytics fails as soon as it validates. This must run before torchvision
    (and so ultralytics) is imported.
    """
    if torch.version.cuda is not None:
        return None
    lib = torch.library.Library("torchvision", "DEF")
    for name in ("nms", "qnms"):
        lib.define(f"{name}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.impl(name, _nms, "CPU")

    import torchvision.extension

    torchvision.extension._has_ops = lambda: True
    return lib


def _nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Greedy non-maximum suppression: the indices kept, best score first."""
    order = scores.argsort(descending=True)
    x1, y1, x2, y2 = dets[order].unbind(1)
    area = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    alive = torch.ones(len(order), dtype=torch.bool)
    keep = []
    for i in range(len(order)):
        if not alive[i]:
            continue
        keep.append(order[i])
        w = (torch.minimum(x2[i], x2[i + 1 :]) - torch.maximum(x1[i], x1[i + 1 :])).clamp(min=0)
        h = (torch.minimum(y2[i], y2[i + 1 :]) - torch.maximum(y1[i], y1[i + 1 :])).clamp(min=0)
        inter = w * h
        alive[i + 1 :] &= inter / (area[i] + area[i + 1 :] - inter + 1e-9) <= iou_threshold
    return torch.stack(keep) if keep else torch.zeros(0, dtype=torch.long)


def is_validation(label: Path) -> bool:
    """The classifier's split (`train_dice_classifier.split`), on the label's path as the
    classifier's crops name their photo (relative to the repository root)."""
    return bool(split(np.array([os.path.relpath(label, ROOT)]))[0])


def build_dataset(sources: list[Path], out: Path) -> Path:
    """A YOLO dataset folder (images linked, labels copied) and its data.yaml."""
    if out.exists():
        shutil.rmtree(out)
    counts = {"train": 0, "val": 0}
    for source in sources:
        for label in sorted(source.glob("*.txt")):
            image = label.with_suffix(".jpg")
            if label.name == "classes.txt" or not image.is_file():
                continue
            part = "val" if is_validation(label) else "train"
            name = f"{source.parent.name}_{label.stem}"
            (out / "images" / part).mkdir(parents=True, exist_ok=True)
            (out / "labels" / part).mkdir(parents=True, exist_ok=True)
            (out / "images" / part / f"{name}.jpg").symlink_to(image.resolve())
            shutil.copyfile(label, out / "labels" / part / f"{name}.txt")
            counts[part] += 1
    print(f"dataset: {counts['train']} training images, {counts['val']} validation images")
    return write_data_yaml(out, CLASSES)


def write_data_yaml(out: Path, classes: Sequence[str]) -> Path:
    """The data.yaml of the YOLO dataset folder `out` (images/ and labels/, each with train/
    and val/) whose classes are `classes`."""
    data = out / "data.yaml"
    names = "\n".join(f"  {i}: '{name}'" for i, name in enumerate(classes))
    data.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n"
    )
    return data


def train_and_export(
    data: Path,
    work: Path,
    out: Path,
    imgsz: int,
    export_imgsz: int | tuple[int, int],
    args: argparse.Namespace,
    **augment: float,
) -> None:
    """Train YOLO11n on `data` (inputs of `imgsz` px, ultralytics' run in `work`/run), print the
    best epoch's validation figures, and export it to ONNX for inputs of `export_imgsz` (a
    square's side, or height and width) as `out`. `args` holds `add_training_arguments`' options
    (the budget, the loader, the device, and `init`: an earlier run's weights to go on from,
    with no warm-up, instead of starting from scratch); `augment` ultralytics' augmentation
    settings beyond its defaults."""
    _registered = supply_torchvision_nms()  # the NMS stays registered while this lives
    import ultralytics.utils.torch_utils
    from ultralytics import YOLO

    # ultralytics trains on the CPU with one thread fewer than there are cores: one of two.
    ultralytics.utils.torch_utils.NUM_THREADS = args.threads

    # Built from its yaml: no pretrained weights to download. An earlier run's checkpoint
    # carries its own yaml and weights, and training goes on from them.
    model = YOLO(str(args.init) if args.init else "yolo11n.yaml")
    if args.init:
        augment.setdefault("warmup_epochs", 0)
    model.train(
        data=str(data),
        imgsz=imgsz,
        epochs=args.epochs,
        time=args.hours,
        batch=args.batch,
        workers=args.workers,
        device=args.device,
        pretrained=bool(args.init),  # False would build `init`'s network afresh, weights dropped
        amp=False,
        plots=False,
        seed=args.seed,
        project=str(work.resolve()),  # without it, or relative, it lands under ./runs/detect
        name="run",
        exist_ok=True,
        **augment,
    )
    best = YOLO(str(work / "run" / "weights" / "best.pt"))
    metrics = best.val(
        data=str(data),
        imgsz=imgsz,
        device=args.device,
        plots=False,
        project=str(work.resolve()),
        name="val",
        exist_ok=True,
    )
    print(f"validation: mAP50 {metrics.box.map50:.3f}, mAP50-95 {metrics.box.map:.3f}")
    exported = best.export(format="onnx", imgsz=export_imgsz, opset=12, simplify=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out)
    print(f"wrote {out}")


def add_training_arguments(parser: argparse.ArgumentParser, batch: int) -> None:
    """The options `train_and_export` reads: the budget, the loader, the device and a run to go
    on from; `batch` images a step by default."""
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--hours", type=float, default=1.0, help="time budget; ends training")
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="torch device (0 for a GPU)")
    parser.add_argument("--init", type=Path, help="an earlier run's best.pt to train on from")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--yolo",
        nargs="+",
        type=Path,
        default=[
            ROOT.parent / "shared/real/dice/d6-tray/train",
            ROOT.parent / "shared/real/dice/webcam-desk/Train",
        ],
        help="folders of photos with YOLO dice labels (class = value - 1)",
    )
    parser.add_argument("--work", type=Path, default=ROOT / "out" / "train" / "yolo_dice")
    parser.add_argument("--out", type=Path, default=ROOT / "models" / "dice_detector.onnx")
    parser.add_argument("--imgsz", type=int, default=416)
    add_training_arguments(parser, batch=16)
    args = parser.parse_args()

    data = build_dataset(args.yolo, args.work / "data")
    # A die's face reads the same mirrored or upside down; colour is not the label.
    train_and_export(
        data, args.work, args.out, args.imgsz, args.imgsz, args, flipud=0.5, fliplr=0.5, hsv_h=0.5
    )


if __name__ == "__main__":
    main()
