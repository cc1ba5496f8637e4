"""Finding the board with no markers: hypotheses from closed outlines, a model-fit score, and a
plumb-line estimate of lens distortion.

1. Edges (Canny on each Lab channel of a shrunk image) are closed into contours; every contour
   that simplifies to a large convex quadrilateral (a field half, the playing surface, the
   board's outline, ...) proposes where the playing surface could be, once for each part of the
   board it might be and each of its four rotations. The surface network (`surface_model`)
   proposes one more: the quadrilateral round the pixels it takes for the playing surface.
2. Each proposal is scored by how well the board model's straight edges (the surface's border,
   the bar's two edges and both edges of all 24 triangles) lie on image edges: the mean, over
   points sampled along those edges, of the image gradient across the edge (capped, so one
   very strong edge cannot outvote many). The best proposals are polished by coordinate search
   on the four corners, and the best of those that show points where they put them is kept.
   Its two pairs of opposite sides are then moved in and out together by a frame's width or so
   and polished again (`_jump_sides`), since a frame's outer edges, parallel to the surface's,
   hold a hill-climb that settled on them.
3. At full resolution, points of the surface's border and the bar's edges are found along their
   normals; the radial distortion k1 that makes them most nearly straight (plumb-line method)
   is kept, the lines are refitted on undistorted points, and the corners are their crossings.
   The corner network (`corner_model`) then looks at each corner and moves it where a frame's
   parallel edges led a line astray.
4. The bear-off tray (a compartment beyond one end of the surface) decides which end is white's
   right, so white's seat follows the scene generator's layout: the frame runs on round the
   tray, so past that end the long sides' frame colour goes on where past the other the table
   begins; where frame and table look alike, the tray's walls standing out of its floors decide.
   Without either, white is put on the side nearer the bottom of the image.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.calibration import (
    SEATS,
    BoardProfile,
    CalibrationError,
    Seat,
    apply_homography,
    corner_turns,
    order_seen,
    quad_area,
    seen_to_board_order,
)
from referee.vision.camera import FloatArray, LensModel
from referee.vision.config import CalibrationConfig
from referee.vision.corner_model import DEFAULT_MODEL as DEFAULT_CORNER_MODEL
from referee.vision.corner_model import load_corner_net, refine_corners
from referee.vision.edges import EdgeImage
from referee.vision.geometry import BoardModel, HomeSide
from referee.vision.surface_model import DEFAULT_MODEL as DEFAULT_SURFACE_MODEL
from referee.vision.surface_model import load_surface_net, overlap

Segment = tuple[tuple[float, float], tuple[float, float]]

# Gradient (grey levels per pixel, summed over Lab channels' maxima) above which a sample adds
# no more to the score: a strong checker edge counts no more than a plain triangle edge.
_GRADIENT_CAP = 40.0
# How far a camera over a board usually is from it (mm): mounts hang it 0.55-1.15 m up. The focal
# length is drawn towards the one this distance needs where the view cannot tell it
# (`camera_pose`); how far (natural log) it may stray for the board's axes to be perpendicular,
# how sure that the axes' cosine is zero, and how far the search goes.
_CAMERA_HEIGHT_MM = 800.0
_FOCAL_LOG_SD = 0.2
_AXES_COSINE_SD = 0.01
_FOCAL_SEARCH = 1.2
# Gradient (grey levels per pixel) an edge point needs to count as seen.
_EDGE_MIN_GRADIENT = 8.0
# A border's edges are searched down to this gradient: a colour edge between two dark tones (navy
# felt against a dark frame) is spread over several pixels by the camera's halved chroma and
# shows half as steep as a lightness edge; so does a rim's top against its own wall.
_BORDER_MIN_GRADIENT = 5.0
# Edge points an edge needs before it is trusted.
_MIN_EDGE_POINTS = 8
# How much more (grey levels per pixel) the tray's walls must stand out of its floors at one end
# than at the other for the tray to be placed there.
_TRAY_MIN_CONTRAST = 1.0
# How much nearer (Lab units with `_FRAME_LAB_WEIGHTS`, median over the samples) the colour past
# one end must be to the long sides' frame than past the other, on both sides, for the frame to
# be taken to run on round a tray there; and how far from the frame's colour the tray's floors
# must be (on tuning sets 61 / 63 with automatic corners, 8 and 12 put one more seat wrong).
_TRAY_MIN_COLOUR_GAP = 5.0
# Lightness counted a quarter: a lamp lights one end of a frame more than the other.
_FRAME_LAB_WEIGHTS = np.array([0.25, 1.0, 1.0])
# How much more (grey levels per pixel) one end's lines past the surface must stand out where a
# tray's outer wall and outline lie, over where a narrow end's outline lies, than the other
# end's, for the tray to be placed there (`_outline_end`); and the lines' spacing (mm).
_OUTLINE_MIN_CONTRAST = 4.0
_OUTLINE_STEP_MM = 1.0
# k1 is kept only when it shrinks the edge points' squared distance from straight lines to
# this share of what it is with no distortion.
_MIN_STRAIGHTNESS_GAIN = 0.6
# An outline that encloses nothing (broken where its edge fades) is still proposed by the hull
# of its edges when that hull covers this share of the picture (a board covers 15 % or more).
_HULL_MIN_AREA = 0.1
# Best-ranked hypotheses that are polished before the best of them is kept.
_POLISHED = 12
# And this many of the best-ranked hypotheses from straight lines (see `line_quads`).
_POLISHED_LINES = 4
# And this many from the surface network's quadrilateral (its orders round the quadrilateral).
_POLISHED_SURFACE = 2
# Hypotheses whose corners all lie this close (work px) are polished once.
_SAME_PX = 6.0
# A proper quadrilateral's sides meet at each corner at an angle whose sine is at least this
# (17-163°): a board's corners, seen even 45° off straight down, stay within 45-135°.
_MIN_TURN_SINE = 0.3
# And its shortest side is at least this share of its longest (a board's 400 mm depth seen
# 45° off straight down is over half its 516 mm width).
_MIN_SIDE_SHARE = 0.2
# A polished fit keeps at least this share of the area it started with.
_MIN_AREA_KEPT = 0.5
# Distance (work pixels) either side of a model edge where the image should be flat.
_BESIDE_PX = 3.0
# Share of the score carried by the border and bar lines (the rest: triangle edges).
_FRAME_WEIGHT = 0.3
# Straight-line hypotheses: segments shorter than this share of the image width are left out;
# a line needs segments adding to this share; this many longest-reaching lines are paired.
_LINE_MIN_FRAC = 0.03
_LINE_MIN_SUPPORT_FRAC = 0.12
_LINE_COUNT = 24
# Collinear segments merge when both ends lie this close (work px) to the line, at this angle.
_LINE_MERGE_PX = 3.0
_LINE_MERGE_SIN = math.sin(math.radians(4.0))
# Each side of a line quadrilateral must be covered this much by its line's segments; the best
# covered this many are kept.
_LINE_MIN_COVER = 0.25
_LINE_QUADS = 40
# A wall showing less than this (px) is taken as hidden: the rim's top edge is the border seen.
_MIN_WALL_PX = 1.0
# The surface's edge is looked for this far (px, plus this share of the wall) from where the
# rim's height puts it.
_WALL_SLACK_PX = 1.5
_WALL_SLACK_FRAC = 0.4
# A wall that shows may show up to this many times as wide as the rim's reckoned height says.
_WALL_REACH = 2.5


def surface_mm(model: BoardModel) -> NDArray[np.float32]:
    """The playing surface's corners in board millimetres (board order)."""
    w, d = model.width_mm, model.depth_mm
    return np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=np.float32)


def surface_homography(model: BoardModel, corners: FloatArray) -> FloatArray:
    """The homography (board mm → image px) that puts the surface's corners at `corners`
    (board order, image pixels)."""
    H = cv2.getPerspectiveTransform(surface_mm(model), np.asarray(corners, np.float32))
    return np.asarray(H, dtype=np.float64)


def model_segments(model: BoardModel) -> tuple[list[Segment], list[Segment]]:
    """(border and bar lines, triangle edges) of the board model in board millimetres."""
    w, d = model.width_mm, model.depth_mm
    bx0, _, bx1, _ = model.bar_box()
    frame: list[Segment] = [
        ((0.0, 0.0), (w, 0.0)),
        ((w, 0.0), (w, d)),
        ((w, d), (0.0, d)),
        ((0.0, d), (0.0, 0.0)),
        ((bx0, 0.0), (bx0, d)),
        ((bx1, 0.0), (bx1, d)),
    ]
    triangles: list[Segment] = []
    half = model.point_width_mm / 2
    for point in range(1, 25):
        base, tip = model.base_tip(point)
        for side in (-1.0, 1.0):
            corner = (float(base[0] + side * half), float(base[1]))
            triangles.append((corner, (float(tip[0]), float(tip[1]))))
    return frame, triangles


def _samples(segments: Sequence[Segment], per_segment: int) -> tuple[FloatArray, FloatArray]:
    """Points (N, 2) spread along segments, and each one's unit direction (N, 2), in mm."""
    t = (np.arange(per_segment) + 0.5) / per_segment
    points, dirs = [], []
    for a, b in segments:
        pa, pb = np.array(a), np.array(b)
        points.append(pa + np.outer(t, pb - pa))
        dirs.append(np.repeat(((pb - pa) / np.linalg.norm(pb - pa))[None], per_segment, axis=0))
    return np.concatenate(points), np.concatenate(dirs)


