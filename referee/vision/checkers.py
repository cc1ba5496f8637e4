"""Reading the checkers on the rectified board: colour and count on every point, bar, trays.

With the learned strip network (`checker_model.py`, the default when `models/checker_strip.onnx`
is there): the board is cut into 28 strips (24 points, the bar's two halves, the tray's two
compartments) and the network says, for each place along a strip where checkers are set, how
many stand there (0..5: second and third layers, a borne-off pile). Each strip's slot heights
give the log-likelihood of every count (`count_loglik`: rows as players set them). Colours: the
middle of every slot is sampled; the slots the network calls occupied are split into two colour
clusters (`colour_clusters`: robust two-means in Lab, lightness weighted half), the lighter set
being white; each point gets colour log-odds from its slots. Then `conserve` picks, for the
whole board at once, the colour and count of every point, the bar and the borne-off counts
that best explain all of it when each side has 15 checkers (a side that misses 15 pays
`CheckerConfig.conservation_penalty` per checker). So a stack the camera cannot see into (from
straight above a second layer barely shows) takes the count that the other places leave; the
network's odds of a layer on a point are raised by `CheckerConfig.layer_boost` first, as it
under-calls them. Given the game's variant, only positions it can reach compete: in long nardy
(no hitting) none on the bar, and no side borne off while a checker of it is outside home.
The tray's piles and the points' full rows are read again by the pile and stack networks
(`piles.py`) where the camera's slant is known, and their height odds are joined to the strip
network's before `conserve`. Where the hand cover network (`hand_cover.py`) finds a hand over a
checker place, what the strip network says there is doubted (mixed with odds that say
nothing), so the checkers a side misses go under the hand rather than onto another point.
What the networks and colours say is kept (`CheckerEvidence`), so that once the dice are found
the board is read again with each checker a die lies on taking its colour from what the die
leaves of its rim, rather than its middle, which shows the die's.

Without the model file (or with `use_model` off), the older classical reader runs, slot by
slot: players set a point's checkers in a row from the board's edge toward the middle, so the
board model says where the k-th checker of every point lies (`BoardModel.slot`). At every slot a
few measurements are taken on the rectified image (`slot_features`): how strongly a
checker-sized circle shows there (its rim, its far end, the rings turned into its top), how far
the slot's colour is from what the empty board shows there, and how uniform it is. A logistic
combination (`CheckerConfig.slot_weights`, fitted on generated scenes by
`scripts/fit_checker_weights.py`) turns them into the chance that a checker lies there. A
point's count is the row length that best explains its slots' chances; colours split the
occupied slots' lightness in two; stacked and borne-off checkers are inferred from the rule
that each side has 15 checkers (`_account`). `CheckerReading.inferred` says how many checkers
were placed by that rule rather than seen.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.rules import Variant
from referee.vision.camera import FloatArray
from referee.vision.checker_model import (
    BAR,
    DEFAULT_MODEL,
    SLOTS,
    TRAY,
    CheckerNet,
    board_strips,
    boost_layers,
    count_loglik,
    count_loglik_with_rows,
    load_checker_net,
)
from referee.vision.config import CheckerConfig
from referee.vision.edges import EdgeImage
from referee.vision.geometry import POINTS, Canvas, HomeSide, segment_distances
from referee.vision.hand_cover import DEFAULT_MODEL as HAND_MODEL
from referee.vision.hand_cover import hidden_share, load_hand_cover_net, place_cover, uncovered
from referee.vision.piles import DEFAULT_MODEL as PILE_MODEL
from referee.vision.piles import (
    STACK_MODEL,
    joined_heights,
    load_pile_net,
    place_edges,
    place_feet,
)
from referee.vision.shade import place_light, relit

Color = Literal["white", "black"]
COLORS: tuple[Color, Color] = ("white", "black")

CHECKERS_PER_SIDE = 15
MAX_SLOTS = 7
"""Slots examined per point: a row may run on past the usual five toward the middle."""

FEATURES = (
    "rim",
    "rim_rel",
    "far_end",
    "colour_diff",
    "lightness_diff",
    "spread",
    "rings",
    "rim_median",
    "rings_median",
    "log_colour_diff",
    "log_spread",
    "first_slot",
    "slot_index",
    "side_vs_field",
    "side_vs_middle",
    "side_vs_field_far",
    "colour_diff_first",
    "colour_diff_rel",
)
"""Names of the slot measurements, in the order `slot_weights` weighs them."""

_ANGLES = 32
_RIM_RADII = (0.86, 0.95, 1.04)
_RING_RADII = (0.45, 0.55, 0.65, 0.75)
_CAP = 30.0
# Lab lightness counts half in colour distances: light and shade change it most.
LIGHTNESS_WEIGHT = 0.5
_LAB_SCALE = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])
# A die on a checker covers its middle; its rim is sampled on a ring this share of its radius
# out, at this many places.
RIM_RADIUS = 0.8
RIM_SAMPLES = 32
# The triangle covers the middle of a slot up to this slot; further in the field shows.
_LAST_TRIANGLE_SLOT = 3


@dataclasses.dataclass(frozen=True)
class PointCheckers:
    """One point as read: white's number, colour (None when empty), count, confidence 0..1."""

    point: int
    color: Color | None
    count: int
    confidence: float


