"""The camera's lens: intrinsics and distortion, in OpenCV's model, and moving points through it.

`LensModel` holds K and the distortion coefficients (k1, k2, p1, p2, k3) that
`cv2.calibrateCamera` reports. "Undistorted pixels" are where an ideal pinhole camera with the
same K would have put a point; homographies to the board are taken between those and the board
plane, so the board's straight edges stay straight.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)


@dataclasses.dataclass(frozen=True)
class LensModel:
    """Intrinsics `K` (3×3, row-major nested tuples) and distortion (k1, k2, p1, p2, k3).
    `calibrated` when they were measured (a printed checkerboard): then K's focal length is the
    camera's, where a guessed lens's is only a placeholder."""

    K: tuple[tuple[float, float, float], ...]
    dist: tuple[float, ...]
    calibrated: bool = False

    @staticmethod
    def guess(width: int, height: int, k1: float = 0.0) -> LensModel:
        """A lens with the principal point in the middle, focal length the image's larger side
        (a typical 50-60 degree webcam), and only radial term k1."""
        f = float(max(width, height))
        K = ((f, 0.0, width / 2.0), (0.0, f, height / 2.0), (0.0, 0.0, 1.0))
        return LensModel(K, (k1, 0.0, 0.0, 0.0, 0.0))

    @property
    def k_matrix(self) -> FloatArray:
        return np.array(self.K, dtype=np.float64)

    @property
    def dist_array(self) -> FloatArray:
        return np.array(self.dist, dtype=np.float64)

    @property
    def is_identity(self) -> bool:
        """Whether the lens has no distortion at all (points pass through unchanged)."""
        return not any(self.dist)

    def undistort(self, pixels: FloatArray) -> FloatArray:
        """Undistorted pixel positions of distorted image pixels (N, 2)."""
        pts = np.ascontiguousarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        if self.is_identity or len(pts) == 0:
            return pts.reshape(-1, 2).copy()
        K = self.k_matrix
        out = cv2.undistortPoints(pts, K, self.dist_array, None, None, K, _UNDISTORT_CRITERIA)
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    def distort(self, pixels: FloatArray) -> FloatArray:
        """Distorted image pixels of undistorted pixel positions (..., 2); explicit formula."""
        pts = np.asarray(pixels, dtype=np.float64)
        if self.is_identity:
            return pts.copy()
        K = self.k_matrix
        k1, k2, p1, p2, k3 = (list(self.dist) + [0.0] * 5)[:5]
        x = (pts[..., 0] - K[0, 2]) / K[0, 0]
        y = (pts[..., 1] - K[1, 2]) / K[1, 1]
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack([xd * K[0, 0] + K[0, 2], yd * K[1, 1] + K[1, 2]], axis=-1)

    def to_json(self) -> dict[str, object]:
        return {
            "K": [list(row) for row in self.K],
            "dist": list(self.dist),
            "calibrated": self.calibrated,
        }

    @staticmethod
    def from_json(obj: dict[str, object]) -> LensModel:
        K = obj["K"]
        dist = obj["dist"]
        if not isinstance(K, list) or len(K) != 3 or not isinstance(dist, list):
            raise ValueError("lens: expected K as 3 rows and dist as a list")
        rows = tuple(tuple(float(v) for v in row) for row in K)
        if any(len(row) != 3 for row in rows):
            raise ValueError("lens: K rows must have 3 numbers")
        calibrated = obj.get("calibrated", False)
        if not isinstance(calibrated, bool):
            raise ValueError("lens: calibrated must be true or false")
        return LensModel(rows, tuple(float(v) for v in dist), calibrated)  # type: ignore[arg-type]
