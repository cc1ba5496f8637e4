"""Speed of the vision pipeline: a whole read at 1280x720 with a saved profile, its stages,
finding the board with no profile, the profile re-check, and the scene gate's frames/s.

    .venv/bin/python scripts/bench_vision.py [--image FILE --corners X1,Y1,...] [--runs 30]

Without --image a board is drawn (`referee.vision.synthetic`: the short-nardy start and two
dice) at 1280x720. Figures are medians over the runs, on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from referee.vision.board_finder import find_board, recheck
from referee.vision.calibration import parse_corners, profile_from_corners
from referee.vision.config import VisionConfig
from referee.vision.gate import SceneGate
from referee.vision.pipeline import VisionPipeline
from referee.vision.synthetic import DrawnBoard, DrawnDie, render, start_counts

SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])


def median_ms(action: Callable[[], object], runs: int) -> float:
    """Median wall time of `action` in milliseconds (after one warm-up call)."""
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", type=Path, help="a camera image (default: a drawn board)")
    parser.add_argument("--corners", help="playing surface corners as seen, with --image")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()

    if args.image is not None:
        loaded = cv2.imread(str(args.image))
        if loaded is None or not args.corners:
            print("--image needs a readable image and --corners", file=sys.stderr)
            return 2
        image = np.asarray(loaded, dtype=np.uint8)
        seen = parse_corners(args.corners)
    else:
        dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
        board = DrawnBoard(counts=start_counts(), dice=dice)
        image = render(board, SEEN, (1280, 720), noise_sigma=2.0)
        seen = SEEN
    size = (image.shape[1], image.shape[0])
    config = VisionConfig()
    profile = profile_from_corners(seen, size)
    pipeline = VisionPipeline(config, profile)

    stage_times: dict[str, list[float]] = {}

    def read() -> None:
        result = pipeline.read(image)
        for name, ms in result.timings_ms.items():
            stage_times.setdefault(name, []).append(ms)

    whole = median_ms(read, args.runs)
    print(f"image {size[0]}x{size[1]}, {args.runs} runs, medians")
    print(f"  whole read with a profile      {whole:8.1f} ms")
    for name, values in stage_times.items():
        print(f"    {name:<28} {statistics.median(values):8.1f} ms")
    few = max(3, args.runs // 10)
    find_ms = median_ms(lambda: find_board(image, config.calibration), few)
    check_ms = median_ms(lambda: recheck(image, profile, config.calibration), args.runs)
    print(f"  find the board (no profile)    {find_ms:8.1f} ms")
    print(f"  re-check the profile           {check_ms:8.1f} ms")
    gate = SceneGate(config.gate)
    frames = [image, np.roll(image, 3, axis=1)]
    count = [0]

    def step() -> None:
        gate.update(frames[count[0] % 2])
        count[0] += 1

    gate_ms = median_ms(step, args.runs * 5)
    print(
        f"  scene gate                     {gate_ms:8.2f} ms/frame = {1e3 / gate_ms:.0f} frames/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