@dataclasses.dataclass(frozen=True)
class CheckerReading:
    """All checkers as read: the 24 points (white's numbering), the bar and borne off.

    `inferred` counts checkers placed by the 15-per-side rule rather than seen (stacked ones
    and borne-off ones beyond the visible piles). `slots` says, per point, how many row slots
    from the board's edge its checkers cover (a second layer stands on the first); empty
    when the reader does not tell (then `covered_slots` takes a row as long as the count).
    """

    points: tuple[PointCheckers, ...]
    bar: dict[Color, int]
    off: dict[Color, int]
    inferred: int
    slots: tuple[int, ...] = ()

    def covered_slots(self, point: int) -> int:
        """How many row slots from the board's edge `point`'s checkers cover."""
        if self.slots:
            return self.slots[point - 1]
        return min(self.points[point - 1].count, MAX_SLOTS)

    def covered(self) -> NDArray[np.bool_]:
        """Whether checkers cover each row slot (24, MAX_SLOTS; white's numbering)."""
        mask = np.zeros((POINTS, MAX_SLOTS), bool)
        for pc in self.points:
            mask[pc.point - 1, : self.covered_slots(pc.point)] = True
        return mask


def _lab(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    smooth = cv2.GaussianBlur(image, (3, 3), 0)
    return np.asarray(cv2.cvtColor(smooth, cv2.COLOR_BGR2LAB), dtype=np.float32)


def _circle_values(
    edges: EdgeImage, centres: FloatArray, radius: float, radii: tuple[float, ...]
) -> NDArray[np.float64]:
    """Radial gradient (N, angles): best of `radii` (fractions of `radius`) per direction."""
    theta = np.linspace(0.0, 2 * math.pi, _ANGLES, endpoint=False)
    dirs = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    pts = centres[:, None, None, :] + (np.array(radii)[None, :, None, None] * radius) * dirs
    normals = np.broadcast_to(dirs[None, None], pts.shape)
    values = edges.across(pts.reshape(-1, 2), normals.reshape(-1, 2))
    return np.asarray(values.reshape(len(centres), len(radii), _ANGLES).max(axis=1))


def disc_scores(
    edges: EdgeImage, centres: FloatArray, radius: float, search_px: float
) -> tuple[NDArray[np.float64], FloatArray]:
    """How round-rimmed the image is round each centre (N, 2), 0..1, and the best centre.

    Nine positions within `search_px` are tried (hand placement is not exact); at each the
    radial gradient on circles of about `radius` is capped and averaged over the directions.
    """
    steps = np.array([-1.0, 0.0, 1.0]) * search_px
    offsets = np.array([[dx, dy] for dx in steps for dy in steps])
    cand = (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    values = np.minimum(_circle_values(edges, cand, radius, _RIM_RADII), _CAP) / _CAP
    per_candidate = values.mean(axis=1).reshape(len(centres), len(offsets))
    best = per_candidate.argmax(axis=1)
    chosen = cand.reshape(len(centres), len(offsets), 2)[np.arange(len(centres)), best]
    return per_candidate[np.arange(len(centres)), best], chosen


def _far_end(
    edges: EdgeImage, centres: FloatArray, radius: float, toward: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Gradient along the point's axis at each disc's far end (toward the board's middle):
    a checker ends there (or meets the next one); a bare triangle has no edge across its axis."""
    half = math.radians(35)
    theta = np.linspace(-half, half, 9)
    out = np.zeros(len(centres))
    for sign in (-1.0, 1.0):
        mask = toward == sign
        if not mask.any():
            continue
        dirs = np.stack([np.sin(theta), sign * np.cos(theta)], axis=1)
        pts = (
            centres[mask][:, None, None, :]
            + (np.array([0.9, 1.0, 1.1])[None, :, None, None] * radius) * dirs
        )
        normals = np.broadcast_to(dirs[None, None], pts.shape)
        values = edges.across(pts.reshape(-1, 2), normals.reshape(-1, 2))
        out[mask] = values.reshape(int(mask.sum()), 3, len(theta)).max(axis=1).mean(axis=1)
    return out


def _disc_samples(
    lab: NDArray[np.float32] | NDArray[np.uint8], centres: FloatArray, radius: float
) -> NDArray[np.float32]:
    """Samples (N, 17, 3) at the centre and on two rings (half and whole `radius`)."""
    theta = np.linspace(0.0, 2 * math.pi, 8, endpoint=False)
    ring = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    offs = np.concatenate([[[0.0, 0.0]], 0.5 * radius * ring, radius * ring])
    return _pixels_at(lab, centres[:, None, :] + offs[None, :, :])


def _pixels_at(
    image: NDArray[np.float32] | NDArray[np.uint8], pts: FloatArray
) -> NDArray[np.float32]:
    """`image`'s pixels (..., channels) nearest each of `pts` (..., 2), clipped to the image."""
    h, w = image.shape[:2]
    x = np.clip(np.round(pts[..., 0]).astype(np.int32), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(np.int32), 0, h - 1)
    return np.asarray(image[y, x])


def slot_centres(canvas: Canvas, home: HomeSide, slots: int = MAX_SLOTS) -> FloatArray:
    """Canonical pixels (24, slots, 2) of every point's row slots, white's numbering."""
    model = canvas.model
    mm = np.array([[model.slot(p, k, home) for k in range(slots)] for p in range(1, POINTS + 1)])
    return canvas.to_px(mm)


def _empty_board_colours(
    lab: NDArray[np.float32], canvas: Canvas, home: HomeSide, radius: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Colours of the empty board: odd points' triangles, even points' triangles, the field.

    Triangles are sampled three quarters of the way to their tips (rarely covered) and the
    field along the middle line; medians over many places ignore the few that are covered.
    """
    model = canvas.model
    tips = []
    for p in range(1, POINTS + 1):
        base, tip = model.base_tip(p, home)
        tips.append(base + 0.75 * (tip - base))
    tip_lab = _disc_samples(lab, canvas.to_px(np.array(tips)), 0.12 * radius).mean(axis=1)
    xs = np.linspace(20.0, model.width_mm - 20.0, 40)
    middle = canvas.to_px(np.stack([xs, np.full(40, model.depth_mm / 2)], axis=1))
    field = np.median(_disc_samples(lab, middle, 0.2 * radius).mean(axis=1), axis=0)
    odd = np.median(tip_lab[0::2], axis=0)
    even = np.median(tip_lab[1::2], axis=0)
    return odd, even, field


@dataclasses.dataclass(frozen=True)
class BoardImage:
    """The rectified board with its gradients and Lab colours, computed once per image."""

    image: NDArray[np.uint8]
    edges: EdgeImage
    lab: NDArray[np.float32]

    @staticmethod
    def of(rectified: NDArray[np.uint8]) -> BoardImage:
        return BoardImage(rectified, EdgeImage(rectified), _lab(rectified))


def slot_features(
    board: BoardImage, canvas: Canvas, home: HomeSide, config: CheckerConfig
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Measurements (24, MAX_SLOTS, len(FEATURES)) at every slot, the slots' Lab colours
    (24, MAX_SLOTS, 3), and where each disc was found (24, MAX_SLOTS, 2)."""
    edges, lab = board.edges, board.lab
    radius = canvas.model.checker_mm / 2 * canvas.px_per_mm
    centres = slot_centres(canvas, home).reshape(-1, 2)
    rim, found = disc_scores(edges, centres, radius, config.slot_search_frac * radius)

    corners = np.round(canvas.surface_corners_px()).astype(int)
    magnitude = edges.magnitude[corners[0, 1] : corners[2, 1], corners[0, 0] : corners[1, 0]]
    # Gradients relative to the board's own contrast, so a dim or flat-lit board scores alike.
    scale = max(float(np.percentile(magnitude, 90)), 1.0)

    toward = np.repeat(np.where(np.arange(POINTS) < 12, -1.0, 1.0), MAX_SLOTS)
    far_end = _far_end(edges, found, radius, toward)
    rings = _circle_values(edges, found, radius, _RING_RADII)
    rim_values = _circle_values(edges, found, radius, _RIM_RADII)

    odd, even, field = _empty_board_colours(lab, canvas, home, radius)
    samples = _disc_samples(lab, found, 0.35 * radius)
    colour = samples.mean(axis=1).astype(np.float64)
    spread = samples[..., 0].std(axis=1).astype(np.float64)
    slot_index = np.tile(np.arange(MAX_SLOTS), POINTS)
    point_number = np.repeat(np.arange(1, POINTS + 1), MAX_SLOTS)
    expected = np.where(
        (slot_index <= _LAST_TRIANGLE_SLOT)[:, None],
        np.where((point_number % 2 == 1)[:, None], odd, even),
        field,
    )
    colour_diff = np.linalg.norm(colour - expected, axis=1)
    # Either side of the slot, across the point: a checker is as wide as the point, while from
    # the third slot on a bare triangle is narrow enough that the field shows there.
    across = np.array([[0.72 * radius, 0.0]])
    sides = (
        _disc_samples(lab, found - across, 0.12 * radius).mean(axis=1)
        + _disc_samples(lab, found + across, 0.12 * radius).mean(axis=1)
    ) / 2
    side_vs_field = np.linalg.norm(sides - field, axis=1)
    side_vs_middle = np.linalg.norm(sides - colour, axis=1)
    contrast = float(
        np.linalg.norm(odd - field) + np.linalg.norm(even - field) + np.linalg.norm(odd - even)
    )
    features = np.stack(
        [
            rim,
            rim * _CAP / scale,
            far_end / scale,
            colour_diff,
            np.abs(colour[:, 0] - expected[:, 0]),
            spread,
            rings.mean(axis=1) / scale,
            np.median(rim_values, axis=1) / scale,
            np.median(rings, axis=1) / scale,
            np.log1p(colour_diff),
            np.log1p(spread),
            (slot_index == 0).astype(np.float64),
            slot_index.astype(np.float64),
            side_vs_field,
            side_vs_middle,
            side_vs_field * (slot_index >= 2),
            colour_diff * (slot_index == 0),
            colour_diff / (contrast + 10.0),
        ],
        axis=1,
    )
    return (
        features.reshape(POINTS, MAX_SLOTS, len(FEATURES)),
        colour.reshape(POINTS, MAX_SLOTS, 3),
        found.reshape(POINTS, MAX_SLOTS, 2),
    )


def slot_probabilities(features: FloatArray, config: CheckerConfig) -> FloatArray:
    """Chance of a checker at each slot, from the logistic weights in `config`."""
    weights = np.array(config.slot_weights, dtype=np.float64)
    if weights.shape != (len(FEATURES),):
        raise ValueError(f"slot_weights needs {len(FEATURES)} numbers, one per FEATURES entry")
    z = features @ weights + config.slot_bias
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))))


def best_counts(prob: FloatArray) -> tuple[NDArray[np.int64], FloatArray]:
    """Per point, the row length n whose slots (first n full, rest empty) best explain the
    chances (24, slots), and the share of the likelihood that n carries (a confidence)."""
    p = np.clip(prob, 1e-4, 1 - 1e-4)
    full, empty = np.log(p), np.log(1 - p)
    slots = p.shape[1]
    # loglik[:, n] = sum of log p over slots < n plus log(1 - p) over slots >= n.
    head = np.concatenate([np.zeros((len(p), 1)), np.cumsum(full, axis=1)], axis=1)
    tail = np.concatenate([np.cumsum(empty[:, ::-1], axis=1)[:, ::-1], np.zeros((len(p), 1))], 1)
    loglik = head + tail
    counts = loglik.argmax(axis=1)
    shifted = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    confidence = shifted[np.arange(len(p)), counts] / shifted.sum(axis=1)
    assert slots + 1 == loglik.shape[1]
    return counts.astype(np.int64), confidence


def split_colours(lightness: FloatArray, min_gap: float) -> tuple[float, bool]:
    """A lightness threshold between the two checker colours (2-means in one dimension), and
    whether the two groups are really apart (`min_gap`)."""
    values = np.sort(np.asarray(lightness, dtype=np.float64))
    if len(values) < 2:
        return (float(values[0]) if len(values) else 128.0), False
    best = (math.inf, 1)
    for i in range(1, len(values)):
        lo, hi = values[:i], values[i:]
        cost = float(((lo - lo.mean()) ** 2).sum() + ((hi - hi.mean()) ** 2).sum())
        if cost < best[0]:
            best = (cost, i)
    i = best[1]
    lo_mean, hi_mean = float(values[:i].mean()), float(values[i:].mean())
    return (lo_mean + hi_mean) / 2, hi_mean - lo_mean >= min_gap


def _bar_and_tray(
    board: BoardImage,
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    threshold: float,
) -> tuple[dict[Color, int], dict[Color, int]]:
    """Checkers seen on the bar, and borne-off piles seen in the tray, per colour."""
    model = canvas.model
    edges, lab = board.edges, board.lab
    radius = model.checker_mm / 2 * canvas.px_per_mm
    d = model.checker_mm
    spots_mm: list[tuple[str, Color | None, tuple[float, float]]] = []
    # White's bar checkers lie toward white's side (larger y), black's toward black's.
    for sign in (1.0, -1.0):
        for index in range(3):
            y = model.depth_mm / 2 + sign * (0.6 * d + index * (d + 0.4))
            spots_mm.append(("bar", None, (model.width_mm / 2, y)))
    x0, _, x1, _ = model.tray_box(home)
    for color, sign in (("white", -1.0), ("black", 1.0)):
        for pile in range(3):
            start = model.depth_mm if sign < 0 else 0.0
            y = start + sign * (d / 2 + 2 + pile * (d + 1))
            spots_mm.append(("tray", color, ((x0 + x1) / 2, y)))  # type: ignore[arg-type]
    centres = canvas.to_px(np.array([s[2] for s in spots_mm]))
    # Bar and pile tops stand higher than the board, so they appear shifted: search wider.
    scores, found = disc_scores(edges, centres, radius, 0.5 * radius)
    light = _disc_samples(lab, found, 0.35 * radius)[..., 0].mean(axis=1)
    bar: dict[Color, int] = {"white": 0, "black": 0}
    piles: dict[Color, int] = {"white": 0, "black": 0}
    for (where, tray_colour, _), score, value in zip(spots_mm, scores, light, strict=True):
        if score < config.bar_threshold:
            continue
        if where == "bar":
            bar["white" if value > threshold else "black"] += 1
        elif tray_colour is not None:
            piles[tray_colour] += 1
    return bar, piles


def checker_evidence(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    variant: Variant | None = None,
    slants: FloatArray | None = None,
) -> CheckerEvidence | None:
    """What the strip network and the colours say on a rectified board image, before the
    15-per-side rule (`CheckerEvidence`; `read_checkers` for the arguments); None where the
    classical reader runs instead (`use_model` off, or no model file)."""
    net = load_checker_net(config.model_path or str(DEFAULT_MODEL)) if config.use_model else None
    if net is None:
        return None
    return _model_evidence(rectified, canvas, home, config, net, variant, slants)


def read_checkers(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    variant: Variant | None = None,
    slants: FloatArray | None = None,
) -> CheckerReading:
    """The checkers on a rectified board image (see the module docstring for the method).
    `variant`, when known, keeps the strip network's reading to positions it can reach
    (`conserve`); `slants`, the camera's slant at every place checkers stand
    (`piles.pile_slants` at `piles.place_feet`), when known, lets the pile and stack networks
    read how high they stand."""
    evidence = checker_evidence(rectified, canvas, home, config, variant, slants)
    if evidence is not None:
        return evidence.reading()
    return classical_checkers(rectified, canvas, home, config)


def classical_checkers(
    rectified: NDArray[np.uint8], canvas: Canvas, home: HomeSide, config: CheckerConfig
) -> CheckerReading:
    """The checkers read slot by slot without the strip network (the module docstring says
    how), as `read_checkers` reads them where the network is off or its file missing."""
    board = BoardImage.of(rectified)
    features, colours, _ = slot_features(board, canvas, home, config)
    prob = slot_probabilities(features, config)
    counts, confidence = best_counts(prob)
    seen = np.array([colours[p, k, 0] for p in range(POINTS) for k in range(int(counts[p]))])
    threshold, apart = split_colours(seen, config.min_color_gap)
    if not apart:
        # One colour only (or none): call it by comparison with the board round the checkers.
        threshold = float(np.median(colours[..., 0]))
    points: list[PointCheckers] = []
    for p in range(POINTS):
        n = int(counts[p])
        if n == 0:
            points.append(PointCheckers(p + 1, None, 0, float(confidence[p])))
            continue
        light = colours[p, :n, 0] > threshold
        color: Color = "white" if int(light.sum()) * 2 >= n else "black"
        agree = max(int(light.sum()), n - int(light.sum())) / n
        points.append(PointCheckers(p + 1, color, n, float(confidence[p]) * agree))
    bar, piles = _bar_and_tray(board, canvas, home, config, threshold)
    return _account(points, bar, piles, config)


def slot_colours(rectified: NDArray[np.uint8], canvas: Canvas, home: HomeSide) -> FloatArray:
    """Median Lab colour (24, SLOTS, 3) of the middle of every slot's checker top."""
    radius = canvas.model.checker_mm / 2 * canvas.px_per_mm
    centres = slot_centres(canvas, home, SLOTS).reshape(-1, 2)
    bgr = _disc_samples(rectified, centres, 0.4 * radius).astype(np.uint8)
    samples = np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), np.float64)
    # The median of the 17 samples ignores a highlight or a rim caught by a tilted view.
    return np.asarray(np.median(samples, axis=1)).reshape(POINTS, SLOTS, 3)