class ModelScorer:
    """Scores a placement of the board model (board mm → image homography) against edges."""

    def __init__(
        self,
        edges: EdgeImage,
        model: BoardModel,
        per_segment: int = 12,
        beside_px: float | None = _BESIDE_PX,
    ) -> None:
        self.edges = edges
        self.beside_px = beside_px
        self.model = model
        frame, triangles = model_segments(model)
        self.frame_pts, self.frame_dirs = _samples(frame, per_segment * 2)
        self.tri_pts, self.tri_dirs = _samples(triangles, per_segment)

    def _part(self, H: FloatArray, pts: FloatArray, dirs: FloatArray) -> float:
        image_pts = apply_homography(H, pts)
        ahead = apply_homography(H, pts + dirs)
        tangent = ahead - image_pts
        norm = np.linalg.norm(tangent, axis=1, keepdims=True)
        normals = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1) / np.maximum(norm, 1e-9)
        if self.beside_px is None:
            values = self.edges.across(image_pts, normals)
        else:
            # Texture (cloth, grain) has gradient everywhere; an edge only on the line. The line
            # and both sides are sampled in one call (it is most of the board finder's time).
            offset = self.beside_px * normals
            on, left, right = self.edges.across(
                np.concatenate([image_pts, image_pts + offset, image_pts - offset]),
                np.concatenate([normals, normals, normals]),
            ).reshape(3, -1)
            values = on - np.maximum(left, right)
        values = np.clip(values, 0.0, _GRADIENT_CAP)
        return float(values.mean()) / _GRADIENT_CAP

    def score(self, H: FloatArray) -> float:
        """0..1: how strongly the model's edges lie on image edges."""
        frame = self._part(H, self.frame_pts, self.frame_dirs)
        return _FRAME_WEIGHT * frame + (1 - _FRAME_WEIGHT) * self.point_edges(H)

    def point_edges(self, H: FloatArray) -> float:
        """0..1: how strongly the points' sides (the triangles' edges) lie on image edges."""
        return self._part(H, self.tri_pts, self.tri_dirs)

    def score_corners(self, corners: FloatArray) -> float:
        """Score of the placement putting the surface's corners (board order) at `corners`."""
        return self.score(surface_homography(self.model, corners))


def candidate_quads(image: NDArray[np.uint8], config: CalibrationConfig) -> list[FloatArray]:
    """Large convex quadrilaterals outlined by closed edges, as seen (TL, TR, BR, BL)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    edges = np.zeros(image.shape[:2], np.uint8)
    for c in range(3):
        canny = cv2.Canny(cv2.GaussianBlur(lab[..., c], (5, 5), 0), 30, 80)
        edges |= np.asarray(canny, dtype=np.uint8)
    edges = np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    contours, _ = cv2.findContours(edges, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    h, w = image.shape[:2]
    quads: list[FloatArray] = []
    for contour in contours:
        area = cv2.contourArea(contour)
        hull = cv2.convexHull(contour)
        # An outline broken where its edge fades (a dark frame in a shadow on a dark table)
        # encloses nothing, but the hull of its edges still spans the board.
        broken = area < 0.02 * w * h
        if broken and cv2.contourArea(hull) < _HULL_MIN_AREA * w * h:
            continue
        approx = cv2.approxPolyDP(hull, config.approx_eps_frac * cv2.arcLength(hull, True), True)
        quad = _quad_from_polygon(approx.reshape(-1, 2).astype(np.float64))
        if broken:
            if quad is not None:
                quads.append(order_seen(quad))
            continue
        if quad is not None and area >= 0.5 * abs(cv2.contourArea(quad.astype(np.float32))):
            quads.append(order_seen(quad))
        # The smallest enclosing rectangle survives a corner lost under checkers or a hand.
        box = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
        if area >= 0.3 * abs(cv2.contourArea(box.astype(np.float32))):
            quads.append(order_seen(box))
    return quads + _paired(quads)


@dataclasses.dataclass
class _Line:
    """Collinear line segments merged into one straight line: a point on it, its unit
    direction and the segments (end points) that lie on it."""

    centre: FloatArray
    direction: FloatArray
    segments: list[tuple[FloatArray, FloatArray]]

    @property
    def normal(self) -> FloatArray:
        return np.array([-self.direction[1], self.direction[0]])

    def add(self, a: FloatArray, b: FloatArray) -> None:
        self.segments.append((a, b))
        pts = np.array([p for s in self.segments for p in s])
        weights = np.repeat([float(np.linalg.norm(s[1] - s[0])) for s in self.segments], 2)
        self.centre = (pts * weights[:, None]).sum(axis=0) / weights.sum()
        _, _, vt = np.linalg.svd((pts - self.centre) * np.sqrt(weights)[:, None])
        self.direction = vt[0]

    def support(self) -> float:
        return float(sum(np.linalg.norm(b - a) for a, b in self.segments))

    def span(self) -> float:
        """Length from the first segment's start to the last one's end."""
        t = [float((p - self.centre) @ self.direction) for s in self.segments for p in s]
        return max(t) - min(t)

    def covered(self, p: FloatArray, q: FloatArray) -> float:
        """Share of the stretch p→q (on or near this line) that its segments cover."""
        d = q - p
        length = float(np.linalg.norm(d))
        spans = sorted(
            sorted((float((a - p) @ d) / length**2, float((b - p) @ d) / length**2))
            for a, b in self.segments
        )
        total, reach = 0.0, 0.0
        for lo, hi in spans:
            lo, hi = max(lo, reach), min(hi, 1.0)
            if hi > lo:
                total += hi - lo
                reach = hi
        return total


def _straight_lines(image: NDArray[np.uint8], min_len: float, keep: int) -> list[_Line]:
    """The `keep` longest-reaching straight lines (line segments found on each Lab channel,
    merged when collinear), however broken they are by a hand or an arm."""
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (3, 3), 0), cv2.COLOR_BGR2LAB)
    detector = cv2.createLineSegmentDetector()
    found = []
    for channel in cv2.split(lab):
        segs = detector.detect(channel)[0]
        if segs is not None:
            found.append(np.asarray(segs, dtype=np.float64).reshape(-1, 4))
    if not found:
        return []
    segs = np.concatenate(found)
    lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    order = [k for k in np.argsort(-lengths) if lengths[k] >= min_len]
    lines: list[_Line] = []
    for k in order:
        a = np.asarray(segs[k, :2], dtype=np.float64)
        b = np.asarray(segs[k, 2:], dtype=np.float64)
        direction = (b - a) / lengths[k]
        for line in lines:
            n = line.normal
            if (
                abs(float((a - line.centre) @ n)) <= _LINE_MERGE_PX
                and abs(float((b - line.centre) @ n)) <= _LINE_MERGE_PX
                and abs(float(direction @ n)) <= _LINE_MERGE_SIN
            ):
                line.add(a, b)
                break
        else:
            lines.append(_Line((a + b) / 2, direction, [(a, b)]))
    # A border broken by an arm spans far; a triangle's edge, however strong, does not.
    lines.sort(key=lambda line: -line.span())
    return lines[:keep]


def line_quads(
    image: NDArray[np.uint8], config: CalibrationConfig, keep: int = _LINE_QUADS
) -> list[FloatArray]:
    """Quadrilaterals (as seen: TL, TR, BR, BL) bounded by two pairs of long straight lines,
    best covered by the lines' segments first: a board outline an arm breaks (no closed
    contour) still shows long stretches of its straight sides."""
    h, w = image.shape[:2]
    lines = _straight_lines(image, _LINE_MIN_FRAC * w, _LINE_COUNT)
    lines = [line for line in lines if line.support() >= _LINE_MIN_SUPPORT_FRAC * w]
    pairs = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            li, lj = lines[i], lines[j]
            if abs(float(li.direction @ lj.direction)) < math.cos(math.radians(25.0)):
                continue
            gap = abs(float((lj.centre - li.centre) @ li.normal))
            if gap >= 0.25 * min(w, h):
                pairs.append((li, lj))
    scored: list[tuple[float, FloatArray]] = []
    for p in range(len(pairs)):
        for q in range(p + 1, len(pairs)):
            (a1, a2), (b1, b2) = pairs[p], pairs[q]
            if len({id(a1), id(a2), id(b1), id(b2)}) < 4:
                continue
            if abs(float(a1.direction @ b1.direction)) > math.cos(math.radians(40.0)):
                continue
            ring = (a1, b1, a2, b2)
            try:
                quad = np.array(
                    [
                        _intersect(ring[k].centre, ring[k].direction,
                                   ring[(k + 1) % 4].centre, ring[(k + 1) % 4].direction)
                        for k in range(4)
                    ]
                )  # fmt: skip
            except np.linalg.LinAlgError:
                continue
            if not _plausible(quad, (w, h), config.min_board_area_frac):
                continue
            # Side k runs from corner k-1 to corner k along ring[k].
            cover = [ring[k].covered(quad[k - 1], quad[k]) for k in range(4)]
            if min(cover) < _LINE_MIN_COVER:
                continue
            scored.append((float(np.mean(cover)), order_seen(quad)))
    scored.sort(key=lambda item: -item[0])
    return [quad for _, quad in scored[:keep]]


def _paired(quads: Sequence[FloatArray]) -> list[FloatArray]:
    """The outline of every two quads of about equal size side by side: the two field halves
    give the whole playing surface."""
    out: list[FloatArray] = []
    areas = [abs(float(cv2.contourArea(q.astype(np.float32)))) for q in quads]
    for i in range(len(quads)):
        for j in range(i + 1, len(quads)):
            if not 0.6 <= areas[i] / areas[j] <= 1 / 0.6:
                continue
            gap = float(np.linalg.norm(quads[i].mean(axis=0) - quads[j].mean(axis=0)))
            if not 0.5 * math.sqrt(areas[i]) <= gap <= 1.6 * math.sqrt(areas[i]):
                continue
            hull = cv2.convexHull(np.concatenate([quads[i], quads[j]]).astype(np.float32))
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
            quad = _quad_from_polygon(approx.reshape(-1, 2).astype(np.float64))
            if quad is not None:
                out.append(order_seen(quad))
    return out


def _quad_from_polygon(polygon: FloatArray) -> FloatArray | None:
    """A convex polygon's quadrilateral: itself when it has four corners; else the crossings of
    its four longest sides (a corner clipped off by a checker or a hand comes back)."""
    n = len(polygon)
    if n < 4 or n > 8:
        return None
    if n == 4:
        return polygon
    sides = [(polygon[i], polygon[(i + 1) % n]) for i in range(n)]
    lengths = [float(np.linalg.norm(b - a)) for a, b in sides]
    longest = sorted(sorted(range(n), key=lambda i: -lengths[i])[:4])
    corners = []
    for k in range(4):
        a1, b1 = sides[longest[k]]
        a2, b2 = sides[longest[(k + 1) % 4]]
        try:
            corners.append(_intersect(a1, b1 - a1, a2, b2 - a2))
        except np.linalg.LinAlgError:
            return None
    quad = np.array(corners)
    if not cv2.isContourConvex(np.round(quad).astype(np.int32)):
        return None
    return quad


def _part_boxes(model: BoardModel) -> list[tuple[float, float, float, float]]:
    """Board parts a closed outline may be: each field half, the surface, the outline (with the
    tray at one end: `_hypotheses` turns each quad all four ways, which puts it at the other)."""
    w, d = model.width_mm, model.depth_mm
    fw = (w - model.bar_mm) / 2
    return [
        (0.0, 0.0, fw, d),
        (w - fw, 0.0, w, d),
        (0.0, 0.0, w, d),
        model.outline_box("right"),
    ]


def _hypotheses(quads: Sequence[FloatArray], model: BoardModel) -> list[FloatArray]:
    """Surface corners (board order, work pixels) implied by each quad as each board part."""
    out: list[FloatArray] = []
    w, d = model.width_mm, model.depth_mm
    surface = np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=np.float64)
    for quad in quads:
        for x0, y0, x1, y1 in _part_boxes(model):
            part = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
            for r in range(4):
                target = np.roll(quad, -r, axis=0).astype(np.float32)
                H = cv2.getPerspectiveTransform(part, target)
                out.append(apply_homography(np.asarray(H, np.float64), surface))
    return out


_Surface = tuple[NDArray[np.bool_], FloatArray]


def _surface_seen(small: NDArray[np.uint8], config: CalibrationConfig) -> _Surface | None:
    """What the surface network sees in the work image `small`: its surface pixels and the
    quadrilateral round them (`SurfaceNet.surface`); None without the network
    (`CalibrationConfig.use_surface_model`) or where it sees no board-shaped surface."""
    if not config.use_surface_model:
        return None
    net = load_surface_net(config.surface_model_path or str(DEFAULT_SURFACE_MODEL))
    if net is None:
        return None
    return net.surface(small, config.surface_min_area_frac)


def _surface_hypotheses(seen: _Surface | None) -> list[FloatArray]:
    """The surface network's quadrilateral in each of its four orders (the surface's corners
    in board order up to a half turn, work pixels); none where it sees no surface."""
    if seen is None:
        return []
    return [np.roll(seen[1], -r, axis=0) for r in range(4)]


def _agreement(
    fits: Sequence[FloatArray], seen: _Surface | None, config: CalibrationConfig
) -> list[bool]:
    """Whether each of `fits` covers the surface the network sees nearly as well as the best of
    them (`CalibrationConfig.surface_agree_min`, `surface_agree_margin`); all do where the
    network sees no surface or none of them covers it well."""
    if seen is None or not fits:
        return [True] * len(fits)
    overlaps = [overlap(seen[0], c) for c in fits]
    best = max(overlaps)
    if best < config.surface_agree_min:
        return [True] * len(fits)
    return [o >= best - config.surface_agree_margin for o in overlaps]


def _plausible(corners: FloatArray, size: tuple[int, int], min_area_frac: float) -> bool:
    w, h = size
    area = quad_area(corners)
    if area < min_area_frac * w * h or area > 1.5 * w * h:
        return False
    if not _a_proper_quad(corners):
        return False
    return bool(np.all(corners > -0.25 * max(w, h)) and np.all(corners < 1.25 * max(w, h)))


def _still_plausible(corners: FloatArray, size: tuple[int, int], config: CalibrationConfig) -> bool:
    """Whether a fit polished from a plausible hypothesis (`_plausible`) still is one, given
    that polishing may shrink it to `_MIN_AREA_KEPT` of its area: in a small picture a climb
    can squeeze a fit to a sliver along one strong edge whose lines show points."""
    return _plausible(corners, size, config.min_board_area_frac * _MIN_AREA_KEPT)


def _side_move(corners: FloatArray, side: int, distance: float) -> FloatArray:
    """The displacement (4, 2) moving side `side` (corners `side` and the next) `distance`
    pixels along its normal; opposite sides' normals point opposite ways, in or out alike."""
    a, b = corners[side], corners[(side + 1) % 4]
    direction = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
    move = np.zeros((4, 2))
    move[side] = move[(side + 1) % 4] = np.array([-direction[1], direction[0]]) * distance
    return move


