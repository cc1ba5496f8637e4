"""Average several die-crop classifiers into one ONNX file (`models/dice_value.md`).

Each member is an exported classifier (.onnx, its batch norms folded into the convolutions) or
a state dict from `scripts/train_dice_classifier.py` (.pt, given as PATH:SCALE with the width
it was trained at). The ensemble's `logits` are the members' mean log-probabilities, so the
referee reads it exactly as it reads one network (softmax of `logits`): the normalised
geometric mean of the members' probabilities.

    .venv-train/bin/python scripts/ensemble_dice_classifier.py --out models/dice_value.onnx \
        old/dice_value.onnx out/gpu1/dice_value_x1.pt:1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_dice_classifier import DiceNet, export_onnx

CROP_SHAPE = (4, 48, 48)


class FoldedDiceNet(nn.Module):
    """An exported `DiceNet` read back from ONNX: its convolutions carry the folded batch
    norms as biases; pooling after the first three, global average, one linear layer."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        graph = onnx.load(str(path)).graph
        weights = {
            i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer
        }
        convs = [node for node in graph.node if node.op_type == "Conv"]
        layers: list[nn.Module] = []
        for k, node in enumerate(convs):
            weight, bias = weights[node.input[1]], weights[node.input[2]]
            conv = nn.Conv2d(weight.shape[1], weight.shape[0], 3, padding=1)
            conv.weight.data, conv.bias.data = weight, bias
            layers += [conv, nn.ReLU()]
            if k < len(convs) - 1:
                layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)
        (gemm,) = [node for node in graph.node if node.op_type == "Gemm"]
        weight, bias = weights[gemm.input[1]], weights[gemm.input[2]]
        self.head = nn.Linear(weight.shape[1], weight.shape[0])
        self.head.weight.data, self.head.bias.data = weight, bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


class MeanLogProb(nn.Module):
    """The members' log-softmax, averaged."""

    def __init__(self, members: list[nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([m(x).log_softmax(dim=1) for m in self.members]).mean(dim=0)


def load_member(spec: str) -> nn.Module:
    """A member from `PATH.onnx` or `PATH.pt:SCALE`, in eval mode."""
    if spec.endswith(".onnx"):
        member: nn.Module = FoldedDiceNet(Path(spec))
    else:
        path, _, scale = spec.rpartition(":")
        member = DiceNet(float(scale))
        member.load_state_dict(torch.load(path, map_location="cpu"))
    return member.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("members", nargs="+", help="PATH.onnx or PATH.pt:SCALE")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    members = [load_member(spec) for spec in args.members]
    probe = torch.rand(8, *CROP_SHAPE)
    for spec, member in zip(args.members, members, strict=True):
        if spec.endswith(".onnx"):
            # The network read back must give what the file gives the referee (OpenCV's DNN).
            net = cv2.dnn.readNetFromONNX(spec)
            net.setInput(probe.numpy(), "crop")
            gap = float(np.abs(net.forward() - member(probe).detach().numpy()).max())
            print(f"{spec}: read back within {gap:.1e} of the file")
            if gap > 1e-3:
                raise SystemExit(f"{spec} is not a DiceNet export this script can read")
    export_onnx(MeanLogProb(members).eval(), CROP_SHAPE, args.out)


if __name__ == "__main__":
    main()