@dataclasses.dataclass(frozen=True)
class DieOnChecker:
    """A die lying on the checker of slot `place` ((point - 1, slot)), as the rectified board
    shows it: standing at `foot` and its top face showing at `top` (canonical pixels; far from
    under the camera the die's sides show between them)."""

    place: tuple[int, int]
    foot: tuple[float, float]
    top: tuple[float, float]


def rim_odds(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    die: DieOnChecker,
    colours: tuple[FloatArray, FloatArray],
    cap: float,
    light: float = 1.0,
) -> float:
    """Log-odds that the checker a `die` lies on is white rather than black (`colours`, as
    `colour_clusters` gives them), from its rim: the die covers its middle. The median of the
    odds at the places of `RIM_SAMPLES` on a ring `RIM_RADIUS` of the way out from the slot's
    middle that the die does not cover (none within half its diagonal of the line from its
    foot to its top: 0.71 of a checker's radius, so some of the ring always shows). `light`,
    the share of full light there (`place_light`), relights the samples (`relit`)."""
    model = canvas.model
    radius = RIM_RADIUS * model.checker_mm / 2 * canvas.px_per_mm
    theta = np.linspace(0.0, 2 * math.pi, RIM_SAMPLES, endpoint=False)
    point, slot = die.place
    middle = canvas.to_px(np.array(model.slot(point + 1, slot, home)))
    pts = middle + radius * np.stack([np.cos(theta), np.sin(theta)], axis=1)
    off_die = segment_distances(pts, np.array([die.foot, die.top])) > (
        model.die_mm / math.sqrt(2) * canvas.px_per_mm
    )
    bgr = np.asarray(_pixels_at(rectified, pts[off_die]), np.uint8)[None]
    lab = relit(np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), np.float64)[0], np.array(light))
    return float(np.median(colour_odds(lab, colours[0], colours[1], cap)))


