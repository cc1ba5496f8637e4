"""Make the 8-bit copies of the dice classifiers and the tilt reader that onnxruntime runs
(`NAME.int8.onnx`).

    .venv/bin/referee scenes make --n 40 --seed 301 --width 1280 --height 720 \\
        --out out/calib/s301 --jobs 2 --quiet
    .venv/bin/referee scenes make --n 30 --seed 302 --config datasets/club_overhead.json \\
        --out out/calib/s302 --jobs 2 --quiet
    .venv-train/bin/python scripts/quantize_models.py --scenes out/calib/s301 out/calib/s302

Every scene is read by the referee (its label's profile, the 32-bit networks on onnxruntime)
and each network's inputs are kept: crops as the reader really cuts them, candidates that are
no die included. Each network named is then quantized with onnxruntime's static quantizer (QDQ:
weights int8 per output channel, activations uint8, their ranges the minimum and maximum over
`--calibrate` of those inputs) and written beside it, and the 8-bit copy's outputs are compared
with the 32-bit network's on up to `--compare` other inputs. Needs onnx and onnxruntime
(`scripts/train_setup.sh` puts both in .venv-train).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.rules.variants import variant_from_name
from referee.vision import onnx_net
from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.pipeline import VisionPipeline

MODELS = Path(__file__).resolve().parents[1] / "models"
BATCH = 32


def network_inputs(folders: list[Path]) -> dict[str, NDArray[np.float32]]:
    """Every input each network was given while the scenes in `folders` were read, by file name."""
    seen: dict[str, list[NDArray[np.float32]]] = defaultdict(list)
    run = onnx_net.OnnxNet.run

    def keeping(net: onnx_net.OnnxNet, blob: NDArray[np.float32]) -> NDArray[np.float64]:
        seen[net.path.name].append(np.array(blob, np.float32))
        return run(net, blob)

    onnx_net.OnnxNet.run = keeping  # type: ignore[method-assign]
    try:
        config = VisionConfig()
        for folder in folders:
            for label_path in sorted(folder.glob("*.json")):
                image = cv2.imread(str(label_path.with_suffix(".jpg")))
                if image is None:
                    continue
                label = json.loads(label_path.read_text("utf-8"))
                pipeline = VisionPipeline(config, label_profile(label))
                pipeline.read(image, variant=variant_from_name(label["variant"]))
    finally:
        onnx_net.OnnxNet.run = run  # type: ignore[method-assign]
    return {name: np.concatenate(blobs) for name, blobs in seen.items()}


def quantize(model: Path, calibration: NDArray[np.float32]) -> Path:
    """`model`'s 8-bit copy, its ranges set on `calibration`; the copy's path."""
    import onnxruntime
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    input_name = onnxruntime.InferenceSession(str(model)).get_inputs()[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self._batches = iter(
                [calibration[k : k + BATCH] for k in range(0, len(calibration), BATCH)]
            )

        def get_next(self) -> dict[str, NDArray[np.float32]] | None:
            batch = next(self._batches, None)
            return None if batch is None else {input_name: batch}

    out = onnx_net.int8_copy(model)
    prepared = out.with_name(out.name + ".prepared")
    # Folds and fuses what it can before quantizing (no symbolic shapes: they need sympy).
    quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
    try:
        quantize_static(
            str(prepared),
            str(out),
            Batches(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
    finally:
        prepared.unlink(missing_ok=True)
    return out


def compare(model: Path, inputs: NDArray[np.float32]) -> str:
    """How the 8-bit copy's outputs differ from the 32-bit network's on `inputs`."""
    full = onnx_net.OnnxNet(model, model.name, "onnxruntime")
    eight = onnx_net.OnnxNet(model, model.name, "onnxruntime-int8")
    a = np.concatenate([full.run(inputs[k : k + BATCH]) for k in range(0, len(inputs), BATCH)])
    b = np.concatenate([eight.run(inputs[k : k + BATCH]) for k in range(0, len(inputs), BATCH)])
    agree = float(np.mean(a.argmax(axis=-1) == b.argmax(axis=-1)))
    return (
        f"{len(inputs)} inputs: same top class {agree:.2%}, output differs by a median "
        f"{np.median(np.abs(a - b)):.3f}, at most {np.abs(a - b).max():.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=Path, nargs="+", required=True)
    parser.add_argument(
        "--models",
        nargs="+",
        default=["dice_value.onnx", "dice_value_second.onnx", "dice_tilt.onnx"],
    )
    parser.add_argument("--calibrate", type=int, default=800, help="inputs setting the ranges")
    parser.add_argument("--compare", type=int, default=2000, help="inputs compared after")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    # The inputs are what the 32-bit networks are given: the copies being remade are not run.
    os.environ["REFEREE_ONNX_BACKEND"] = "onnxruntime"
    inputs = network_inputs(args.scenes)
    rng = np.random.default_rng(args.seed)
    for name in args.models:
        if name not in inputs:
            print(f"{name}: the reader never ran it on these scenes", file=sys.stderr)
            return 2
        order = rng.permutation(len(inputs[name]))
        calibration = inputs[name][order[: args.calibrate]]
        held = inputs[name][order[args.calibrate :][: args.compare]]
        out = quantize(MODELS / name, calibration)
        print(
            f"{out.name}: {out.stat().st_size / 1e6:.2f} MB, ranges from {len(calibration)} inputs"
        )
        if len(held):
            print(f"  against {name}, {compare(MODELS / name, held)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
