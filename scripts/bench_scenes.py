"""How fast `referee scenes make` renders: images per second at one resolution.

Measures the whole per-image path the command runs (scene sampling, painting, JPEG encoding,
label building), after a warm-up that builds the cached textures and noise, and without disk
writes. Prints the wall-clock rate and the CPU time per image: on a machine shared with other
jobs the wall rate drops while the CPU time stays what one free core would need.

    .venv/bin/python scripts/bench_scenes.py [--n 60] [--width 1280 --height 720] [--jobs 1]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

from referee.scenes.config import SceneConfig
from referee.scenes.dataset import render_sample
from referee.scenes.styles import BOARD_STYLES, TABLES
from referee.scenes.textures import board_texture, table_texture


def _warm() -> None:
    for name in BOARD_STYLES:
        board_texture(name)
    for name in TABLES:
        table_texture(name)
    render_sample(SceneConfig(), 0, 0, (320, 240))


def _timed(job: tuple[int, int, tuple[int, int]]) -> tuple[float, float]:
    """Wall and CPU seconds (this process, all its threads) for one image."""
    seed, index, size = job
    start, cpu = time.perf_counter(), time.process_time()
    render_sample(SceneConfig(), seed, index, size)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    size = (args.width, args.height)
    jobs = [(args.seed, index, size) for index in range(args.n)]
    if args.jobs <= 1:
        _warm()
        start = time.perf_counter()
        times = [_timed(job) for job in jobs]
    else:
        with multiprocessing.get_context("spawn").Pool(args.jobs, initializer=_warm) as pool:
            pool.map(_timed, jobs[: args.jobs])  # every worker warm before the clock starts
            start = time.perf_counter()
            times = pool.map(_timed, jobs, chunksize=2)
    wall = time.perf_counter() - start
    walls = [w for w, _ in times]
    cpus = [c for _, c in times]
    print(
        f"{args.n / wall:.1f} images/s at {size[0]}x{size[1]} with {args.jobs} process(es): "
        f"{args.n} images (seed {args.seed}) in {wall:.2f} s wall; per image median "
        f"{1000 * statistics.median(walls):.0f} ms wall, {1000 * statistics.median(cpus):.0f} ms "
        f"CPU ({1 / statistics.mean(cpus):.1f} images per CPU-second); sample + paint + JPEG + "
        f"label, textures pre-built, no disk writes; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
