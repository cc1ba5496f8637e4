"""The printed corner markers (`referee calibrate --markers`) on drawn boards: how many corners
they give, and how far off, through blur, noise, uneven light, JPEG and something lying over a
marker.

    .venv/bin/python scripts/bench_markers.py [--n 300] [--seed 1]

Each view is a drawn board (`referee.vision.synthetic.render`, short nardy's start) seen from a
random camera: the surface 450-950 px wide in a 1280x720 frame, turned up to 25 degrees, its far
side up to 30 % shorter and its depth foreshortened to 60-100 %; then blur (sigma 0-2 px),
light falling off across the frame and a glare spot, noise (sigma 1-6) and JPEG (quality
50-95). In half the views something (a checker, a die, a fingertip: a disc of 15-30 mm, dark or
light) lies over a random place of one random sticker. The same view is drawn three times: with the
markers as printed and read before this bench's round (the bare 40 mm marker, its own corner
on the surface's, not refined: the reference), as now (a white margin one cell wide round
the marker, the corners refined to a fraction of a pixel, the sticker's corner through the
marker's homography), and as now with one random sticker left off (a hand over it: its
corner is placed from the other three). Prints, for each, the boards with all four corners
found (three stickers seen are enough now), and the error of the corners found (median, p95,
max, in px and in % of the surface's width), and of the corners placed from three stickers
alone, for all views, those with nothing over a marker, and those with one partly covered.
The truth is exact: the stickers are drawn with their corner on the surface's corner.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import cv2
import numpy as np

from referee.vision.board_finder import surface_homography, surface_mm
from referee.vision.calibration import apply_homography
from referee.vision.camera import FloatArray
from referee.vision.geometry import BoardModel
from referee.vision.markers import (
    CORNER_IDS,
    MARKER_MM,
    OUTWARD,
    STICKER_MM,
    MarkerError,
    find_marker_corners,
    sticker_image,
)
from referee.vision.synthetic import DrawnBoard, render, start_counts

SIZE = (1280, 720)
Art = Callable[[int, float], np.ndarray]
MODEL = BoardModel()
DICTIONARY = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def random_view(rng: np.random.Generator) -> FloatArray:
    """The surface's corners (board order) in a random view that keeps every sticker in frame."""
    while True:
        width = rng.uniform(450, 950)
        depth = width * MODEL.depth_mm / MODEL.width_mm * rng.uniform(0.6, 1.0)
        far = rng.uniform(0.7, 1.0)  # the far side's length against the near side's
        quad = np.array(
            [
                [-width * far / 2, -depth / 2],
                [width * far / 2, -depth / 2],
                [width / 2, depth / 2],
                [-width / 2, depth / 2],
            ]
        )
        turn = np.radians(rng.uniform(-25, 25))
        rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        middle = rng.uniform([500, 300], [780, 420])
        corners = quad @ rotation.T + middle
        # Where the stickers' outer corners land: they must be in the picture.
        reach = STICKER_MM * 1.1
        outer = apply_homography(
            surface_homography(MODEL, corners), surface_mm(MODEL) + OUTWARD * reach
        )
        if (
            (outer > 8).all()
            and (outer[:, 0] < SIZE[0] - 8).all()
            and (outer[:, 1] < SIZE[1] - 8).all()
        ):
            return corners


def occluder(corners: FloatArray, rng: np.random.Generator) -> Callable[[np.ndarray], None]:
    """Something lying over a random place of one random sticker, drawn the same on both
    pictures."""
    corner = int(rng.integers(4))
    at_mm = surface_mm(MODEL)[corner] + OUTWARD[corner] * rng.uniform(0.1, 0.9, 2) * STICKER_MM
    radius_mm = rng.uniform(7.5, 15)
    at, edge = apply_homography(
        surface_homography(MODEL, corners), np.array([at_mm, at_mm + np.array([radius_mm, 0.0])])
    )
    radius = max(2, round(np.linalg.norm(edge - at)))
    shade = (35, 35, 38) if rng.random() < 0.5 else (215, 220, 225)
    centre = (round(at[0]), round(at[1]))

    def draw(image: np.ndarray) -> None:
        cv2.circle(image, centre, radius, shade, -1, cv2.LINE_AA)

    return draw