def _moves(corners: FloatArray, step: float) -> list[FloatArray]:
    """Trial displacements: each corner coordinate alone, each edge along its normal (both of
    its corners together), and the whole quadrilateral grown or shrunk."""
    moves: list[FloatArray] = []
    for i in range(4):
        for j in range(2):
            m = np.zeros((4, 2))
            m[i, j] = step
            moves += [m, -m]
    for i in range(4):
        m = _side_move(corners, i, step)
        moves += [m, -m]
    outward = corners - corners.mean(axis=0)
    outward /= np.linalg.norm(outward, axis=1, keepdims=True)
    moves += [outward * step, -outward * step]
    return moves


def _a_proper_quad(corners: FloatArray) -> bool:
    """Whether `corners` turn one way round at every corner, none of them nearly straight or
    doubled back, and no side is a stub: a board seen in any perspective does. A
    quadrilateral squeezed to a sliver puts all the model's lines on one strong edge and
    outscores any board."""
    sizes = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    sines = corner_turns(corners) / np.maximum(sizes * np.roll(sizes, -1), 1e-9)
    turning = bool(np.all(sines >= _MIN_TURN_SINE) or np.all(sines <= -_MIN_TURN_SINE))
    return turning and float(sizes.min()) >= _MIN_SIDE_SHARE * float(sizes.max())


def polish(scorer: ModelScorer, corners: FloatArray, step: float, rounds: int = 4) -> FloatArray:
    """Hill-climbing on the corners (see `_moves`), halving the step each round. A climb can
    squeeze a fit to a sliver or shrink it onto a few strong pixels, where every model line
    scores, so no step leaves a proper quadrilateral (`_a_proper_quad`) or less than
    `_MIN_AREA_KEPT` of the area it started with."""
    best = corners.copy()
    best_score = scorer.score_corners(best)
    least_area = _MIN_AREA_KEPT * quad_area(corners)
    for _ in range(rounds):
        improved = True
        while improved:
            improved = False
            for move in _moves(best, step):
                trial = best + move
                s = scorer.score_corners(trial)
                if s > best_score and _a_proper_quad(trial) and quad_area(trial) >= least_area:
                    best, best_score, improved = trial, s, True
        step /= 2
    return best


def _jump_sides(
    scorer: ModelScorer,
    corners: FloatArray,
    fracs: Sequence[float],
    min_points: float,
    min_points_kept: float,
) -> FloatArray:
    """The best of `corners` and each placement with two opposite sides moved together by
    `fracs` of the board's width, in or out, and polished again, that shows points (at least
    `min_points`, and `min_points_kept` of what `corners` show; see
    `CalibrationConfig.side_jumps`). A fit that shows no points is returned as it is."""
    shown = scorer.point_edges(surface_homography(scorer.model, corners))
    if shown < min_points:
        # No board: a jump must not make one of a desk's or a tray's outline.
        return corners
    best, best_score = corners, scorer.score_corners(corners)
    floor = max(min_points, min_points_kept * shown)
    width = float(np.linalg.norm(corners[1] - corners[0]))
    for frac in fracs:
        for distance in (frac * width, -frac * width):
            for side, opposite in ((0, 2), (1, 3)):
                move = _side_move(corners, side, distance) + _side_move(corners, opposite, distance)
                trial = polish(scorer, corners + move, step=2.0, rounds=2)
                s = scorer.score_corners(trial)
                if s > best_score and (
                    scorer.point_edges(surface_homography(scorer.model, trial)) >= floor
                ):
                    best, best_score = trial, s
    return best


def _shift_by_points(
    scorer: ModelScorer,
    corners: FloatArray,
    config: CalibrationConfig,
    seen: _Surface | None = None,
) -> FloatArray:
    """The best of `corners` and the placements with the whole board, or one end of it, moved
    `CalibrationConfig.point_shifts` points along its length, polished again; a moved one is
    taken only when it scores `point_shift_min_gain` higher and shows the points as the jumps
    must (`_jump_sides`) and, where the network sees the surface (`seen`), covers it nearly as well
    (`_agreement`). The moves are made in board millimetres through the fit's homography, so a
    fit seen in perspective moves as the board would."""
    model = scorer.model
    H = surface_homography(model, corners)
    shown = scorer.point_edges(H)
    if shown < config.min_point_edges:
        return corners
    floor = max(config.min_point_edges, config.side_jump_min_points * shown)
    surface = surface_mm(model).astype(np.float64)
    area = quad_area(corners)
    # Surface corners 0 and 3 are one end (x = 0), 1 and 2 the other (x = width).
    ends = (
        np.array([1.0, 1.0, 1.0, 1.0]),
        np.array([1.0, 0.0, 0.0, 1.0]),
        np.array([0.0, 1.0, 1.0, 0.0]),
    )
    best, best_score = corners, scorer.score_corners(corners) * (1 + config.point_shift_min_gain)
    for points in config.point_shifts:
        for distance in (points * model.point_width_mm, -points * model.point_width_mm):
            for which in ends:
                start = apply_homography(H, surface + np.outer(which * distance, (1.0, 0.0)))
                # Near the horizon a homography flings moved corners far off or folds them.
                if not _a_proper_quad(start) or quad_area(start) < _MIN_AREA_KEPT * area:
                    continue
                trial = polish(scorer, polish(scorer, start, 2.0, 2), 1.0, 2)
                s = scorer.score_corners(trial)
                if (
                    s > best_score
                    and scorer.point_edges(surface_homography(model, trial)) >= floor
                    and _agreement([corners, trial], seen, config)[1]
                ):
                    best, best_score = trial, s
    return best