def colour_odds(
    colours: FloatArray, white: FloatArray, black: FloatArray, cap: float
) -> FloatArray:
    """Log-odds (colours' shape less the last axis) that each Lab colour is a white checker's
    rather than a black one's, from its distances to the two colours (`colour_clusters`),
    within ±`cap`."""
    d_white = np.linalg.norm((colours - white) * _LAB_SCALE, axis=-1)
    d_black = np.linalg.norm((colours - black) * _LAB_SCALE, axis=-1)
    scale = float(np.linalg.norm((white - black) * _LAB_SCALE)) / 4
    return np.asarray(np.clip((d_black**2 - d_white**2) / (2 * scale**2), -cap, cap))


def colour_clusters(
    colours: FloatArray, weights: FloatArray, min_gap: float, reach: float = 35.0
) -> tuple[FloatArray, FloatArray, bool]:
    """The two checker colours (white's, the lighter, first) among the slots' colours (N, 3)
    weighted by the chance a checker lies there, and whether they are really apart (`min_gap`).
    Colours are Lab with lightness halved (`LIGHTNESS_WEIGHT`: light and shade change it most).
    Two-means with a truncated cost: a colour farther than `reach` from both centres (a die, a
    hand, a highlight taken for a checker) does not pull them. The lighter set is the one
    whose darker quarter is lighter (a lamp's glare lightens a few dark checkers a lot)."""
    sure = weights > 0.5
    if int(sure.sum()) < 2:
        mid = np.full(3, 128.0)
        return mid, mid, False
    values, w = colours[sure] * _LAB_SCALE, weights[sure]
    order = np.argsort(values[:, 0])
    values, w = values[order], w[order]

    def fit(light: NDArray[np.bool_]) -> tuple[FloatArray, float]:
        centres = np.zeros((2, 3))
        for k, mask in enumerate((light, ~light)):
            total = float(w[mask].sum())
            centres[k] = (values[mask] * w[mask, None]).sum(0) / total if total else values[0]
        d = np.linalg.norm(values[:, None, :] - centres[None], axis=2)
        return centres, float((w * np.minimum(d.min(axis=1), reach) ** 2).sum())

    best: tuple[float, FloatArray] = (math.inf, np.zeros((2, 3)))
    for i in range(1, len(values)):
        centres, cost = fit(np.arange(len(values)) >= i)
        if cost < best[0]:
            best = (cost, centres)
    centres = best[1]
    for _ in range(4):
        d = np.linalg.norm(values[:, None, :] - centres[None], axis=2)
        near = d.min(axis=1) < reach
        light = d[:, 0] < d[:, 1]
        for k, mask in enumerate((light & near, ~light & near)):
            total = float(w[mask].sum())
            if total:
                centres[k] = (values[mask] * w[mask, None]).sum(0) / total
    d = np.linalg.norm(values[:, None, :] - centres[None], axis=2)
    first = d[:, 0] < d[:, 1]
    quarter = [
        float(np.percentile(values[mask, 0], 25)) if mask.any() else 0.0 for mask in (first, ~first)
    ]
    if quarter[0] < quarter[1]:
        centres = centres[::-1]
    apart = float(np.linalg.norm(centres[0] - centres[1])) >= min_gap
    return centres[0] / _LAB_SCALE, centres[1] / _LAB_SCALE, apart


