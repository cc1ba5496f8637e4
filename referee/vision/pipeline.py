"""The whole reading of one still image: calibration, rectification, checkers, dice, verdict.

Each stage is timed and its result kept as plain data (`VisionResult`), so a caller can show,
score or log any part of it. With a saved profile the board is not searched for (the live
referee calibrates once); without one it is found in every image (`board_finder`), which is what
scoring on generated scenes, each from a different camera, needs.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.rules import Side, Variant
from referee.session.observation import DiceObservation, DieObservation, Half
from referee.session.throws import throw_faults
from referee.vision.board_finder import RaisedView
from referee.vision.calibration import (
    BoardProfile,
    CalibrationError,
    apply_homography,
    order_seen,
)
from referee.vision.camera import FloatArray
from referee.vision.checkers import (
    CheckerEvidence,
    CheckerReading,
    DieOnChecker,
    checker_evidence,
    classical_checkers,
    slot_centres,
)
from referee.vision.config import CheckerConfig, VisionConfig
from referee.vision.dice import (
    DieSeen,
    LeanAt,
    board_face_reader_for,
    board_faces_read,
    classifier_for,
    dice_beside,
    find_dice,
    find_dice_on_plain,
    spot_dice,
    tilt_checked,
    tilt_reader_for,
    to_grey,
    touching_read,
)
from referee.vision.dice_classifier import Lean
from referee.vision.geometry import POINTS, BoardModel, Canvas, HomeSide, make_canvas
from referee.vision.markers import locate_board, sticker_mask
from referee.vision.piles import pile_slants, place_feet
from referee.vision.quality import PictureQuality, measure_quality
from referee.vision.shade import board_light, relit_photo
from referee.vision.spots import unexplained_spots
from referee.vision.workers import beside

Color = Literal["white", "black"]
RollZone = Literal["same_half", "right_half"]
"""Where both dice of a throw must lie (RULES.md §2): anywhere in one half, or the roller's
right-hand half (short nardy's default)."""

ROLL_ZONES: tuple[RollZone, ...] = ("same_half", "right_half")

# Score factors for pip groups at a triangle's tip and on a checker (see `_discount`).
_TIP_DISCOUNT = 0.35
_CHECKER_DISCOUNT = 0.6
# Dice may lie this far (mm) beyond the board's outline and still be looked for.
_TABLE_MARGIN_MM = 140.0
# A spot this many die sides from a die read by its pips is that die (its shadow, its side).
_SEEN_DIE_SIDES = 1.5


@dataclasses.dataclass(frozen=True)
class PointResult:
    """One point: white's number, base and tip in image pixels, colour, count, confidence."""

    point: int
    base: tuple[float, float]
    tip: tuple[float, float]
    color: Color | None
    count: int
    confidence: float


@dataclasses.dataclass(frozen=True)
class ThrowVerdict:
    """Whether the throw seen stands, and the first fault's name when not (None when valid)."""

    valid: bool
    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class DieResult:
    """One die: image centre, value, and the facts the verdict uses. `half` is the board half
    as seen from White's seat (the physical board's; `Half.seen_by` gives the roller's);
    `confidence` how sure the value is (None where the reader does not score it), `faces` the
    probability of each face 1..6 (empty where the reader does not score them); `rolling` a
    die caught rolling (blurred: no value, not flat)."""

    center: tuple[float, float]
    value: int | None
    flat: bool
    on_checker: bool
    on_board: bool
    half: Half | None
    confidence: float | None = None
    faces: tuple[float, ...] = ()
    rolling: bool = False


@dataclasses.dataclass(frozen=True)
class VisionResult:
    """Everything read from one image. Board fields are None/empty when no board was found.

    `corners` are the playing surface's corners as seen (top-left, top-right, bottom-right,
    bottom-left in the image); `timings_ms` has one entry per stage that ran; `note` says why
    no board was found, or what makes the picture unfit to read (`quality.py`), as measured
    in `picture` (None with no board).
    """

    corners: tuple[tuple[float, float], ...] | None
    points: tuple[PointResult, ...]
    bar: dict[Color, int] | None
    off: dict[Color, int] | None
    dice: tuple[DieResult, ...]
    roll: ThrowVerdict
    timings_ms: dict[str, float]
    profile: BoardProfile | None
    note: str | None = None
    picture: PictureQuality | None = None


class _Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = round((time.perf_counter() - start) * 1e3, 3)


def _timed_checkers(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    home: HomeSide,
    config: CheckerConfig,
    variant: Variant | None,
    slants: FloatArray,
) -> tuple[CheckerReading, CheckerEvidence | None, float]:
    """The checkers as `read_checkers` reads them, the evidence they were read from where a
    network read them (to read them again once the dice are found, `CheckerEvidence.reading`),
    and how long it took (ms)."""
    start = time.perf_counter()
    evidence = checker_evidence(rectified, canvas, home, config, variant, slants)
    reading = (
        evidence.reading()
        if evidence is not None
        else classical_checkers(rectified, canvas, home, config)
    )
    return reading, evidence, round((time.perf_counter() - start) * 1e3, 3)


def canvas_for(profile: BoardProfile, config: VisionConfig) -> Canvas:
    """The canonical board image for this profile's board."""
    r = config.rectify
    return make_canvas(profile.model, r.surface_width_px, r.margin_side_mm, r.margin_edge_mm)


@dataclasses.dataclass(frozen=True)
class EarlierScene:
    """The last still picture of the same table and the dice read in it, for a live reading.

    Dice do not change unless touched, and new dice are thrown: a die found again where one
    was read then and its square has not changed since (`DiceConfig.new_die_min_change`) is
    read as then, and a die candidate where the picture has not changed and no die lay is part
    of the board (a checker's rings, a point's tip), not a die.
    """

    image: NDArray[np.uint8]
    dice: tuple[DieResult, ...]


class VisionPipeline:
    """Reads still images of one board (a fixed profile) or of any board (auto calibration)."""

    def __init__(self, config: VisionConfig | None = None, profile: BoardProfile | None = None):
        self.config = config or VisionConfig()
        self.profile = profile

    def read(
        self,
        image: NDArray[np.uint8],
        roller: Color = "white",
        zone: RollZone = "same_half",
        earlier: EarlierScene | None = None,
        variant: Variant | None = None,
    ) -> VisionResult:
        """Read `image` (BGR). `roller` and `zone` are the game context the verdict needs;
        `earlier`, the last still scene of a live game, keeps dice to what is new or was
        there then; `variant`, the game's, keeps the checkers to positions it can reach
        (`checkers.conserve`)."""
        timer = _Timer()
        profile = self.profile
        note = None
        if profile is None:
            with timer.stage("calibrate"):
                try:
                    profile = locate_board(image, self.config.calibration)
                except CalibrationError as exc:
                    note = f"no board found: {exc}"
        if profile is None:
            return self.read_dice_only(image, timer.ms, note)
        if not profile.fits_image(image):
            raise CalibrationError(
                f"image is {image.shape[1]}x{image.shape[0]}, the profile is for "
                f"{profile.image_size[0]}x{profile.image_size[1]}"
            )
        with timer.stage("picture"):
            picture = measure_quality(image, profile, self.config.quality)
        note = "; ".join(picture.notes(self.config.quality)) or None
        canvas = canvas_for(profile, self.config)
        with timer.stage("rectify"):
            rectified = profile.rectify(image, canvas)
            view = RaisedView(profile.inverse, profile.image_size, profile.lens)
            slants = pile_slants(profile, view, place_feet(canvas, profile.home))
        # The checkers are read beside the dice search (`workers`), which needs them only once
        # its pip groups and boxes are read. The two stages' times overlap.
        checkers_read = beside(
            _timed_checkers, rectified, canvas, profile.home, self.config.checkers, variant, slants
        )
        with timer.stage("dice"):
            dice, checkers = self._dice(
                image, profile, view, canvas, rectified, checkers_read, earlier
            )
        timer.ms["checkers"] = checkers_read.result()[2]
        with timer.stage("verdict"):
            roll = judge_dice(dice, roller, zone)
        return VisionResult(
            tuple((float(x), float(y)) for x, y in order_seen(np.array(profile.corners))),
            self._points(profile, checkers),
            checkers.bar,
            checkers.off,
            dice,
            roll,
            timer.ms,
            profile,
            note,
            picture,
        )

    def read_dice_only(
        self,
        image: NDArray[np.uint8],
        timings_ms: dict[str, float] | None = None,
        note: str | None = None,
    ) -> VisionResult:
        """Dice in a photo of dice alone on a plain surface: every die found, no board, no
        verdict (a throw needs the board)."""
        timer = _Timer()
        timer.ms.update(timings_ms or {})
        with timer.stage("dice"):
            seen = find_dice_on_plain(image, self.config.dice)
        dice = tuple(
            DieResult(d.center, d.value, d.flat, False, True, None, d.confidence, d.faces)
            for d in sorted(seen, key=lambda d: d.center)
        )
        return VisionResult(
            None, (), None, None, dice, ThrowVerdict(False, None), timer.ms, None, note
        )

    def _points(self, profile: BoardProfile, checkers: CheckerReading) -> tuple[PointResult, ...]:
        model = profile.model
        ends = np.array([model.base_tip(p, profile.home) for p in range(1, POINTS + 1)])
        pixels = profile.board_to_image(ends.reshape(-1, 2)).reshape(POINTS, 2, 2)
        out = []
        for pc, (base, tip) in zip(checkers.points, pixels, strict=True):
            out.append(
                PointResult(
                    pc.point,
                    (float(base[0]), float(base[1])),
                    (float(tip[0]), float(tip[1])),
                    pc.color,
                    pc.count,
                    round(pc.confidence, 4),
                )
            )
        return tuple(out)

    def _dice(
        self,
        image: NDArray[np.uint8],
        profile: BoardProfile,
        view: RaisedView,
        canvas: Canvas,
        rectified: NDArray[np.uint8],
        checkers_read: Future[tuple[CheckerReading, CheckerEvidence | None, float]],
        earlier: EarlierScene | None,
    ) -> tuple[tuple[DieResult, ...], CheckerReading]:
        """The dice, and the checkers (read again where a die lies on one,
        `_dice_on_checkers`)."""
        model = profile.model
        config = self.config.dice
        side_px = model.die_mm * profile.px_per_mm()
        x0, y0, x1, y1 = model.outline_box(profile.home)
        m = _TABLE_MARGIN_MM
        mask = profile.region_mask((x0 - m, y0 - m, x1 + m, y1 + m), image.shape)
        if profile.markers:
            # The markers' black and white cells read as pips: 81 false dice on 100 generated
            # marked boards, half the throws misjudged.
            mask &= ~sticker_mask(profile, image.shape)
        lean = die_lean(profile, view)
        # The earlier scene of a live game is a photo as taken: what changed is asked of this one.
        photo = image
        if config.shade_reach > 0:
            light = board_light(
                rectified,
                canvas,
                profile.home,
                config.shade_reach,
                config.shade_below,
                config.shade_lit,
            )
            image = relit_photo(image, profile, canvas, light)
        found = find_dice(image, side_px, config, mask.astype(np.uint8), lean)
        live = earlier if earlier is not None and earlier.image.shape == image.shape else None
        if live is not None:
            found = _new_or_unmoved(found, photo, live, side_px, config.new_die_min_change)
        checkers, evidence, _ = checkers_read.result()
        occupied = self._occupied_mm(canvas, profile, checkers)
        classifier = classifier_for(config)
        if found:
            found = _discount(found, profile, occupied, sureness=classifier is not None)
        # Fewer than a throw's two dice show pips: one may be in flight (blurred) or its pips
        # too faint.
        seen: list[DieSeen] = []
        if len(found) < 2 and classifier is not None:
            spots = profile.board_to_image(
                unexplained_spots(
                    rectified,
                    canvas,
                    profile.home,
                    [checkers.covered_slots(p.point) for p in checkers.points],
                    config,
                )
            )
            fresh = [
                (float(x), float(y))
                for x, y in spots
                if all(math.dist((x, y), d.center) > _SEEN_DIE_SIDES * side_px for d in found)
            ]
            seen = spot_dice(image, fresh, side_px, classifier, config, lean)
            alone = found + seen
            if len(alone) == 1 and not alone[0].rolling and config.beside_sides > 0:
                # Two dice touching: the one not read may lie against the one that is.
                seen += dice_beside(image, alone[0], side_px, classifier, config, lean)
            if live is not None:
                # A live game's still scene: the scene gate waited moving dice out, so a die
                # read rolling is a misreading; and as for pip groups, a spot is a new die only
                # where the picture changed since the earlier scene.
                seen = _new_or_unmoved(
                    [d for d in seen if not d.rolling],
                    photo,
                    live,
                    side_px,
                    config.new_die_min_change,
                )
        if profile.markers:
            # Spots and dice beside are looked for on the rectified board and round a die:
            # none on a sticker either.
            found = [d for d in found if _inside(mask, d.center)]
            seen = [d for d in seen if _inside(mask, d.center)]
        out = []
        reach = config.same_die_reach

        def same_die(die: DieSeen, surer: DieSeen) -> bool:
            [how] = lean([surer.center])
            within_px = (reach + how.sides) * side_px * how.scale
            return read_alike(die, surer) and math.dist(die.center, surer.center) < within_px

        tilt_reader = tilt_reader_for(config) if classifier is not None else None
        dice = _best(found, same_die=same_die, spots=seen)
        if tilt_reader is not None:
            dice = [tilt_checked(image, die, tilt_reader, config, lean) for die in dice]
        face_reader = board_face_reader_for(config) if classifier is not None else None
        if face_reader is not None:
            dice = board_faces_read(image, dice, face_reader, config, lean)
            if classifier is not None:
                dice = touching_read(image, dice, face_reader, classifier, config, lean)
        # A die's centre is its top face's, a die (or a die and a checker) above where it
        # stands: far from under the camera that shows well beside its foot.
        feet = [_foot_mm(profile, view, die.center, model.die_mm) for die in dice]
        # Where a die on a checker would stand.
        raised = [
            _foot_mm(profile, view, die.center, model.die_mm + model.checker_thick_mm)
            for die in dice
        ]
        if evidence is not None and self.config.checkers.rim_colour_under_dice:
            on_checkers = self._dice_on_checkers(dice, raised, canvas, profile, checkers, evidence)
            if on_checkers:
                checkers = evidence.reading(on_checkers)
                occupied = self._occupied_mm(canvas, profile, checkers)
        for k, (die, mm, on_checker_mm) in enumerate(zip(dice, feet, raised, strict=True)):
            if (
                not die.flat
                and not die.rolling
                and die.value is not None
                and config.cocked_support_sides > 0
                and (support_clearance(mm, feet[:k] + feet[k + 1 :], occupied, model) or 0.0)
                > config.cocked_support_sides
            ):
                # A cocked die leans on something; the tilt reader, which sees a crop round the
                # die, calls some flat dice tilted anywhere.
                die = dataclasses.replace(die, flat=True)
            on_board = bool(x0 <= mm[0] <= x1 and y0 <= mm[1] <= y1)
            near = (
                bool(
                    np.min(np.linalg.norm(occupied - on_checker_mm, axis=1))
                    < model.checker_mm * self.config.dice.on_checker_frac
                )
                if len(occupied)
                else False
            )
            if near and not die.flat and not die.rolling and config.on_checker_lies_flat:
                # A die on a checker stands a checker's thickness higher than the tilt reader
                # expects, so more of its side shows: 4 of 41 flat dice on checkers read
                # tilted on tuning sets 61, 62 and 81, and none of 164 cocked dice read on
                # a checker. The throw is void either way.
                die = dataclasses.replace(die, flat=True)
            half = Half(model.half_of(float(mm[0]))) if on_board else None
            out.append(
                DieResult(
                    die.center,
                    die.value,
                    die.flat,
                    near,
                    on_board,
                    half,
                    die.confidence,
                    die.faces,
                    die.rolling,
                )
            )
        return tuple(out), checkers

    def _occupied_mm(
        self, canvas: Canvas, profile: BoardProfile, checkers: CheckerReading
    ) -> FloatArray:
        return np.asarray(canvas.to_mm(slot_centres(canvas, profile.home))[checkers.covered()])

    def _dice_on_checkers(
        self,
        dice: Sequence[DieSeen],
        raised_mm: Sequence[FloatArray],
        canvas: Canvas,
        profile: BoardProfile,
        checkers: CheckerReading,
        evidence: CheckerEvidence,
    ) -> list[DieOnChecker]:
        """The dice that lie on a checker, each standing at board millimetres `raised_mm` as it
        would on one: within `on_checker_frac` of a checker's width of a slot the reading
        covers or the strip network calls likelier occupied than not (a die on a lone checker
        hides the checker's middle, and the reading may have left it out for the die's colour
        there)."""
        centres = canvas.to_mm(slot_centres(canvas, profile.home))
        slots = np.argwhere(checkers.covered() | (evidence.occupied > 0.5))
        if not len(slots):
            return []
        spots = centres[slots[:, 0], slots[:, 1]]
        reach = profile.model.checker_mm * self.config.dice.on_checker_frac
        out = []
        for die, mm in zip(dice, raised_mm, strict=True):
            gaps = np.linalg.norm(spots - mm, axis=1)
            nearest = int(np.argmin(gaps))
            if gaps[nearest] < reach:
                # The die's top face shows where its centre meets the board's plane.
                top = canvas.to_px(profile.image_to_board(np.array([die.center]))[0])
                foot = canvas.to_px(mm)
                out.append(
                    DieOnChecker(
                        (int(slots[nearest, 0]), int(slots[nearest, 1])),
                        (float(foot[0]), float(foot[1])),
                        (float(top[0]), float(top[1])),
                    )
                )
        return out


def support_clearance(
    foot_mm: FloatArray,
    other_dice_mm: Sequence[FloatArray],
    checkers_mm: FloatArray,
    model: BoardModel,
) -> float | None:
    """How far, in die sides, the middle of a die standing at board millimetres `foot_mm` in
    one of the two fields is from the nearest thing it could lean on: a wall of its field (the
    frame's or the bar's), a checker's edge (centres `checkers_mm`), the other die's middle
    less half a side (`other_dice_mm`). None off the fields (on the frame, the bar, the tray),
    where what lies there is not known."""
    x, y = float(foot_mm[0]), float(foot_mm[1])
    bar_x0, _, bar_x1, _ = model.bar_box()
    if not (0 < x < model.width_mm and 0 < y < model.depth_mm) or bar_x0 <= x <= bar_x1:
        return None
    across = (x, bar_x0 - x) if x < bar_x0 else (x - bar_x1, model.width_mm - x)
    gaps = [min(*across, y, model.depth_mm - y)]
    if len(checkers_mm):
        centres = np.asarray(checkers_mm).reshape(-1, 2)
        gaps.append(float(np.linalg.norm(centres - foot_mm, axis=1).min()) - model.checker_mm / 2)
    gaps += [float(np.linalg.norm(other - foot_mm)) - model.die_mm / 2 for other in other_dice_mm]
    return min(gaps) / model.die_mm


def _inside(mask: NDArray[np.bool_], point: tuple[float, float]) -> bool:
    x, y = round(point[0]), round(point[1])
    return 0 <= y < mask.shape[0] and 0 <= x < mask.shape[1] and bool(mask[y, x])


def _foot_mm(
    profile: BoardProfile, view: RaisedView, centre: tuple[float, float], height_mm: float
) -> FloatArray:
    """Board millimetres (2,) under an image point `centre` that stands `height_mm` above the
    board's plane."""
    seen = profile.lens.undistort(np.array([centre]))
    return np.asarray(apply_homography(profile.homography, view.foot(seen, height_mm))[0])


def die_lean(profile: BoardProfile, view: RaisedView | None = None) -> LeanAt:
    """How a flat die leans at each spot of the pictures `profile` was made for: where its top
    face shows beside its foot, seen by the camera whose pose the board's homography (and the
    profile's lens, when calibrated) gives (`view`, when the caller has it already)."""
    if view is None:
        view = RaisedView(profile.inverse, profile.image_size, profile.lens)
    die_mm = profile.model.die_mm
    side_px = die_mm * profile.px_per_mm()

    half = die_mm / 2
    across = np.array([[-half, 0.0], [half, 0.0], [0.0, -half], [0.0, half]])

    def lean(centres: Sequence[tuple[float, float]]) -> list[Lean]:
        seen = np.array(centres, dtype=np.float64).reshape(-1, 2)
        shifts = view.shift(profile.lens.undistort(seen), die_mm)
        # A die's ends across it both ways, as seen (spot, end, xy).
        ends = profile.board_to_image(profile.image_to_board(seen)[:, None, :] + across)
        local_px = (
            np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
            + np.linalg.norm(ends[:, 3] - ends[:, 2], axis=1)
        ) / 2
        return [
            Lean(math.degrees(math.atan2(-dx, dy)), math.hypot(dx, dy) / side_px, px / side_px)
            for (dx, dy), px in zip(shifts.tolist(), local_px.tolist(), strict=True)
        ]

    return lean


def judge_dice(dice: tuple[DieResult, ...], roller: Color, zone: RollZone) -> ThrowVerdict:
    """The verdict on the dice read, by the session's throw rules (`throw_faults`)."""
    side = Side.from_label(roller)
    seen = DiceObservation(
        tuple(
            DieObservation(d.value, d.flat, d.on_checker, d.on_board, d.half, d.rolling)
            for d in dice
        )
    )
    faults = throw_faults(seen, Half.right_of(side) if zone == "right_half" else None)
    return ThrowVerdict(not faults, str(faults[0]) if faults else None)


def _discount(
    dice: list[DieSeen], profile: BoardProfile, occupied: FloatArray, sureness: bool
) -> list[DieSeen]:
    """Lower the scores of pip groups where the board itself makes spots: at a triangle's tip
    (a narrow dark or light end) and on a checker (turned rings). Dice do lie there too, so
    these are discounted, not dropped. `sureness`: the scores are the crop classifier's
    probabilities that each is a die (else the pip counter's unbounded scores)."""
    model = profile.model
    tips = np.array([model.base_tip(p, profile.home)[1] for p in range(1, POINTS + 1)])
    where = profile.image_to_board(np.array([d.center for d in dice]))
    out = []
    for die, mm in zip(dice, where, strict=True):
        factor = 1.0
        if np.min(np.linalg.norm(tips - mm, axis=1)) < 0.6 * model.die_mm:
            factor *= _TIP_DISCOUNT
        if len(occupied) and np.min(np.linalg.norm(occupied - mm, axis=1)) < model.checker_mm / 2:
            factor *= _CHECKER_DISCOUNT
        if sureness:
            # The factor scales the odds that it is a die: one the classifier is sure of stays
            # surer than a doubtful candidate elsewhere.
            sure = min(die.score, 1 - 1e-9)
            score = factor * sure / (factor * sure + 1 - sure)
        else:
            score = die.score * factor
        out.append(dataclasses.replace(die, score=score))
    return out


def _new_or_unmoved(
    dice: list[DieSeen],
    image: NDArray[np.uint8],
    earlier: EarlierScene,
    side_px: float,
    min_change: float,
) -> list[DieSeen]:
    """The candidates that are dice by the earlier scene: where a die read then has not moved
    (its square unchanged), that die as read then; where the picture changed, the candidate;
    elsewhere (an unchanged spot where no die lay) nothing. An unmoved die is kept once, for
    the surest candidate near it (two candidates a little over `model_min_separation` apart
    are still the one die)."""
    unmoved = [
        e for e in earlier.dice if _change(image, earlier.image, e.center, side_px) < min_change
    ]
    kept = []
    claimed: set[int] = set()
    for die in sorted(dice, key=lambda d: -d.score):
        near = [k for k, e in enumerate(unmoved) if math.dist(die.center, e.center) < side_px]
        if near:
            if near[0] in claimed:
                continue
            claimed.add(near[0])
            then = unmoved[near[0]]
            kept.append(
                dataclasses.replace(
                    die,
                    center=then.center,
                    value=then.value,
                    flat=then.flat,
                    confidence=then.confidence,
                    faces=then.faces,
                    unmoved=True,
                )
            )
        elif _change(image, earlier.image, die.center, side_px) >= min_change:
            kept.append(die)
    return kept


def _change(
    image: NDArray[np.uint8],
    earlier: NDArray[np.uint8],
    centre: tuple[float, float],
    side_px: float,
) -> float:
    """Mean grey-level change between two pictures over the die-sized square at `centre`."""
    half = max(2, round(side_px / 2))
    x, y = round(centre[0]), round(centre[1])
    x0, y0 = max(0, x - half), max(0, y - half)
    now = to_grey(image[y0 : y + half + 1, x0 : x + half + 1])
    then = to_grey(earlier[y0 : y + half + 1, x0 : x + half + 1])
    return float(cv2.absdiff(now, then).mean()) if now.size else 0.0


def read_alike(die: DieSeen, other: DieSeen) -> bool:
    """Whether two reads could be one die's: one face, or both tilted (a cocked die's pips
    in two groups, each group's crops seeing it lean, or one seeing it flat)."""
    return die.value == other.value or not (die.flat or other.flat)


def _best(
    dice: list[DieSeen],
    count: int = 2,
    same_die: Callable[[DieSeen, DieSeen], bool] | None = None,
    spots: Sequence[DieSeen] = (),
) -> list[DieSeen]:
    """The `count` surest dice (a throw has two), in image order left to right. A die that
    `same_die` takes for a second read of a surer one kept is passed over while a die elsewhere
    is left to take its place (two dice touching, both read alike, stay two when nothing else
    is seen). `spots` (dice read at spots on the board or beside a die, where neither pip
    groups nor the board dice detector showed one) only take the places `dice` leave, those
    read at rest first, surest first: a die found so is surer than one the crop classifier
    alone reads at a spot, whatever that classifier's sureness says."""
    # Of the spots, one read at rest (a face the classifier saw) before one read rolling (a
    # blur, which a hand's or a shadow's edge makes too).
    ranked = sorted(dice, key=lambda d: -d.score) + sorted(
        spots, key=lambda d: (d.rolling, -d.score)
    )
    kept: list[DieSeen] = []
    for k, die in enumerate(ranked):
        if len(kept) == count:
            break
        more_left = k + 1 < len(ranked)
        if same_die is not None and more_left and any(same_die(die, d) for d in kept):
            continue
        kept.append(die)
    return sorted(kept, key=lambda d: d.center[0])
