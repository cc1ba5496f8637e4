"""Finding dice by their pips, reading their values, and placing them on the board.

Classical pip counting. Pips are small round spots much darker (on light dice) or lighter (on
dark dice) than the face round them: local peaks of a morphological black-hat or top-hat sized
to the expected pip, kept when both curvatures are strong (a spot, not the ridge of an edge;
`find_pips`).

On a board (`find_dice`) the die's size comes from the profile (dice are about
`BoardModel.die_mm` wide). Pips are gathered greedily (`group_pips`): the pip with the most pip
strength within reach seeds a die, which takes the pips of its polarity within half a side of
their centre. A group is a die; its value is its number of pips, its centre their middle.

In a photo of dice alone (`find_dice_on_plain`, no board) dice are blobs that differ from a
broad median of the image (the surface they lie on); touching ones are cut apart by watershed
and pips are counted inside each blob.

Where a learned detector is needed: pips under 3 pixels across (a die under ~18 px, usual at
1280x720), side faces whose pips are counted with the top face's, motion blur (a rolling die
shows no pips: it is reported as missing), touching dice of one colour, and telling a cocked die
from a flat one (done here only from the pip group's extent, which is weak).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.config import DiceConfig
from referee.vision.dice_classifier import (
    BOARD_FACE_CROP_PX,
    CLASSES,
    COCKED,
    DEFAULT_BOARD_FACE_MODEL,
    DEFAULT_FACE_MODEL,
    DEFAULT_MODEL,
    DEFAULT_SECOND_MODEL,
    DEFAULT_TILT_MODEL,
    NONE,
    ROLLING,
    STRAIGHT_DOWN,
    BoardFaceReader,
    DiceClassifier,
    FaceReader,
    Lean,
    TiltReader,
    crop_die,
    crop_face,
    load_board_face_reader,
    load_classifier,
    load_face_reader,
    load_tilt_reader,
    weighted_geometric_mean,
)
from referee.vision.dice_detector import (
    DEFAULT_BOARD_DETECTOR,
    DEFAULT_DETECTOR,
    BoardDiceDetector,
    DiceDetector,
    load_board_detector,
    load_detector,
)
from referee.vision.geometry import segment_distances

# Sizes (times the detector's box) of the crops the classifier reads a detected die from.
PLAIN_CROP_SIZES = (0.85, 1.0, 1.15)

LeanAt = Callable[[Sequence[tuple[float, float]]], list[Lean]]
"""How a flat die leans at each of some spots of the picture (`referee.vision.pipeline.die_lean`;
all at once: one spot at a time, the camera's geometry took 6 ms of a read)."""


@dataclasses.dataclass(frozen=True)
class Pip:
    """One pip candidate: centre (x, y), diameter in pixels, contrast (the black-hat or top-hat
    response), polarity (+1 dark pip on a light face, -1 light pip on a dark face)."""

    x: float
    y: float
    diameter: float
    contrast: float
    polarity: int


@dataclasses.dataclass(frozen=True)
class DieSeen:
    """A die found in the image: where, its value (None when unreadable), pips, and shape.

    `center` is the middle of its top face's pips; `side_px` the die size the search assumed;
    `flat` False when the pip pattern does not fit a face seen from above; `score` how sure the
    detection is (higher is surer), used to keep the two best when more groups are found;
    `confidence` how sure the value is (the crop classifier's share of the face probability for
    it; None from the pip counter, which does not score it); `faces` the classifier's
    probability of each face 1..6 given that a face shows (empty from the pip counter);
    `rolling` that it was caught rolling (a blurred die: no value, not flat); `tilt` how likely
    the crop classifier finds it tilted (its cocked and rolling probabilities together; 0 from
    the pip counter); `unmoved` that it lies where a live game's earlier scene read it, and
    keeps the face read then.
    """

    center: tuple[float, float]
    value: int | None
    pips: tuple[Pip, ...]
    side_px: float
    flat: bool
    score: float
    confidence: float | None = None
    faces: tuple[float, ...] = ()
    rolling: bool = False
    tilt: float = 0.0
    unmoved: bool = False


def to_grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """`image` as one grey channel (BGR converted, grey kept)."""
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)


def pip_kernel(pip_px: float) -> NDArray[np.uint8]:
    """The round structuring element whose black-hat (top-hat) response finds dark (light) pips
    of about `pip_px` diameter in `find_pips`: a little over twice a pip across."""
    size = max(3, round(pip_px * 2.2) | 1)
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)), np.uint8)


