"""White's seat by the bear-off tray, alone, on folders of generated scenes with true corners.

    .venv/bin/python scripts/bench_seat.py out/t61 out/t62 out/t63 out/t64 out/eval_seed1

For every `NNNNNN.jpg` with its scene label beside it (`referee scenes make`), the board's true
corners are given to `board_finder.auto_seat` (what `find_board` does once it has the corners),
and the seat it picks is compared with the label's (white's point 1 at the near right corner).
Prints per folder the scenes whose seat is right, wrong, or right only by the fallback (no
tray seen: white at the image's bottom), and names every scene not right by the tray.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from referee.vision.board_finder import auto_seat, work_image
from referee.vision.calibration import order_seen
from referee.vision.checker_truth import label_seat
from referee.vision.config import CalibrationConfig
from referee.vision.geometry import BoardModel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders of generated scenes")
    args = parser.parse_args()
    config = CalibrationConfig()
    model = BoardModel()
    for folder in args.folders:
        outcomes: Counter[str] = Counter()
        missed = []
        for label_path in sorted(folder.glob("*.json")):
            label = json.loads(label_path.read_text("utf-8"))
            image = cv2.imread(str(label_path.with_suffix(".jpg")))
            if image is None:
                continue
            seen = order_seen(np.array(label["board"]["corners"], dtype=np.float64))
            small, scale = work_image(np.asarray(image, np.uint8), config)
            seat, by_tray = auto_seat(small, seen * scale, model, "right")
            outcome = ("right" if seat == label_seat(label) else "wrong") + (
                "" if by_tray else ", no tray seen"
            )
            outcomes[outcome] += 1
            if outcome != "right":
                missed.append(f"{label_path.stem} ({outcome}; {label['board']['style']})")
        total = sum(outcomes.values())
        others = [f"{n} {what}" for what, n in sorted(outcomes.items()) if what != "right"]
        print(f"{folder}: {outcomes['right']} of {total} right by the tray", *others, sep="; ")
        for line in missed:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
