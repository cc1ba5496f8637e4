"""Board-corner accuracy and time of the marker-free board finder on a folder of scenes.

    .venv/bin/python scripts/bench_corners.py out/corners/s41 [--limit 50] [--csv FILE] [--worst 15]
        [--config FILE]

Runs only `find_board` on every `NNNNNN.jpg` with its scene label `NNNNNN.json` beside it
(`referee scenes make`), and compares the corners found (as seen: TL, TR, BR, BL) with the
label's `board.corners`. Prints the share of corners and of boards within 1 % of the board's
width, the mean and median error in pixels, the time per image, and the worst images with what
they show (board style, tilt, k1, hand, clutter, which corner).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from referee.vision.board_finder import find_board
from referee.vision.calibration import CalibrationError, order_seen
from referee.vision.config import load_config

NAMES = ("TL", "TR", "BR", "BL")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="only the first N images")
    parser.add_argument("--start", type=int, default=0, help="skip the first N images")
    parser.add_argument("--csv", type=Path, help="write one row per image here")
    parser.add_argument("--worst", type=int, default=12, help="list this many worst images")
    parser.add_argument("--tolerance", type=float, default=0.01, help="share of board width")
    parser.add_argument("--config", type=Path, metavar="FILE", help="vision thresholds (JSON)")
    args = parser.parse_args(argv)

    labels = sorted(args.folder.glob("[0-9]*.json"))[args.start :]
    if args.limit:
        labels = labels[: args.limit]
    config = load_config(args.config).calibration
    rows = []
    for label_path in labels:
        label = json.loads(label_path.read_text(encoding="utf-8"))
        image = cv2.imread(str(label_path.with_suffix(".jpg")))
        truth = np.array(label["board"]["corners"], dtype=np.float64)
        width = float(label["board"]["width_px"])
        start = time.perf_counter()
        try:
            found = order_seen(np.array(find_board(image, config).corners))
            errors = np.linalg.norm(found - truth, axis=1)
        except CalibrationError:
            errors = np.full(4, np.inf)
        ms = (time.perf_counter() - start) * 1e3
        worst = int(np.argmax(errors))
        rows.append(
            {
                "image": label_path.stem,
                "err_tl": errors[0],
                "err_tr": errors[1],
                "err_br": errors[2],
                "err_bl": errors[3],
                "max_frac": float(errors.max() / width),
                "worst": NAMES[worst],
                "width_px": width,
                "style": label["board"]["style"],
                "tilt": label["camera"]["tilt_deg"],
                "k1": label["camera"]["dist"][0],
                "hand": label.get("hand", False),
                "clutter": len(label["style"].get("clutter", [])),
                "ms": ms,
            }
        )
        if not args.csv:
            print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    errs = np.array([[r["err_tl"], r["err_tr"], r["err_br"], r["err_bl"]] for r in rows])
    widths = np.array([r["width_px"] for r in rows])
    fracs = errs / widths[:, None]
    finite = np.isfinite(errs)
    tol = args.tolerance
    missing = int((~finite).any(axis=1).sum())
    print(
        f"{len(rows)} images: corners within {tol:.0%} {np.mean(fracs <= tol):.1%}, "
        f"boards {np.mean((fracs <= tol).all(axis=1)):.1%}, not found {missing}, "
        f"mean {errs[finite].mean():.2f} px, median {np.median(errs[finite]):.2f} px, "
        f"mean frac {np.mean(fracs[finite]):.4f}, ms mean {np.mean([r['ms'] for r in rows]):.0f} "
        f"max {np.max([r['ms'] for r in rows]):.0f}"
    )
    for r in sorted(rows, key=lambda r: -r["max_frac"])[: args.worst]:
        print(
            f"  {r['image']} max {r['max_frac']:.4f} at {r['worst']} "
            f"[{r['err_tl']:.1f} {r['err_tr']:.1f} {r['err_br']:.1f} {r['err_bl']:.1f}] "
            f"{r['style']} tilt {r['tilt']:.0f} k1 {r['k1']:.2f} hand {r['hand']} "
            f"clutter {r['clutter']}"
        )
    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with args.csv.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