def find_pips(
    grey: NDArray[np.uint8],
    pip_px: float,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
) -> list[Pip]:
    """Pip candidates of about `pip_px` diameter, dark and light, optionally inside `mask`.

    A pip is a local peak of the black-hat (dark pips) or top-hat (light pips) response, at
    least `min_pip_contrast` strong; neighbouring pips of a five or six blur into each other at
    small sizes, so peaks are used rather than connected blobs.
    """
    kernel = pip_kernel(pip_px)
    size = kernel.shape[0]
    peak_size = max(3, round(pip_px * 0.9) | 1)
    peak_kernel = np.ones((peak_size, peak_size), np.uint8)
    sigma = max(pip_px / 3, 0.8)
    curvatures = _CurvatureKernels(sigma)
    left = top = 0
    if mask is not None:
        # Only the mask's bounding box (a board seldom fills its frame), widened by as far as
        # the filters below reach from a pixel, so that the pips inside the mask are found as
        # in the whole picture: the 3 x 3 blur, the closing or opening (dilation and erosion),
        # the peak test and the ridge test's kernels.
        reach = 1 + 2 * (size // 2) + peak_size // 2 + curvatures.reach
        x, y, bw, bh = cv2.boundingRect(np.asarray(mask, np.uint8))
        if bw == 0 or bh == 0:
            return []
        left, top = max(0, x - reach), max(0, y - reach)
        right = min(grey.shape[1], x + bw + reach)
        bottom = min(grey.shape[0], y + bh + reach)
        grey, mask = grey[top:bottom, left:right], mask[top:bottom, left:right]
    smooth = cv2.GaussianBlur(grey, (3, 3), 0)
    h, w = grey.shape
    # Contrasts are compared with whole grey levels.
    floor = math.ceil(config.min_pip_contrast)
    pips: list[Pip] = []
    for polarity, op in ((1, cv2.MORPH_BLACKHAT), (-1, cv2.MORPH_TOPHAT)):
        response = cv2.morphologyEx(smooth, op, kernel)
        peaks = cv2.bitwise_and(
            cv2.compare(response, cv2.dilate(response, peak_kernel), cv2.CMP_EQ),
            cv2.threshold(response, floor - 1, 255, cv2.THRESH_BINARY)[1],
        )
        if mask is not None:
            peaks[mask == 0] = 0
        found = cv2.findNonZero(peaks)
        if found is None:
            continue
        # A flat-topped peak is several touching pixels: one pip at their centre.
        count, labels = cv2.connectedComponents(peaks, connectivity=8)
        px, py = found.reshape(-1, 2).T
        label = labels[py, px]
        area = np.bincount(label, minlength=count)[1:]
        centre_x = np.bincount(label, weights=px, minlength=count)[1:] / area
        centre_y = np.bincount(label, weights=py, minlength=count)[1:] / area
        # Touching peak pixels are equally strong (each is the largest in the other's window),
        # so any one of them gives the peak's strength; its centre may lie off it (a ring).
        strength = np.zeros(count, np.float64)
        strength[label] = response[py, px]
        strength = strength[1:]
        # Rounded where they lie in the whole picture: halves round to even, so rounding them
        # in the crop's own pixels would move some a pixel.
        xs = np.clip(np.round(centre_x + left).astype(int) - left, 0, w - 1)
        ys = np.clip(np.round(centre_y + top).astype(int) - top, 0, h - 1)
        # Keep spots, drop ridges (a triangle's edge, a checker's rim): a spot is a maximum
        # of the blurred response whose two curvatures are both strong, as for SIFT's edge
        # test; a ring wider than a pip has a minimum in its middle.
        dxx, dyy, dxy = curvatures.at(np.asarray(response, np.uint8), xs, ys)
        det = dxx * dyy - dxy * dxy
        trace = dxx + dyy
        ratio = config.pip_max_ridge
        keep = (det > 0) & (trace < 0) & (trace * trace < det * (ratio + 1) ** 2 / ratio)
        for x, y, c in zip(xs[keep], ys[keep], strength[keep], strict=True):
            pips.append(Pip(float(x + left), float(y + top), pip_px, float(c), polarity))
    return pips


class _CurvatureKernels:
    """The second derivatives (x x, y y, x y) of an image blurred by a Gaussian of `sigma`, as
    OpenCV's `GaussianBlur` (in floats) then 3 x 3 `Sobel` give them, read at a few points:
    each is one separable kernel, the blur's convolved with Sobel's. They are needed only at the
    candidate peaks, a few thousand of a frame's million pixels; blurring the whole frame in
    floats for them took a quarter of the pip search."""

    def __init__(self, sigma: float):
        # OpenCV's kernel size for a float image (4 sigma each way).
        blur = cv2.getGaussianKernel(round(sigma * 8 + 1) | 1, sigma, cv2.CV_64F)[:, 0]
        self.second = np.convolve(blur, [1.0, -2.0, 1.0])
        self.smooth = np.convolve(blur, [1.0, 2.0, 1.0])
        self.first = np.convolve(blur, [-1.0, 0.0, 1.0])
        self.reach = len(self.second) // 2

    def at(
        self, image: NDArray[np.uint8], xs: NDArray[np.int_], ys: NDArray[np.int_]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        r = self.reach
        padded = cv2.copyMakeBorder(image, r, r, r, r, cv2.BORDER_REFLECT_101)
        span = np.arange(2 * r + 1)
        patches = padded[(ys[:, None] + span)[:, :, None], (xs[:, None] + span)[:, None, :]]
        patches = patches.astype(np.float64)
        dxx = np.einsum("nij,i,j->n", patches, self.smooth, self.second)
        dyy = np.einsum("nij,i,j->n", patches, self.second, self.smooth)
        dxy = np.einsum("nij,i,j->n", patches, self.first, self.first)
        return dxx, dyy, dxy


def group_pips(
    grey: NDArray[np.uint8], pips: list[Pip], side_px: float, config: DiceConfig
) -> list[list[Pip]]:
    """Pips gathered into dice, greedily: the pip with the most pip strength within reach
    (`group_distance_frac` die sides) seeds a die; the die takes the pips of its polarity
    within half a side of their common centre (six at most), and they are removed."""
    groups: list[list[Pip]] = []
    reach = config.group_distance_frac * side_px
    for polarity in (1, -1):
        chosen = [p for p in pips if p.polarity == polarity]
        if not chosen:
            continue
        xy = np.array([[p.x, p.y] for p in chosen])
        strength = np.array([p.contrast for p in chosen])
        apart = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
        # Each pip's support: the strength of the pips within reach, less those taken by a
        # die so far (contrasts are whole numbers, so the running sums are exact).
        within_reach = (apart <= reach) * strength[None, :]
        support = within_reach.sum(axis=1)
        alive = np.ones(len(chosen), dtype=bool)
        # Most of a frame's pips are lone specks, nothing within reach or half a side: each is
        # a group of its own whenever it is the strongest left, and taking it changes no other
        # pip's support. They are queued strongest first (the lower index first where they tie,
        # as the greedy choice takes them) rather than searched for one by one.
        lone = (apart <= max(reach, 0.5 * side_px)).sum(axis=1) == 1
        queue = sorted(np.nonzero(lone)[0].tolist(), key=lambda k: (-strength[k], k))
        others = np.where(lone, -np.inf, support)
        head = 0
        while True:
            seed = int(np.argmax(others))
            best = others[seed]
            while head < len(queue) and (-strength[queue[head]], queue[head]) < (-best, seed):
                k = queue[head]
                head += 1
                if alive[k]:
                    groups.append([chosen[k]])
                    alive[k] = False
            if best == -np.inf:
                break
            near = alive & (apart[seed] <= reach)
            centre = xy[near].mean(axis=0)
            member = np.nonzero(alive & (np.linalg.norm(xy - centre, axis=1) <= 0.5 * side_px))[0]
            if seed not in member:
                member = np.append(member, seed)
            member = member[np.argsort(-strength[member])][:6]
            groups.append([chosen[int(k)] for k in member])
            alive[member] = False
            support -= within_reach[:, member].sum(axis=1)
            others = np.where(alive & ~lone, support, -np.inf)
    return groups


def _read_group(group: list[Pip], side_px: float, config: DiceConfig) -> DieSeen | None:
    """A die from a group of pips, or None when the group cannot be one die's face.

    More than six pips, or pips spread over more than a die, are texture or a board edge (or
    dice touching, which this reader cannot part). The score favours several strong pips.
    """
    # Plain Python, not numpy: a frame gives a hundred or more groups of a pip or a few, and
    # numpy's cost per call was most of their reading.
    xs = [p.x for p in group]
    ys = [p.y for p in group]
    extent = max(max(xs) - min(xs), max(ys) - min(ys))
    if extent > config.max_extent_frac * side_px:
        return None
    contrast = [p.contrast for p in group]
    # A face's pips are equally strong; edge artefacts mix strong and faint peaks.
    evenness = min(contrast) / max(contrast)
    score = sum(contrast) / len(group) * (1 + 0.5 * (len(group) - 1)) * (0.5 + 0.5 * evenness)
    flat = extent <= config.flat_max_size_ratio * 0.6 * side_px
    return DieSeen(
        (sum(xs) / len(group), sum(ys) / len(group)), len(group), tuple(group), side_px, flat, score
    )


def classifier_for(config: DiceConfig) -> DiceClassifier | None:
    """The crop classifier `config` asks for, or None (turned off, or no model file)."""
    if not config.use_model:
        return None
    second = config.second_model_path or str(DEFAULT_SECOND_MODEL)
    return load_classifier(
        config.model_path or str(DEFAULT_MODEL),
        second if config.use_second_model else "",
        config.second_below_none,
        config.model_mirrored,
    )


def classify(
    image: NDArray[np.uint8],
    candidates: list[DieSeen],
    classifier: DiceClassifier,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """The candidates the model takes for dice, with its value, flatness and sureness as score.

    Each candidate's crop (`crop_die`, sized by its `side_px`) is classified; candidates the model
    calls "no die" go. Candidates closer than `model_min_separation` die sides (plus the side
    face the lean shows there, at the die's size there) to a surer one are the same die seen
    from another pip group (two dice cannot overlap): the die is read from all of its crops,
    their class probabilities averaged with the model's sureness that each is a die as
    weights, so one badly centred crop does not decide its value or tilt, and half from one
    more crop at their weighted centre. Its `center` stays its surest crop's.
    `lean` tells how a flat die leans at a spot (the camera's view; none: straight down).
    """
    if not candidates:
        return []
    candidate_leans = _leans_at([d.center for d in candidates], lean)
    probs = _read_crops(
        image, [(d.center, d.side_px) for d in candidates], candidate_leans, classifier
    )
    anchors: list[int] = []
    members: list[list[int]] = []
    tilted = _tilted(probs, config)
    for k in (int(k) for k in np.argsort(-(1 - probs[:, NONE]), kind="stable")):
        die = candidates[k]
        if probs[k, NONE] >= config.model_max_none:
            continue
        # In die sides as large as a die is there (nearer the camera a die spans more pixels),
        # and as far again as a flat die's side face shows beside its top there: pips on that
        # face make a candidate of their own.
        how = candidate_leans[k]
        reach = (config.model_min_separation + how.sides) * die.side_px * how.scale
        # A cocked die leans on something, often the other die, touching it: a candidate read
        # flat beside a surer one read tilted is that other die, unless closer than two dice
        # can lie. (The other way round, a tilted read beside a flat one is more often the
        # flat die's side face.)
        leaning_on = config.model_min_apart * die.side_px * how.scale
        near = [
            g
            for g, a in enumerate(anchors)
            if math.dist(die.center, candidates[a].center)
            < (leaning_on if tilted[a] and not tilted[k] else reach)
        ]
        if near:
            members[near[0]].append(k)
        else:
            anchors.append(k)
            members.append([k])
    # A die's own centre is where its crops' centres meet (each pip group is off to one side):
    # a crop there, turned by the lean there, is the one that shows its tilt best.
    group_weights = [1 - probs[group, NONE] for group in members]
    centres = []
    for group, weights in zip(members, group_weights, strict=True):
        xy = np.array([candidates[k].center for k in group])
        centre = (weights[:, None] * xy).sum(axis=0) / weights.sum()
        centres.append((float(centre[0]), float(centre[1])))
    middles = _read_crops(
        image,
        [(c, candidates[a].side_px) for c, a in zip(centres, anchors, strict=True)],
        _leans_at(centres, lean),
        classifier,
    )
    kept: list[DieSeen] = []
    for anchor, group, weights, middle in zip(
        anchors, members, group_weights, middles, strict=True
    ):
        p = (weights[:, None] * probs[group]).sum(axis=0) / weights.sum()
        p = (p + middle) / 2
        kept.append(_read_as(candidates[anchor], p, float(weights.max()), config))
    return kept


def _leans_at(centres: list[tuple[float, float]], lean: LeanAt | None) -> list[Lean]:
    """How a flat die leans at each of `centres` (straight down with no camera known)."""
    if lean is None or not centres:
        return [STRAIGHT_DOWN] * len(centres)
    return lean(centres)


def _grid(reach: float, step: float) -> list[tuple[float, float]]:
    """Offsets (in die sides) of a square grid of crops up to `reach` round a centre, `step`
    apart, row by row; the centre alone where there is no reach or no step."""
    if reach <= 0 or step <= 0:
        return [(0.0, 0.0)]
    steps = np.arange(-reach, reach + step / 2, step)
    return [(float(dx), float(dy)) for dy in steps for dx in steps]


def _read_crops(
    image: NDArray[np.uint8],
    spots: list[tuple[tuple[float, float], float]],
    leans: list[Lean],
    classifier: DiceClassifier,
) -> NDArray[np.float64]:
    """Class probabilities (N x `CLASSES`) of a crop at each (centre, die side) spot, turned by
    the lean there and told how far it leans."""
    crops = [
        crop_die(image, centre, side, turn_deg=how.turn_deg)
        for (centre, side), how in zip(spots, leans, strict=True)
    ]
    return classifier.probabilities(crops, [how.sides for how in leans])


def _tilted(p: NDArray[np.float64], config: DiceConfig) -> NDArray[np.bool_]:
    """Where class probabilities `p` (rows, or one row) call a die not flat: cocked and rolling
    together reach `model_min_cocked`."""
    return np.asarray(p[..., COCKED] + p[..., ROLLING] >= config.model_min_cocked)


def _read_as(die: DieSeen, p: NDArray[np.float64], score: float, config: DiceConfig) -> DieSeen:
    """`die` read from one row of class probabilities `p` (`CLASSES`' order): its face
    (`_with_face`), flat unless cocked and rolling together reach `model_min_cocked`; `score`
    how surely it is a die."""
    return dataclasses.replace(
        _with_face(die, p),
        flat=not _tilted(p, config),
        score=score,
        tilt=float(p[COCKED] + p[ROLLING]),
    )


def _with_face(die: DieSeen, p: NDArray[np.float64]) -> DieSeen:
    """`die` with the likeliest face of class probabilities `p` (one row), the face's share of
    the face probability as its confidence, and every face's share."""
    faces = p[:6] / max(p[:6].sum(), 1e-9)
    value = int(np.argmax(faces)) + 1
    return dataclasses.replace(
        die,
        value=value,
        confidence=float(faces[value - 1]),
        faces=tuple(round(float(f), 4) for f in faces),
    )


def board_face_reader_for(config: DiceConfig) -> BoardFaceReader | None:
    """The board face reader `config` asks for, or None (turned off, or no model file)."""
    if not config.use_board_face_model:
        return None
    return load_board_face_reader(config.board_face_model_path or str(DEFAULT_BOARD_FACE_MODEL))


def board_faces_read(
    image: NDArray[np.uint8],
    dice: list[DieSeen],
    reader: BoardFaceReader,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """`dice` with each one read flat given the face the board face reader and the crop
    classifier agree on: their face probabilities' geometric mean, `board_face_weight` the
    reader's share. The classifier reads a crop 1.8 die sides wide that takes in a checker or
    die beside, the reader a tight crop of the die alone; but a die's centre is its pip
    groups', often a quarter side or more off its middle, where a tight crop cuts pips off. So
    the reader reads crops on a grid up to `board_face_reach` die sides round the centre,
    `board_face_step` apart, and the crop whose likeliest face is surest speaks for it (at the
    die's true middle it reads every flat die of tuning set 64 right; at the pip groups' centre
    alone, 213 of 253). A die `unmoved` since an earlier scene keeps the face read then."""
    flat = [k for k, d in enumerate(dice) if d.flat and not d.rolling and d.faces and not d.unmoved]
    if not flat:
        return dice
    offsets = _grid(config.board_face_reach, config.board_face_step)
    leans = _leans_at([dice[k].center for k in flat], lean)
    crops = []
    for k, how in zip(flat, leans, strict=True):
        (x, y), side = dice[k].center, dice[k].side_px * how.scale
        crops += [
            crop_face(image, (x + dx * side, y + dy * side), side, BOARD_FACE_CROP_PX, how.turn_deg)
            for dx, dy in offsets
        ]
    read = reader.probabilities(crops).reshape(len(flat), len(offsets), 6)
    out = list(dice)
    for k, grid in zip(flat, read, strict=True):
        seen = grid[int(np.argmax(grid.max(axis=1)))]
        classifier = np.asarray(dice[k].faces, np.float64)
        out[k] = _with_face(
            dice[k], weighted_geometric_mean(classifier, seen, config.board_face_weight)
        )
    return out


def touching_read(
    image: NDArray[np.uint8],
    dice: list[DieSeen],
    reader: BoardFaceReader,
    classifier: DiceClassifier,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """A throw's `dice` read again together where two may touch.

    Touching, each die's crops take in the other's pips, and each die's centre is its own
    search's, so both reads can settle on the one die whose face shows best, read as a double
    (on tuning set 66, 7 of the 18 flat dice read wrong), or the pair is read as one die. So
    the board face reader reads crops on a grid (`touching_reach`, `touching_step`) round:

    - two dice closer than `touching_sides` where one read flat is doubtful (its face under
      `touching_unless_sure`) or both read flat show one face: the places within
      `touching_tube` of the line between them. Of those `touching_apart` die sides apart
      (dice cannot overlap; touching, they lie one to 1.4 sides apart), the two whose faces
      are surest together hold the dice; a die read tilted stays where it is, and the flat
      one goes to the surest place at least the first of those from it.
    - a die read alone, flat, beside nothing or beside a die read rolling: the places within
      `touching_reach` of it. The two surest together, `touching_apart`, are two dice where
      they look like two middles (`_two_middles`), and a rolling read beside them was
      something else (a checker's rim): a throw has two dice.

    The grid is read coarse first (`touching_coarse_step`), then fine only round its
    `touching_refine` surest pairs (or places, where one die moves): about half the crops
    for a die read alone.

    The crop classifier must see a die at each place (its no-die share at most
    `spot_max_none`), or the dice stay as read; each takes the face the two readers agree on
    there, as `board_faces_read` joins them."""
    if config.touching_sides <= 0:
        return dice
    at_rest = [d for d in dice if not d.rolling]
    if len(dice) == 2 and len(at_rest) == 1:
        # Beside a die read rolling, a die read alone may be two touching: then the throw's
        # two dice are at rest, and the rolling read was something else (a checker's rim).
        two = touching_read(image, at_rest, reader, classifier, config, lean)
        return two if len(two) == 2 else dice
    if not dice or len(dice) > 2 or any(d.rolling or d.unmoved for d in dice):
        return dice
    free = [k for k, d in enumerate(dice) if d.flat and d.faces]
    if not free:
        return dice
    centres = [d.center for d in dice]
    ends = np.array(centres if len(dice) == 2 else centres * 2)
    mid = (float(ends[:, 0].mean()), float(ends[:, 1].mean()))
    how = _leans_at([mid], lean)[0]
    side = dice[0].side_px * how.scale
    nearest, farthest = config.touching_apart[0] * side, config.touching_apart[1] * side
    one_moves = len(dice) == 2 and len(free) == 1
    if len(dice) == 2:
        a, b = dice
        doubtful = any((dice[k].confidence or 0.0) < config.touching_unless_sure for k in free)
        double = len(free) == 2 and a.value == b.value
        if math.dist(a.center, b.center) >= config.touching_sides * side or not (
            doubtful or double
        ):
            return dice

    def places_at(step: float) -> NDArray[np.float64]:
        grid = np.array(
            [
                (mid[0] + dx * side, mid[1] + dy * side)
                for dx, dy in _grid(config.touching_reach, step)
            ],
            np.float64,
        )
        places: NDArray[np.float64]
        if len(dice) == 1:
            places = grid[np.linalg.norm(grid - ends[0], axis=1) <= config.touching_reach * side]
            return places
        places = grid[segment_distances(grid, ends) <= config.touching_tube * side]
        if one_moves:
            # The tilted die stays: the flat one lies a die's width or more from it.
            places = places[np.linalg.norm(places - ends[1 - free[0]], axis=1) >= nearest]
        return places

    def read(places: NDArray[np.float64]) -> NDArray[np.float64]:
        crops = [crop_face(image, tuple(p), side, BOARD_FACE_CROP_PX, how.turn_deg) for p in places]
        return reader.probabilities(crops).reshape(len(places), 6)

    coarse = max(config.touching_coarse_step, config.touching_step)
    places = places_at(coarse)
    if not len(places):
        return dice
    probs = read(places)
    if coarse > config.touching_step:
        # The fine grid only round the coarse grid's best: its surest places where one die
        # moves, its surest pairs (their spacing loosened by a coarse cell's diagonal) else.
        sure = probs.max(axis=1)
        if one_moves:
            best = np.argsort(-sure)[: config.touching_refine]
        else:
            slack = coarse * side * math.sqrt(2)
            apart = np.linalg.norm(places[:, None] - places[None], axis=2)
            first, second = np.triu_indices(len(places), 1)
            fits = (apart[first, second] >= nearest - slack) & (
                apart[first, second] <= farthest + slack
            )
            pairs = np.flatnonzero(fits)[
                np.argsort(-(sure[first] + sure[second])[fits])[: config.touching_refine]
            ]
            best = np.unique(np.concatenate([first[pairs], second[pairs]]))
        fine = places_at(config.touching_step)
        if len(best) and len(fine):
            cell = coarse / 2 * side * math.sqrt(2) + 1e-6
            near_best = np.linalg.norm(fine[:, None] - places[best][None], axis=2).min(axis=1)
            read_yet = np.linalg.norm(fine[:, None] - places[None], axis=2).min(axis=1)
            extra = fine[(near_best <= cell) & (read_yet > 1e-6)]
            if len(extra):
                places = np.concatenate([places, extra])
                probs = np.concatenate([probs, read(extra)])
                # Back in the grid's order, row by row, as the pairs are picked (and ties
                # broken) in it.
                order = np.lexsort((places[:, 0].round(6), places[:, 1].round(6)))
                places, probs = places[order], probs[order]
    sure = probs.max(axis=1)
    if one_moves:
        picks = [int(np.argmax(sure))]
    else:
        apart = np.linalg.norm(places[:, None] - places[None], axis=2)
        together = np.where(
            (apart >= nearest) & (apart <= farthest), sure[:, None] + sure[None], -1.0
        )
        i, j = (int(n) for n in np.unravel_index(int(np.argmax(together)), together.shape))
        if together[i, j] < 0:
            return dice
        if len(dice) == 1 and not _two_middles(
            image, places[[i, j]], sure[[i, j]], side, how, reader, config
        ):
            return dice
        # Each die keeps its own place of the two, the nearer way round.
        straight = np.linalg.norm(places[[i, j]] - ends, axis=1).sum()
        crossed = np.linalg.norm(places[[j, i]] - ends, axis=1).sum()
        picks = [i, j] if straight <= crossed else [j, i]
    spots = [(float(places[i][0]), float(places[i][1])) for i in picks]
    seen = _read_crops(
        image, [(spot, dice[0].side_px) for spot in spots], _leans_at(spots, lean), classifier
    )
    if (seen[:, NONE] > config.spot_max_none).any():
        return dice
    placed = [0, 1] if len(dice) == 1 else free
    out = [dice[0], dice[0]] if len(dice) == 1 else list(dice)
    for k, spot, i, p in zip(placed, spots, picks, seen, strict=True):
        faces = weighted_geometric_mean(
            p[:6] / max(p[:6].sum(), 1e-9), probs[i], config.board_face_weight
        )
        out[k] = dataclasses.replace(_with_face(out[k], faces), center=spot)
    return out


def _two_middles(
    image: NDArray[np.uint8],
    places: NDArray[np.float64],
    sure: NDArray[np.float64],
    side: float,
    how: Lean,
    reader: BoardFaceReader,
    config: DiceConfig,
) -> bool:
    """Whether the two `places` round a die read alone are two dice's middles: each at least
    `touching_unless_sure` of its face, and the seam halfway between them less sure than either.
    A die alone is surest at its middle, so two places a die's width apart either side of it
    read its face surely too, but the place between them more surely still (on the tuning sets,
    0.97-0.98 against 0.92-0.98); two touching dice are least sure at their seam (0.41-0.86)."""
    if sure.min() < config.touching_unless_sure:
        return False
    seam = places.mean(axis=0)
    crop = crop_face(
        image, (float(seam[0]), float(seam[1])), side, BOARD_FACE_CROP_PX, how.turn_deg
    )
    return float(reader.probabilities([crop])[0].max()) < float(sure.min())


def tilt_reader_for(config: DiceConfig) -> TiltReader | None:
    """The tilt reader `config` asks for, or None (turned off, or no model file)."""
    if not config.use_tilt_model:
        return None
    return load_tilt_reader(config.tilt_model_path or str(DEFAULT_TILT_MODEL))


# The offsets (in steps) of the crops the tilt reader reads round a die, by their number.
_TILT_GRIDS = {
    9: [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)],
    5: [(0, -1), (-1, 0), (0, 0), (1, 0), (0, 1)],
    1: [(0, 0)],
}


def tilt_seen(
    image: NDArray[np.uint8],
    die: DieSeen,
    reader: TiltReader,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> float:
    """The tilt reader's probability that `die` is tilted: the mean over `config.tilt_crops`
    crops at and round its centre, one `face_search_step` apart (at its size there), as
    `centred` reads the crop classifier's."""
    how = _leans_at([die.center], lean)[0]
    step = config.face_search_step * die.side_px * how.scale
    x, y = die.center
    crops = [
        crop_die(image, (x + dx * step, y + dy * step), die.side_px, turn_deg=how.turn_deg)
        for dx, dy in _TILT_GRIDS[config.tilt_crops]
    ]
    return float(reader.tilted(crops, [how.sides] * len(crops)).mean())


def tilt_checked(
    image: NDArray[np.uint8],
    die: DieSeen,
    reader: TiltReader,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> DieSeen:
    """`die` flat or tilted by the tilt reader (`tilt_seen`) and the crop classifier (its
    `tilt`) together: their probabilities averaged, `tilt_model_weight` the reader's share,
    tilted from `tilt_min`. A die caught rolling stays so."""
    if die.rolling:
        return die
    weight = config.tilt_model_weight
    tilt = (1 - weight) * die.tilt + weight * tilt_seen(image, die, reader, config, lean)
    return dataclasses.replace(die, flat=tilt < config.tilt_min)


def find_dice(
    image: NDArray[np.uint8],
    side_px: float,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """Dice of about `side_px` in `image` (BGR or grey), optionally only inside `mask`.

    With the crop classifier, pip groups (found at the lower `model_pip_contrast`, the strongest
    `model_max_candidates`) only propose where dice may be and the model reads them
    (`classify`); the board dice detector's boxes (`detected_dice`, when its model is there)
    where no die was read are read as spots are (`spot_dice`); and a die read flat with a
    doubtful face is read again at its middle (`centred`). Without the classifier the value is
    the group's pip count.
    """
    classifier = classifier_for(config)
    if classifier is not None:
        config = dataclasses.replace(config, min_pip_contrast=config.model_pip_contrast)
    dice = _pip_dice(to_grey(image), side_px, config, mask)
    if classifier is None:
        return dice
    dice.sort(key=lambda d: -d.score)
    kept = classify(image, dice[: config.model_max_candidates], classifier, config, lean)
    detector = board_detector_for(config)
    # Where the pip groups give the throw, the detector could only add a third die: it is not
    # asked (a read 174 -> 150 ms, median on tuning set 61; every tuning scene read the same).
    if detector is not None and not _throw_read(kept, config):
        # Only the dice the pip groups missed, each read as a spot where no pips were seen
        # (`spot_dice`: a die, a die caught rolling, or none). Read together with a pip
        # group's crops, a box's crop changed how the dice the pip groups had found were read
        # (on the tuning sets: cocked dice read flat, one die read as two), and a die in flight
        # was read as a cocked one.
        apart = config.model_min_separation * side_px
        missed = [
            d.center
            for d in detected_dice(image, side_px, detector, config, mask, lean)
            if all(math.dist(d.center, k.center) > apart for k in kept)
        ]
        kept += spot_dice(image, missed, side_px, classifier, config, lean)
    return centred(image, kept, classifier, config, lean)


def _throw_read(dice: list[DieSeen], config: DiceConfig) -> bool:
    """Whether `dice` hold two dice at rest, each at least `board_detector_unless_sure` to be a
    die, `board_detector_unless_apart` die sides or more apart."""
    sure = [d for d in dice if not d.rolling and d.score >= config.board_detector_unless_sure]
    return any(
        math.dist(a.center, b.center) >= config.board_detector_unless_apart * a.side_px
        for a, b in itertools.combinations(sure, 2)
    )


def board_detector_for(config: DiceConfig) -> BoardDiceDetector | None:
    """The board dice detector `config` asks for, or None (turned off, or no model file)."""
    if not config.use_board_detector:
        return None
    return load_board_detector(config.board_detector_path or str(DEFAULT_BOARD_DETECTOR))


def detected_dice(
    image: NDArray[np.uint8],
    side_px: float,
    detector: BoardDiceDetector,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """The dice the board detector finds in the frame `image` (inside `mask`), as candidates
    for the crop classifier: no value yet, centred on the top face.

    A box holds a die's top face and the side face the camera sees between it and its foot,
    so its middle lies half the lean's reach back towards the foot from the top face's centre,
    which the crops are cut round (on tuning set 61's flat dice, box middles moved so lie a
    median 0.03 die sides from the top face's centre, against 0.15 unmoved).
    """
    found = detector.detect(image, config.board_detector_min_score, _BOX_MAX_OVERLAP)
    if mask is not None:
        h, w = mask.shape[:2]
        found = [
            d
            for d in found
            if 0 <= int(d.center[0]) < w
            and 0 <= int(d.center[1]) < h
            and mask[int(d.center[1]), int(d.center[0])]
        ]
    out = []
    for die, how in zip(found, _leans_at([d.center for d in found], lean), strict=True):
        reach = how.sides * side_px * how.scale / 2
        turn = math.radians(how.turn_deg)
        x, y = die.center
        top = (x - math.sin(turn) * reach, y + math.cos(turn) * reach)
        out.append(DieSeen(top, None, (), side_px, True, die.score))
    return out


def centred(
    image: NDArray[np.uint8],
    dice: list[DieSeen],
    classifier: DiceClassifier,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """`dice` with each one read flat whose face is doubtful (its confidence under
    `config.face_search_below`) read again where its face shows best.

    A die's centre is its pip groups', which can lie off its middle, and a crop off the middle
    takes in part of whatever lies beside it: another die (two dice touching, a cocked die
    leaning on a flat one), whose pips the classifier may count as this one's. At a die's own
    middle it reads faces almost without fault (on the tuning sets, crops at the true centres
    of flat dice: 348 of 350 right). So crops on a grid up to `config.face_search_sides` die
    sides round the centre, `face_search_step` apart (at the die's size there), are read, and
    the die takes the face and centre of the crop whose likeliest face is surest. It keeps its
    score, and its flatness unless the crops within one step of its centre, their class
    probabilities averaged, call it tilted (`model_min_cocked`, as for one crop): one crop at
    the pip groups' centre can miss the lean the crops round it see, and the surest face is
    the crop that shows it least. A centre that would come closer than `model_min_separation`
    die sides to another die's is not taken (two dice cannot overlap): that die keeps its
    centre and face.
    """
    reach, step = config.face_search_sides, config.face_search_step
    flat = [
        k
        for k, d in enumerate(dice)
        if d.flat and not d.rolling and (d.confidence or 0.0) < config.face_search_below
    ]
    if reach <= 0 or not flat:
        return dice
    offsets = _grid(reach, step)
    # The crops within one step of the centre (1 % slack for the grid's float steps).
    near = [i for i, (dx, dy) in enumerate(offsets) if max(abs(dx), abs(dy)) <= step * 1.01]
    leans = _leans_at([dice[k].center for k in flat], lean)
    spots: list[tuple[tuple[float, float], float]] = []
    for k, how in zip(flat, leans, strict=True):
        (x, y), side = dice[k].center, dice[k].side_px * how.scale
        spots += [((x + dx * side, y + dy * side), dice[k].side_px) for dx, dy in offsets]
    grid = _read_crops(image, spots, [how for how in leans for _ in offsets], classifier)
    out = list(dice)
    for n, (k, how) in enumerate(zip(flat, leans, strict=True)):
        probs = grid[n * len(offsets) : (n + 1) * len(offsets)]
        round_centre = probs[near].mean(axis=0)
        tilt = max(out[k].tilt, float(round_centre[COCKED] + round_centre[ROLLING]))
        out[k] = dataclasses.replace(out[k], flat=not _tilted(round_centre, config), tilt=tilt)
        best = int(np.argmax(probs[:, :6].max(axis=1)))
        centre = spots[n * len(offsets) + best][0]
        apart = config.model_min_separation * dice[k].side_px * how.scale
        if any(math.dist(centre, d.center) < apart for j, d in enumerate(out) if j != k):
            continue
        out[k] = dataclasses.replace(_with_face(out[k], probs[best]), center=centre)
    return out


def spot_dice(
    image: NDArray[np.uint8],
    spots: list[tuple[float, float]],
    side_px: float,
    classifier: DiceClassifier,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """The dice the crop classifier reads at `spots` (image pixels, where no pips were seen;
    `referee.vision.spots.unexplained_spots`), sureness `1 - P(no die)` as their score: a die
    caught rolling (no value, not flat) where it says rolling with at least
    `rolling_min_share`, else a die read as a pip group's is (`_read_as`) where its no-die share
    is under `spot_max_none`."""
    if not spots:
        return []
    probs = _read_crops(
        image, [(spot, side_px) for spot in spots], _leans_at(spots, lean), classifier
    )
    dice = []
    for spot, p in zip(spots, probs, strict=True):
        sure = float(1 - p[NONE])
        if p[ROLLING] >= config.rolling_min_share:
            dice.append(DieSeen(spot, None, (), side_px, False, sure, rolling=True))
        elif p[NONE] < config.spot_max_none:
            dice.append(_read_as(DieSeen(spot, None, (), side_px, True, 0.0), p, sure, config))
    return dice


# Boxes overlapping a better one by more than this (intersection over union) are the same die.
_BOX_MAX_OVERLAP = 0.5


# Dice read beside a die found alone: how many crops round it, and how the die found is painted
# out first (its top face and the side face the lean shows, in die sides, with the median
# colour of a ring round it).
_BESIDE_DIRECTIONS = 8
_PAINT_TOP_SIDES = 0.75
_PAINT_SIDE_FACE_SIDES = 0.6
_PAINT_RING_SIDES = (1.6, 2.1)


def dice_beside(
    image: NDArray[np.uint8],
    die: DieSeen,
    side_px: float,
    classifier: DiceClassifier,
    config: DiceConfig,
    lean: LeanAt | None = None,
) -> list[DieSeen]:
    """Dice at rest the classifier reads all round `die`, `config.beside_sides` die sides from
    its centre (as `spot_dice` reads spots): the other die of a throw lying against it shows no
    pip group of its own when its pips run into this one's, and the spot search leaves out what
    lies next to a die found. The classifier takes a crop holding part of any die for a die, so
    `die` (its top face and the side face the lean shows) is painted out first."""
    how = _leans_at([die.center], lean)[0]
    side = side_px * how.scale
    x, y = die.center
    reach = config.beside_sides * side
    spots = [
        (x + reach * math.cos(a), y + reach * math.sin(a))
        for a in np.arange(_BESIDE_DIRECTIONS) * 2 * math.pi / _BESIDE_DIRECTIONS
    ]
    painted = _painted_out(image, die.center, side, how)
    return [
        d for d in spot_dice(painted, spots, side_px, classifier, config, lean) if not d.rolling
    ]


def _painted_out(
    image: NDArray[np.uint8], centre: tuple[float, float], side: float, how: Lean
) -> NDArray[np.uint8]:
    """A copy of `image` with the die of `side` px at `centre` painted in the median colour of
    a ring round it: its top face and, `how.sides` back towards its foot (the lean shows the
    top face beside the foot, the side face between them), its side face."""
    x, y = centre
    turn = math.radians(how.turn_deg)
    side_x, side_y = x + math.sin(turn) * how.sides * side, y - math.cos(turn) * how.sides * side
    h, w = image.shape[:2]
    outer = _PAINT_RING_SIDES[1] * side
    x0, x1 = max(0, int(x - outer)), min(w, int(x + outer) + 1)
    y0, y1 = max(0, int(y - outer)), min(h, int(y + outer) + 1)
    rows, cols = np.mgrid[y0:y1, x0:x1]
    from_centre = np.hypot(cols - x, rows - y)
    ring = (from_centre > _PAINT_RING_SIDES[0] * side) & (from_centre < outer)
    hidden = (from_centre < _PAINT_TOP_SIDES * side) | (
        np.hypot(cols - side_x, rows - side_y) < _PAINT_SIDE_FACE_SIDES * side
    )
    out = image.copy()
    if ring.any():
        patch = out[y0:y1, x0:x1]
        patch[hidden] = np.median(patch[ring], axis=0).astype(np.uint8)
    return out


def _pip_dice(
    grey: NDArray[np.uint8],
    side_px: float,
    config: DiceConfig,
    mask: NDArray[np.uint8] | None = None,
) -> list[DieSeen]:
    """The pip groups (pips at `config.min_pip_contrast`) that can be one die's face of about
    `side_px`, as dice valued by their pip count."""
    pips = find_pips(grey, max(2.0, config.pip_diameter_frac * side_px), config, mask)
    # Grouping costs the cube of the pip count: a noisy or textured photo can give thousands of
    # faint spots, of which only the strongest can be a throw's pips.
    pips = sorted(pips, key=lambda p: -p.contrast)[: config.max_pips]
    groups = (
        _read_group(group, side_px, config) for group in group_pips(grey, pips, side_px, config)
    )
    return [die for die in groups if die is not None]


def _plain_blobs(
    small: NDArray[np.uint8], config: DiceConfig
) -> tuple[list[NDArray[np.uint8]], float]:
    """Masks of the single dice standing out from a plain surface, and the typical die side.

    Blobs of several touching dice are cut apart at the ridges of their distance transform
    (watershed seeded with one peak per die); blobs far larger than a few dice (a tray's wall,
    a cable) are left out.
    """
    short = min(small.shape[:2])
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    k = max(31, round(short * 0.25) | 1)
    surface = np.stack([cv2.medianBlur(lab[..., c], k) for c in range(3)], axis=-1)
    diff = np.linalg.norm(lab.astype(np.float32) - surface.astype(np.float32), axis=2)
    blobs = (diff >= config.plain_min_difference).astype(np.uint8)
    # A light die on a light surface differs only at its outline, pips and shading: close the
    # gaps and fill the holes its outline encloses. Only holes a die could be: a tray's wall
    # is a ring too, and filling it would swallow every die inside the tray.
    lo, hi = config.plain_size_frac
    blobs = cv2.morphologyEx(blobs, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    outlines, hierarchy = cv2.findContours(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    holes = [
        outline
        for outline, (_, _, _, parent) in zip(
            outlines, hierarchy[0] if outlines else [], strict=True
        )
        if parent >= 0 and cv2.contourArea(outline) <= (hi * short) ** 2
    ]
    cv2.drawContours(blobs, holes, -1, 1, thickness=-1)
    blobs = cv2.morphologyEx(blobs, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    sides = []
    for i in range(1, count):
        area = float(stats[i, cv2.CC_STAT_AREA])
        bw, bh = float(stats[i, cv2.CC_STAT_WIDTH]), float(stats[i, cv2.CC_STAT_HEIGHT])
        in_range = (lo * short) ** 2 <= area <= (hi * short) ** 2
        squarish = area >= 0.55 * bw * bh and max(bw, bh) <= 1.6 * min(bw, bh)
        if in_range and squarish:
            sides.append(math.sqrt(area))
    side = float(np.median(sides)) if sides else 0.08 * short
    masks: list[NDArray[np.uint8]] = []
    for i in range(1, count):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if not 0.35 * side**2 <= area <= 8 * side**2:
            continue
        mask = np.asarray(labels == i, dtype=np.uint8)
        if area <= 1.7 * side**2:
            masks.append(mask)
            continue
        dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        size = max(3, round(0.6 * side) | 1)
        peaks = (dist >= 0.3 * side) & (dist == cv2.dilate(dist, np.ones((size, size))))
        seeds_n, seeds = cv2.connectedComponents(peaks.astype(np.uint8))
        if seeds_n <= 2:
            masks.append(mask)
            continue
        markers = seeds.astype(np.int32)
        markers[mask == 0] = seeds_n  # everything outside the blob is one more basin
        cv2.watershed(small, markers)
        for k_seed in range(1, seeds_n):
            part = np.asarray((markers == k_seed) & (mask > 0), dtype=np.uint8)
            if part.sum() >= 0.35 * side**2:
                masks.append(part)
    return masks, side


def detector_for(config: DiceConfig) -> DiceDetector | None:
    """The dice detector `config` asks for, or None (turned off, or no model file)."""
    if not config.use_detector:
        return None
    return load_detector(config.detector_path or str(DEFAULT_DETECTOR), config.detector_input_px)


def face_reader_for(config: DiceConfig) -> FaceReader | None:
    """The face reader `config` asks for, or None (turned off, or no model file)."""
    if not config.use_face_model:
        return None
    return load_face_reader(config.face_model_path or str(DEFAULT_FACE_MODEL))


def detect_dice(
    image: NDArray[np.uint8],
    detector: DiceDetector,
    config: DiceConfig,
    classifier: DiceClassifier | None = None,
    faces: FaceReader | None = None,
) -> list[DieSeen]:
    """Dice the learned detector finds in a photo of dice alone, best first.

    The detector places each die; its face and flatness are read from crops at full resolution,
    where the detector sees the whole photo shrunk (its face scores read bright dice well and
    dark ones with dark pips poorly). The face reader, when there is one, reads the face from
    a tight crop of the box at its four quarter turns (with no camera known a face reads the
    same any way up; the mean of four is steadier than one). The crop
    classifier reads the flatness (and the face, without a face reader) from crops at three
    sizes round the box, each turned by every quarter turn. Without either, the face the
    detector scores highest.
    """
    found = detector.detect(
        image,
        config.detector_min_score,
        config.detector_max_overlap,
        config.detector_min_separation,
    )
    if not found:
        return []
    if classifier is None:
        # The detector's face scores as class probabilities that say nothing of a tilt.
        probs = np.zeros((len(found), len(CLASSES)))
        probs[:, :6] = [d.faces for d in found]
    else:
        crops = [
            np.ascontiguousarray(np.rot90(crop_die(image, d.center, max(d.size) * size), turns))
            for d in found
            for size in PLAIN_CROP_SIZES
            for turns in range(4)
        ]
        probs = classifier.probabilities(crops).reshape(len(found), -1, len(CLASSES)).mean(axis=1)
    if faces is not None:
        face_crops = [
            np.ascontiguousarray(np.rot90(crop_face(image, d.center, max(d.size)), turns))
            for d in found
            for turns in range(4)
        ]
        read = faces.probabilities(face_crops).reshape(len(found), 4, 6).mean(axis=1)
        probs[:, :6] = read * np.maximum(probs[:, :6].sum(axis=1, keepdims=True), 1e-9)
    return [
        _read_as(DieSeen(d.center, None, (), max(d.size), True, 0.0), p, d.score, config)
        for d, p in zip(found, probs, strict=True)
    ]


def find_dice_on_plain(image: NDArray[np.uint8], config: DiceConfig) -> list[DieSeen]:
    """Dice in a photo of dice alone on a plain surface (a tray, a desk), no board profile.

    The learned detector (`detect_dice`) reads them when its model is there. Without it,
    dice stand out from the surface round them: the image is compared with a broad median of
    itself (the surface), and compact blobs of the difference are dice (`_plain_blobs`). Their
    size gives the pip size. With the crop classifier, the blobs and the strongest pip groups
    away from the dice the blobs gave (dice merged with each other or a tray's wall) are its
    candidates; without it, pips are counted inside each blob, leaving out a margin along its
    outline where a tilted die shows its side faces.
    """
    detector = detector_for(config)
    if detector is not None:
        return detect_dice(image, detector, config, classifier_for(config), face_reader_for(config))
    h, w = image.shape[:2]
    scale = min(1.0, config.plain_work_px / min(h, w))
    small = np.asarray(
        cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA),
        dtype=np.uint8,
    )
    grey = to_grey(small)
    masks, side = _plain_blobs(small, config)
    classifier = classifier_for(config)
    if classifier is not None:
        blob_dice = [_blob_die(mask, scale) for mask in masks]
        # Dice touching each other or a tray's wall merge into blobs too large for a die; their
        # pips still propose them, at the size of the blobs the model takes for dice (blobs
        # are pips and specks too where the dice are few).
        taken = classify(image, blob_dice, classifier, config)
        if taken:
            side = float(np.median([d.side_px for d in taken])) * scale
        pip_config = dataclasses.replace(config, min_pip_contrast=config.model_pip_contrast)
        proposed = sorted(_pip_dice(grey, side, pip_config), key=lambda d: -d.score)
        # Next to a die already found, pips are its side faces (an oblique view): not dice.
        free = [
            DieSeen((d.center[0] / scale, d.center[1] / scale), None, (), side / scale, True, 0.0)
            for d in proposed
            if all(
                math.dist(d.center, (t.center[0] * scale, t.center[1] * scale)) > 1.2 * side
                for t in taken
            )
        ]
        return classify(image, blob_dice + free[: config.model_max_candidates], classifier, config)
    dice: list[DieSeen] = []
    for mask in masks:
        inner = np.asarray(cv2.distanceTransform(mask, cv2.DIST_L2, 3) >= 0.12 * side, np.uint8)
        pips = find_pips(grey, config.pip_diameter_frac * side, config, inner)
        ys, xs = np.nonzero(mask)
        centre = (float(xs.mean()) / scale, float(ys.mean()) / scale)
        if not pips:
            continue
        # One die shows one pip colour: keep the polarity with the stronger pips.
        strength = {pol: sum(p.contrast for p in pips if p.polarity == pol) for pol in (1, -1)}
        polarity = max(strength, key=lambda pol: strength[pol])
        face = sorted((p for p in pips if p.polarity == polarity), key=lambda p: -p.contrast)
        face = face[:6]
        scaled = tuple(
            dataclasses.replace(p, x=p.x / scale, y=p.y / scale, diameter=p.diameter / scale)
            for p in face
        )
        if len(scaled) > 1:
            centre = (float(np.mean([p.x for p in scaled])), float(np.mean([p.y for p in scaled])))
        score = float(sum(p.contrast for p in face))
        dice.append(DieSeen(centre, len(face), scaled, side / scale, True, score))
    return dice


def _blob_die(mask: NDArray[np.uint8], scale: float) -> DieSeen:
    """A candidate die from a blob mask of the shrunk image: its bounding box's centre and
    larger side, in full-size pixels (value and score are the classifier's to fill)."""
    x, y, w, h = cv2.boundingRect(mask)
    centre = ((x + w / 2) / scale, (y + h / 2) / scale)
    return DieSeen(centre, None, (), max(w, h) / scale, True, 0.0)
