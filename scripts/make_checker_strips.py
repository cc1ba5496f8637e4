"""Cut labelled point strips from generated scenes for the checker network (`checker_model.py`).

    .venv/bin/referee scenes make --n 1000 --seed 32 --out out/chk/s32 --width 1280 --height 720
    .venv/bin/python scripts/make_checker_strips.py out/chk/s32 [more folders] --out strips.npz

Each scene is rectified with its labelled corners and lens, moved by a small random error
(`--jitter-px`, as a board finder's corners are off by a pixel or two), and the 24 points are
cut with `board_strips` (24 points, the bar's halves, the tray's compartments). A strip's label
is how many checkers stand at each of its slots (0..5), from the label's
checkers in placement order; a slot whose top checker is hidden (a hand, mostly) is marked -1
and not learned from, unless `--keep-hidden` (then the network learns that a hand may hide
checkers, and says so by being unsure there). Empty strips are kept with `--keep-empty`
probability (they are most of the board). Also stored: the strip's kind (0 point, 1 bar,
2 tray), colour (0 none, 1 white, 2 black), count, and the scene's index (for splitting by
scene). Never run this on the measuring sets (seeds 1, 3, 4, 11).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.checker_model import (
    BAR,
    BAR_ROW,
    HEIGHTS,
    SLOTS,
    STRIPS,
    TRAY,
    TRAY_PILE,
    board_strips,
)
from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.geometry import POINTS
from referee.vision.pipeline import canvas_for


def _place_heights(
    items: list[dict[str, Any]], slot_of: Callable[[int], int], keep_hidden: bool
) -> NDArray[np.int64]:
    """(SLOTS,) heights of one place's checkers (in placement order); -1 where the top checker
    of a slot is hidden, unless `keep_hidden`."""
    heights = np.zeros(SLOTS, np.int64)
    top: dict[int, dict[str, Any]] = {}
    for index, checker in enumerate(items):
        slot = slot_of(index)
        if slot < SLOTS:
            heights[slot] = min(HEIGHTS - 1, heights[slot] + 1)
            top[slot] = checker
    for slot, checker in top.items():
        if not checker["visible"] and not keep_hidden:
            heights[slot] = -1
    return heights


def strip_labels(label: dict[str, Any], keep_hidden: bool = False) -> tuple[NDArray[np.int64], ...]:
    """(STRIPS, SLOTS) heights, and per strip: kind, colour, count."""
    places: dict[object, list[dict[str, Any]]] = {}
    for checker in label["checkers"]:
        key = checker["point"]
        if key in ("bar", "off"):
            key = (key, checker["color"])
        places.setdefault(key, []).append(checker)
    heights = np.zeros((STRIPS, SLOTS), np.int64)
    kinds = np.array([0] * POINTS + [1, 1, 2, 2])
    colours = np.array([0] * POINTS + [1, 2, 1, 2])
    counts = np.zeros(STRIPS, np.int64)
    for key, items in places.items():
        if isinstance(key, int):
            row = sum(1 for c in items if c["layer"] == 1)
            index = key - 1
            heights[index] = _place_heights(items, lambda i, row=row: i % row, keep_hidden)
            colours[index] = 1 if items[0]["color"] == "white" else 2
        else:
            where, color = key  # type: ignore[misc]
            side = 0 if color == "white" else 1
            if where == "bar":
                index = BAR[side]
                heights[index] = _place_heights(items, lambda i: i % BAR_ROW, keep_hidden)
            else:
                index = TRAY[side]
                heights[index] = _place_heights(items, lambda i: i // TRAY_PILE, keep_hidden)
        counts[index] = len(items)
    return heights, kinds, colours, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+", help="folders of generated scenes")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jitter-px", type=float, default=2.5, help="largest corner error sd")
    parser.add_argument("--keep-empty", type=float, default=0.35)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep-hidden", action="store_true", help="learn hidden slots too")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    config = VisionConfig()
    strips, heights, kinds, colours, counts, scenes = [], [], [], [], [], []
    scene = 0
    for folder in args.data:
        for path in sorted(folder.glob("*.json")):
            label = json.loads(path.read_text(encoding="utf-8"))
            image = cv2.imread(str(path.with_suffix(".jpg")))
            if image is None or "checkers" not in label:
                continue
            profile = label_profile(label)
            sd = rng.uniform(0.0, args.jitter_px)
            corners = np.array(profile.corners) + rng.normal(0.0, sd, (4, 2))
            profile = profile.with_corners(corners, "jittered")
            canvas = canvas_for(profile, config)
            cut = board_strips(profile.rectify(image, canvas), canvas, profile.home)
            h, k, c, n = strip_labels(label, args.keep_hidden)
            keep = (n > 0) | (rng.random(STRIPS) < args.keep_empty)
            strips.append(cut[keep])
            heights.append(h[keep])
            kinds.append(k[keep])
            colours.append(c[keep])
            counts.append(n[keep])
            scenes.append(np.full(int(keep.sum()), scene))
            scene += 1
    if not strips:
        print("no labelled scenes found", file=sys.stderr)
        return 1
    np.savez_compressed(
        args.out,
        strips=np.concatenate(strips),
        heights=np.concatenate(heights),
        kinds=np.concatenate(kinds),
        colours=np.concatenate(colours),
        counts=np.concatenate(counts),
        scenes=np.concatenate(scenes),
    )
    print(f"{scene} scenes, {sum(len(s) for s in strips)} strips -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
