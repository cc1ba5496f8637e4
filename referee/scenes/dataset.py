"""Writing a data set: numbered JPEG photos, a JSON label beside each, optional YOLO labels.

Image i of a data set with seed S depends only on (S, i) and the config, so any subset can be
rendered again, in any order or process, to the same bytes.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from referee.scenes.config import SceneConfig
from referee.scenes.render import paint
from referee.scenes.scene import sample_scene
from referee.scenes.truth import scene_truth

YOLO_CLASSES = (
    "checker_white",
    "checker_black",
    "die_1",
    "die_2",
    "die_3",
    "die_4",
    "die_5",
    "die_6",
    "die_cocked",
    "die_rolling",
)


def render_sample(
    config: SceneConfig, seed: int, index: int, size: tuple[int, int] | None
) -> tuple[bytes, dict[str, Any]]:
    """JPEG bytes and the label of image `index` of the data set seeded `seed`."""
    rng = np.random.default_rng((seed, index))
    if size is None:
        choices = config.camera.resolutions
        size = choices[int(rng.integers(0, len(choices)))]
    scene = sample_scene(rng, config, size, seed)
    painted = paint(scene.look, scene.frame, rng)
    quality = scene.look.imaging.jpeg_quality
    ok, encoded = cv2.imencode(".jpg", painted.photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    truth = scene_truth(
        f"{index:06d}.jpg",
        scene.look,
        scene.frame,
        scene.position,
        scene.roller,
        scene.zone,
        painted,
        config.checkers.visible_fraction,
    )
    truth["situation"] = scene.situation
    return encoded.tobytes(), truth


def yolo_lines(truth: dict[str, Any]) -> list[str]:
    """YOLO rows (`class cx cy w h`, normalised) for the visible checkers and all dice."""
    width, height = truth["width"], truth["height"]
    rows: list[tuple[int, list[float]]] = []
    for checker in truth["checkers"]:
        if checker["visible"]:
            rows.append((YOLO_CLASSES.index(f"checker_{checker['color']}"), checker["box"]))
    for die in truth["dice"]:
        if die["rolling"]:
            name = "die_rolling"
        elif die["cocked_against"] is not None:
            name = "die_cocked"
        else:
            name = f"die_{die['value']}"
        rows.append((YOLO_CLASSES.index(name), die["box"]))
    lines = []
    for cls, (x1, y1, x2, y2) in rows:
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        lines.append(f"{cls} {cx:.6f} {cy:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


class Progress:
    """A plain progress bar on stderr: done/total, rate, time left."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.perf_counter()
        self.last = 0.0

    def update(self, done: int) -> None:
        """Redraw the bar for `done` images finished (at most four times a second)."""
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.25 and done < self.total):
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        left = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(30 * done / max(self.total, 1))
        bar = "#" * filled + "." * (30 - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {rate:5.1f} img/s {left:4.0f} s left ")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _render_job(
    job: tuple[SceneConfig, int, int, tuple[int, int] | None],
) -> tuple[int, bytes, dict[str, Any]]:
    """One image for a worker process: (index, JPEG bytes, label)."""
    config, seed, index, size = job
    data, truth = render_sample(config, seed, index, size)
    return index, data, truth


def _results(
    config: SceneConfig, seed: int, count: int, size: tuple[int, int] | None, jobs: int
) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """Rendered images in index order, from this process or a pool of `jobs`."""
    work = [(config, seed, index, size) for index in range(count)]
    if jobs <= 1:
        yield from map(_render_job, work)
        return
    # Worker processes render whole images; results come back in order.
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_render_job, work, chunksize=2)


def make_dataset(
    out: Path,
    count: int,
    seed: int,
    config: SceneConfig,
    size: tuple[int, int] | None = None,
    yolo: bool = False,
    jobs: int = 1,
    progress: bool = True,
) -> None:
    """Render `count` images with labels into `out` (created if missing)."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "generator": "referee.scenes",
        "seed": seed,
        "count": count,
        "size": list(size) if size else None,
        "config": config.to_dict(),
    }
    if yolo:
        manifest["yolo_classes"] = list(YOLO_CLASSES)
        (out / "classes.txt").write_text("\n".join(YOLO_CLASSES) + "\n", encoding="utf-8")
        names = "\n".join(f"  {i}: {name}" for i, name in enumerate(YOLO_CLASSES))
        (out / "data.yaml").write_text(
            f"path: .\ntrain: .\nval: .\nnames:\n{names}\n", encoding="utf-8"
        )
    # One JSON line, and not `.json`: a `.json` without an image beside it would read as a
    # stray label to tools that pair images with labels.
    (out / "manifest.jsonl").write_text(json.dumps(manifest) + "\n", encoding="utf-8")
    bar = Progress(count, enabled=progress)
    for done, (index, data, truth) in enumerate(_results(config, seed, count, size, jobs), 1):
        stem = out / f"{index:06d}"
        stem.with_suffix(".jpg").write_bytes(data)
        stem.with_suffix(".json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
        if yolo:
            stem.with_suffix(".txt").write_text(
                "".join(f"{line}\n" for line in yolo_lines(truth)), encoding="utf-8"
            )
        bar.update(done)
