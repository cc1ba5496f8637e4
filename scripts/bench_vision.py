"""Speed of the vision pipeline: a whole read at 1280x720 with a saved profile, its stages,
finding the board with no profile, the profile re-check, and the scene gate's frames/s.

    .venv/bin/python scripts/bench_vision.py [--image FILE --corners X1,Y1,...] [--runs 30]
    .venv/bin/python scripts/bench_vision.py --scenes out/tune61 [--limit 40]

Without --image a board is drawn (`referee.vision.synthetic`: the short-nardy start and two
dice) at 1280x720. With --scenes, generated scenes (`referee scenes make`) are read instead,
each with the profile its label gives (no board finding), and the whole read's median and 95th
percentile over them are printed. Either way the whole read is timed with each installed
network runtime (`referee.vision.onnx_net`) in turn, in the same run, and their ratio printed.
Figures are medians over the runs, on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from referee.rules.variants import Variant, variant_from_name
from referee.vision.board_finder import find_board, recheck
from referee.vision.calibration import BoardProfile, parse_corners, profile_from_corners
from referee.vision.checker_truth import label_profile
from referee.vision.config import VisionConfig
from referee.vision.gate import SceneGate
from referee.vision.onnx_net import Backend, forget_nets, installed_backends
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


def use_backend(backend: Backend) -> None:
    """Make the pipeline load its networks with `backend` from now on."""
    os.environ["REFEREE_ONNX_BACKEND"] = backend
    forget_nets()


def print_ratios(medians: dict[Backend, float], line: str) -> None:
    """Each faster runtime's speed-up over OpenCV's DNN, timed in this run."""
    for backend, ms in medians.items():
        if backend != "opencv" and "opencv" in medians:
            print(line.format(f"opencv / {backend}", medians["opencv"] / ms))


def warm_read_ms(
    scenes: list[tuple[np.ndarray, BoardProfile, Variant]], config: VisionConfig
) -> list[float]:
    """Each scene's whole read in ms, read once before to warm the networks up."""
    times: list[float] = []
    for image, profile, variant in scenes:
        pipeline = VisionPipeline(config, profile)
        pipeline.read(image, variant=variant)
        start = time.perf_counter()
        pipeline.read(image, variant=variant)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def print_spread(what: str, times: list[float]) -> None:
    """Median, p95 and reads over the 150 ms target of `times`."""
    over = sum(t > 150.0 for t in times)
    print(
        f"  {what} median {statistics.median(times):6.1f} ms, "
        f"p95 {float(np.percentile(times, 95)):6.1f} ms, over 150 ms: {over} of {len(times)}"
    )


def bench_scenes(folder: Path, limit: int) -> int:
    """Whole reads of generated scenes with their labels' profiles, per runtime."""
    scenes = []
    for label_path in sorted(folder.glob("*.json"))[:limit]:
        label = json.loads(label_path.read_text("utf-8"))
        image = cv2.imread(str(label_path.with_suffix(".jpg")))
        if image is None:
            continue
        scenes.append((image, label_profile(label), variant_from_name(label["variant"])))
    if not scenes:
        print(f"no generated scenes in {folder}", file=sys.stderr)
        return 2
    config = VisionConfig()
    medians = {}
    print(f"{len(scenes)} scenes of {folder}, each read once warm, with its label's profile")
    for backend in installed_backends():
        use_backend(backend)
        times = warm_read_ms(scenes, config)
        medians[backend] = statistics.median(times)
        print_spread(f"whole read, {backend:<16}", times)
    # Each optional network's share of a read, on the default runtime, in the same run.
    default = installed_backends()[0]
    use_backend(default)
    optional = (
        ("tilt reader", "dice", {"use_tilt_model": False}),
        ("board dice detector", "dice", {"use_board_detector": False}),
        ("board face reader", "dice", {"use_board_face_model": False}),
        ("pile or stack reader", "checkers", {"use_pile_model": False, "use_stack_model": False}),
        ("hand cover", "checkers", {"use_hand_model": False}),
    )
    for name, stage, off in optional:
        part = dataclasses.replace(getattr(config, stage), **off)
        times = warm_read_ms(scenes, dataclasses.replace(config, **{stage: part}))
        print_spread(f"whole read, {default}, no {name}", times)
    print_ratios(medians, "  {:<28} {:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", type=Path, help="a camera image (default: a drawn board)")
    parser.add_argument("--corners", help="playing surface corners as seen, with --image")
    parser.add_argument("--scenes", type=Path, help="a folder of generated scenes instead")
    parser.add_argument("--limit", type=int, default=40, help="scenes read, with --scenes")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()

    if args.scenes is not None:
        return bench_scenes(args.scenes, args.limit)
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

    print(f"image {size[0]}x{size[1]}, {args.runs} runs, medians")
    medians = {}
    for backend in installed_backends():
        use_backend(backend)
        pipeline = VisionPipeline(config, profile)
        stage_times: dict[str, list[float]] = {}

        def read(
            pipeline: VisionPipeline = pipeline, times: dict[str, list[float]] = stage_times
        ) -> None:
            for name, ms in pipeline.read(image).timings_ms.items():
                times.setdefault(name, []).append(ms)

        medians[backend] = median_ms(read, args.runs)
        print(f"  whole read with a profile, {backend:<16} {medians[backend]:8.1f} ms")
        for name, values in stage_times.items():
            print(f"    {name:<37} {statistics.median(values):8.1f} ms")
    print_ratios(medians, "  {:<39} {:8.2f}")
    few = max(3, args.runs // 10)
    find_ms = median_ms(lambda: find_board(image, config.calibration), few)
    check_ms = median_ms(lambda: recheck(image, profile, config.calibration), args.runs)
    print(f"  find the board (no profile)             {find_ms:8.1f} ms")
    print(f"  re-check the profile                    {check_ms:8.1f} ms")
    gate = SceneGate(config.gate)
    frames = [image, np.roll(image, 3, axis=1)]
    count = [0]

    def step() -> None:
        gate.update(frames[count[0] % 2])
        count[0] += 1

    gate_ms = median_ms(step, args.runs * 5)
    print(
        f"  scene gate                              {gate_ms:8.2f} ms/frame = "
        f"{1e3 / gate_ms:.0f} frames/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