def coarse_fit(
    small: NDArray[np.uint8], model: BoardModel, config: CalibrationConfig
) -> FloatArray:
    """Surface corners (board order up to a half turn, pixels of `small`).

    Hypotheses are ranked on a blurred copy with the plain edge score (a wide basin, so a
    hypothesis a few pixels off still ranks by how right it is), then the best few are polished
    with the sharp score at the work size, and the best of those that show points
    (`CalibrationConfig.min_point_edges`) is polished once more finely; when it no longer shows
    them, the next best is (`CalibrationConfig.fit_tries` in all). Raises
    `CalibrationError` when no outline is found, or when the one kept shows no points.
    """
    size = (small.shape[1], small.shape[0])
    blurred = np.asarray(cv2.GaussianBlur(small, (9, 9), 0), dtype=np.uint8)
    wide = ModelScorer(EdgeImage(blurred), model, 6, beside_px=None)
    surface = _surface_seen(small, config)
    ranked: list[FloatArray] = []
    # Outline, straight-line and surface-network hypotheses are ranked apart: the lines' many
    # rough placements would otherwise crowd out a closed outline's right one before polishing,
    # and the network's one place may rank below both on a picture whose edges mislead.
    for hypotheses, keep, least_area in (
        (_hypotheses(candidate_quads(small, config), model), _POLISHED, config.min_board_area_frac),
        (
            _hypotheses(line_quads(small, config), model),
            _POLISHED_LINES,
            config.min_board_area_frac,
        ),
        (_surface_hypotheses(surface), _POLISHED_SURFACE, config.surface_min_area_frac),
    ):
        hypotheses = [c for c in hypotheses if _plausible(c, size, least_area)]
        top = sorted(hypotheses, key=lambda c: -wide.score_corners(c))[:keep]
        # A line hypothesis next to an outline's (a closed outline's sides are lines too) would
        # only be polished to the same place again.
        ranked += [c for c in top if all(np.abs(c - r).max() > _SAME_PX for r in ranked)]
    if not ranked:
        raise CalibrationError("no board-like outline found in the image")
    edges = EdgeImage(small)
    sharp = ModelScorer(edges, model, per_segment=6)
    polished = [polish(sharp, polish(wide, c, 4.0, 2), 2.0, 2) for c in ranked]
    # A rectangle alone (a dice tray, a table's edge, the board's outer outline taken for the
    # playing surface, a board fitted a point's width or more off) is not a board: its points'
    # sides must show where the fit puts them. So a placement that shows no points does not
    # compete, however strong its outline: a dark frame on a light table outscores the surface.
    showing = [
        c
        for c in polished
        if sharp.point_edges(surface_homography(model, c)) >= config.min_point_edges
    ]
    # A dark frame's outer edge, or the triangles a point along, can outscore the surface's
    # own edges; the network sees where the surface is, so a fit that covers much less of it
    # than another does not compete.
    showing = [c for c, ok in zip(showing, _agreement(showing, surface, config), strict=True) if ok]
    fine = ModelScorer(edges, model, per_segment=12)
    # A fit on a dark board's strong outer outline can show points just enough at the work
    # size and not once polished finely, while a weaker-outlined fit on the surface shows them
    # plainly: the next best is tried before the image is said to hold no board.
    tries: list[FloatArray] = []
    for c in sorted(showing, key=sharp.score_corners, reverse=True):
        if len(tries) < config.fit_tries and all(np.abs(c - t).max() > _SAME_PX for t in tries):
            tries.append(c)
    shown = []
    for start in tries or [max(polished, key=sharp.score_corners)]:
        corners = polish(fine, start, step=1.0, rounds=2)
        corners = _jump_sides(
            fine, corners, config.side_jumps, config.min_point_edges, config.side_jump_min_points
        )
        corners = _shift_by_points(fine, corners, config, surface)
        points = fine.point_edges(surface_homography(model, corners))
        if points < config.min_point_edges:
            shown.append(points)
        elif _still_plausible(corners, size, config):
            return corners
    if not shown:
        raise CalibrationError(
            "the outlines that show points are squeezed out of a board's shape "
            f"(is the board too small in this {size[0]}x{size[1]} picture?)"
        )
    raise CalibrationError(
        f"the best outline is not a board: no points show where a board's would be "
        f"(their edges {max(shown):.3f}, a board's at least {config.min_point_edges})"
    )


