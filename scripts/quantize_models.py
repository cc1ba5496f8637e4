"""Make the 8-bit copies of the dice classifiers, the tilt reader, the board dice detector, the
board face reader and the pile and stack readers that onnxruntime runs (`NAME.int8.onnx`).

    .venv/bin/referee scenes make --n 40 --seed 301 --width 1280 --height 720 \\
        --out out/calib/s301 --jobs 2 --quiet
    .venv/bin/referee scenes make --n 30 --seed 302 --config datasets/club_overhead.json \\
        --out out/calib/s302 --jobs 2 --quiet
    .venv-train/bin/python scripts/quantize_models.py --scenes out/calib/s301 out/calib/s302
    .venv-train/bin/python scripts/quantize_models.py --scenes out/calib/s301 out/calib/s302 \\
        --models dice_board.onnx --calibrate 50
    .venv/bin/referee scenes make --n 40 --seed 303 --config datasets/bearoff.json \\
        --out out/calib/s303 --jobs 2 --quiet
    .venv-train/bin/python scripts/quantize_models.py --scenes out/calib/s301 out/calib/s302 \\
        out/calib/s303 --models checker_pile.onnx checker_stack.onnx --calibrate 400
    .venv-train/bin/python scripts/quantize_models.py --scenes out/calib/s301 out/calib/s302 \\
        --models dice_board_face.onnx --calibrate 400

Every scene is read by the referee (its label's profile, the 32-bit networks on onnxruntime)
and each network's inputs are kept: crops as the reader really cuts them, candidates that are
no die included. Each network named is then quantized with onnxruntime's static quantizer (QDQ:
weights int8 per output channel in 7 bits (`reduce_range`), activations uint8, their ranges
the minimum and maximum over `--calibrate` of those inputs; a YOLO head's decoding left
32-bit) and written beside it, and the 8-bit copy's outputs are compared with the 32-bit
network's on up to `--compare` other inputs. The board dice detector sees one frame a read,
so these scenes give it only 70 inputs: 50 set its ranges and 20 are compared. Needs onnx and
onnxruntime (`scripts/train_setup.sh` puts both in .venv-train).
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
# Weights scaled per output channel dequantize along an axis, which ONNX has from opset 13;
# the detectors are exported at 12.
PER_CHANNEL_OPSET = 13
DETECTOR_SCORE = 0.25  # DiceConfig.board_detector_min_score's default


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
            step = batch_size(model)
            self._batches = iter(
                [calibration[k : k + step] for k in range(0, len(calibration), step)]
            )

        def get_next(self) -> dict[str, NDArray[np.float32]] | None:
            batch = next(self._batches, None)
            return None if batch is None else {input_name: batch}

    out = onnx_net.int8_copy(model)
    prepared = out.with_name(out.name + ".prepared")
    # Folds and fuses what it can before quantizing (no symbolic shapes: they need sympy).
    quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
    lift_to_opset(prepared, PER_CHANNEL_OPSET)
    try:
        quantize_static(
            str(prepared),
            str(out),
            Batches(),
            nodes_to_exclude=yolo_decoding(prepared),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            # Weights in 7 bits: x86 CPUs without VNNI (AVX2, AVX-512) multiply uint8 by int8
            # in pairs summed into 16 bits, which saturate with full 8-bit weights; on an AMD
            # EPYC with AVX2 only, the copies made with 8-bit weights gave the 32-bit network's
            # class on 85.5-97.3 % of crops (99.3-99.7 % where they were made). 7 bits cannot
            # overflow there, so every CPU computes the same.
            reduce_range=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
    finally:
        prepared.unlink(missing_ok=True)
    return out


def lift_to_opset(model: Path, opset: int) -> None:
    """Convert the network in `model` in place to ONNX `opset` if it is older."""
    import onnx
    from onnx import version_converter

    network = onnx.load(str(model))
    if network.opset_import[0].version < opset:
        onnx.save(version_converter.convert_version(network, opset), str(model))


def yolo_decoding(model: Path) -> list[str]:
    """The nodes of a YOLO detector's head that turn its last convolutions' outputs into boxes
    and scores (none in a classifier). They stay 32-bit: the output holds box sides in input
    pixels beside scores of 0..1, and one 8-bit range for both would round every score away."""
    import onnx

    nodes = onnx.load(str(model)).graph.node
    head = nodes[-1].name.rsplit("/", 1)[0] + "/"  # the module of the output's node
    if not head.startswith("/model."):
        return []
    return [
        n.name
        for n in nodes
        if n.name.startswith(head) and not n.name.startswith((head + "cv2", head + "cv3"))
    ]


def batch_size(model: Path) -> int:
    """How many inputs `model` takes at once: `BATCH`, or its fixed batch dimension."""
    import onnxruntime

    first = onnxruntime.InferenceSession(str(model)).get_inputs()[0].shape[0]
    return first if isinstance(first, int) else BATCH


def compare(model: Path, inputs: NDArray[np.float32]) -> str:
    """How the 8-bit copy's outputs differ from the 32-bit network's on `inputs`: for a
    classifier its top class, for a detector the anchors either calls a die."""
    full = onnx_net.OnnxNet(model, model.name, "onnxruntime")
    eight = onnx_net.OnnxNet(model, model.name, "onnxruntime-int8")
    step = batch_size(model)
    a = np.concatenate([full.run(inputs[k : k + step]) for k in range(0, len(inputs), step)])
    b = np.concatenate([eight.run(inputs[k : k + step]) for k in range(0, len(inputs), step)])
    if a.ndim == 3:  # a YOLO head: images x (4 box + scores) x anchors
        sure_a = a[:, 4:].max(axis=1) >= DETECTOR_SCORE
        sure_b = b[:, 4:].max(axis=1) >= DETECTOR_SCORE
        both = sure_a & sure_b
        diff = np.abs(a - b).transpose(0, 2, 1)[both]  # anchors either calls a die x outputs
        return (
            f"{len(inputs)} inputs: {sure_a.sum()} anchors score {DETECTOR_SCORE} or more, "
            f"{both.sum()} of them in the copy too, which adds {(sure_b & ~sure_a).sum()}; "
            f"their boxes differ by a median {np.median(diff[:, :4]):.2f} px, "
            f"their best scores by {np.median(diff[:, 4:].max(axis=1)):.3f}"
        )
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
