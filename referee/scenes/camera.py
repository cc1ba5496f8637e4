"""The pinhole camera with lens distortion, and how a scene is drawn through it.

Scenes are painted on an undistorted *canvas* (the ideal pinhole image with a margin, so that
barrel distortion has pixels to pull in from), then warped once into the distorted photo with
`cv2.remap`. Labels are projected straight into the photo with `cv2.projectPoints`, K and the
distortion coefficients, which is the model a calibrated camera reports.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.scenes.config import CameraConfig

FloatArray = NDArray[np.float64]

# Coarse-grid step (pixels) for the distortion maps; the maps are smooth, so bilinear
# interpolation between samples this far apart is exact to well under a pixel.
_MAP_STEP = 16
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)


@dataclasses.dataclass(frozen=True)
class Camera:
    """Intrinsics K, distortion (k1, k2, p1, p2, k3), pose world->camera, image size."""

    K: FloatArray
    dist: FloatArray
    R: FloatArray
    t: FloatArray
    width: int
    height: int
    tilt_deg: float
    # Padding of the undistorted canvas: left, top, right, bottom.
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def rvec(self) -> FloatArray:
        """The rotation world -> camera as a Rodrigues vector."""
        rvec, _ = cv2.Rodrigues(self.R)
        return np.asarray(rvec, dtype=np.float64).reshape(3)

    @property
    def center(self) -> FloatArray:
        """The camera's optical centre in world coordinates."""
        return np.asarray(-self.R.T @ self.t, dtype=np.float64)

    @property
    def canvas_size(self) -> tuple[int, int]:
        """Width and height of the undistorted canvas (the photo plus its padding)."""
        left, top, right, bottom = self.pad
        return self.width + left + right, self.height + top + bottom

    @property
    def K_canvas(self) -> FloatArray:
        """The intrinsics of the canvas: K shifted by the padding."""
        K = self.K.copy()
        K[0, 2] += self.pad[0]
        K[1, 2] += self.pad[1]
        return K

    def project(self, points: FloatArray) -> FloatArray:
        """Pixels in the distorted photo of world points (N, 3)."""
        pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 1, 3)
        image, _ = cv2.projectPoints(pts, self.rvec, self.t, self.K, self.dist)
        return np.asarray(image, dtype=np.float64).reshape(-1, 2)

    def to_camera(self, points: FloatArray) -> FloatArray:
        """World points (N, 3) in camera coordinates (mm, z along the optical axis)."""
        return np.asarray(points @ self.R.T + self.t, dtype=np.float64)

    def project_canvas(self, points: FloatArray) -> FloatArray:
        """Pixels on the undistorted canvas of world points (N, 3), all in front of the camera."""
        cam = self.to_camera(points)
        K = self.K_canvas
        z = np.maximum(cam[:, 2], 1.0)
        return np.stack(
            [K[0, 0] * cam[:, 0] / z + K[0, 2], K[1, 1] * cam[:, 1] / z + K[1, 2]], axis=1
        )

    def plane_homography(self, z: float, scale: float, origin: tuple[float, float]) -> FloatArray:
        """Homography from texture pixels (u, v) of a top-down texture to canvas pixels.

        The texture shows the plane at height `z` with `scale` pixels per mm; texture pixel
        (u, v) is world (origin_x + u / scale, origin_y - v / scale) (rows run toward -y).
        """
        to_world = np.array(
            [[1 / scale, 0, origin[0]], [0, -1 / scale, origin[1]], [0, 0, 1]], dtype=np.float64
        )
        plane = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        return np.asarray(self.K_canvas @ plane @ to_world, dtype=np.float64)

    def pixel_scale(self, point: FloatArray) -> float:
        """Canvas pixels per millimetre at world point `point` (for widths of thin things)."""
        depth = float(self.to_camera(point.reshape(1, 3))[0, 2])
        return float(self.K[0, 0]) / max(depth, 1.0)

    @functools.cached_property
    def distortion_maps(self) -> tuple[NDArray[np.int16], NDArray[np.uint16]] | None:
        """Maps for `cv2.remap` from the canvas to the distorted photo; None without distortion.
        Kept with the camera: every frame of a video reuses them."""
        if not np.any(self.dist):
            return None
        step = _MAP_STEP
        # Sample positions chosen so that cv2.resize (pixel-centre aligned) reproduces them
        # exactly and covers the image borders without clamping: see `_grid_positions`.
        xs, big_w = _grid_positions(self.width, step)
        ys, big_h = _grid_positions(self.height, step)
        gx, gy = np.meshgrid(xs, ys)
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
        ideal = cv2.undistortPoints(
            pts, self.K, self.dist, P=self.K_canvas, criteria=_UNDISTORT_CRITERIA
        ).reshape(len(ys), len(xs), 2)
        full = cv2.resize(ideal.astype(np.float32), (big_w, big_h), interpolation=cv2.INTER_LINEAR)
        full = full[step : step + self.height, step : step + self.width]
        map1, map2 = cv2.convertMaps(
            np.ascontiguousarray(full[..., 0]),
            np.ascontiguousarray(full[..., 1]),
            cv2.CV_16SC2,
        )
        return np.asarray(map1, np.int16), np.asarray(map2, np.uint16)