def _edge_offsets(
    edges: EdgeImage, base: FloatArray, normals: FloatArray, band: float, nearest: bool = False
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Signed offset (px, along each normal) of an edge within ±band of each base point
    (N, 2), to a fraction of a pixel, and whether there is a clear edge at all. The edge is the
    strongest one, or with `nearest` the clear edge (a local peak at least a third as strong as
    the strongest) closest to the base point."""
    count = len(base)
    offsets = np.linspace(-band, band, max(3, int(2 * band) + 1))
    grid = base[:, None, :] + offsets[None, :, None] * normals[:, None, :]
    values = edges.across(grid.reshape(-1, 2), np.repeat(normals, len(offsets), axis=0)).reshape(
        count, len(offsets)
    )
    best = values.argmax(axis=1)
    peak = values[np.arange(count), best]
    strong = peak > _EDGE_MIN_GRADIENT
    if nearest:
        padded = np.pad(values, ((0, 0), (1, 1)), constant_values=-1.0)
        is_peak = (values >= padded[:, :-2]) & (values >= padded[:, 2:])
        clear = is_peak & (values >= np.maximum(peak[:, None] / 3, _EDGE_MIN_GRADIENT))
        distance = np.where(clear, np.abs(offsets)[None, :], np.inf)
        best = np.where(clear.any(axis=1), distance.argmin(axis=1), best)
    # Sub-pixel peak by a parabola through the maximum and its neighbours.
    inner = np.clip(best, 1, len(offsets) - 2)
    left, mid, right = (values[np.arange(count), inner + k] for k in (-1, 0, 1))
    denom = left - 2 * mid + right
    safe = np.where(np.abs(denom) > 1e-9, denom, 1.0)
    shift = np.where(np.abs(denom) > 1e-9, 0.5 * (left - right) / safe, 0.0)
    step = offsets[1] - offsets[0]
    return offsets[inner] + np.clip(shift, -1, 1) * step, strong


def _edge_points(
    edges: EdgeImage, a: FloatArray, b: FloatArray, band: float, count: int
) -> FloatArray:
    """Points of strongest gradient across segment a→b (image px), searched ±band along its
    normal at `count` places; places with no clear edge are left out."""
    t = (np.arange(count) + 0.5) / count
    base = a + np.outer(t, b - a)
    direction = (b - a) / np.linalg.norm(b - a)
    normals = np.repeat(np.array([[-direction[1], direction[0]]]), count, axis=0)
    offset, strong = _edge_offsets(edges, base, normals, band)
    pts = base + offset[:, None] * normals
    return np.asarray(pts[strong], dtype=np.float64)


def _fit_line(points: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """Total-least-squares line: (point on it, unit direction, RMS distance)."""
    centre = points.mean(axis=0)
    _, s, vt = np.linalg.svd(points - centre, full_matrices=False)
    rms = float(s[-1] / math.sqrt(len(points))) if len(s) > 1 else 0.0
    return centre, vt[0], rms


def _robust_curve(points: FloatArray, tolerance_px: float, tries: int = 60) -> FloatArray:
    """The points that lie within `tolerance_px` of one smooth curve (a parabola across their
    main direction, enough for a lens-bent straight edge), chosen by RANSAC; the rest (a hand,
    a checker's edge) are dropped."""
    if len(points) < 6:
        return points
    centre, direction, _ = _fit_line(points)
    normal = np.array([-direction[1], direction[0]])
    t = (points - centre) @ direction
    s = (points - centre) @ normal
    scale = max(float(np.abs(t).max()), 1.0)
    u = t / scale
    design = np.stack([np.ones_like(u), u, u * u], axis=1)
    rng = np.random.default_rng(0)
    best = np.zeros(len(points), dtype=bool)
    for _ in range(tries):
        pick = rng.choice(len(points), 3, replace=False)
        try:
            coef = np.linalg.solve(design[pick], s[pick])
        except np.linalg.LinAlgError:
            continue
        inliers = np.abs(design @ coef - s) <= tolerance_px
        if inliers.sum() > best.sum():
            best = inliers
    if best.sum() >= 3:
        coef, *_ = np.linalg.lstsq(design[best], s[best], rcond=None)
        best = np.abs(design @ coef - s) <= tolerance_px
    return np.asarray(points[best], dtype=np.float64)


def _straightness(groups: Sequence[FloatArray], lens: LensModel) -> float:
    """Mean squared distance of undistorted points from their groups' fitted lines."""
    total, count = 0.0, 0
    for group in groups:
        und = lens.undistort(group)
        _, _, rms = _fit_line(und)
        total += rms * rms * len(group)
        count += len(group)
    return total / max(count, 1)


def estimate_k1(
    groups: Sequence[FloatArray], size: tuple[int, int], k_range: tuple[float, float], steps: int
) -> LensModel:
    """The radial distortion that makes each group of edge points most nearly collinear."""
    grid = np.linspace(k_range[0], k_range[1], steps)
    costs = [_straightness(groups, LensModel.guess(*size, float(k))) for k in grid]
    i = int(np.argmin(costs))
    flat = _straightness(groups, LensModel.guess(*size))
    if costs[i] > _MIN_STRAIGHTNESS_GAIN * flat:
        # Bending the lines barely helps: the points do not pin k1 down; assume no distortion.
        return LensModel.guess(*size)
    lo = grid[max(i - 1, 0)]
    hi = grid[min(i + 1, len(grid) - 1)]
    # Golden-section polish between the grid neighbours of the best grid value.
    g = (math.sqrt(5) - 1) / 2
    a, b = float(lo), float(hi)
    for _ in range(12):
        c, d = b - g * (b - a), a + g * (b - a)
        if _straightness(groups, LensModel.guess(*size, c)) < _straightness(
            groups, LensModel.guess(*size, d)
        ):
            b = d
        else:
            a = c
    return LensModel.guess(*size, (a + b) / 2)


def _intersect(p1: FloatArray, d1: FloatArray, p2: FloatArray, d2: FloatArray) -> FloatArray:
    A = np.array([d1, -d2]).T
    t = np.linalg.solve(A, p2 - p1)
    return np.asarray(p1 + t[0] * d1, dtype=np.float64)


def _edge_peaks(
    edges: EdgeImage,
    base: FloatArray,
    normal: FloatArray,
    band: float,
    min_gradient: float,
    step: float = 0.5,
) -> FloatArray:
    """Every edge across `normal` steeper than `min_gradient` within ±band of each base point
    (N, 2): rows of (sample index, sub-pixel offset along the normal, gradient)."""
    offsets = np.arange(-band, band + 1e-9, step)
    grid = base[:, None, :] + offsets[None, :, None] * normal
    normals = np.broadcast_to(normal, (grid.shape[0] * grid.shape[1], 2))
    values = edges.across(grid.reshape(-1, 2), np.ascontiguousarray(normals)).reshape(
        len(base), len(offsets)
    )
    padded = np.pad(values, ((0, 0), (1, 1)), constant_values=-1.0)
    peak = (values >= padded[:, :-2]) & (values > padded[:, 2:]) & (values > min_gradient)
    peak[:, 0] = peak[:, -1] = False
    rows, cols = np.nonzero(peak)
    left, mid, right = values[rows, cols - 1], values[rows, cols], values[rows, cols + 1]
    denom = left - 2 * mid + right
    safe = np.where(np.abs(denom) > 1e-9, denom, 1.0)
    shift = np.where(np.abs(denom) > 1e-9, 0.5 * (left - right) / safe, 0.0)
    return np.stack([rows, offsets[cols] + np.clip(shift, -1, 1) * step, mid], axis=1)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    """One straight (lens-bent) edge along a border side: its offset along the side's outward
    normal at each sample (px), the samples that see it, its median gradient, and the colour
    differences from the frame just outside and just inside it."""

    offset: FloatArray
    seen: NDArray[np.bool_]
    strength: float
    outside_frame: float
    inside_frame: float

    @property
    def coverage(self) -> int:
        return int(self.seen.sum())

    @property
    def middle(self) -> float:
        return float(np.median(self.offset))


def _candidate_lines(
    peaks: FloatArray, u: FloatArray, tolerance: float, max_lines: int, min_cover: int
) -> list[tuple[FloatArray, NDArray[np.bool_], float]]:
    """Parallel-ish edges among the peaks, strongest consensus first (sequential RANSAC on a
    parabola across the side): (offset at each sample, samples on it, median gradient)."""
    rng = np.random.default_rng(0)
    used = np.zeros(len(peaks), dtype=bool)
    index = peaks[:, 0].astype(np.int64)
    design_all = np.stack([np.ones_like(u), u, u * u], axis=1)
    out: list[tuple[FloatArray, NDArray[np.bool_], float]] = []
    for _ in range(max_lines):
        free = np.nonzero(~used)[0]
        if len(np.unique(index[free])) < min_cover:
            break
        best_cover, best_coef = 0, None
        for _ in range(120):
            pick = rng.choice(free, 3, replace=False)
            if len(set(index[pick].tolist())) < 3:
                continue
            try:
                coef = np.linalg.solve(design_all[index[pick]], peaks[pick, 1])
            except np.linalg.LinAlgError:
                continue
            near = free[np.abs(design_all[index[free]] @ coef - peaks[free, 1]) <= tolerance]
            cover = len(np.unique(index[near]))
            if cover > best_cover:
                best_cover, best_coef = cover, coef
        if best_coef is None or best_cover < min_cover:
            break
        coef = best_coef
        for _ in range(2):
            near = free[np.abs(design_all[index[free]] @ coef - peaks[free, 1]) <= tolerance]
            coef, *_ = np.linalg.lstsq(design_all[index[near]], peaks[near, 1], rcond=None)
        near = free[np.abs(design_all[index[free]] @ coef - peaks[free, 1]) <= tolerance]
        used[near] = True
        seen = np.zeros(len(u), dtype=bool)
        seen[index[near]] = True
        out.append((design_all @ coef, seen, float(np.median(peaks[near, 2]))))
    return out


def _lab_at(lab: NDArray[np.float32], pts: FloatArray) -> NDArray[np.float32]:
    h, w = lab.shape[:2]
    x = np.clip(np.round(pts[:, 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(pts[:, 1]).astype(np.int64), 0, h - 1)
    return np.asarray(lab[y, x], dtype=np.float32)


# Lab weights (L, a, b) of the colour difference that tells the frame's top from what is not
# it: lightness counts less, shading changes it.
_FRAME_COLOUR_WEIGHTS = np.array([0.35, 1.0, 1.0], dtype=np.float32)


def _border_t(n: int) -> FloatArray:
    """Where (0..1 from one end to the other) a border side is sampled, clear of its ends."""
    return np.asarray(0.03 + 0.94 * (np.arange(n) + 0.5) / n, dtype=np.float64)


@dataclasses.dataclass(frozen=True)
class _BorderEdge:
    """The surface's edge found along one border side: its points, how far (px, per point)
    they move out where the rim's top hides the surface's edge (None where it does not), and
    whether the side showed a wall (the rim's top and the surface's edge both, as far apart as
    the rim's height says)."""

    points: FloatArray
    hidden: FloatArray | None = None
    wall_seen: bool = False

    def surface(self, rim_hides: bool) -> FloatArray:
        """The surface's edge: the points, moved out where the rim hides it when `rim_hides`."""
        if not rim_hides or self.hidden is None:
            return self.points
        return np.asarray(self.points + self.hidden, dtype=np.float64)


def _a_line_inside(inner: _Candidate, rim: _Candidate, tolerance: float) -> bool:
    """Whether `inner`, an edge inside `rim` (the outermost edge with the frame's colour just
    outside it), is a line on the surface rather than the surface's edge: weaker than the rim's
    and with the frame's colour just inside it too. On a wooden board whose field is of the
    frame's wood, where the wall's face and the rim's top blend (no rim edge shows), the edge
    taken for the rim's top is the surface's own and the next one in is the stringing, an
    inlaid line a few millimetres inside the edge, or a carving's groove."""
    return inner is not rim and inner.strength < rim.strength and inner.inside_frame <= tolerance


def _border_edge(
    edges: EdgeImage,
    lab: NDArray[np.float32],
    pa: FloatArray,
    pb: FloatArray,
    outward: FloatArray,
    width_px: float,
    config: CalibrationConfig,
    rim_shift: FloatArray | None = None,
) -> _BorderEdge:
    """The playing surface's edge along one border side (coarse ends pa, pb).

    Up to four straight edges run along a raised frame's inside: the playing surface's edge
    (field against the frame's inner wall, or against its top where the wall is hidden), the
    rim's top edge outside it, and inside it the outermost triangles' sides, checker rows and
    the rim's shadow. The rim's top edge is the one with the frame's top colour just outside
    it; the surface's edge is the next one inward within a wall's width. With no such edge
    the strongest full-length edge is taken.

    `rim_shift` (px, one per sample, along `outward`; see `rim_shifts`) is where the rim's top
    edge shows relative to the surface's edge. Where the wall shows (a shift of a pixel or
    more) an edge that far inside the rim's top is the surface's edge (the wall is then seen);
    with none there the rule above holds. Where the wall faces away from the camera the rim's
    top (frame colour outside, not inside) is the edge seen, and `hidden` says how far out the
    surface's edge lies behind it. An inner edge weaker than the rim's with the frame's colour
    inside it is a line on the surface (`_a_line_inside`), and the rim's edge is kept.
    """
    n = config.refine_samples
    u = 2 * _border_t(n) - 1
    base = pa + np.outer(_border_t(n), pb - pa)
    band = max(4.0, config.refine_band_frac * width_px)
    peaks = _edge_peaks(edges, base, outward, band, _BORDER_MIN_GRADIENT)
    min_cover = max(_MIN_EDGE_POINTS, round(config.border_min_cover * n))
    lines = _candidate_lines(peaks, u, 1.0, 4, min_cover)
    if not lines:
        return _BorderEdge(np.zeros((0, 2)))
    reference = np.median(_lab_at(lab, base + config.frame_probe_frac * width_px * outward), 0)

    def colour_gap(pts: FloatArray) -> float:
        diff = (np.median(_lab_at(lab, pts), axis=0) - reference) * _FRAME_COLOUR_WEIGHTS
        return float(np.linalg.norm(diff))

    candidates = []
    for offset, seen, strength in lines:
        on_line = base + offset[:, None] * outward
        candidates.append(
            _Candidate(
                offset,
                seen,
                strength,
                colour_gap(on_line[seen] + 2.5 * outward),
                colour_gap(on_line[seen] - 2.5 * outward),
            )
        )
    widest = max(c.coverage for c in candidates)
    if widest < config.border_widest_cover * n:
        # Only pieces (a row of checkers, a triangle's side) with the surface's own edge too
        # faint to show: the coarse fit's line is nearer than any of them.
        return _BorderEdge(np.zeros((0, 2)))
    good = [c for c in candidates if c.coverage >= 0.5 * widest]
    tolerance = config.frame_colour_tolerance
    rims = [c for c in good if c.outside_frame <= tolerance]
    if not rims:
        chosen = max(candidates, key=lambda c: c.coverage * c.strength)
        pts = base + chosen.offset[:, None] * outward
        return _BorderEdge(np.asarray(pts[chosen.seen], dtype=np.float64))
    rim = max(rims, key=lambda c: c.middle)
    if rim_shift is not None and float(np.median(rim_shift)) < _MIN_WALL_PX:
        # The wall faces away: the edge seen is the rim's top against the field (an edge with
        # the frame's colour on both sides, a carving or an inlay, is not it); the surface's
        # edge lies hidden beyond it.
        tops = [c for c in rims if c.inside_frame > tolerance]
        if tops:
            top = max(tops, key=lambda c: c.middle)
            pts = base + top.offset[:, None] * outward
            hidden = -rim_shift[:, None] * outward
            return _BorderEdge(
                np.asarray(pts[top.seen], dtype=np.float64),
                np.asarray(hidden[top.seen], dtype=np.float64),
            )
    if rim_shift is not None and float(np.median(rim_shift)) >= _MIN_WALL_PX:
        # The wall shows: the surface's edge is as far inside the rim's top as its height says.
        expected = float(np.median(rim.offset - rim_shift))
        slack = _WALL_SLACK_PX + _WALL_SLACK_FRAC * float(np.median(rim_shift))
        near = [c for c in good if c is not rim and abs(c.middle - expected) <= slack]
        if near:
            chosen = min(near, key=lambda c: abs(c.middle - expected))
            # Where the edge that far inside is a line on the surface, the rim's top did not
            # show apart from the wall: the side showed no wall.
            wall_seen = not _a_line_inside(chosen, rim, tolerance)
            chosen = chosen if wall_seen else rim
            pts = base + chosen.offset[:, None] * outward
            return _BorderEdge(np.asarray(pts[chosen.seen], dtype=np.float64), None, wall_seen)
    wall = config.max_wall_frac * width_px
    inner = [c for c in good if rim.middle - wall <= c.middle < rim.middle - 1.0]
    if not inner and rim_shift is not None:
        # A wall showing where no edge lay as far in as its reckoned height says: a taller wall
        # than reckoned (boards' rims differ) or a lower camera. An edge farther in is the
        # surface's only if it is stronger than the rim's (field against wall), not a fainter
        # line on the field.
        reach = _WALL_REACH * float(np.median(rim_shift))
        inner = [
            c
            for c in good
            if rim.middle - reach <= c.middle < rim.middle - wall and c.strength > rim.strength
        ]
    chosen = max(inner, key=lambda c: c.middle) if inner else rim
    if _a_line_inside(chosen, rim, tolerance):
        chosen = rim
    pts = base + chosen.offset[:, None] * outward
    return _BorderEdge(np.asarray(pts[chosen.seen], dtype=np.float64))


def _focal_prior(H: FloatArray, principal: tuple[float, float]) -> float:
    """The focal length (px) of a camera `_CAMERA_HEIGHT_MM` from the board that shows it as
    large as H does at the image's middle (pixels per board mm there, from H's Jacobian)."""
    p = np.linalg.solve(H, np.array([principal[0], principal[1], 1.0]))
    p = p / p[2]
    q = H @ p
    jacobian = (H[:2, :2] * q[2] - np.outer(q[:2], H[2, :2])) / q[2] ** 2
    return _CAMERA_HEIGHT_MM * math.sqrt(abs(float(np.linalg.det(jacobian))))


def camera_pose(
    H: FloatArray, size: tuple[int, int], lens: LensModel | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(K, R, t) of a pinhole camera that sees the board's plane (z = 0, board mm) through the
    homography H (board mm → image px, undistorted).

    A calibrated `lens` gives the focal length and principal point. Otherwise the principal
    point is the image's middle and the focal length the one that best makes the board's axes
    perpendicular while staying near the one a camera `_CAMERA_HEIGHT_MM` over the board would
    need to show it this large: one view of a plane fixes the focal length only when it is
    tilted across both board axes (tilted along one, or looking straight down, any focal length
    fits, and the lone perpendicularity guess was off by up to four times)."""
    if lens is not None and lens.calibrated:
        K = lens.k_matrix
    else:
        w, h = size
        cx, cy = w / 2.0, h / 2.0
        G = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]]) @ H
        g1, g2 = G[:, 0], G[:, 1]
        strays = np.linspace(-_FOCAL_SEARCH, _FOCAL_SEARCH, 241)
        focals = _focal_prior(H, (cx, cy)) * np.exp(strays)
        r1 = np.stack([g1[0] / focals, g1[1] / focals, np.full_like(focals, g1[2])])
        r2 = np.stack([g2[0] / focals, g2[1] / focals, np.full_like(focals, g2[2])])
        cosine = (r1 * r2).sum(axis=0) / (np.linalg.norm(r1, axis=0) * np.linalg.norm(r2, axis=0))
        cost = (cosine / _AXES_COSINE_SD) ** 2 + (strays / _FOCAL_LOG_SD) ** 2
        focal = float(focals[int(np.argmin(cost))])
        K = np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])
    M = np.asarray(np.linalg.solve(K, H), dtype=np.float64)
    n1, n2 = float(np.linalg.norm(M[:, 0])), float(np.linalg.norm(M[:, 1]))
    x_axis, y_axis, t = M[:, 0] / n1, M[:, 1] / n2, M[:, 2] / ((n1 + n2) / 2)
    if t[2] < 0:
        x_axis, y_axis, t = -x_axis, -y_axis, -t
    u, _, vt = np.linalg.svd(np.stack([x_axis, y_axis, np.cross(x_axis, y_axis)], axis=1))
    R = np.asarray(u @ vt, dtype=np.float64)
    return np.asarray(K, dtype=np.float64), R, np.asarray(t, dtype=np.float64)


class RaisedView:
    """The camera over the board's plane, as the homography `H` (board mm → image px), the
    picture's size and a calibrated lens, if any, give it (`camera_pose`): where points above
    the plane show."""

    def __init__(self, H: FloatArray, size: tuple[int, int], lens: LensModel | None = None) -> None:
        self.K, self.R, self.t = camera_pose(H, size, lens)
        self._to_board = np.asarray(np.linalg.inv(H), dtype=np.float64)
        # The side of the plane the camera is on is "up" (the pose may put it at z < 0).
        self._up = math.copysign(1.0, float((-self.R.T @ self.t)[2]))

    def shift(self, points: FloatArray, height_mm: float) -> FloatArray:
        """How far (px, N x 2) a point `height_mm` above the board shows from its foot, at
        image points (N, 2) of the board's plane."""
        mm = apply_homography(self._to_board, points)
        floor = np.concatenate([mm, np.zeros((len(mm), 1))], axis=1)
        top = floor + np.array([0.0, 0.0, self._up * height_mm])
        return np.asarray(self._project(top) - self._project(floor), dtype=np.float64)

    def foot(self, points: FloatArray, height_mm: float) -> FloatArray:
        """Image points (N, 2) of the board's plane right under points `height_mm` above it
        that show at `points` (N, 2): the inverse of `shift`, by fixed-point steps (the shift
        changes little over its own length)."""
        seen = np.asarray(points, dtype=np.float64)
        feet = seen
        for _ in range(3):
            feet = seen - self.shift(feet, height_mm)
        return feet

    def _project(self, p: FloatArray) -> FloatArray:
        img = (p @ self.R.T + self.t) @ self.K.T
        return np.asarray(img[:, :2] / img[:, 2:3], dtype=np.float64)


def rim_shifts(
    H: FloatArray,
    size: tuple[int, int],
    points: FloatArray,
    outward: FloatArray,
    rim_mm: float,
    lens: LensModel | None = None,
) -> FloatArray:
    """Where the rim's top edge shows (px along `outward`) relative to the playing surface's
    edge below it, at image points (N, 2) of the surface's border: positive where the camera
    sees the frame's inner wall, negative where the wall faces away and the rim's top hides
    the surface's edge (the camera stands beyond that side). A calibrated `lens` gives the
    camera's focal length."""
    view = RaisedView(H, size, lens)
    return np.asarray(view.shift(points, rim_mm) @ outward, dtype=np.float64)


def refine_full(
    image: NDArray[np.uint8],
    corners: FloatArray,
    model: BoardModel,
    config: CalibrationConfig,
    fit_distortion: bool = True,
    calibrated_lens: LensModel | None = None,
) -> tuple[FloatArray, LensModel, float]:
    """Full-resolution corners (board order), lens and RMS edge residual, starting from
    `corners` (board order, full-resolution pixels). A `calibrated_lens` gives the camera's
    focal length to the rim's shifts."""
    edges = EdgeImage(image)
    lab = np.asarray(
        cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2LAB), (3, 3), 0), dtype=np.float32
    )
    size = (image.shape[1], image.shape[0])
    H = surface_homography(model, corners)
    frame, _ = model_segments(model)
    width_px = float(np.linalg.norm(corners[1] - corners[0]))
    centre = corners.mean(axis=0)
    bar_band = max(3.0, config.refine_bar_band_frac * width_px)
    groups: list[FloatArray] = []
    found: list[tuple[_BorderEdge, FloatArray, FloatArray]] = []
    for k, (a_mm, b_mm) in enumerate(frame):
        # Stay clear of the corners, where the neighbouring edge would pull the search.
        a = np.array(a_mm) + 0.03 * (np.array(b_mm) - np.array(a_mm))
        b = np.array(b_mm) - 0.03 * (np.array(b_mm) - np.array(a_mm))
        pa, pb = apply_homography(H, np.array([a, b]))
        if k < 4:
            direction = (pb - pa) / np.linalg.norm(pb - pa)
            outward = np.array([-direction[1], direction[0]])
            if float(np.dot(outward, (pa + pb) / 2 - centre)) < 0:
                outward = -outward
            base = pa + np.outer(_border_t(config.refine_samples), pb - pa)
            shift = (
                rim_shifts(
                    H, size, base, outward, config.rim_height_frac * model.width_mm, calibrated_lens
                )
                if config.rim_height_frac > 0
                else None
            )
            edge = _border_edge(edges, lab, pa, pb, outward, width_px, config, shift)
            found.append((edge, pa, pb))
            continue
        pts = _robust_curve(_edge_points(edges, pa, pb, bar_band, config.refine_samples), 1.2)
        if len(pts) >= _MIN_EDGE_POINTS:
            groups.append(pts)
    # A rim hides a surface's edge only on a board that shows a wall where one should show (a
    # flat board, or one whose walls do not show, keeps the edges seen).
    walls = any(edge.wall_seen for edge, _, _ in found)
    border: list[FloatArray] = []
    for edge, pa, pb in found:
        pts = edge.surface(rim_hides=walls)
        pts = _robust_curve(pts, 1.2) if len(pts) else pts
        enough = len(pts) >= _MIN_EDGE_POINTS
        if enough:
            groups.append(pts)
        # A border hidden (a hand, an arm) keeps the coarse fit's line.
        border.append(pts if enough else np.linspace(pa, pb, _MIN_EDGE_POINTS))
    usable = groups
    lens = (
        estimate_k1(usable, size, config.distortion_k1_range, config.distortion_steps)
        if fit_distortion and len(usable) >= 3
        else LensModel.guess(*size)
    )
    lines = [_fit_line(lens.undistort(g)) for g in border]
    residual = math.sqrt(_straightness(usable, lens)) if usable else 0.0
    und_corners = _crossings(lines)
    refined = lens.distort(und_corners)
    return refined, lens, residual


def _crossings(lines: Sequence[tuple[FloatArray, FloatArray, float]]) -> FloatArray:
    """Corner i is where border line i-1 (ending there) meets line i (starting there)."""
    return np.array(
        [_intersect(lines[(i - 1) % 4][0], lines[(i - 1) % 4][1], lines[i][0], lines[i][1])
         for i in range(4)]
    )  # fmt: skip


class _FrameColours:
    """Lab colours (weighted by `_FRAME_LAB_WEIGHTS`) of the image at board places, for telling
    the tray's end by the frame round it; one per placement (`corners`) the tray is looked for
    under, shared by the cues. `lab`: the image in Lab."""

    def __init__(self, lab: NDArray[np.float32], corners: FloatArray, model: BoardModel) -> None:
        self.lab = lab
        self.H = surface_homography(model, corners)
        self.model = model
        f, d = model.frame_mm, model.depth_mm
        # The middle of each long side's frame (y from, to; mm).
        self.side_bands = ((-0.7 * f, -0.3 * f), (d + 0.3 * f, d + 0.7 * f))

    def within(self, x0: float, x1: float, y0: float, y1: float, across: int) -> FloatArray:
        """Colours on a grid `across` by 4 over the board rectangle (mm), those in the image."""
        gx, gy = np.meshgrid(np.linspace(x0, x1, across), np.linspace(y0, y1, 4))
        px = np.round(apply_homography(self.H, np.stack([gx.ravel(), gy.ravel()], 1)))
        height, width = self.lab.shape[:2]
        inside = (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < width) & (px[:, 1] < height)
        return np.asarray(_lab_at(self.lab, px[inside]) * _FRAME_LAB_WEIGHTS, np.float64)

    @functools.cached_property
    def long_sides(self) -> list[FloatArray]:
        """The frame's colour along each long side: the median over the middle of its width,
        where a fit a pixel or two off still lands on the frame; empty where a side is out of
        the image. Each side apart: the light falls unevenly."""
        w = self.model.width_mm
        sides = []
        for y0, y1 in self.side_bands:
            frame = self.within(0.1 * w, 0.9 * w, y0, y1, 24)
            if len(frame) == 0:
                return []
            sides.append(np.median(frame, axis=0))
        return sides

    def floors_unlike_frame(self, end: HomeSide) -> bool:
        """Whether something unlike the frame lies where the tray's floors would at `end`: a
        board may have a wide frame at one end and no tray."""
        x0, _, x1, _ = self.model.tray_box(end)
        d = self.model.depth_mm
        floors = self.within(x0 + 0.3 * (x1 - x0), x1 - 0.3 * (x1 - x0), 0.1 * d, 0.9 * d, 3)
        if len(floors) == 0 or not self.long_sides:
            return False
        unlike = min(float(np.median(np.linalg.norm(floors - c, axis=1))) for c in self.long_sides)
        return unlike >= _TRAY_MIN_COLOUR_GAP


def _frame_end(sample: _FrameColours) -> str | None:
    """'right' or 'left' (in the board order of `sample`'s corners): the end past which the
    long sides' frame goes on round the tray (the other end's frame is narrow and the table
    lies past it); None when the two ends are about as near the frame's colour or nothing
    unlike the frame lies where the tray would."""
    model = sample.model
    w, f = model.width_mm, model.frame_mm
    frame_colours = sample.long_sides
    if not frame_colours:
        return None
    # Past each end: from beyond the narrow end's frame to short of the tray end's outline.
    near, far = 1.25 * f, model.tray_gap_mm + model.tray_mm + 0.3 * f
    margins = []
    for (y0, y1), frame in zip(sample.side_bands, frame_colours, strict=True):
        right = sample.within(w + near, w + far, y0, y1, 8)
        left = sample.within(-far, -near, y0, y1, 8)
        if min(len(right), len(left)) == 0:
            return None
        left_off, right_off = (
            float(np.median(np.linalg.norm(c - frame, axis=1))) for c in (left, right)
        )
        margins.append(left_off - right_off)
    # Both sides must agree: an arm across one side's frame at an end changes its colour there.
    if min(margins) >= _TRAY_MIN_COLOUR_GAP:
        end: HomeSide = "right"
    elif max(margins) <= -_TRAY_MIN_COLOUR_GAP:
        end = "left"
    else:
        return None
    # And the frame must go round something (a board may have a wide frame at one end, no tray).
    return end if sample.floors_unlike_frame(end) else None


def _outline_end(edges: EdgeImage, sample: _FrameColours) -> str | None:
    """'right' or 'left' (in the board order of `sample`'s corners): the end whose lines past the
    surface's edge, parallel to it, stand out most where a tray's outer wall and the board's
    outline lie (from `tray_gap_mm + tray_mm` less 0.4 frame widths to the outline and 0.4 past
    it) over where a narrow end's outline lies (one to 1.7 frame widths out), against the
    other end; None when the two ends differ by less than `_OUTLINE_MIN_CONTRAST`, or when
    nothing unlike the frame lies where that end's tray would (a wide frame round no tray).

    A line's strength is the median of the gradient across it at 24 points along the board's
    depth: a straight wall or outline the whole depth long shows, while checkers piled in the
    tray, a die on the frame or a textured table do not. The frame's colour does not matter,
    so this decides where the table matches the frame or the frame is shaded (`_frame_end`
    undecided)."""
    H, model = sample.H, sample.model
    w, d, f = model.width_mm, model.depth_mm, model.frame_mm
    along = np.linspace(0.05 * d, 0.95 * d, 24)
    tray_wall = model.tray_gap_mm + model.tray_mm
    tray_band = (tray_wall - 0.4 * f, tray_wall + 1.4 * f)
    narrow_band = (f, 1.7 * f)

    def strength(end: HomeSide, low: float, high: float) -> float:
        best = 0.0
        for t in np.arange(low, high + 1e-9, _OUTLINE_STEP_MM):
            x = w + t if end == "right" else -t
            pts = np.stack([np.full_like(along, x), along], axis=1)
            image_pts = apply_homography(H, pts)
            normal = apply_homography(H, pts + np.array([1.0, 0.0])) - image_pts
            normal /= np.linalg.norm(normal, axis=1, keepdims=True)
            best = max(best, float(np.median(edges.across(image_pts, normal))))
        return best

    ends: tuple[HomeSide, HomeSide] = ("right", "left")
    scores = {end: strength(end, *tray_band) - strength(end, *narrow_band) for end in ends}
    if abs(scores["right"] - scores["left"]) < _OUTLINE_MIN_CONTRAST:
        return None
    end = max(scores, key=lambda k: scores[k])
    return end if sample.floors_unlike_frame(end) else None


def _tray_end(
    edges: EdgeImage, lab: NDArray[np.float32], corners: FloatArray, model: BoardModel
) -> str | None:
    """'right' or 'left' (in the board order of `corners`): the end the tray is at, by the frame
    round it (`_frame_end`), else by the lines past each end (`_outline_end`), else by its
    walls standing out of its floors; None when neither end shows clearly more than the other.

    With their true corners, the seat came out wrong or undecided on 5 of the 600 scenes of
    tuning sets 61-64 and 2 of the 250 of held-out seed 1 and touching-dice set 5 by the frame
    and the walls alone (the frame's colour near the table's, or shaded), and on 3 and 0 with
    the lines between (two wenge boards, whose trays' floors are too near the frame's colour
    for a tray to be told from a wide frame; one with an arm over the frame)."""
    sample = _FrameColours(lab, corners, model)
    by_frame = _frame_end(sample)
    if by_frame is not None:
        return by_frame
    by_outline = _outline_end(edges, sample)
    if by_outline is not None:
        return by_outline
    H = sample.H

    def gradient(segments: list[Segment]) -> float:
        pts, dirs = _samples(segments, 16)
        image_pts = apply_homography(H, pts)
        tangent = apply_homography(H, pts + dirs) - image_pts
        normals = np.stack([-tangent[:, 1], tangent[:, 0]], 1) / np.linalg.norm(
            tangent, axis=1, keepdims=True
        )
        return float(np.minimum(edges.across(image_pts, normals), _GRADIENT_CAP).mean())

    d = model.depth_mm
    scores = {}
    ends: tuple[HomeSide, HomeSide] = ("right", "left")
    for end in ends:
        x0, _, x1, _ = model.tray_box(end)
        walls = gradient([((x0, 0.0), (x0, d)), ((x1, 0.0), (x1, d)), ((x0, d / 2), (x1, d / 2))])
        # The same lines moved into the compartments: a textured table (a checked cloth, wood
        # grain) beyond the other end has edges everywhere, a tray's floors have few.
        a, b = x0 + (x1 - x0) / 3, x0 + 2 * (x1 - x0) / 3
        floors = gradient(
            [((a, 0.0), (a, d)), ((b, 0.0), (b, d)), ((x0, d / 4), (x1, d / 4)),
             ((x0, 3 * d / 4), (x1, 3 * d / 4))]
        )  # fmt: skip
        scores[end] = walls - floors
    if abs(scores["right"] - scores["left"]) < _TRAY_MIN_CONTRAST:
        return None
    return max(scores, key=lambda k: scores[k])


def work_image(
    image: NDArray[np.uint8], config: CalibrationConfig
) -> tuple[NDArray[np.uint8], float]:
    """`image` shrunk to the finder's working width (`config.work_width_px`; never enlarged),
    and the scale it was shrunk by: where `find_board` fits the board and looks for the tray."""
    h, w = image.shape[:2]
    scale = min(1.0, config.work_width_px / w)
    small = np.asarray(
        cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA),
        dtype=np.uint8,
    )
    return small, scale


def evened(image: NDArray[np.uint8], config: CalibrationConfig) -> NDArray[np.uint8]:
    """`image` (BGR) with its lightness evened out: CLAHE on Lab lightness
    (`CalibrationConfig.evened_clip`, `evened_tiles`), colour kept."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    tiles = config.evened_tiles
    clahe = cv2.createCLAHE(clipLimit=config.evened_clip, tileGridSize=(tiles, tiles))
    lab[..., 0] = clahe.apply(np.ascontiguousarray(lab[..., 0]))
    return np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), dtype=np.uint8)


def straightened(image: NDArray[np.uint8], k1: float) -> NDArray[np.uint8]:
    """`image` with the radial distortion `k1` of a guessed lens (`LensModel.guess`) taken out,
    at its own size and pixel scale: straight edges in the world come out straight."""
    h, w = image.shape[:2]
    lens = LensModel.guess(w, h, k1)
    K = lens.k_matrix
    map_x, map_y = cv2.initUndistortRectifyMap(K, lens.dist_array, None, K, (w, h), cv2.CV_32FC1)
    return np.asarray(
        cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
        dtype=np.uint8,
    )


def _bent_refit(
    image: NDArray[np.uint8],
    small: NDArray[np.uint8],
    scale: float,
    refined: FloatArray,
    found_lens: LensModel,
    model: BoardModel,
    config: CalibrationConfig,
) -> tuple[FloatArray, LensModel]:
    """The board found again in the work image straightened by the lens the first fit found,
    where it is kept only if it fits that straightened picture better than the first fit.

    The coarse fit scores a straight-sided board; under a strongly bent lens (k1 -0.15 and
    beyond) a fit that cuts across the bowed sides can outscore the true corners, and the lens
    then fitted to the edges beside it is still bent enough to show how the picture bends.
    Only barrel distortion (a wide-angle lens; k1 below zero) is looked for again: a pincushion
    k1 as strong is seldom a webcam's, and fitted where a hand or the tray bent the edges found
    it straightened the picture wrongly and the fit kept there was worse.
    """
    k1 = found_lens.dist[0]
    straight = straightened(small, k1)
    try:
        again = coarse_fit(straight, model, config)
    except CalibrationError:
        return refined, found_lens
    small_lens = LensModel.guess(straight.shape[1], straight.shape[0], k1)
    start = small_lens.distort(again) / scale
    refit, refit_lens, _ = refine_full(image, start, model, config)
    fine = ModelScorer(EdgeImage(straight), model, per_segment=12)

    def straight_score(corners: FloatArray) -> float:
        return fine.score_corners(small_lens.undistort(corners * scale))

    if straight_score(refit) > straight_score(refined):
        return refit, refit_lens
    return refined, found_lens


def find_board(
    image: NDArray[np.uint8],
    config: CalibrationConfig,
    model: BoardModel | None = None,
    white_seat: Seat | None = None,
    home: HomeSide = "right",
    fit_distortion: bool = True,
    lens: LensModel | None = None,
) -> BoardProfile:
    """A profile for the board in `image`, found with no markers.

    `white_seat` (an image edge) overrides the tray-based seat; `home` says which end, as white
    sees it, holds white's home (and the tray); a calibrated `lens` gives the camera's focal
    length (the profile keeps the lens the finder used; the caller attaches its own).
    """
    model = model or BoardModel()
    small, scale = work_image(image, config)
    try:
        corners_small = coarse_fit(small, model, config)
    except CalibrationError as plain:
        if config.evened_clip <= 0:
            raise
        try:
            corners_small = coarse_fit(evened(small, config), model, config)
        except CalibrationError:
            raise plain from None
    corners = corners_small / scale
    refined, found_lens, _ = refine_full(image, corners, model, config, fit_distortion, lens)
    if fit_distortion and lens is None and found_lens.dist[0] <= config.bent_refit_max_k1:
        refined, found_lens = _bent_refit(image, small, scale, refined, found_lens, model, config)
    seen = order_seen(refined)
    net = (
        load_corner_net(config.corner_model_path or str(DEFAULT_CORNER_MODEL))
        if config.use_corner_model
        else None
    )
    if net is not None:
        seen = refine_corners(
            image,
            seen,
            net,
            model,
            config.corner_rounds,
            config.corner_max_move_mm,
            config.corner_steady_shift_mm,
            config.corner_steady_mm,
        )
    method = "auto, seat given"
    if white_seat is None:
        white_seat, by_tray = auto_seat(small, seen * scale, model, home)
        method = "auto, seat by the tray" if by_tray else "auto, no tray seen: white at the bottom"
    size = (image.shape[1], image.shape[0])
    if not _still_plausible(seen, size, config):
        # Refining at full size can still fling a corner of a barely plausible fit far off.
        raise CalibrationError("the outline found is not a board seen in perspective")
    board = seen_to_board_order(seen, white_seat)
    return BoardProfile(
        size, tuple((float(x), float(y)) for x, y in board), found_lens, model, home, method
    )


def auto_seat(
    image: NDArray[np.uint8], seen: FloatArray, model: BoardModel, home: HomeSide
) -> tuple[Seat, bool]:
    """The seat that puts the tray at the `home` end as white sees it (long sides are the seats),
    and True; the long side nearer the image bottom when no tray shows, and False."""
    edges = EdgeImage(image)
    lab = np.asarray(
        cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2LAB), np.float32
    )
    options: list[Seat] = []
    for seat in SEATS:
        board = seen_to_board_order(seen, seat)
        long_x = np.linalg.norm(board[1] - board[0]) + np.linalg.norm(board[2] - board[3])
        long_y = np.linalg.norm(board[3] - board[0]) + np.linalg.norm(board[2] - board[1])
        if long_x >= long_y:
            options.append(seat)
    # Of the two seats on the long sides, the first puts white nearer the image bottom.
    options.sort(key=lambda s: -float(seen_to_board_order(seen, s)[2:, 1].mean()))
    for seat in options:
        if _tray_end(edges, lab, seen_to_board_order(seen, seat), model) == home:
            return seat, True
    return options[0], False


@dataclasses.dataclass(frozen=True)
class Recheck:
    """Whether the board is still where a profile says.

    Attributes:
        still_there: the verdict.
        shift_frac: the largest median edge displacement over the four border lines, as a
            share of the board's width in the image.
        edges_seen_frac: share of the sampled edge points that still found an edge.
        message: the verdict in words.
    """

    still_there: bool
    shift_frac: float
    edges_seen_frac: float
    message: str


def recheck(image: NDArray[np.uint8], profile: BoardProfile, config: CalibrationConfig) -> Recheck:
    """Cheap re-check of a profile: look for the playing surface's border where it says."""
    if not profile.fits_image(image):
        return Recheck(False, 1.0, 0.0, "the image size differs from the profile's")
    edges = EdgeImage(image)
    width = profile.board_width_px()
    tolerance = config.recheck_tolerance_frac * width
    band = max(3.0, 3 * tolerance)
    frame, _ = model_segments(profile.model)
    # The border only: the bar's edges have triangles' edges a few pixels away.
    border = frame[:4]
    n = config.refine_samples
    t = 0.05 + 0.9 * (np.arange(n) + 0.5) / n
    shifts, seen, total = [], 0, 0
    for a_mm, b_mm in border:
        a, b = np.array(a_mm), np.array(b_mm)
        mm = a + np.outer(t, b - a)
        pts = profile.board_to_image(mm)
        ahead = profile.board_to_image(mm + 1e-3 * (b - a))
        tangent = ahead - pts
        tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
        normals = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
        offset, strong = _edge_offsets(edges, pts, normals, band, nearest=True)
        seen += int(strong.sum())
        total += n
        if strong.sum() >= _MIN_EDGE_POINTS:
            shifts.append(float(np.median(np.abs(offset[strong]))))
    seen_frac = seen / max(total, 1)
    shift = max(shifts) if shifts else band
    ok = seen_frac >= config.recheck_min_edge_frac and shift <= tolerance
    if ok:
        message = f"board in place (edges within {shift:.1f} px, {seen_frac:.0%} seen)"
    elif seen_frac < config.recheck_min_edge_frac:
        message = f"board edges not found where the profile says ({seen_frac:.0%} seen)"
    else:
        message = f"board moved: edges {shift:.1f} px away (tolerance {tolerance:.1f} px)"
    return Recheck(ok, shift / width, seen_frac, message)
