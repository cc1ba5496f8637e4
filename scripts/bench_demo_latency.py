"""Verdict latency on the demo video: from the last frame of a finished move (the first frame
at rest after the mover picked up the dice and took the hand away) to the move's verdict.

The video is played as a camera would deliver it: frame i arrives at i / fps, frames are taken
in order, each as soon as the previous one is done; a frame's cost is its whole step (decoding,
the scene gate, a reading when the scene settles, the session). A verdict given while frame k
is processed is out when frame k is done, so

    latency = done(k) - arrival(first frame at rest after the pick-up)

which counts the scene gate's settling frames, the session's second settled look and any queue
of frames behind a slow reading.

Two runs on the same video:

- `real`: the real vision pipeline (`referee.vision.live`) answers every frame; a move whose
  verdict never comes (the dice are misread) is counted as missing, not timed.
- `gated truth`: the real pipeline still runs on every frame (same gate, same readings, same
  cost), but each settled answer is replaced by the video's ground truth, so every move gets its
  verdict at the time the real pipeline lets it: the latency the referee will have once the
  readings are right.

    .venv/bin/python scripts/bench_demo_latency.py [--seeds 3] [--out out/bench_demo]
    .venv/bin/python scripts/bench_demo_latency.py --video out/demo/play.avi

`--seeds N` renders the demo video (1920x1080, as `referee demo`) with seeds 7, 8, ... and
pools the moves of all of them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.demo import DEMO_FPS, DEMO_SEED, DEMO_SIZE, DemoRun, render_demo_video, run_live
from referee.session import Frame, Observation
from referee.session.truth import observations_by_frame
from referee.vision.live import LiveVision


class GatedTruth:
    """The real pipeline's work and timing, with the ground truth's answer on settled frames."""

    def __init__(self, live: LiveVision, script: Mapping[str, Any]) -> None:
        self.live = live
        self.truth = observations_by_frame(script)

    def observe(self, frame: Frame) -> Observation | None:
        seen = self.live.observe(frame)
        if seen is None or not seen.is_settled or not 0 <= frame.index < len(self.truth):
            return seen
        # Settled only when both the gate and the truth say so: the truth's moving frames (a
        # hand's last frames) stay moving.
        true = self.truth[frame.index]
        return Observation(true.scene, true.board, true.dice, seen.time, seen.frame)


def at_rest_after_pickups(script: Mapping[str, Any]) -> list[tuple[int, int]]:
    """For each pick-up that ends a move, its first frame and the first frame after it at rest
    with no hand."""
    frames: Sequence[Mapping[str, Any]] = script["frames"]
    events: Sequence[Mapping[str, Any]] = script["events"]
    out = []
    for k, event in enumerate(events):
        if event["type"] != "pickup" or k == 0 or events[k - 1]["type"] != "move":
            continue
        start = int(event["frame"])
        out.append((start, next(i for i in range(start, len(frames)) if frames[i]["still"])))
    return out


def latencies(
    run: DemoRun, pickups: Sequence[tuple[int, int]], fps: float
) -> tuple[list[float], int]:
    """Seconds from each move's first frame at rest to its verdict, and how many never came.
    A verdict counts from the pick-up on: the gate may see the scene settle a frame before the
    script calls it at rest (the hand's last frames), which times as a latency below zero."""
    done: list[float] = []
    clock = 0.0
    for index, ms in enumerate(run.step_ms):
        clock = max(clock, index / fps) + ms / 1e3
        done.append(clock)
    out, missing = [], 0
    for j, (pickup, rest) in enumerate(pickups):
        until = pickups[j + 1][0] if j + 1 < len(pickups) else len(done)
        given = [k for k in run.verdict_frames if pickup <= k < until]
        if given:
            out.append(done[given[0]] - rest / fps)
        else:
            missing += 1
    return out, missing


def describe(name: str, values: list[float], missing: int, ms: list[float]) -> str:
    """One line of figures: latency median/p95/max over the moves timed, and frame costs."""
    frame_costs = f"per frame median {statistics.median(ms):.1f} ms, max {max(ms):.0f} ms"
    if not values:
        return f"{name}: no move verdict reached ({missing} missing); {frame_costs}"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name}: {len(values)} moves, latency median {statistics.median(values):.3f} s, "
        f"p95 {p95:.3f} s, max {max(values):.3f} s ({missing} missing); {frame_costs}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--video", type=Path, help="a rendered demo video (default: render)")
    parser.add_argument("--seeds", type=int, default=1, help="videos to render (default 1)")
    parser.add_argument("--out", type=Path, default=Path("out/bench_demo"))
    args = parser.parse_args()
    videos = [args.video] if args.video is not None else []
    for seed in range(DEMO_SEED, DEMO_SEED + (0 if videos else args.seeds)):
        videos.append(args.out / f"play-{seed}.avi")
        render_demo_video(videos[-1], seed, DEMO_SIZE, DEMO_FPS)
    pooled: dict[str, tuple[list[float], int, list[float]]] = {
        "real": ([], 0, []),
        "gated truth": ([], 0, []),
    }
    reads: list[float] = []
    gates: list[float] = []
    for video in videos:
        script = json.loads(video.with_suffix(".json").read_text(encoding="utf-8"))
        fps = float(script["fps"])
        rest = at_rest_after_pickups(script)
        print(f"{video}: {script['width']}x{script['height']}, {fps:g} fps, {len(rest)} moves")
        gated_vision = GatedTruth(LiveVision(), script)
        for name, vision in (("real", None), ("gated truth", gated_vision)):
            journal = args.out / f"{video.stem}-{name.replace(' ', '-')}.jsonl"
            run = run_live(video, script, journal, truth=False, show=False, vision=vision)
            values, missing = latencies(run, rest, fps)
            print("  " + describe(name, values, missing, run.step_ms))
            got, lost, steps = pooled[name]
            pooled[name] = (got + values, lost + missing, steps + run.step_ms)
        reads += gated_vision.live.times.read
        gates += gated_vision.live.times.gate
    print("all videos:")
    for name, (values, missing, steps) in pooled.items():
        print("  " + describe(name, values, missing, steps))
    if reads:
        print(
            f"  vision alone: gate median {statistics.median(gates):.1f} ms/frame; reading a "
            f"settled frame median {statistics.median(reads):.0f} ms, max {max(reads):.0f} ms "
            f"({len(reads)} readings)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