def degrade(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur, uneven light with a glare spot, noise and JPEG."""
    out = image.astype(np.float32)
    sigma = rng.uniform(0, 2.0)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    ys, xs = np.mgrid[0 : SIZE[1], 0 : SIZE[0]].astype(np.float32)
    direction = rng.normal(size=2)
    direction /= np.linalg.norm(direction)
    ramp = ((xs - SIZE[0] / 2) * direction[0] + (ys - SIZE[1] / 2) * direction[1]) / SIZE[0]
    light = 1.0 + rng.uniform(0.2, 0.7) * ramp
    gx, gy = rng.uniform([0, 0], SIZE)
    glare = rng.uniform(20, 90) * np.exp(
        -((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * rng.uniform(60, 200) ** 2)
    )
    out = out * light[..., None] * rng.uniform(0.6, 1.1) + glare[..., None]
    out += rng.normal(0, rng.uniform(1, 6), out.shape)
    quality = int(rng.integers(50, 96))
    ok, data = cv2.imencode(
        ".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    assert ok
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)


def bare_marker(corner: int, px_per_mm: float) -> np.ndarray:
    """The ArUco sticker as printed before this bench's round: the 40 mm marker, no white."""
    side = round(MARKER_MM * px_per_mm)
    return np.asarray(cv2.aruco.generateImageMarker(DICTIONARY, corner, side), np.uint8)


def unrefined_aruco(image: np.ndarray) -> FloatArray:
    """The reference: the bare ArUco corner markers read as `find_marker_corners` did before
    this bench's round (the marker's own corner, not refined)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(DICTIONARY, cv2.aruco.DetectorParameters())
    found, ids, _ = detector.detectMarkers(grey)
    seen = {}
    for quad, ident in zip(found, [] if ids is None else ids.reshape(-1), strict=True):
        if int(ident) in CORNER_IDS:
            seen[int(ident)] = np.asarray(quad, np.float64).reshape(4, 2)
    if len(seen) < 4:
        raise MarkerError("not all four")
    middle = np.mean([seen[i].mean(axis=0) for i in CORNER_IDS], axis=0)
    return np.array(
        [seen[i][int(np.argmin(np.linalg.norm(seen[i] - middle, axis=1)))] for i in CORNER_IDS]
    )


def corner_errors(
    read: Callable[[np.ndarray], FloatArray], image: np.ndarray, truth: FloatArray
) -> FloatArray | None:
    """Each corner's error in px, or None where the reader gave no board."""
    try:
        return np.asarray(np.linalg.norm(read(image) - truth, axis=1), np.float64)
    except MarkerError:
        return None


def summary(name: str, results: list[FloatArray | None], widths: list[float]) -> None:
    boards = len(results)
    found = [(e, w) for e, w in zip(results, widths, strict=True) if e is not None]
    errors = np.concatenate([e for e, _ in found]) if found else np.zeros(0)
    share = np.concatenate([e / w * 100 for e, w in found]) if found else np.zeros(0)
    line = f"  {name:<28} boards {len(found):>4}/{boards}"
    if len(errors):
        line += (
            f"  error px median {np.median(errors):.2f} p95 {np.percentile(errors, 95):.2f}"
            f" max {errors.max():.2f}; % of width p95 {np.percentile(share, 95):.3f}"
            f" max {share.max():.3f}; within 1 %: {int((share <= 1).sum())}/{len(share)}"
        )
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="views (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    board = DrawnBoard(counts=start_counts())

    def now(image: np.ndarray) -> FloatArray:
        return find_marker_corners(image).corners

    # Each way: how the markers are printed, which are stuck on, how they are read.
    readers: dict[str, tuple[Art, bool, Callable[[np.ndarray], FloatArray]]] = {
        "bare marker (before)": (bare_marker, False, unrefined_aruco),
        "white margin, refined (now)": (sticker_image, False, now),
        "now, one sticker left off": (sticker_image, True, now),
    }
    results: dict[str, list[FloatArray | None]] = {name: [] for name in readers}
    covered: list[bool] = []
    widths: list[float] = []
    # Which sticker is left off, from a stream of its own: the views and their degradations
    # are those of the runs before this reading was added.
    left_off = np.random.default_rng(args.seed + 1000).integers(4, size=args.n)
    for view in range(args.n):
        corners = random_view(rng)
        widths.append(float(np.linalg.norm(corners[2] - corners[3])))
        cover = occluder(corners, rng) if rng.random() < 0.5 else None
        covered.append(cover is not None)
        state = rng.bit_generator.state
        for name, (art, leave_one_off, read) in readers.items():
            rng.bit_generator.state = state  # the same degradation for each
            stuck = [i for i in CORNER_IDS if not (leave_one_off and i == left_off[view])]
            image = render(board, corners, SIZE, stickers=stuck, sticker_art=art)
            if cover is not None:
                cover(image)
            results[name].append(corner_errors(read, degrade(image, rng), corners))
    print(
        f"corner stickers on {args.n} drawn views (seed {args.seed}),"
        f" {sum(covered)} with one sticker partly covered"
    )
    for subset, keep in (
        ("all views", None),
        ("nothing over a sticker", False),
        ("one sticker partly covered", True),
    ):
        print(subset)
        chosen = [i for i in range(args.n) if keep is None or covered[i] == keep]
        for name in readers:
            summary(name, [results[name][i] for i in chosen], [widths[i] for i in chosen])
        # The corner placed from the other three stickers, alone.
        placed = [
            None if (e := results["now, one sticker left off"][i]) is None else e[[left_off[i]]]
            for i in chosen
        ]
        summary("  its corner placed from 3", placed, [widths[i] for i in chosen])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
