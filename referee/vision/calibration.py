"""Board calibration: where the playing surface is in the image, saved as a JSON profile.

A `BoardProfile` ties image pixels to the board frame of `geometry` (millimetres, as white sees
the board). It holds the playing surface's four corners in the image in board order (far-left,
far-right, near-right, near-left as white sees them), the lens (identity unless a checkerboard
calibration or the plumb-line estimate supplied one), the board model and which end is white's
home. The homography is taken between undistorted pixels and the board plane.

Seat convention: corners given by hand are "as seen" (top-left, top-right, bottom-right,
bottom-left in the image) and `white_seat` says which image edge white sits at (default
`bottom`: the camera looks from behind white). Profiles found automatically put white on the
side that has the bear-off tray on white's right (the scene generator's layout); `--white-seat`
overrides that.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray, LensModel
from referee.vision.geometry import BoardModel, Canvas, HomeSide

Seat = Literal["bottom", "left", "top", "right"]

SEATS: tuple[Seat, ...] = ("bottom", "left", "top", "right")

# Board corner i (white's view) is the seen corner (i + rotation) % 4 when white sits at `seat`.
_SEAT_ROTATION: dict[Seat, int] = {"bottom": 0, "left": 1, "top": 2, "right": 3}

PROFILE_VERSION = 1


class CalibrationError(ValueError):
    """A board that cannot be calibrated: bad corners, no board found, unreadable profile."""


def seen_to_board_order(seen: FloatArray, white_seat: Seat) -> FloatArray:
    """Corners as seen (TL, TR, BR, BL in the image) reordered to white's view."""
    r = _SEAT_ROTATION[white_seat]
    return np.asarray([seen[(i + r) % 4] for i in range(4)], dtype=np.float64)


