"""Image gradients sampled at arbitrary points, shared by the board finder and the readers."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray


class EdgeImage:
    """The gradient of one (shrunk) image, taken per pixel from whichever Lab channel changes
    most there (a red triangle on brown wood differs in colour more than in lightness)."""

    def __init__(self, image: NDArray[np.uint8]) -> None:
        lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
        blurred = cv2.GaussianBlur(lab, (5, 5), 0)
        best_gx: NDArray[np.float32] | None = None
        best_gy: NDArray[np.float32] | None = None
        best_mag: NDArray[np.float32] | None = None
        for channel in cv2.split(blurred):
            # Sobel's 3x3 kernel weighs 8: scale to grey levels per pixel.
            gx = np.asarray(cv2.Sobel(channel, cv2.CV_32F, 1, 0, ksize=3, scale=0.125), np.float32)
            gy = np.asarray(cv2.Sobel(channel, cv2.CV_32F, 0, 1, ksize=3, scale=0.125), np.float32)
            # Not cv2.magnitude: its result's last bits depend on where numpy put the arrays in
            # memory (a different SIMD path), which made the board finder's hill-climbing land
            # differently from one run to the next.
            mag = np.sqrt(gx * gx + gy * gy)
            if best_mag is None or best_gx is None or best_gy is None:
                best_gx, best_gy, best_mag = gx, gy, mag
                continue
            stronger = mag > best_mag
            best_gx = np.where(stronger, gx, best_gx).astype(np.float32)
            best_gy = np.where(stronger, gy, best_gy).astype(np.float32)
            best_mag = np.maximum(mag, best_mag).astype(np.float32)
        assert best_gx is not None and best_gy is not None and best_mag is not None
        self.gx: NDArray[np.float32] = best_gx
        self.gy: NDArray[np.float32] = best_gy
        self.magnitude: NDArray[np.float32] = best_mag
        self.height, self.width = image.shape[:2]

    def across(self, points: FloatArray, normals: FloatArray) -> NDArray[np.float64]:
        """Gradient magnitude across `normals` at `points` (N, 2), bilinear; zero outside."""
        x, y = points[:, 0], points[:, 1]
        inside = (x >= 0) & (y >= 0) & (x <= self.width - 2) & (y <= self.height - 2)
        xi = np.clip(x, 0, self.width - 2)
        yi = np.clip(y, 0, self.height - 2)
        x0, y0 = xi.astype(np.int32), yi.astype(np.int32)
        fx, fy = xi - x0, yi - y0
        # Flat indices and `take`: several times faster than indexing by rows and columns
        # (`across` is most of the board finder's time).
        at = y0 * self.width + x0
        below = at + self.width

        def sample(g: NDArray[np.float32]) -> NDArray[np.float64]:
            flat = g.ravel()
            top = flat.take(at) * (1 - fx) + flat.take(at + 1) * fx
            bottom = flat.take(below) * (1 - fx) + flat.take(below + 1) * fx
            return np.asarray(top * (1 - fy) + bottom * fy, dtype=np.float64)

        value = np.abs(sample(self.gx) * normals[:, 0] + sample(self.gy) * normals[:, 1])
        return np.where(inside, value, 0.0)
