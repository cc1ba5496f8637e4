"""Printed aids: corner markers for the board, and a checkerboard or a ChArUco board for the lens.

Corner markers: four ArUco markers of `cv2.aruco.DICT_4X4_50`, ids 0..3, 40 mm, each printed
with a white margin one of its cells wide (53 mm in all), one sticker at each corner of the
playing surface in board order (white's view: 0 far-left, 1 far-right, 2 near-right,
3 near-left), stuck on the frame so that one corner of the sticker touches the playing surface's
corner. The sticker's corners are found through the marker's (refined to a fraction of a pixel)
and the sticker corner nearest the middle of the markers seen is taken as the board's corner, so a
sticker may be stuck in any rotation; it lies on the frame's top, and is brought down through
the camera's pose to the surface's corner below it (`surface_under_markers`). Three are
enough: a hidden one's corner is placed from the others. Markers fix the seat too: no
`--white-seat` is needed. `locate_board` uses them wherever three or more show.

Lens: photograph the printed pattern 10-20 times, tilted and in every part of the image;
`calibrate_lens` runs `cv2.calibrateCamera` on the corners found. The checkerboard must be seen
whole in a photo; the ChArUco board (`DICT_5X5_100`, so its markers are never taken for the
corner markers) counts every corner it shows, so photos with the sheet partly out of the
picture or under a hand still count, and the image's edges, where distortion is largest, get
corners too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.board_finder import RaisedView, find_board, surface_homography, surface_mm
from referee.vision.calibration import BoardProfile, CalibrationError, Seat, profile_from_corners
from referee.vision.camera import FloatArray, LensModel
from referee.vision.config import CalibrationConfig
from referee.vision.geometry import BoardModel, HomeSide

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("far-left", "far-right", "near-right", "near-left")
MARKER_MM = 40.0
# White round the marker, one of its cells wide: a marker's black border against a dark frame
# is lost once the picture is a little blurred (the quiet zone every ArUco marker needs).
MARKER_MARGIN_MM = MARKER_MM / 6
STICKER_MM = MARKER_MM + 2 * MARKER_MARGIN_MM
# Which way each corner's sticker reaches out of the surface (board mm), in board order.
OUTWARD = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float)

A4_MM = (210.0, 297.0)

# The printed marker's corners and the sticker's (the marker's outline out by the white margin),
# in the marker's own millimetres, in ArUco's corner order.
_PRINTED_MARKER = np.array([[0, 0], [MARKER_MM, 0], [MARKER_MM, MARKER_MM], [0, MARKER_MM]], float)
_PRINTED_STICKER = (
    _PRINTED_MARKER + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * MARKER_MARGIN_MM
)


class MarkerError(ValueError):
    """Markers or a calibration pattern that cannot be found or used; `seen`: the corner
    markers that were found, too few or not fitting one board."""

    def __init__(self, message: str, seen: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.seen = seen


def _grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    return image


def _dictionary(name: int = ARUCO_DICTIONARY) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(name)


def _page(dpi: int, landscape: bool = False) -> tuple[NDArray[np.uint8], float]:
    """A white A4 page and its pixels per millimetre."""
    px = dpi / 25.4
    width, height = (A4_MM[1], A4_MM[0]) if landscape else A4_MM
    return np.full((round(height * px), round(width * px)), 255, dtype=np.uint8), px


def _label(page: NDArray[np.uint8], text: str, at_mm: tuple[float, float], px: float) -> None:
    at = (round(at_mm[0] * px), round(at_mm[1] * px))
    cv2.putText(page, text, at, cv2.FONT_HERSHEY_SIMPLEX, px / 7, 0, 2)


def sticker_image(corner: int, px_per_mm: float) -> NDArray[np.uint8]:
    """Corner `corner`'s sticker as printed at `px_per_mm` (grey, square): the marker and the
    white round it."""
    margin = round(MARKER_MARGIN_MM * px_per_mm)
    side = round(STICKER_MM * px_per_mm)
    marker = cv2.aruco.generateImageMarker(_dictionary(), corner, side - 2 * margin)
    framed = cv2.copyMakeBorder(marker, *(margin,) * 4, cv2.BORDER_CONSTANT, value=255)
    return np.asarray(framed, np.uint8)


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
    # Two by two in board order, with room to cut them apart and for the label under each:
    # laid on a table uncut, the page reads as a small board (a check of the camera's view).
    for corner in CORNER_IDS:
        col, row = int(corner in (1, 2)), corner // 2
        left = 30 + col * 100
        bottom = _paste(page, sticker_image(corner, px), (left, 40 + row * 120), px)
        _label(page, f"id {corner}: {CORNER_NAMES[corner]} corner", (left, bottom + 8), px)
    _label(page, "Cut along the grey lines. Stick each on the frame with", (15, 270), px)
    _label(page, "a corner touching the playing surface's corner (white's view).", (15, 280), px)
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
        squares = f"{columns}x{rows} squares of {self.square_mm:g} mm"
        _label(
            page,
            f"Checkerboard for the lens: {squares} ({self.inner[0]}x{self.inner[1]} inner",
            (15, 200),
            px,
        )
        _label(
            page, "corners). Printed at another size: give --square-mm as measured.", (15, 207), px
        )
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
        squares = f"{self.squares[0]}x{self.squares[1]} squares of {self.square_mm:g} mm"
        _label(page, f"ChArUco board for the lens (--charuco): {squares}.", (15, 200), px)
        _label(page, "Printed at another size: give --square-mm as measured.", (15, 207), px)
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
        ("checkerboard_10x7_25mm_A4_300dpi.png", Checkerboard().sheet()),
        ("charuco_9x6_30mm_A4_300dpi.png", CharucoPattern().sheet()),
    ):
        path = folder / name
        cv2.imwrite(str(path), page)
        written.append(path)
    return written


@dataclasses.dataclass(frozen=True)
class MarkerCorners:
    """The stickers' corners at the playing surface's corners, in board order, and the ids of
    the markers that gave them (seen and fitting one board; the others' corners are placed
    from these)."""

    corners: FloatArray
    ids_seen: tuple[int, ...]


def _detect_markers(grey: NDArray[np.uint8], config: CalibrationConfig) -> dict[int, FloatArray]:
    parameters = cv2.aruco.DetectorParameters()
    parameters.perspectiveRemoveIgnoredMarginPerCell = config.marker_bit_margin
    parameters.adaptiveThreshWinSizeMax = config.marker_threshold_window_max
    parameters.adaptiveThreshWinSizeStep = 10
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


def _sticker_outline(marker: FloatArray) -> FloatArray:
    """The sticker's four corners in the image from its marker's: through the homography from
    the printed marker (mm) to the image, out by the white margin."""
    H, _ = cv2.findHomography(_PRINTED_MARKER, marker)
    outline = _PRINTED_STICKER[None]
    return np.asarray(cv2.perspectiveTransform(outline, np.asarray(H, np.float64))[0], np.float64)


def find_marker_corners(
    image: NDArray[np.uint8], config: CalibrationConfig | None = None
) -> MarkerCorners:
    """The four stickers' corners that touch the playing surface's, in board order (on the
    frame's top: `marker_profile` brings them down to the surface).

    The markers seen are fitted as one board (`FrameTop`). Where one is hidden (a hand, a cup)
    its corner is placed from the other three; where four are seen but one was read off its
    place (partly covered: its outline bent), it is left out and placed from the three that
    agree. Raises `MarkerError` naming the corners whose markers are not found where two or
    more are, or where three seen do not fit one board."""
    config = config or CalibrationConfig()
    markers = _detect_markers(_grey(image), config)
    seen = tuple(i for i in CORNER_IDS if i in markers)
    if len(seen) < 3:
        missing = [f"{CORNER_NAMES[i]} (id {i})" for i in CORNER_IDS if i not in markers]
        raise MarkerError(
            "corner markers not found: " + ", ".join(missing) + " (three of the four are needed)",
            seen,
        )
    outlines = {i: _sticker_outline(markers[i]) for i in seen}
    # The middle of the markers seen lies inside the board even with one missing, so the
    # sticker corner nearest it is the one on the surface's corner.
    middle = np.mean([markers[i].mean(axis=0) for i in seen], axis=0)
    touching = {i: int(np.argmin(np.linalg.norm(outlines[i] - middle, axis=1))) for i in seen}
    side = float(np.mean([np.linalg.norm(np.diff(markers[i], axis=0), axis=1) for i in seen]))
    limit = config.marker_fit_max_error * side
    fit = FrameTop.fit(markers, touching, seen)
    if fit.worst_px > limit and len(seen) == 3:
        raise MarkerError(
            f"the corner markers do not fit one board ({fit.worst_px:.1f} px off, at most"
            f" {limit:.1f}): is one partly covered, or stuck off its corner?",
            seen,
        )
    if fit.worst_px > limit:
        agreeing = min(
            (FrameTop.fit(markers, touching, tuple(i for i in seen if i != out)) for out in seen),
            key=lambda f: f.worst_px,
        )
        # Where no three agree either, it is not one marker: a lens's bending puts four
        # good markers off one flat fit, and each still gives its own corner as read.
        if agreeing.worst_px <= limit:
            fit = agreeing
    corners = [outlines[i][touching[i]] if i in fit.ids else fit.corner(i) for i in CORNER_IDS]
    return MarkerCorners(np.array(corners), fit.ids)


def _marker_on_board(corner: int, touching: int, size: tuple[float, float]) -> FloatArray:
    """Where the printed marker's four corners lie in the frame top's board millimetres, for
    the sticker at `corner` touching it with its outline corner `touching`, on a surface of
    `size` (width, depth): the sticker turned so that it reaches out of the surface."""
    touch = _PRINTED_STICKER[touching]
    inward = np.full(2, MARKER_MM / 2) - touch
    turn = np.arctan2(OUTWARD[corner][1], OUTWARD[corner][0]) - np.arctan2(inward[1], inward[0])
    c, s = np.cos(turn), np.sin(turn)
    at = _rectangle(size)[corner]
    return np.asarray(at + (_PRINTED_MARKER - touch) @ np.array([[c, s], [-s, c]]), np.float64)


def _rectangle(size: tuple[float, float]) -> FloatArray:
    """A surface's corners of `size` (width, depth) in board millimetres, board order."""
    w, d = size
    return np.array([[0, 0], [w, 0], [w, d], [0, d]], float)


# Fitted in units near 1 (board mm and pixels about their mean, both over this) so that the
# homography's terms are alike in size.
_FIT_UNIT = 500.0


@dataclasses.dataclass(frozen=True)
class FrameTop:
    """The frame's top as the corner markers `ids` give it: the homography `H` (board mm on
    the frame's top → image px, with `origin` and `_FIT_UNIT` folded out), the surface's
    `size` (width, depth, mm) and how far (px) the marker corner furthest off it lies."""

    ids: tuple[int, ...]
    H: FloatArray
    origin: FloatArray
    size: tuple[float, float]
    worst_px: float

    @staticmethod
    def fit(
        markers: dict[int, FloatArray],
        touching: dict[int, int],
        ids: tuple[int, ...],
        steps: int = 20,
    ) -> FrameTop:
        """One homography and the surface's width and depth fitted together to the corners of
        markers `ids` (three or four; Gauss-Newton from the board model's size). The size is
        fitted, not the model's, because boards differ and the markers fix the scale; any
        three corners of a rectangle span both its sides."""
        image = np.concatenate([markers[i] for i in ids])
        origin = image.mean(axis=0)
        target = ((image - origin) / _FIT_UNIT).reshape(-1)

        def board(size: FloatArray) -> FloatArray:
            mm = [_marker_on_board(i, touching[i], (size[0], size[1])) for i in ids]
            return np.concatenate(mm) / _FIT_UNIT

        def residual(x: FloatArray) -> FloatArray:
            H = np.append(x[:8], 1.0).reshape(3, 3)
            return np.asarray(_project(H, board(x[8:])).reshape(-1) - target, np.float64)

        model = BoardModel()
        size = np.array([model.width_mm, model.depth_mm])
        H0, _ = cv2.findHomography(board(size), (image - origin) / _FIT_UNIT)
        if H0 is None:
            return FrameTop(ids, np.eye(3), origin, (0.0, 0.0), math.inf)
        x = np.concatenate([(H0 / H0[2, 2]).reshape(-1)[:8], size])
        for _ in range(steps):
            r = residual(x)
            J = np.empty((len(r), len(x)))
            for k in range(len(x)):
                dx = np.zeros_like(x)
                dx[k] = 1e-6 * max(1.0, abs(x[k]))
                J[:, k] = (residual(x + dx) - r) / dx[k]
            if not (np.isfinite(J).all() and np.isfinite(r).all()):
                break
            step = np.linalg.lstsq(J, -r, rcond=None)[0]
            x = x + step
            if np.abs(step[:8]).max() < 1e-10:
                break
        worst = float(np.linalg.norm(residual(x).reshape(-1, 2), axis=1).max()) * _FIT_UNIT
        if not math.isfinite(worst):  # a fit that ran off fits nothing
            worst = math.inf
        H = np.append(x[:8], 1.0).reshape(3, 3)
        return FrameTop(ids, H, origin, (float(x[8]), float(x[9])), worst)

    def corner(self, corner: int) -> FloatArray:
        """Where the sticker corner of `corner` (0..3, board order) shows in the image."""
        at = _rectangle(self.size)[corner] / _FIT_UNIT
        return np.asarray(_project(self.H, at[None])[0] * _FIT_UNIT + self.origin, np.float64)


def _project(H: FloatArray, points: FloatArray) -> FloatArray:
    p = np.concatenate([points, np.ones((len(points), 1))], axis=1) @ H.T
    return np.asarray(p[:, :2] / p[:, 2:3], np.float64)


def surface_under_markers(
    corners: FloatArray,
    image_size: tuple[int, int],
    height_mm: float,
    lens: LensModel | None = None,
    model: BoardModel | None = None,
) -> FloatArray:
    """The playing surface's corners (image px, board order) under sticker corners `corners`
    that lie `height_mm` above them: the stickers' plane through the camera's pose
    (`RaisedView`, a calibrated lens's focal length or else a guessed one), each point moved
    down by the height. Seen from the side, a frame's top shows its height's worth of pixels
    away from the surface's corner below it, 1 % of the board's width and more."""
    lens = lens or LensModel.guess(*image_size)
    flat = lens.undistort(np.asarray(corners, np.float64))
    view = RaisedView(surface_homography(model or BoardModel(), flat), image_size, lens)
    return np.asarray(lens.distort(flat + view.shift(flat, -height_mm)), np.float64)


def marker_profile(
    image: NDArray[np.uint8],
    config: CalibrationConfig,
    lens: LensModel | None = None,
    model: BoardModel | None = None,
    home: HomeSide = "right",
) -> BoardProfile:
    """A profile from the corner markers in `image` (method `aruco`, or `aruco, one placed
    from three`); raises `MarkerError` naming the corners whose markers are not found where
    fewer than three are."""
    model = model or BoardModel()
    size = (image.shape[1], image.shape[0])
    found = find_marker_corners(image, config)
    height = config.marker_height_frac * model.width_mm
    surface = surface_under_markers(found.corners, size, height, lens, model)
    # Markers are in board order already: seat "bottom" keeps that order.
    profile = profile_from_corners(surface, size, "bottom", lens, model, home)
    placed = len(found.ids_seen) < len(CORNER_IDS)
    method = "aruco, one placed from three" if placed else "aruco"
    return dataclasses.replace(profile, method=method, markers=True)


def sticker_mask(profile: BoardProfile, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """Pixels of an image of `shape` where `profile`'s board has its corner stickers: a square
    at each corner of the surface reaching out 1.4 stickers (boards down to 0.7 of the model's
    width, and the frame's height, which shows a sticker beside its foot) and a tenth of one in."""
    out, inset = 1.4 * STICKER_MM, 0.1 * STICKER_MM
    mask = np.zeros(shape[:2], bool)
    for (x, y), (ox, oy) in zip(surface_mm(profile.model), OUTWARD, strict=True):
        xs = sorted((x + ox * out, x - ox * inset))
        ys = sorted((y + oy * out, y - oy * inset))
        mask |= profile.region_mask((xs[0], ys[0], xs[1], ys[1]), shape)
    return mask


def locate_board(
    image: NDArray[np.uint8],
    config: CalibrationConfig,
    model: BoardModel | None = None,
    white_seat: Seat | None = None,
    home: HomeSide = "right",
    fit_distortion: bool = True,
    lens: LensModel | None = None,
) -> BoardProfile:
    """The board in `image` by its corner markers where three or more show (they fix the
    seat: `white_seat` is for the other way), else found with no markers (`find_board`, whose
    `CalibrationError` says why not). Looking for the markers takes some 20 ms of the finder's
    seconds, and a table that has them is read by them without being told."""
    seen: tuple[int, ...] = ()
    try:
        return marker_profile(image, config, lens, model, home)
    except MarkerError as exc:
        seen = exc.seen
    except CalibrationError:
        pass
    found = find_board(image, config, model, white_seat, home, fit_distortion, lens)
    # Markers too few to place the board still lie on its frame, for the dice to look past.
    return dataclasses.replace(found, markers=bool(seen))


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
        what, other = (
            ("checkerboard", "the ChArUco board? add --charuco")
            if isinstance(pattern, Checkerboard)
            else ("ChArUco board", "a checkerboard? leave out --charuco")
        )
        raise MarkerError(
            f"{what} found in {len(image_points)} of {len(images)} photos; at least 3 needed"
            f" (photos of {other})"
        )
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