def order_seen(points: FloatArray) -> FloatArray:
    """Four points sorted as seen: top-left, top-right, bottom-right, bottom-left.

    Sorted by angle round their centroid, starting from the one nearest the image's top-left,
    which is robust to rotations of up to 45 degrees either way.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    ring = pts[np.argsort(angles)]  # clockwise on screen (y grows downward)
    start = int(np.argmin(ring.sum(axis=1)))
    return np.roll(ring, -start, axis=0)


def quad_area(corners: FloatArray) -> float:
    """The area (square pixels) of the quadrilateral `corners` (4, 2)."""
    return abs(float(cv2.contourArea(np.asarray(corners, np.float32))))


def corner_turns(corners: FloatArray) -> FloatArray:
    """Per corner of the quadrilateral `corners` (4, 2), the cross product of the side leaving
    it and the next side: all of one sign where the quadrilateral is convex in that order."""
    quad = np.asarray(corners, np.float64)
    sides = np.roll(quad, -1, axis=0) - quad
    after = np.roll(sides, -1, axis=0)
    return np.asarray(sides[:, 0] * after[:, 1] - sides[:, 1] * after[:, 0], np.float64)


# How far past the picture's edges (a share of its width and height) a corner may lie.
_OUTSIDE_SHARE = 0.25


def check_quad(corners: FloatArray, image_size: tuple[int, int]) -> None:
    """Raise `CalibrationError` unless `corners` form a convex quadrilateral of usable size."""
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    if not np.all(np.isfinite(quad)):
        raise CalibrationError("corners must be finite numbers")
    turns = corner_turns(quad)
    if not (np.all(turns > 0) or np.all(turns < 0)):
        raise CalibrationError("corners do not form a convex quadrilateral in the order given")
    area = quad_area(quad)
    w, h = image_size
    if area < 0.01 * w * h:
        raise CalibrationError(f"the board would cover only {area / (w * h):.1%} of the image")
    # A corner may lie a little past the picture's edge (the board cut there), not far.
    margin = _OUTSIDE_SHARE * np.array([w, h])
    if np.any(quad < -margin) or np.any(quad > np.array([w, h]) + margin):
        raise CalibrationError(f"a corner lies far outside the {w}x{h} picture")


@dataclasses.dataclass(frozen=True)
class BoardProfile:
    """A calibrated board: image pixels to board millimetres and back. `markers`: the board
    carries the printed corner markers on its frame (the dice stage looks past them)."""

    image_size: tuple[int, int]
    corners: tuple[tuple[float, float], ...]
    lens: LensModel
    model: BoardModel = dataclasses.field(default_factory=BoardModel)
    home: HomeSide = "right"
    method: str = "corners"
    markers: bool = False

    def __post_init__(self) -> None:
        if len(self.corners) != 4:
            raise CalibrationError("a profile needs exactly four corners")
        check_quad(np.array(self.corners), self.image_size)

    @functools.cached_property
    def homography(self) -> FloatArray:
        """3×3 map from undistorted image pixels to board millimetres."""
        src = self.lens.undistort(np.array(self.corners)).astype(np.float32)
        w, d = self.model.width_mm, self.model.depth_mm
        dst = np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=np.float32)
        return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)

    @functools.cached_property
    def inverse(self) -> FloatArray:
        return np.asarray(np.linalg.inv(self.homography), dtype=np.float64)

    def image_to_board(self, pixels: FloatArray) -> FloatArray:
        """Board millimetres (N, 2) of image pixels (N, 2) on the board plane."""
        pts = self.lens.undistort(np.asarray(pixels, dtype=np.float64).reshape(-1, 2))
        return apply_homography(self.homography, pts)

    def board_to_image(self, mm: FloatArray) -> FloatArray:
        """Image pixels (..., 2) of board-plane points (..., 2) in millimetres."""
        pts = np.asarray(mm, dtype=np.float64)
        return self.lens.distort(apply_homography(self.inverse, pts))

    def region_mask(
        self,
        box_mm: tuple[float, float, float, float],
        shape: tuple[int, ...],
        scale: float = 1.0,
    ) -> NDArray[np.bool_]:
        """Pixels inside a board-frame box (x0, y0, x1, y1 in mm) as seen, in an image of
        `shape` (rows, columns) that is the profile's image scaled by `scale`. The sides are
        followed at 16 points each, so that lens distortion bends them as it bends the board."""
        x0, y0, x1, y1 = box_mm
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        t = np.linspace(0.0, 1.0, 16, endpoint=False)[:, None]
        sides = [corners[i] + t * (corners[(i + 1) % 4] - corners[i]) for i in range(4)]
        outline = self.board_to_image(np.concatenate(sides)) * scale
        mask = np.zeros(shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 1)
        return mask.astype(bool)

    def px_per_mm(self) -> float:
        """Mean image scale over the playing surface (pixels per board millimetre)."""
        area_px = quad_area(np.array(self.corners))
        return float(np.sqrt(area_px / (self.model.width_mm * self.model.depth_mm)))

    def board_width_px(self) -> float:
        """The playing surface's width in the image (mean of its two long edges)."""
        c = np.array(self.corners)
        return float((np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / 2)

    def rectify_maps(self, canvas: Canvas) -> tuple[NDArray[np.int16], NDArray[np.uint16]]:
        """Fixed-point `cv2.remap` maps drawing `canvas` from images of this camera."""
        return _rectify_maps(self, canvas)

    def rectify(self, image: NDArray[np.uint8], canvas: Canvas) -> NDArray[np.uint8]:
        """The canonical top-down board image of `image` on `canvas`."""
        map1, map2 = self.rectify_maps(canvas)
        out = cv2.remap(image, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out, dtype=np.uint8)

    def with_corners(self, corners: FloatArray, method: str) -> BoardProfile:
        """This profile with other corners (the lens, model and home kept)."""
        return dataclasses.replace(
            self, corners=tuple((float(x), float(y)) for x, y in corners), method=method
        )

    def turned_round(self) -> BoardProfile:
        """This profile with white seated at the other long side (its corners taken two on)."""
        return self.with_corners(
            np.roll(np.array(self.corners), 2, axis=0), f"{self.method}, turned round"
        )

    def fits_image(self, image: NDArray[Any]) -> bool:
        """Whether `image` is the size this profile was made for."""
        return (image.shape[1], image.shape[0]) == self.image_size

    def to_json(self) -> dict[str, object]:
        return {
            "version": PROFILE_VERSION,
            "image_size": list(self.image_size),
            "corners": [list(c) for c in self.corners],
            "corner_order": "board: far-left, far-right, near-right, near-left as white sees",
            "home": self.home,
            "method": self.method,
            "markers": self.markers,
            "lens": self.lens.to_json(),
            "board_mm": dataclasses.asdict(self.model),
        }

    @staticmethod
    def from_json(obj: object) -> BoardProfile:
        if not isinstance(obj, dict) or obj.get("version") != PROFILE_VERSION:
            raise CalibrationError(f"not a version {PROFILE_VERSION} board profile")
        try:
            w, h = (int(v) for v in obj["image_size"])
            corners = tuple((float(x), float(y)) for x, y in obj["corners"])
            home = obj.get("home", "right")
            if home not in ("right", "left"):
                raise CalibrationError(f"home must be right or left, not {home!r}")
            model = BoardModel(**obj.get("board_mm", {}))
            method = str(obj.get("method", "corners"))
            return BoardProfile(
                (w, h),
                corners,
                LensModel.from_json(obj["lens"]),
                model,
                home,
                method,
                # Profiles saved before the flag: those made from the markers carry them.
                bool(obj.get("markers", method.startswith("aruco"))),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"bad board profile: {exc}") from exc


def apply_homography(H: FloatArray, pts: FloatArray) -> FloatArray:
    """`pts` (..., 2) mapped through homography `H`."""
    p = np.asarray(pts, dtype=np.float64)
    flat = p.reshape(-1, 2)
    homog = flat @ H[:, :2].T + H[:, 2]
    out = homog[:, :2] / homog[:, 2:3]
    return out.reshape(p.shape)


# The maps are smooth, so they are computed on a grid this coarse (pixels) and interpolated:
# well under a tenth of a pixel off, and some fifty times faster than every pixel.
_MAP_STEP = 8


@functools.lru_cache(maxsize=8)
def _rectify_maps(
    profile: BoardProfile, canvas: Canvas
) -> tuple[NDArray[np.int16], NDArray[np.uint16]]:
    width, height = canvas.size
    gw, gh = width // _MAP_STEP + 2, height // _MAP_STEP + 2
    xs, ys = np.meshgrid(
        np.arange(gw, dtype=np.float64) * _MAP_STEP, np.arange(gh, dtype=np.float64) * _MAP_STEP
    )
    mm = canvas.to_mm(np.stack([xs, ys], axis=-1))
    coarse = profile.board_to_image(mm).astype(np.float32)
    # Canonical pixel (u, v) lies at grid position (u / step, v / step): bilinear lookup there.
    fx, fy = np.meshgrid(
        np.arange(width, dtype=np.float32) / _MAP_STEP,
        np.arange(height, dtype=np.float32) / _MAP_STEP,
    )
    src = cv2.remap(coarse, fx, fy, cv2.INTER_LINEAR)
    map1, map2 = cv2.convertMaps(src[..., 0], src[..., 1], cv2.CV_16SC2)
    return np.asarray(map1, dtype=np.int16), np.asarray(map2, dtype=np.uint16)


def profile_from_corners(
    seen: FloatArray,
    image_size: tuple[int, int],
    white_seat: Seat = "bottom",
    lens: LensModel | None = None,
    model: BoardModel | None = None,
    home: HomeSide = "right",
) -> BoardProfile:
    """A profile from the playing surface's corners as seen (TL, TR, BR, BL in the image)."""
    quad = np.asarray(seen, dtype=np.float64).reshape(-1, 2)
    if quad.shape != (4, 2):
        raise CalibrationError("expected four corners: x1,y1,x2,y2,x3,y3,x4,y4")
    check_quad(quad, image_size)
    board = seen_to_board_order(quad, white_seat)
    return BoardProfile(
        image_size,
        tuple((float(x), float(y)) for x, y in board),
        lens if lens is not None else LensModel.guess(*image_size),
        model if model is not None else BoardModel(),
        home,
        "corners",
    )


def parse_corners(text: str) -> FloatArray:
    """`x1,y1,x2,y2,x3,y3,x4,y4` as a (4, 2) array."""
    try:
        values = [float(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError as exc:
        raise CalibrationError(f"corners must be numbers: {text!r}") from exc
    if len(values) != 8:
        raise CalibrationError(f"expected 8 numbers (four x,y corners), got {len(values)}")
    return np.array(values, dtype=np.float64).reshape(4, 2)


def save_profile(
    profile: BoardProfile, path: Path, picture: NDArray[np.uint8] | None = None
) -> None:
    """Write `profile` as JSON to `path`; with `picture` (the frame it was made from), that
    too, beside it with the suffix `.jpg`, and its name in the JSON (`load_profile_picture`):
    later frames are compared with it to tell whether the board or the camera has moved."""
    path.parent.mkdir(parents=True, exist_ok=True)
    obj = profile.to_json()
    if picture is not None:
        if not profile.fits_image(picture):
            raise CalibrationError("the picture's size differs from the profile's")
        picture_path = path.with_suffix(".jpg")
        if not cv2.imwrite(str(picture_path), picture, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise CalibrationError(f"cannot write the profile's picture {picture_path}")
        obj["picture"] = picture_path.name
    path.write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")


def load_profile(path: Path) -> BoardProfile:
    """The profile saved at `path`; raises `CalibrationError` when it cannot be used."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"cannot read profile {path}: {exc}") from exc
    return BoardProfile.from_json(obj)


def load_profile_picture(path: Path, profile: BoardProfile) -> NDArray[np.uint8] | None:
    """The frame `profile`, loaded from `path`, was made from (`save_profile`), or None when
    it was saved without one; raises `CalibrationError` when the profile names a picture that
    cannot be read or does not fit it."""
    name = json.loads(path.read_text(encoding="utf-8")).get("picture")
    if name is None:
        return None
    picture_path = path.parent / str(name)
    picture = cv2.imread(str(picture_path), cv2.IMREAD_COLOR)
    if picture is None:
        raise CalibrationError(f"cannot read the profile's picture {picture_path}")
    if not profile.fits_image(picture):
        raise CalibrationError(f"the profile's picture {picture_path} is not the profile's size")
    return np.asarray(picture, np.uint8)
