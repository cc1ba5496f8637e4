"""`referee calibrate --check` on generated game videos: the profile's picture against later
frames of the same game, as they are and as by a knocked camera; against the border check
(`board_finder.recheck`, what `--check` does for a profile saved without its picture) on the
same frames.

    .venv/bin/python scripts/bench_profile_check.py out/r/vids/*.json [--jobs 2]

Each video (`referee scenes video`) is a scripted game: the opening position rests, then
throws, moves and hands. The profile is the video's true one; its picture is the last frame of
the first still (the opening position, as when a user calibrates). Every later still's last
frame (checkers moved, dice on the board) is checked as it is (truth: the board is where it
was), and knocked as `bench_bump` knocks a camera and a board (truth: the warp). For each check, the
profile it leaves: right (every corner within 1 % of the board's width of the truth, whether
kept or followed), "calibrate again" (no profile given), or wrong (a profile kept or followed
with a corner more than 1 % off: the referee would read a moved board).
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from bench_bump import board_knocked, camera_knocked, knock

from referee.vision.board_finder import recheck
from referee.vision.bump import check_profile
from referee.vision.calibration import BoardProfile
from referee.vision.checker_truth import label_profile
from referee.vision.config import BumpConfig, CalibrationConfig

Frames = dict[int, np.ndarray]


def frames(video: Path, wanted: set[int]) -> Frames:
    """The frames of `video` at the indices `wanted`."""
    capture = cv2.VideoCapture(str(video))
    got: Frames = {}
    index = 0
    while len(got) < len(wanted):
        ok, image = capture.read()
        if not ok:
            raise SystemExit(f"{video}: frame {index} cannot be read")
        if index in wanted:
            got[index] = np.asarray(image, np.uint8)
        index += 1
    capture.release()
    return got


def outcome(kept: BoardProfile | None, truth: np.ndarray, width: float) -> str:
    if kept is None:
        return "calibrate again"
    error = float(np.linalg.norm(np.array(kept.corners) - truth, axis=1).max()) / width
    return "right" if error <= 0.01 else "wrong"


def one(script: str) -> list[tuple[str, str, str]]:
    """(case, method, outcome) for each check of one video."""
    label = json.loads(Path(script).read_text(encoding="utf-8"))
    profile = label_profile(label)
    width = profile.board_width_px()
    corners = np.array(profile.corners)
    ends = [still["end"] for still in label["stills"]]
    got = frames(Path(script).with_name(label["video"]), set(ends))
    picture = got[ends[0]]
    size = (picture.shape[1], picture.shape[0])
    rng = np.random.default_rng(zlib.crc32(script.encode()))
    rows = []
    for end in ends[1:]:
        warp = knock(size, width, rng)
        moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), warp).reshape(-1, 2)
        cases = (
            ("in place", got[end], corners),
            ("camera knocked", camera_knocked(got[end], warp), moved),
            ("board knocked", board_knocked(got[end], profile, warp), moved),
        )
        for case, image, truth in cases:
            check = check_profile(image, profile, picture, BumpConfig())
            rows.append((case, "picture", outcome(check.profile, truth, width)))
            border = recheck(image, profile, CalibrationConfig())
            kept = profile if border.still_there else None
            rows.append((case, "border", outcome(kept, truth, width)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scripts", nargs="+", type=Path, help="video scripts (FILE.json)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with Pool(args.jobs) as pool:
        rows = [row for video in pool.map(one, [str(s) for s in args.scripts]) for row in video]
    counts = Counter(rows)
    print(f"videos {len(args.scripts)}, checks {len(rows) // 2}")
    for case in ("in place", "camera knocked", "board knocked"):
        for method in ("picture", "border"):
            total = sum(n for (c, m, _), n in counts.items() if (c, m) == (case, method))
            parts = ", ".join(
                f"{name} {counts[(case, method, name)]}"
                for name in ("right", "calibrate again", "wrong")
            )
            print(f"{case:14} by the {method:7}: {parts} (of {total})")


if __name__ == "__main__":
    main()
