"""Printed aids: corner markers for the board (ArUco, or ChArUco diamonds for hard tables), and a
checkerboard or a ChArUco board for the lens.

Corner markers: one sticker at each corner of the playing surface, in board order (white's
view: 0 far-left, 1 far-right, 2 near-right, 3 near-left), stuck on the frame so that one
corner of the sticker touches the playing surface's corner. The sticker corner nearest the
middle of the four stickers is taken as the board's corner, so a sticker may be stuck in any
rotation. Markers fix the seat too: no `--white-seat` is needed. Two kinds of sticker, which
may be mixed:

- an ArUco marker of `cv2.aruco.DICT_4X4_50`, id = the corner's index (0..3), 40 mm, with a
  white margin one of its cells wide (53 mm in all);
- a ChArUco diamond: 3 × 3 chessboard squares of 30 mm with four markers of the same
  dictionary (ids 4 + 4k .. 7 + 4k for corner k) in its white squares. Its four inner corners
  are chessboard saddles, found to a fraction of a pixel under blur and glare where a marker's
  own corners drift, and each of its markers alone still places it: with one or two markers
  under a checker or a cup the corner is still found. Its outer corner (of a black square) is
  the one that touches the surface.

Lens: photograph the printed pattern 10-20 times, tilted and in every part of the image;
`calibrate_lens` runs `cv2.calibrateCamera` on the corners found. The checkerboard must be seen
whole in a photo; the ChArUco board (`DICT_5X5_100`, so its markers are never taken for the
corner markers) counts every corner it shows, so photos with the sheet partly out of the
picture or under a hand still count, and the image's edges, where distortion is largest, get
corners too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray, LensModel

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("far-left", "far-right", "near-right", "near-left")
MARKER_MM = 40.0
# White round the marker, one of its cells wide: a marker's black border against a dark frame
# is lost once the picture is a little blurred (the quiet zone every ArUco marker needs).
MARKER_MARGIN_MM = MARKER_MM / 6

DIAMOND_SQUARE_MM = 30.0
DIAMOND_MARKER_MM = 22.0

A4_MM = (210.0, 297.0)

MarkerKind = Literal["aruco", "charuco"]


class MarkerError(ValueError):
    """Markers or a calibration pattern that cannot be found or used."""


def _grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    return image


def _dictionary(name: int = ARUCO_DICTIONARY) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(name)


def diamond_ids(corner: int) -> tuple[int, int, int, int]:
    """The four marker ids of the ChArUco diamond for corner index `corner` (0..3)."""
    first = 4 + 4 * corner
    return (first, first + 1, first + 2, first + 3)


def _diamond_board(corner: int) -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard(
        (3, 3),
        DIAMOND_SQUARE_MM,
        DIAMOND_MARKER_MM,
        _dictionary(),
        np.array(diamond_ids(corner), np.int32),
    )


def _page(dpi: int, landscape: bool = False) -> tuple[NDArray[np.uint8], float]:
    """A white A4 page and its pixels per millimetre."""
    px = dpi / 25.4
    width, height = (A4_MM[1], A4_MM[0]) if landscape else A4_MM
    return np.full((round(height * px), round(width * px)), 255, dtype=np.uint8), px


def _label(page: NDArray[np.uint8], text: str, at_mm: tuple[float, float], px: float) -> None:
    at = (round(at_mm[0] * px), round(at_mm[1] * px))
    cv2.putText(page, text, at, cv2.FONT_HERSHEY_SIMPLEX, px / 7, 0, 2)


def sticker_mm(kind: MarkerKind) -> float:
    """The printed side of a corner sticker of `kind`, in millimetres."""
    return MARKER_MM + 2 * MARKER_MARGIN_MM if kind == "aruco" else 3 * DIAMOND_SQUARE_MM


def sticker_image(corner: int, kind: MarkerKind, px_per_mm: float) -> NDArray[np.uint8]:
    """Corner `corner`'s sticker of `kind` as printed at `px_per_mm` (grey, square)."""
    side = round(sticker_mm(kind) * px_per_mm)
    if kind == "aruco":
        margin = round(MARKER_MARGIN_MM * px_per_mm)
        marker = cv2.aruco.generateImageMarker(_dictionary(), corner, side - 2 * margin)
        framed = cv2.copyMakeBorder(marker, *(margin,) * 4, cv2.BORDER_CONSTANT, value=255)
        return np.asarray(framed, np.uint8)
    image = _diamond_board(corner).generateImage((side, side), marginSize=0, borderBits=1)
    return np.asarray(image, np.uint8)