def _grid_positions(size: int, step: int) -> tuple[FloatArray, int]:
    """Photo coordinates of a coarse grid that `cv2.resize` to `big` then cropping by `step`
    turns into one value per pixel: resize maps sample s to (s + 0.5) * step - 0.5."""
    count = math.ceil((size + 2 * step) / step)
    positions = (np.arange(count) + 0.5) * step - 0.5 - step
    return positions.astype(np.float64), count * step


def look_at(
    center: FloatArray, target: FloatArray, image_down: FloatArray, roll_deg: float
) -> FloatArray:
    """World->camera rotation of a camera at `center` looking at `target`, with the image's
    downward direction as close to world direction `image_down` as the view allows."""
    z = target - center
    z /= np.linalg.norm(z)
    y = image_down - np.dot(image_down, z) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    roll = math.radians(roll_deg)
    x, y = math.cos(roll) * x + math.sin(roll) * y, -math.sin(roll) * x + math.cos(roll) * y
    return np.stack([x, y, z])


def _fits(camera: Camera, points: FloatArray, margin: float) -> bool:
    """True when `points` project inside the photo with `margin` pixels to spare."""
    image = camera.project(points)
    return bool(
        np.all(image[:, 0] >= margin)
        and np.all(image[:, 0] <= camera.width - 1 - margin)
        and np.all(image[:, 1] >= margin)
        and np.all(image[:, 1] <= camera.height - 1 - margin)
    )


def _monotonic_radial(k1: float, k2: float, r_max: float) -> bool:
    """True when r * (1 + k1 r^2 + k2 r^4) keeps growing up to r_max (a real lens does)."""
    r = np.linspace(0.0, r_max, 64)
    return bool(np.all(1 + 3 * k1 * r**2 + 5 * k2 * r**4 > 0.35))


def sample_camera(
    rng: np.random.Generator,
    config: CameraConfig,
    size: tuple[int, int],
    target: FloatArray,
    keep_in_view: FloatArray,
) -> Camera:
    """A camera above the board looking at `target` that keeps `keep_in_view` (N, 3) in frame."""
    width, height = size
    tilt = float(rng.uniform(*config.tilt_deg))
    azimuth = float(rng.uniform(0.0, 2 * math.pi))
    cam_height = float(rng.uniform(*config.height_mm))
    offset = cam_height * math.tan(math.radians(tilt))
    center = target + np.array(
        [offset * math.cos(azimuth), offset * math.sin(azimuth), cam_height - target[2]]
    )
    from_black = bool(rng.random() < config.from_black_side)
    down = np.array([0.0, 1.0 if from_black else -1.0, 0.0])
    R = look_at(center, target, down, float(rng.uniform(*config.roll_deg)))
    t = -R @ center

    cam = (keep_in_view - center) @ R.T
    xn, yn = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    cx = width / 2 + float(rng.uniform(*config.principal_offset)) * width
    cy = height / 2 + float(rng.uniform(*config.principal_offset)) * height
    focal_max = min(
        cx / max(-xn.min(), 1e-6),
        (width - cx) / max(xn.max(), 1e-6),
        cy / max(-yn.min(), 1e-6),
        (height - cy) / max(yn.max(), 1e-6),
    )
    focal = focal_max * float(rng.uniform(*config.fill))
    k1 = float(rng.uniform(*config.k1))
    k2 = float(rng.uniform(*config.k2))
    # With margin for the focal length shrinking below while the view is fitted.
    r_max = 1.4 * math.hypot(max(cx, width - cx), max(cy, height - cy)) / focal
    while not _monotonic_radial(k1, k2, r_max):
        k1, k2 = k1 * 0.7, k2 * 0.7
    dist = np.array(
        [
            k1,
            k2,
            float(rng.uniform(*config.tangential)),
            float(rng.uniform(*config.tangential)),
            0.0,
        ]
    )
    # Distortion moves the outermost points; zoom out until they are all in the picture.
    for _ in range(10):
        K = np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])
        camera = Camera(K, dist, R, t, width, height, tilt)
        if _fits(camera, keep_in_view, margin=2.0):
            return dataclasses.replace(camera, pad=_canvas_pad(camera))
        focal *= 0.97
    raise RuntimeError("the camera cannot keep the board in view")


def _canvas_pad(camera: Camera) -> tuple[int, int, int, int]:
    """Margins the undistorted canvas needs so every photo pixel has a source pixel."""
    if not np.any(camera.dist):
        return (0, 0, 0, 0)
    w, h = camera.width, camera.height
    edge = np.concatenate(
        [
            np.stack([np.linspace(0, w - 1, 64), np.zeros(64)], axis=1),
            np.stack([np.linspace(0, w - 1, 64), np.full(64, h - 1.0)], axis=1),
            np.stack([np.zeros(64), np.linspace(0, h - 1, 64)], axis=1),
            np.stack([np.full(64, w - 1.0), np.linspace(0, h - 1, 64)], axis=1),
        ]
    ).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(
        edge, camera.K, camera.dist, P=camera.K, criteria=_UNDISTORT_CRITERIA
    ).reshape(-1, 2)
    limit = max(w, h) // 2
    left = int(min(limit, max(0.0, -ideal[:, 0].min()) + 3))
    top = int(min(limit, max(0.0, -ideal[:, 1].min()) + 3))
    right = int(min(limit, max(0.0, ideal[:, 0].max() - (w - 1)) + 3))
    bottom = int(min(limit, max(0.0, ideal[:, 1].max() - (h - 1)) + 3))
    return left, top, right, bottom
