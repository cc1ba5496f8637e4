"""Join classifier networks trained apart into one ONNX file that reads as one: its `logits`
are the mean over the members of each group's log-softmax over its classes, so a reader that
takes a softmax of them gets the geometric mean of the members' probabilities. Networks trained
apart err on different inputs; one file keeps the runtime and its callers unchanged.

The checker strip networks (`models/checker_strip.md`; the defaults: 7 slots of 6 heights):

    .venv-train/bin/python scripts/ensemble_nets.py models/checker_strip.onnx \\
        out/gpu/checker_strip_x1.onnx --out out/checker_strip_pair.onnx

The tilt reader (`models/dice_tilt.md`; one group of two classes, flat and tilted):

    .venv-train/bin/python scripts/ensemble_nets.py out/tilt/a.onnx out/tilt/b.onnx \\
        --groups 1 --classes 2 --out out/tilt/dice_tilt.onnx

Needs the training venv (`scripts/train_setup.sh`: onnx).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import compose, helper, numpy_helper

# A checker strip's logits: 7 slots x 6 heights (`referee/vision/checker_model.py`).
SLOTS, HEIGHTS = 7, 6


def member_prefix(index: int) -> str:
    """The prefix of member `index`'s node and tensor names in a joined file."""
    return f"member{index}_"


def ensemble(
    members: list[onnx.ModelProto], groups: int = SLOTS, classes: int = HEIGHTS
) -> onnx.ModelProto:
    """One model with the members' input and output names whose output is the mean over the
    members of the log-softmax of each of `groups` groups of `classes` logits."""
    first = members[0].graph
    nodes: list[onnx.NodeProto] = []
    weights: list[onnx.TensorProto] = [
        numpy_helper.from_array(np.array([-1, groups, classes], np.int64), "groups_by_classes"),
        numpy_helper.from_array(np.array([-1, groups * classes], np.int64), "flat"),
        numpy_helper.from_array(np.array(1 / len(members), np.float32), "share"),
        # Summing over classes as a product with ones (OpenCV's DNN module reads MatMul in
        # every version; ReduceSum's axes became an input in opset 13).
        numpy_helper.from_array(np.ones((classes, 1), np.float32), "ones"),
    ]
    log_probs = []
    for i, member in enumerate(members):
        name = member_prefix(i)
        graph = compose.add_prefix(member, name).graph
        # Every member reads the one shared input.
        own_input = graph.input[0].name
        for node in graph.node:
            node.input[:] = [first.input[0].name if n == own_input else n for n in node.input]
        nodes += graph.node
        weights += graph.initializer
        # The log-softmax spelt out, x - max - log(sum(exp(x - max))): OpenCV's DNN module
        # computes LogSoftmax as the log of a softmax, -inf wherever a height's probability
        # underflows (a checker network's logits span over 100 on some strips).
        nodes += [
            helper.make_node("Reshape", [graph.output[0].name, "groups_by_classes"], [name + "x"]),
            helper.make_node("ReduceMax", [name + "x"], [name + "max"], axes=[2], keepdims=1),
            helper.make_node("Sub", [name + "x", name + "max"], [name + "centred"]),
            helper.make_node("Exp", [name + "centred"], [name + "exp"]),
            helper.make_node("MatMul", [name + "exp", "ones"], [name + "sum"]),
            helper.make_node("Log", [name + "sum"], [name + "log_sum"]),
            helper.make_node("Sub", [name + "centred", name + "log_sum"], [name + "log_prob"]),
        ]
        log_probs.append(name + "log_prob")
    nodes += [
        helper.make_node("Sum", log_probs, ["log_prob_sum"]),
        helper.make_node("Mul", ["log_prob_sum", "share"], ["log_prob_mean"]),
        helper.make_node("Reshape", ["log_prob_mean", "flat"], [first.output[0].name]),
    ]
    graph = helper.make_graph(nodes, "ensemble", [first.input[0]], [first.output[0]])
    graph.initializer.extend(weights)
    model = helper.make_model(graph, opset_imports=members[0].opset_import)
    model.ir_version = members[0].ir_version
    onnx.checker.check_model(model)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("members", nargs="+", type=Path, help="networks (ONNX), one output each")
    parser.add_argument("--groups", type=int, default=SLOTS, help="groups of logits per input")
    parser.add_argument("--classes", type=int, default=HEIGHTS, help="logits per group")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    members = [onnx.load(path) for path in args.members]
    onnx.save(ensemble(members, args.groups, args.classes), args.out)
    print("wrote", args.out, args.out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