@dataclasses.dataclass(frozen=True)
class CheckerEvidence:
    """What the strip network (with the pile, stack and hand cover networks) and the checkers'
    colours say of every place, before the 15-per-side rule picks one reading: kept so that the
    board can be read again once the dice are found (`reading`). `slot_odds` are per slot
    (24, SLOTS) log-odds of white against black from the middle of the checker's top,
    `rim_odds` gives the same for the checker a die lies on from its rim (`rim_odds`),
    `occupied` the chance a checker shows its colour there."""

    count_ll: FloatArray
    slot_odds: FloatArray
    rim_odds: Callable[[DieOnChecker], float]
    occupied: FloatArray
    bar_ll: FloatArray
    off_ll: FloatArray
    rows: NDArray[np.int64]
    colour_unseen: FloatArray
    config: CheckerConfig
    variant: Variant | None

    def reading(self, dice_on_checkers: Collection[DieOnChecker] = ()) -> CheckerReading:
        """The likeliest reading (`conserve`); the checkers `dice_on_checkers` lie on take their
        colour from their rims: a die shows its own colour where a checker's middle is
        sampled."""
        odds = self.slot_odds.copy()
        for die in dice_on_checkers:
            odds[die.place] = self.rim_odds(die)
        reading = conserve(
            self.count_ll * self.config.count_weight,
            (odds * self.occupied).sum(axis=1),
            self.bar_ll,
            self.off_ll,
            self.config.conservation_penalty,
            self.variant,
            self.colour_unseen,
        )
        slots = tuple(
            min(pc.count, int(self.rows[pc.point - 1, pc.count]), MAX_SLOTS)
            for pc in reading.points
        )
        return dataclasses.replace(reading, slots=slots)


