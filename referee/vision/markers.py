"""Printed aids: ArUco corner markers for the board, and a checkerboard for the lens.

ArUco convention: four markers of `cv2.aruco.DICT_4X4_50`, ids 0..3, one at each corner of the
playing surface in board order (white's view: 0 far-left, 1 far-right, 2 near-right,
3 near-left), stuck on the frame so that one corner of the marker touches the playing surface's
corner. The marker corner nearest the middle of the four markers is taken as the board's corner,
so a marker may be stuck in any rotation. Markers fix the seat too: no `--white-seat` is needed.

Lens: photograph the printed checkerboard 10-20 times, tilted and in every part of the image;
`calibrate_lens` runs `cv2.calibrateCamera` on the inner corners and returns a `LensModel`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray, LensModel

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("far-left", "far-right", "near-right", "near-left")

A4_MM = (210.0, 297.0)


class MarkerError(ValueError):
    """Markers or a checkerboard that cannot be found or used."""


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


def marker_sheet(dpi: int = 300, marker_mm: float = 40.0) -> NDArray[np.uint8]:
    """An A4 page (grey image) with the four corner markers, each labelled with its corner."""
    px = dpi / 25.4
    page = np.full((round(A4_MM[1] * px), round(A4_MM[0] * px)), 255, dtype=np.uint8)
    side = round(marker_mm * px)
    # Two by two, with room to cut them apart and for the label under each.
    for i, ident in enumerate(CORNER_IDS):
        col, row = i % 2, i // 2
        x = round((30 + col * 100) * px)
        y = round((40 + row * 120) * px)
        marker = cv2.aruco.generateImageMarker(_dictionary(), ident, side)
        page[y : y + side, x : x + side] = marker
        label = f"id {ident}: {CORNER_NAMES[i]} corner (white's view)"
        cv2.putText(
            page, label, (x, y + side + round(8 * px)), cv2.FONT_HERSHEY_SIMPLEX, px / 6, 0, 2
        )
    note = "Stick each marker on the frame with one corner touching the playing surface's corner."
    cv2.putText(
        page, note, (round(15 * px), round(280 * px)), cv2.FONT_HERSHEY_SIMPLEX, px / 7, 0, 2
    )
    return page


def checkerboard_sheet(
    dpi: int = 300, columns: int = 10, rows: int = 7, square_mm: float = 25.0
) -> NDArray[np.uint8]:
    """An A4 page (landscape, grey image) with a checkerboard of `columns` × `rows` squares,
    which has (columns-1) × (rows-1) inner corners."""
    px = dpi / 25.4
    page = np.full((round(A4_MM[0] * px), round(A4_MM[1] * px)), 255, dtype=np.uint8)
    side = square_mm * px
    x0 = (page.shape[1] - columns * side) / 2
    y0 = (page.shape[0] - rows * side) / 2
    for r in range(rows):
        for c in range(columns):
            if (r + c) % 2 == 0:
                a = (round(x0 + c * side), round(y0 + r * side))
                b = (round(x0 + (c + 1) * side) - 1, round(y0 + (r + 1) * side) - 1)
                cv2.rectangle(page, a, b, 0, -1)
    return page


def write_sheets(folder: Path) -> list[Path]:
    """Write the printable marker and checkerboard pages into `folder`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, page in (
        ("aruco_corner_markers_A4_300dpi.png", marker_sheet()),
        ("checkerboard_10x7_25mm_A4_300dpi.png", checkerboard_sheet()),
    ):
        path = folder / name
        cv2.imwrite(str(path), page)
        written.append(path)
    return written


@dataclasses.dataclass(frozen=True)
class MarkerCorners:
    """The playing surface's corners found from markers, in board order, and the ids seen."""

    corners: FloatArray
    ids_seen: tuple[int, ...]


def find_marker_corners(image: NDArray[np.uint8]) -> MarkerCorners:
    """The board's corners from the four ArUco markers; raises `MarkerError` if any is missing."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
    found, ids, _ = detector.detectMarkers(grey)
    seen: dict[int, FloatArray] = {}
    if ids is not None:
        for quad, ident in zip(found, ids.reshape(-1), strict=True):
            if int(ident) in CORNER_IDS:
                seen[int(ident)] = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    missing = [i for i in CORNER_IDS if i not in seen]
    if missing:
        raise MarkerError(f"corner markers not found: ids {missing} (need all of 0..3)")
    middle = np.mean([seen[i].mean(axis=0) for i in CORNER_IDS], axis=0)
    corners = np.array(
        [seen[i][int(np.argmin(np.linalg.norm(seen[i] - middle, axis=1)))] for i in CORNER_IDS]
    )
    return MarkerCorners(corners, tuple(sorted(seen)))


def calibrate_lens(
    images: Sequence[NDArray[np.uint8]], inner: tuple[int, int], square_mm: float
) -> tuple[LensModel, float, int]:
    """Lens from checkerboard photos: (model, RMS reprojection error in pixels, views used).

    `inner` is the checkerboard's inner corners (columns, rows). Views where the board is not
    found are skipped; at least three are needed.
    """
    object_grid = np.zeros((inner[0] * inner[1], 3), np.float32)
    object_grid[:, :2] = np.mgrid[0 : inner[0], 0 : inner[1]].T.reshape(-1, 2) * square_mm
    object_points: list[NDArray[np.float32]] = []
    image_points: list[NDArray[np.float32]] = []
    size: tuple[int, int] | None = None
    for image in images:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        if size is None:
            size = (grey.shape[1], grey.shape[0])
        elif size != (grey.shape[1], grey.shape[0]):
            raise MarkerError("all checkerboard photos must have the same size")
        ok, corners = cv2.findChessboardCornersSB(grey, inner, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
        if ok:
            object_points.append(object_grid)
            image_points.append(np.asarray(corners, dtype=np.float32))
    if size is None or len(image_points) < 3:
        raise MarkerError(f"checkerboard found in {len(image_points)} photos; at least 3 needed")
    lens, rms = lens_from_points(object_points, image_points, size)
    return lens, rms, len(image_points)


def lens_from_points(
    object_points: Sequence[NDArray[np.float32]],
    image_points: Sequence[NDArray[np.float32]],
    size: tuple[int, int],
) -> tuple[LensModel, float]:
    """`cv2.calibrateCamera` on matched board and image points: (lens, RMS error in pixels)."""
    rms, K, dist, _, _ = cv2.calibrateCamera(
        list(object_points), list(image_points), size, None, None
    )
    coeffs = tuple(float(v) for v in np.asarray(dist).reshape(-1)[:5])
    rows = tuple(tuple(float(v) for v in row) for row in np.asarray(K, dtype=np.float64))
    return LensModel(rows, coeffs, calibrated=True), float(rms)  # type: ignore[arg-type]
