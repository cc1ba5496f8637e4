"""Fit the checker reader's slot weights (`CheckerConfig.slot_weights`) on generated scenes.

    .venv/bin/referee scenes make --n 120 --seed 11 --out out/vision/train --width 1280 --height 720
    .venv/bin/python scripts/fit_checker_weights.py out/vision/train [--out weights.json]

Each scene is rectified with its labelled corners and lens (so only the checker stage is
measured), the slot measurements of `referee.vision.checkers.slot_features` are taken at every
slot, and a slot is labelled full when the label has a first-layer checker on that point at or
beyond it (points where a hand hides a checker are left out). A logistic regression (plain
gradient descent on standardised measurements, a little L2) is fitted on two thirds of the
images and checked on the rest; the weights, folded back to raw measurements, are printed as
JSON for `referee/vision/config.py`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from referee.vision.checker_truth import label_profile
from referee.vision.checkers import FEATURES, MAX_SLOTS, BoardImage, slot_features
from referee.vision.config import VisionConfig
from referee.vision.geometry import POINTS, BoardModel, make_canvas


def slot_truth(label: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """(24, MAX_SLOTS) booleans: a first-layer checker at that slot; and whether the slot can
    be judged at all (False on points where a hand or arm hides a checker)."""
    first_layer = np.zeros(POINTS, dtype=np.int64)
    hidden = np.zeros(POINTS, dtype=bool)
    for checker in label["checkers"]:  # type: ignore[attr-defined]
        if isinstance(checker["point"], int):
            if checker["layer"] == 1:
                first_layer[checker["point"] - 1] += 1
            if not checker["visible"]:
                hidden[checker["point"] - 1] = True
    full = np.arange(MAX_SLOTS)[None, :] < first_layer[:, None]
    return full, np.repeat(~hidden[:, None], MAX_SLOTS, axis=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="folder of generated scenes (jpg + json)")
    parser.add_argument("--out", type=Path, help="write the weights JSON here too")
    parser.add_argument("--l2", type=float, default=1e-3)
    args = parser.parse_args()

    config = VisionConfig()
    canvas = make_canvas(
        BoardModel(),
        config.rectify.surface_width_px,
        config.rectify.margin_side_mm,
        config.rectify.margin_edge_mm,
    )
    xs, ys, groups = [], [], []
    labels = sorted(args.data.glob("*.json"))
    for n, path in enumerate(labels):
        label = json.loads(path.read_text(encoding="utf-8"))
        image = cv2.imread(str(path.with_suffix(".jpg")))
        if image is None or "checkers" not in label:
            continue
        profile = label_profile(label)
        rectified = profile.rectify(image, canvas)
        features, _, _ = slot_features(
            BoardImage.of(rectified), canvas, profile.home, config.checkers
        )
        full, usable = slot_truth(label)
        keep = usable.reshape(-1)
        xs.append(features.reshape(-1, len(FEATURES))[keep])
        ys.append(full.reshape(-1)[keep])
        groups.append(np.full(int(keep.sum()), n))
    if not xs:
        print("no labelled scenes found", file=sys.stderr)
        return 1
    X, Y, G = np.concatenate(xs), np.concatenate(ys).astype(float), np.concatenate(groups)
    mu, sd = X.mean(axis=0), X.std(axis=0) + 1e-9
    Z = (X - mu) / sd
    train = G % 3 != 0
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(4000):
        p = 1 / (1 + np.exp(-(Z[train] @ w + b)))
        w -= 0.5 * (Z[train].T @ (p - Y[train]) / train.sum() + args.l2 * w)
        b -= 0.5 * float((p - Y[train]).mean())
    prob = 1 / (1 + np.exp(-(Z @ w + b)))
    for name, mask in (("fit", train), ("check", ~train)):
        pred, truth = prob[mask] > 0.5, Y[mask] > 0.5
        print(
            f"{name}: {mask.sum()} slots, accuracy {(pred == truth).mean():.4f}, "
            f"false full {int((pred & ~truth).sum())}, missed {int((~pred & truth).sum())}",
            file=sys.stderr,
        )
    raw_w = w / sd
    raw_b = b - float((w * mu / sd).sum())
    result = {"slot_weights": [round(float(v), 5) for v in raw_w], "slot_bias": round(raw_b, 5)}
    text = json.dumps(result)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