def _model_evidence(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    net: CheckerNet,
    variant: Variant | None,
    slants: FloatArray | None,
) -> CheckerEvidence:
    """Counts from the strip network (with the pile and stack networks' help, where `slants`
    are given) and colours from two clusters of the occupied slots, for `conserve` to apply
    the 15-per-side rule to the whole board at once (`CheckerEvidence.reading`)."""
    heights = net.heights(board_strips(rectified, canvas, home))
    if slants is not None:
        heights = _with_place_networks(heights, rectified, canvas, home, config, slants)
    heights[:POINTS] = boost_layers(heights[:POINTS], config.layer_boost)
    hand = (
        load_hand_cover_net(config.hand_model_path or str(HAND_MODEL))
        if config.use_hand_model
        else None
    )
    hidden = np.zeros(heights.shape[:2])
    hand_cells = None
    if hand is not None:
        hand_cells = hand.cover(rectified)
        cover = place_cover(hand_cells, canvas, home)
        hidden = hidden_share(cover, config.hand_cover_start, config.hand_doubt)
    seen = 1.0 - heights[:POINTS, :, 0]
    # A checker the hand hides shows no colour; the hand's own is not a checker's.
    occupied = seen * (1.0 - hidden[:POINTS])
    heights = uncovered(heights, hidden)
    count_ll, rows = count_loglik_with_rows(heights[:POINTS])
    colours = slot_colours(rectified, canvas, home)
    light = np.ones(occupied.shape)
    if config.shade_reach > 0:
        light = place_light(
            rectified,
            canvas,
            home,
            slot_centres(canvas, home, SLOTS),
            seen,
            hand_cells,
            config.shade_reach,
            config.shade_min_bare,
            config.shade_below,
        )
        colours = relit(colours, light)
    white, black, apart = colour_clusters(
        colours.reshape(-1, 3), occupied.reshape(-1), config.min_color_gap
    )
    # Per slot, log-odds of white against black from the distances to the two centres; a
    # point's evidence grows with the checkers it shows.
    slot_odds = (
        colour_odds(colours, white, black, config.colour_cap) if apart else np.zeros(occupied.shape)
    )

    def rim(die: DieOnChecker) -> float:
        if not apart:
            return 0.0
        return rim_odds(
            rectified, canvas, home, die, (white, black), config.colour_cap, float(light[die.place])
        )

    return CheckerEvidence(
        count_ll,
        slot_odds,
        rim,
        occupied,
        count_loglik(heights[list(BAR)], "bar"),
        count_loglik(heights[list(TRAY)], "tray"),
        rows,
        hidden[:POINTS, 0],
        config,
        variant,
    )