def _paste(
    page: NDArray[np.uint8], sticker: NDArray[np.uint8], at_mm: tuple[float, float], px: float
) -> int:
    """Put `sticker` on `page` with its top-left at `at_mm`, inside a light grey line to cut
    along; returns the bottom of the line in millimetres."""
    x, y = round(at_mm[0] * px), round(at_mm[1] * px)
    side: int = sticker.shape[0]
    cv2.rectangle(page, (x - 2, y - 2), (x + side + 1, y + side + 1), 170, 1)
    page[y : y + side, x : x + side] = sticker
    return round(at_mm[1] + side / px + 1.0)


def marker_sheet(dpi: int = 300) -> NDArray[np.uint8]:
    """An A4 page (grey image) with the four ArUco corner stickers, each labelled."""
    page, px = _page(dpi)
    # Two by two, with room to cut them apart and for the label under each.
    for corner in CORNER_IDS:
        col, row = corner % 2, corner // 2
        left = 30 + col * 100
        bottom = _paste(page, sticker_image(corner, "aruco", px), (left, 40 + row * 120), px)
        _label(page, f"id {corner}: {CORNER_NAMES[corner]} corner", (left, bottom + 8), px)
    _label(page, "Cut along the grey lines. Stick each on the frame with", (15, 270), px)
    _label(page, "a corner touching the playing surface's corner (white's view).", (15, 280), px)
    return page


def diamond_sheet(dpi: int = 300) -> NDArray[np.uint8]:
    """An A4 page (grey image) with the four ChArUco diamond corner stickers, each labelled."""
    page, px = _page(dpi)
    for corner in CORNER_IDS:
        col, row = corner % 2, corner // 2
        left = 12 + col * 98
        bottom = _paste(page, sticker_image(corner, "charuco", px), (left, 22 + row * 125), px)
        first, *_, last = diamond_ids(corner)
        _label(page, f"{CORNER_NAMES[corner]} corner (ids {first}-{last})", (left, bottom + 8), px)
    _label(page, "Cut along the grey lines. Stick each on the frame with", (15, 270), px)
    _label(page, "a black corner touching the surface's corner (white's view).", (15, 280), px)
    return page


