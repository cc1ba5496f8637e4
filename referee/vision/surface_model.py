"""The surface network: where the playing surface lies in the whole picture, as one more
starting place for the board finder's search (`models/board_surface.md`).

The finder's hypotheses come from outlines and long straight lines in the picture. On a dark
board, under a strongly bent lens, or with an arm across a side, none of them may lie near the
board, and the search then polishes the best of the wrong ones: the true corners outscore the
fit it returns, but nothing started near them. A small network that has seen thousands of
generated tables says which pixels are the playing surface, hidden parts (under a hand, under
checkers) included; the quadrilateral round that area is a hypothesis like the others, ranked,
polished and scored by the board's own lines, so the network proposes and the lines decide.

The input is the finder's work image stretched to `INPUT_W` x `INPUT_H` (BGR, 0..1); the
output is the surface's logit per pixel at half that size.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.calibration import order_seen
from referee.vision.camera import FloatArray
from referee.vision.onnx_net import OnnxNet, bgr_blob, optional_net

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "board_surface.onnx"
INPUT_W = 256
INPUT_H = 160
# The output map is this many times smaller than the input.
OUTPUT_STRIDE = 2
# The corners are sought among at most this many hull vertices (all fours of them are tried).
_MAX_HULL_VERTICES = 12
# A side's line is fitted to the outline pixels lying within this share of the side's length
# of it, leaving out this share of its length at each end (where the mask rounds the
# corners), when at least this many pixels lie there.
_SIDE_BAND = 0.03
_SIDE_MIDDLE = 0.15
_SIDE_MIN_POINTS = 10
# A surface fills at least this share of its quadrilateral, and that of its convex hull.
_MIN_FILL = 0.8


def net_input(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """`image` stretched to the network's input size (its aspect is not kept: the network
    was trained on pictures of every shape stretched the same way)."""
    return np.asarray(
        cv2.resize(image, (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA), dtype=np.uint8
    )


def quad_from_mask(mask: NDArray[np.bool_], min_area_frac: float) -> FloatArray | None:
    """The quadrilateral (as seen: TL, TR, BR, BL; pixels of `mask`) round the largest
    region of `mask`, or None when that region is smaller than `min_area_frac` of the mask or
    does not nearly fill the quadrilateral. Its convex hull is cut to the four vertices that
    enclose the most (a hand's notch or a stray blob does not bend a side), and each side is
    then fitted again to the region's outline (`_sides_refitted`)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        mask.astype(np.uint8), connectivity=8
    )
    if count < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = float(stats[biggest, cv2.CC_STAT_AREA])
    if area < min_area_frac * mask.size:
        return None
    points = np.column_stack(np.nonzero(labels == biggest)[::-1]).astype(np.float32)
    hull = cv2.convexHull(points).reshape(-1, 2).astype(np.float64)
    if len(hull) < 4:
        return None
    quad = _largest_inscribed_quad(hull)
    # A region far from four-sided (two boards' worth, a blob) gives no hypothesis.
    if _area(quad) < _MIN_FILL * _area(hull) or area < _MIN_FILL * _area(quad):
        return None
    region = (labels == biggest).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=len).reshape(-1, 2).astype(np.float64)
    return order_seen(_sides_refitted(order_seen(quad), outline))


def overlap(mask: NDArray[np.bool_], corners: FloatArray) -> float:
    """Intersection over union of `mask` and the quadrilateral `corners` (pixels of `mask`, in
    order round it): how well a fit covers the surface the network sees, and only it."""
    quad = np.zeros(mask.shape, np.uint8)
    cv2.fillPoly(quad, [np.round(corners).astype(np.int32).reshape(-1, 1, 2)], 1)
    inside = quad.astype(bool)
    union = int((inside | mask).sum())
    return int((inside & mask).sum()) / union if union else 0.0


def _sides_refitted(quad: FloatArray, outline: FloatArray) -> FloatArray:
    """`quad`'s corners where lines fitted to the stretch of `outline` along each side's
    middle cross: the mask rounds a surface's corners off, so the hull's vertices there lie
    inside the true corners, while its sides run straight. A side with too little outline
    along it (a hand across it) keeps the line through its two vertices."""
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        along = (b - a) / max(length, 1e-9)
        normal = np.array([-along[1], along[0]])
        t = (outline - a) @ along / max(length, 1e-9)
        near = np.abs((outline - a) @ normal) <= _SIDE_BAND * length + 1.0
        stretch = outline[near & (t >= _SIDE_MIDDLE) & (t <= 1 - _SIDE_MIDDLE)]
        if len(stretch) < _SIDE_MIN_POINTS:
            lines.append((a, along))
            continue
        vx, vy, x0, y0 = cv2.fitLine(stretch.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append((np.array([x0[0], y0[0]], np.float64), np.array([vx[0], vy[0]], np.float64)))
    corners = []
    for k in range(4):
        (p, d), (q, e) = lines[k - 1], lines[k]
        matrix = np.column_stack([d, -e])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return quad
        s, _ = np.linalg.solve(matrix, q - p)
        corners.append(p + s * d)
    return np.asarray(corners, np.float64)


def _area(polygon: FloatArray) -> float:
    return float(abs(cv2.contourArea(polygon.astype(np.float32))))


def _largest_inscribed_quad(hull: FloatArray) -> FloatArray:
    """The four hull vertices enclosing the most area: the surface's corners when the hull is
    the surface's outline with its corners cut a little by the mask's blur."""
    # A smooth hull has many near-collinear vertices; the corners survive simplifying.
    length = cv2.arcLength(hull.astype(np.float32), True)
    eps = 0.003
    while len(hull) > _MAX_HULL_VERTICES:
        simple = cv2.approxPolyDP(hull.astype(np.float32), eps * length, True).reshape(-1, 2)
        if len(simple) < 4:
            break
        hull, eps = simple.astype(np.float64), eps * 1.5
    best = max(
        itertools.combinations(range(len(hull)), 4), key=lambda four: _area(hull[list(four)])
    )
    return np.asarray(hull[list(best)], np.float64)


class SurfaceNet:
    """The ONNX surface network (`OnnxNet`): input `image`, output `surface` (N x 1 x
    INPUT_H/2 x INPUT_W/2, logits)."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "surface model")

    def probability(self, image: NDArray[np.uint8]) -> NDArray[np.float32]:
        """How likely each pixel of `image` (BGR, any size) is the playing surface, at
        `image`'s size."""
        logits = self._net.run(bgr_blob(net_input(image)[None]))[0, 0]
        prob = 1.0 / (1.0 + np.exp(-logits))
        h, w = image.shape[:2]
        return np.asarray(cv2.resize(prob.astype(np.float32), (w, h)), np.float32)

    def surface(
        self, image: NDArray[np.uint8], min_area_frac: float
    ) -> tuple[NDArray[np.bool_], FloatArray] | None:
        """The pixels of `image` the network calls surface and the quadrilateral round them
        (`image`'s pixels, as seen), when it sees a surface of at least `min_area_frac` of the
        picture; else None."""
        mask = self.probability(image) >= 0.5
        quad = quad_from_mask(mask, min_area_frac)
        return None if quad is None else (mask, quad)


def load_surface_net(path: str = str(DEFAULT_MODEL)) -> SurfaceNet | None:
    """The network at `path`, loaded once per process; None when the file is absent (the
    finder then starts only from the picture's outlines and lines)."""
    return optional_net(SurfaceNet, path)
