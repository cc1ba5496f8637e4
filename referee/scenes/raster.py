"""Anti-aliased convex polygons that cover their true area.

OpenCV's anti-aliased fill (`LINE_AA`) grows a polygon by about 0.75 px on every side: a
100 px square covers about 10,290 px. Every drawn edge then lay outside its label, and where
the board's frame was drawn over the field the field's visible edge lay 0.8 px inside it. Here
a pixel's coverage is the share of its 8 × 8 point samples that fall inside the polygon. OpenCV
counts a sample lying on the polygon's edge as inside, which adds half a sample (0.06 px) to
each side on average, at most one (0.125 px).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

SAMPLES = 8  # point samples along each side of a pixel
_FRACTION_BITS = 4  # of the fixed-point vertices OpenCV fills polygons with


def coverage(polygon: NDArray[np.float64], shape: tuple[int, int]) -> NDArray[np.uint8]:
    """How much (0–255) of each pixel of a `shape` (rows, columns) image the convex `polygon`
    covers; its vertices (N, 2) are in pixels, the first pixel's centre at (0, 0)."""
    rows, columns = shape
    fine = np.zeros((rows * SAMPLES, columns * SAMPLES), np.uint8)
    # Fine pixel k of pixel i samples i + (k + 0.5) / SAMPLES - 0.5.
    samples = (np.asarray(polygon, np.float64) + 0.5) * SAMPLES - 0.5
    vertices = np.round(samples * (1 << _FRACTION_BITS)).astype(np.int32)
    cv2.fillConvexPoly(fine, vertices, 255, cv2.LINE_8, _FRACTION_BITS)
    return np.asarray(cv2.resize(fine, (columns, rows), interpolation=cv2.INTER_AREA), np.uint8)


def fill_convex(
    image: NDArray[np.uint8], polygon: NDArray[np.float64], colour: float | Sequence[float]
) -> None:
    """Blend `colour` into `image` (in place) by each pixel's coverage by the convex `polygon`
    (pixels, N × 2)."""
    height, width = image.shape[:2]
    points = np.asarray(polygon, np.float64).reshape(-1, 2)
    # Pixels whose square reaches the polygon's bounding box.
    x0 = max(0, int(np.floor(points[:, 0].min() + 0.5)))
    y0 = max(0, int(np.floor(points[:, 1].min() + 0.5)))
    x1 = min(width, int(np.floor(points[:, 0].max() + 0.5)) + 1)
    y1 = min(height, int(np.floor(points[:, 1].max() + 0.5)) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    weight = coverage(points - (x0, y0), (y1 - y0, x1 - x0)).astype(np.float32) / 255.0
    target = image[y0:y1, x0:x1]
    paint = np.asarray(colour, np.float32)
    if target.ndim == 3:
        weight = weight[:, :, None]
    blended = target * (1.0 - weight) + paint * weight
    target[:] = np.clip(np.rint(blended), 0, 255).astype(image.dtype)
