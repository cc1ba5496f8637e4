"""The bump watch (`referee.vision.bump`) on generated scenes: each scene warped as by a knocked
camera, and with only the board warped as by a board knocked on the table (the warp is the
truth), and the same scene with fresh noise (truth: nothing moved).

    .venv/bin/python scripts/bench_bump.py out/r/tune61 out/r/tune62club ... [--jobs 2]

Per scene, the watch's picture is taken from the scene with its label's profile; the knock
turns the picture up to 2 degrees about its middle, shifts it up to 3 % of the board's width,
scales it up to 2 % and adds a little perspective (drawn per scene from a seed of its path).
Prints, for camera and board knocks: knocks followed with every corner within 1 % (and 0.5 %)
of the board's width, knocks not aligned (and how large they were), knocks followed wrong; then
profiles moved by fresh noise, and the look's median time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import zlib
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from referee.vision.bump import BoardAnchor
from referee.vision.calibration import BoardProfile
from referee.vision.checker_truth import label_profile
from referee.vision.config import BumpConfig


def knock(size: tuple[int, int], width: float, rng: np.random.Generator) -> np.ndarray:
    """A random knock of the camera as a homography of the picture."""
    middle = np.array([size[0] / 2, size[1] / 2])
    turn = np.radians(rng.uniform(-2, 2))
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    warp = np.eye(3)
    warp[:2, :2] = rotation * rng.uniform(0.98, 1.02)
    warp[:2, 2] = middle - warp[:2, :2] @ middle + rng.uniform(-0.03, 0.03, 2) * width
    warp[2, :2] = rng.uniform(-2e-5, 2e-5, 2)
    return warp


def camera_knocked(image: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """`image` as a camera knocked by `warp` sees it."""
    size = (image.shape[1], image.shape[0])
    return np.asarray(
        cv2.warpPerspective(image, warp, size, borderMode=cv2.BORDER_REPLICATE), np.uint8
    )


def board_knocked(image: np.ndarray, profile: BoardProfile, warp: np.ndarray) -> np.ndarray:
    """`image` with the board (surface, frame and tray, as the profile's model measures them)
    moved by `warp` and the table left where it was: a board knocked, not the camera."""
    model = profile.model
    frame, tray = model.frame_mm, model.frame_mm + model.tray_gap_mm + model.tray_mm
    x0, x1 = (
        (-frame, model.width_mm + tray)
        if profile.home == "right"
        else (-tray, model.width_mm + frame)
    )
    y0, y1 = -frame, model.depth_mm + frame
    outline = profile.board_to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    moved = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), warp).reshape(-1, 2)
    board = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(board, [np.round(moved).astype(np.int32)], 255)
    return np.where(board[..., None] > 0, camera_knocked(image, warp), image)


def one(path: str) -> dict[str, float | bool]:
    rng = np.random.default_rng(zlib.crc32(path.encode()))
    read = cv2.imread(path)
    if read is None:
        raise SystemExit(f"{path}: not an image")
    image = np.asarray(read, np.uint8)
    label = json.loads(Path(path).with_suffix(".json").read_text(encoding="utf-8"))
    profile = label_profile(label)
    width = profile.board_width_px()
    corners = np.array(profile.corners)
    anchor = BoardAnchor(image, profile, BumpConfig())
    noise = np.asarray(rng.normal(0, 3, image.shape), np.int16)
    noisy = np.clip(image.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    start = time.perf_counter()
    still = anchor.follow(noisy)
    ms = (time.perf_counter() - start) * 1e3
    size = (image.shape[1], image.shape[0])
    warp = knock(size, width, rng)
    truth = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), warp).reshape(-1, 2)
    look = anchor.follow(camera_knocked(image, warp))
    board = anchor.follow(board_knocked(image, profile, warp))
    knock_size = float(np.linalg.norm(truth - corners, axis=1).max()) / width
    return {
        "knock": knock_size,
        "still_moved": still.moved,
        "still_move": still.move_frac,
        "aligned": look.aligned,
        "error": float(np.linalg.norm(look.corners - truth, axis=1).max()) / width,
        "board_aligned": board.aligned,
        "board_error": float(np.linalg.norm(board.corners - truth, axis=1).max()) / width,
        "ms": ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="+", type=Path, help="folders of generated scenes")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    paths = [str(p) for folder in args.scenes for p in sorted(folder.glob("*.jpg"))]
    if not paths:
        parser.error("no scenes (*.jpg with their .json labels) in those folders")
    with Pool(args.jobs) as pool:
        rows = pool.map(one, paths, chunksize=8)
    print(f"scenes {len(rows)}")
    print(f"knocks: median corner move {statistics.median(float(r['knock']) for r in rows):.1%}")
    for what, key in (("camera", ""), ("board", "board_")):
        aligned = [r for r in rows if r[f"{key}aligned"]]
        errors = [float(r[f"{key}error"]) for r in aligned]
        print(
            f"{what} knocks followed within 1 %: {sum(e <= 0.01 for e in errors)}, within"
            f" 0.5 %: {sum(e <= 0.005 for e in errors)}, followed wrong:"
            f" {sum(e > 0.01 for e in errors)}, not aligned: {len(rows) - len(aligned)}"
        )
        if errors:
            print(f"  median corner error {statistics.median(errors):.2%}")
        missed = [float(r["knock"]) for r in rows if not r[f"{key}aligned"]]
        if missed:
            print(f"  knocks not aligned moved a corner {min(missed):.1%} to {max(missed):.1%}")
    print(
        f"fresh noise: profiles moved {sum(bool(r['still_moved']) for r in rows)},"
        f" largest move {max(float(r['still_move']) for r in rows):.2%}"
    )
    print(f"one look: median {statistics.median(float(r['ms']) for r in rows):.1f} ms")


if __name__ == "__main__":
    main()