@dataclasses.dataclass(frozen=True)
class Checkerboard:
    """A printed checkerboard with `inner` (columns, rows) inner corners `square_mm` apart."""

    inner: tuple[int, int] = (9, 6)
    square_mm: float = 25.0

    def sheet(self, dpi: int = 300) -> NDArray[np.uint8]:
        """An A4 page (landscape, grey image) with the checkerboard centred on it."""
        page, px = _page(dpi, landscape=True)
        columns, rows = self.inner[0] + 1, self.inner[1] + 1
        side = self.square_mm * px
        x0 = (page.shape[1] - columns * side) / 2
        y0 = (page.shape[0] - rows * side) / 2
        for r in range(rows):
            for c in range(columns):
                if (r + c) % 2 == 0:
                    a = (round(x0 + c * side), round(y0 + r * side))
                    b = (round(x0 + (c + 1) * side) - 1, round(y0 + (r + 1) * side) - 1)
                    cv2.rectangle(page, a, b, 0, -1)
        return page

    def find(
        self, grey: NDArray[np.uint8]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
        """The pattern's corners in one photo: (board mm, image pixels), or None if not whole."""
        ok, corners = cv2.findChessboardCornersSB(
            grey, self.inner, flags=cv2.CALIB_CB_NORMALIZE_IMAGE
        )
        if not ok:
            return None
        grid = np.zeros((self.inner[0] * self.inner[1], 3), np.float32)
        grid[:, :2] = np.mgrid[0 : self.inner[0], 0 : self.inner[1]].T.reshape(-1, 2)
        return grid * self.square_mm, np.asarray(corners, np.float32).reshape(-1, 1, 2)


@dataclasses.dataclass(frozen=True)
class CharucoPattern:
    """A printed ChArUco board of `squares` (columns, rows) chessboard squares `square_mm` wide
    with `DICT_5X5_100` markers `marker_mm` wide in the white ones. A print scaled by the
    printer: give the square as measured, the marker scales with it (`scaled`)."""

    squares: tuple[int, int] = (9, 6)
    square_mm: float = 30.0
    marker_mm: float = 22.0
    min_corners: int = 6

    def scaled(self, square_mm: float) -> CharucoPattern:
        """The same pattern printed with squares of `square_mm`."""
        ratio = square_mm / self.square_mm
        return dataclasses.replace(self, square_mm=square_mm, marker_mm=self.marker_mm * ratio)

    def board(self) -> cv2.aruco.CharucoBoard:
        return cv2.aruco.CharucoBoard(
            self.squares, self.square_mm, self.marker_mm, _dictionary(cv2.aruco.DICT_5X5_100)
        )

    def sheet(self, dpi: int = 300) -> NDArray[np.uint8]:
        """An A4 page (landscape, grey image) with the board centred on it."""
        page, px = _page(dpi, landscape=True)
        width = round(self.squares[0] * self.square_mm * px)
        height = round(self.squares[1] * self.square_mm * px)
        image = self.board().generateImage((width, height), marginSize=0, borderBits=1)
        y0, x0 = (page.shape[0] - height) // 2, (page.shape[1] - width) // 2
        page[y0 : y0 + height, x0 : x0 + width] = image
        return page

    def find(
        self, grey: NDArray[np.uint8]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
        """The board's corners in one photo: (board mm, image pixels), or None where fewer than
        `min_corners` show or all show on one line."""
        board = self.board()
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(grey)
        if ids is None or len(ids) < self.min_corners:
            return None
        if board.checkCharucoCornersCollinear(ids):
            return None
        objects = np.asarray(board.getChessboardCorners(), np.float32)[np.asarray(ids).reshape(-1)]
        return objects, np.asarray(corners, np.float32).reshape(-1, 1, 2)


LensPattern = Checkerboard | CharucoPattern


def write_sheets(folder: Path) -> list[Path]:
    """Write the printable marker and lens pages into `folder`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, page in (
        ("aruco_corner_markers_A4_300dpi.png", marker_sheet()),
        ("charuco_corner_diamonds_A4_300dpi.png", diamond_sheet()),
        ("checkerboard_10x7_25mm_A4_300dpi.png", Checkerboard().sheet()),
        ("charuco_9x6_30mm_A4_300dpi.png", CharucoPattern().sheet()),
    ):
        path = folder / name
        cv2.imwrite(str(path), page)
        written.append(path)
    return written


@dataclasses.dataclass(frozen=True)
class MarkerCorners:
    """The playing surface's corners found from markers, in board order, and the kind of
    sticker each was found from."""

    corners: FloatArray
    kinds: tuple[MarkerKind, MarkerKind, MarkerKind, MarkerKind]

    @property
    def method(self) -> str:
        """How the corners were found, as a profile's `method` says it."""
        kinds = set(self.kinds)
        if len(kinds) == 1:
            return self.kinds[0]
        return "markers: " + ", ".join(self.kinds)


@dataclasses.dataclass(frozen=True)
class _Sticker:
    """One corner's sticker as found: its printed square's four corners in the image, and its
    middle."""

    outline: FloatArray
    middle: FloatArray
    kind: MarkerKind


def _detect_markers(grey: NDArray[np.uint8]) -> dict[int, FloatArray]:
    parameters = cv2.aruco.DetectorParameters()
    # Marker corners to a fraction of a pixel: the raw contour's corners are a pixel or two off
    # under blur, and the board's corner is one of them.
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(), parameters)
    found, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return {}
    return {
        int(ident): np.asarray(quad, np.float64).reshape(4, 2)
        for quad, ident in zip(found, ids.reshape(-1), strict=True)
    }


def _diamond(
    grey: NDArray[np.uint8], corner: int, markers: dict[int, FloatArray]
) -> _Sticker | None:
    """Corner `corner`'s diamond from whichever of its markers show: the homography from the
    diamond's plane to the image through the saddle corners found (each between two markers
    seen) and the markers' own corners, which span the whole sticker (the saddles alone span
    its middle third, and an error there triples at its outer corner)."""
    ids = [i for i in diamond_ids(corner) if i in markers]
    if not ids:
        return None
    board = _diamond_board(corner)
    quads = tuple(markers[i].reshape(1, 4, 2).astype(np.float32) for i in ids)
    marker_ids = np.array(ids, np.int32).reshape(-1, 1)
    saddles, saddle_ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(
        grey, markerCorners=quads, markerIds=marker_ids
    )
    chessboard = np.asarray(board.getChessboardCorners(), np.float64)[:, :2]
    plane: list[FloatArray] = []
    image: list[FloatArray] = []
    if saddle_ids is not None:
        plane.extend(chessboard[np.asarray(saddle_ids).reshape(-1)])
        image.extend(np.asarray(saddles, np.float64).reshape(-1, 2))
    objects = board.getObjPoints()
    position = {int(i): n for n, i in enumerate(np.asarray(board.getIds()).reshape(-1))}
    for i in ids:
        plane.extend(np.asarray(objects[position[i]], np.float64)[:, :2])
        image.extend(markers[i])
    return _sticker(np.array(plane), np.array(image), (0.0, 3 * DIAMOND_SQUARE_MM), "charuco")


def _aruco(corner: int, markers: dict[int, FloatArray]) -> _Sticker | None:
    """Corner `corner`'s ArUco sticker: the marker's four corners, the white round it added."""
    if corner not in markers:
        return None
    plane = np.array([[0, 0], [MARKER_MM, 0], [MARKER_MM, MARKER_MM], [0, MARKER_MM]])
    span = (-MARKER_MARGIN_MM, MARKER_MM + MARKER_MARGIN_MM)
    return _sticker(plane, markers[corner], span, "aruco")


def _sticker(
    plane: FloatArray, image: FloatArray, span: tuple[float, float], kind: MarkerKind
) -> _Sticker | None:
    """A sticker from points found on it (`plane`: where they are printed, mm) and in the image:
    its outline, the printed square from span[0] to span[1] on both axes, through the homography
    between the two."""
    # A point found wrong (a saddle refined onto a checker's edge) is left out: 2 px off.
    H, _ = cv2.findHomography(plane.astype(np.float64), image.astype(np.float64), cv2.RANSAC, 2.0)
    if H is None:
        return None
    a, b = span
    printed = np.array([[a, a], [b, a], [b, b], [a, b], [(a + b) / 2, (a + b) / 2]], np.float64)
    mapped = cv2.perspectiveTransform(printed[None], np.asarray(H, np.float64))
    points = np.asarray(mapped, np.float64).reshape(-1, 2)
    return _Sticker(points[:4], points[4], kind)


def find_marker_corners(image: NDArray[np.uint8]) -> MarkerCorners:
    """The board's corners from its four corner stickers, each a ChArUco diamond or an ArUco
    marker (a diamond wins where both show); raises `MarkerError` naming any corner with
    neither."""
    grey = _grey(image)
    markers = _detect_markers(grey)
    stickers: list[_Sticker] = []
    missing = []
    for corner in CORNER_IDS:
        sticker = _diamond(grey, corner, markers) or _aruco(corner, markers)
        if sticker is None:
            first, *_, last = diamond_ids(corner)
            missing.append(f"{CORNER_NAMES[corner]} (id {corner}, or diamond {first}-{last})")
        else:
            stickers.append(sticker)
    if missing:
        raise MarkerError("corner markers not found: " + ", ".join(missing))
    middle = np.mean([s.middle for s in stickers], axis=0)
    corners = np.array(
        [s.outline[int(np.argmin(np.linalg.norm(s.outline - middle, axis=1)))] for s in stickers]
    )
    kinds = tuple(s.kind for s in stickers)
    return MarkerCorners(corners, kinds)  # type: ignore[arg-type]


def calibrate_lens(
    images: Sequence[NDArray[np.uint8]], pattern: LensPattern
) -> tuple[LensModel, float, int]:
    """Lens from photos of a printed pattern: (model, RMS reprojection error in pixels, views
    used). Photos where the pattern is not found are skipped; at least three are needed."""
    object_points: list[NDArray[np.float32]] = []
    image_points: list[NDArray[np.float32]] = []
    size: tuple[int, int] | None = None
    for image in images:
        grey = _grey(image)
        if size is None:
            size = (grey.shape[1], grey.shape[0])
        elif size != (grey.shape[1], grey.shape[0]):
            raise MarkerError("all lens photos must have the same size")
        found = pattern.find(grey)
        if found is not None:
            object_points.append(found[0])
            image_points.append(found[1])
    if size is None or len(image_points) < 3:
        what = "checkerboard" if isinstance(pattern, Checkerboard) else "ChArUco board"
        raise MarkerError(f"{what} found in {len(image_points)} photos; at least 3 needed")
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