def _with_place_networks(
    heights: FloatArray,
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    slants: FloatArray,
) -> FloatArray:
    """The strip network's slot heights (STRIPS, SLOTS, HEIGHTS) with the pile network's odds
    joined in the tray and the stack network's on the points' full rows (`piles.py`)."""
    feet, edges = place_feet(canvas, home), place_edges(canvas, home)
    occupied = 1 - heights[..., 0]
    points, tray = list(range(POINTS)), list(TRAY)
    # Only a full row can carry a layer.
    full = occupied[points].sum(axis=1, keepdims=True) >= config.stack_min_row
    readers = (
        # strips, their rows in `place_feet`, whether and which network, its weight, asked
        (
            tray,
            [POINTS, POINTS + 1],
            config.use_pile_model,
            config.pile_model_path or str(PILE_MODEL),
            config.pile_weight,
            occupied[tray] >= config.pile_min_occupied,
        ),
        (
            points,
            points,
            config.use_stack_model,
            config.stack_model_path or str(STACK_MODEL),
            config.stack_weight,
            (occupied[points] >= config.stack_min_occupied) & full,
        ),
    )
    out = heights.copy()
    for strips, places, use, path, weight, asked in readers:
        net = load_pile_net(path) if use else None
        if net is not None:
            out[strips] = joined_heights(
                rectified,
                canvas,
                heights[strips],
                feet[places],
                slants[places],
                edges[places],
                asked,
                net,
                weight,
            )
    return out


def conserve(
    count_ll: FloatArray,
    colour_odds: FloatArray,
    bar_ll: FloatArray,
    off_ll: FloatArray,
    penalty: float,
    variant: Variant | None = None,
    colour_unseen: FloatArray | None = None,
) -> CheckerReading:
    """The likeliest colour and count of every point, the bar and borne off, given each
    point's count log-likelihood (24, 16) and colour log-odds (24,), and the bar's and trays'
    count log-likelihoods (2, 16; white's, black's), when each side has 15 checkers. A side
    whose total misses 15 pays `penalty` per checker, so a hidden checker does not force a
    wrong count elsewhere.

    With a `variant` whose checkers are never hit (long nardy), only positions it can reach
    compete: none on the bar, and none borne off by a side with a checker outside its home. So
    a head of 15 read as 10 does not send the 5 it misses to the tray, where a pile of 5 shows
    as one checker (one slot's doubt).

    A point's colour odds are taken as the chances of its two colours, so a checker of unknown
    colour costs log 2 against none. Where a hand hides a point's first place
    (`colour_unseen`, the share hidden, per point), the picture says nothing of either colour
    there, and that cost is waived in proportion: a checker a side misses then costs nothing
    under the hand."""
    top = CHECKERS_PER_SIDE
    size = top + 1
    half = colour_odds / 2
    norm = np.logaddexp(half, -half)
    if colour_unseen is not None:
        norm = norm - math.log(2) * np.asarray(colour_unseen)
    # Options per point: empty, (white, n), (black, n) for n = 1..15.
    white_ll = count_ll[:, 1:] + (half - norm)[:, None]
    black_ll = count_ll[:, 1:] + (-half - norm)[:, None]
    strict = variant is not None and not variant.hits
    # White's numbering: white's home is 1..6, black's is where its own 1..6 lie.
    homes = (
        frozenset(range(1, 7)),
        frozenset(variant.opponent_point(p) for p in range(1, 7)) if variant else frozenset(),
    )
    # With the rule the table has a layer per (white has a checker outside home, black has
    # one): layer 2 * white's flag + black's.
    layers = np.arange(4 if strict else 1)
    score = np.full((len(layers), size, size), -np.inf)
    score[0, 0, 0] = 0.0
    steps, sources = [], []
    # shift[n - 1, t] = t - n + top: row of a padded table holding the total t - n.
    shift = np.arange(size)[None, :] - np.arange(1, size)[:, None] + top
    pad = np.full((len(layers), top, size), -np.inf)
    for p in range(POINTS):
        # (layer, n, white total, black total): the point holding n of one colour.
        as_white = np.concatenate([pad, score], axis=1)[:, shift] + white_ll[p][:, None, None]
        score_t = score.transpose(0, 2, 1)
        as_black = (
            np.concatenate([pad, score_t], axis=1)[:, shift] + black_ll[p][:, None, None]
        ).transpose(0, 1, 3, 2)
        new = score + count_ll[p, 0]
        step = np.zeros(score.shape, np.int64)  # 0 empty, +n white n, -n black n
        source = np.broadcast_to(layers[:, None, None], score.shape).copy()
        for values, sign, bit in (
            (as_white, 1, 2 if strict and p + 1 not in homes[0] else 0),
            (as_black, -1, 1 if strict and p + 1 not in homes[1] else 0),
        ):
            count = values.argmax(axis=1)
            value = np.take_along_axis(values, count[:, None], axis=1)[:, 0]
            origin = np.broadcast_to(layers[:, None, None], score.shape)
            if bit:
                # A checker outside home sets the layer's flag: both layers come to the flagged one.
                into = layers | bit
                merged = np.full_like(value, -np.inf)
                merged_count = np.zeros_like(count)
                merged_origin = np.zeros_like(count)
                for here in range(len(layers)):
                    target = into[here]
                    better = value[here] > merged[target]
                    merged[target] = np.where(better, value[here], merged[target])
                    merged_count[target] = np.where(better, count[here], merged_count[target])
                    merged_origin[target] = np.where(better, here, merged_origin[target])
                value, count, origin = merged, merged_count, merged_origin
            better = value > new
            new = np.where(better, value, new)
            step = np.where(better, sign * (count + 1), step)
            source = np.where(better, origin, source)
        score = new
        steps.append(step)
        sources.append(source)
    # Per side and flag: the best bar and borne-off split for every total on the points.
    totals = np.arange(size)
    on_points = totals[:, None, None]
    miss = np.abs(on_points + totals[None, :, None] + totals[None, None, :] - top)
    rest_score = np.zeros((2, 2 if strict else 1, size))
    rest_pick: list[list[list[tuple[int, int]]]] = [[], []]
    for side in range(2):
        for outside in range(rest_score.shape[1]):
            # pair[i, j]: i on the bar, j borne off.
            pair = bar_ll[side][:, None] + off_ll[side][None, :]
            if strict:
                pair[1:, :] = -np.inf
                if outside:
                    pair[:, 1:] = -np.inf
            value = pair[None] - penalty * miss  # (points total, bar, off)
            flat = value.reshape(size, -1)
            best_index = flat.argmax(axis=1)
            rest_score[side, outside] = flat.max(axis=1)
            rest_pick[side].append([(int(k) // size, int(k) % size) for k in best_index])
    final = np.stack(
        [
            score[layer] + rest_score[0, layer >> 1][:, None] + rest_score[1, layer & 1][None, :]
            for layer in range(len(layers))
        ]
    )
    layer, w, b = (int(i) for i in np.unravel_index(int(np.argmax(final)), final.shape))
    bar: dict[Color, int] = {
        "white": rest_pick[0][layer >> 1][w][0],
        "black": rest_pick[1][layer & 1][b][0],
    }
    off: dict[Color, int] = {
        "white": rest_pick[0][layer >> 1][w][1],
        "black": rest_pick[1][layer & 1][b][1],
    }
    chosen = np.zeros(POINTS, np.int64)
    for p in range(POINTS - 1, -1, -1):
        n = int(steps[p][layer, w, b])
        layer = int(sources[p][layer, w, b])
        chosen[p] = n
        if n > 0:
            w -= n
        elif n < 0:
            b += n
    # Each point's own likelihood of what was chosen is its confidence.
    own = np.concatenate([count_ll[:, :1], white_ll, black_ll], axis=1)
    own = np.exp(own - own.max(axis=1, keepdims=True))
    own /= own.sum(axis=1, keepdims=True)
    alone = count_ll.argmax(axis=1)
    points: list[PointCheckers] = []
    inferred = 0
    for p in range(POINTS):
        n = abs(int(chosen[p]))
        column = 0 if n == 0 else (n if chosen[p] > 0 else top + n)
        side_colour: Color | None = None if n == 0 else ("white" if chosen[p] > 0 else "black")
        points.append(PointCheckers(p + 1, side_colour, n, float(own[p, column])))
        inferred += abs(n - int(alone[p]))
    for side, color in enumerate(COLORS):
        inferred += abs(bar[color] - int(bar_ll[side].argmax()))
        inferred += abs(off[color] - int(off_ll[side].argmax()))
    return CheckerReading(tuple(points), bar, off, inferred)


def _account(
    points: list[PointCheckers],
    bar: dict[Color, int],
    piles: dict[Color, int],
    config: CheckerConfig,
) -> CheckerReading:
    """Apply the 15-per-side rule: borne-off from the piles seen, the rest stacked on rows."""
    inferred = 0
    off: dict[Color, int] = {}
    for color in COLORS:
        on_points = sum(pc.count for pc in points if pc.color == color)
        missing = max(0, CHECKERS_PER_SIDE - on_points - bar[color])
        pile = config.tray_pile
        # n piles seen hold between 5(n-1)+1 and 5n checkers.
        low = pile * (piles[color] - 1) + 1 if piles[color] else 0
        off[color] = min(max(missing, low), pile * piles[color])
        extra = missing - off[color]
        inferred += extra + max(0, off[color] - low)
        rows = sorted(
            (i for i, pc in enumerate(points) if pc.color == color and pc.count >= pile),
            key=lambda i: -points[i].count,
        )
        for k in range(extra if rows else 0):
            i = rows[k % len(rows)]
            pc = points[i]
            points[i] = dataclasses.replace(pc, count=pc.count + 1, confidence=pc.confidence / 2)
    return CheckerReading(tuple(points), bar, off, inferred)
