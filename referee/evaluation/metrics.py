"""Scores: what one reading got right against its ground truth, and totals over a data set.

Everything here is plain data computed by pure functions: `score_image` compares one `Reading`
with one `GroundTruth`; `summarize` folds many `ImageScore`s into a `Summary`. Shares are kept as
`Rate`s (numerator and denominator) so a report can say "22/24" as well as "91.7 %".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.evaluation.basics import Color, RollVerdict, SideCounts
from referee.evaluation.config import EvalConfig
from referee.evaluation.matching import distance, match_dice, match_points
from referee.evaluation.reading import Reading
from referee.evaluation.truth import GroundTruth, TruthBoard, TruthDie

CORE_ROLL_CLASSES: tuple[str, ...] = ("valid", "cocked", "on_checker", "off_board", "split_halves")
"""Throw-verdict classes always shown; others (wrong_half, rolling, ...) appear when present."""

ROLL_CLASS_ORDER: tuple[str, ...] = (*CORE_ROLL_CLASSES, "wrong_half", "rolling")

NO_VERDICT = "missing"
"""Predicted class when the reader gave no throw verdict for an image whose truth has one."""

UNSPECIFIED_VOID = "void"
"""Predicted class when the reader called the throw void without naming a reason."""

DIE_ATTRIBUTES: tuple[str, ...] = ("flat", "on_checker", "on_board", "half")


@dataclass(frozen=True)
class Rate:
    """A share as a count: `numerator` of `denominator`. `share` is None when nothing counted."""

    numerator: int
    denominator: int

    @property
    def share(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None


# ---------------------------------------------------------------------------------------------
# One image


@dataclass(frozen=True)
class PointOutcome:
    """One ground-truth point against the predicted point matched to it (None: not matched);
    `in_view`: no checker of it lies under a hand."""

    point: int
    truth_color: Color | None
    truth_count: int
    predicted_color: Color | None
    predicted_count: int | None
    in_view: bool = True

    @property
    def matched(self) -> bool:
        return self.predicted_count is not None

    @property
    def count_error(self) -> int:
        """Absolute checker-count error; an unmatched point counts as read empty."""
        return abs((self.predicted_count or 0) - self.truth_count)

    @property
    def exact(self) -> bool:
        """Matched, right count, and right colour where there are checkers to have one."""
        return self.predicted_count == self.truth_count and (
            self.truth_count == 0 or self.predicted_color == self.truth_color
        )


@dataclass(frozen=True)
class BoardScore:
    """Checker counts of one board: the 24 points, points the reader invented, bar, borne off;
    `numbered_right`, whether every point the reader numbered has the true point's number
    (white's seat and home found), None where it numbered none it was paired with;
    `in_view`, whether every checker of it is in view (none under a hand)."""

    points: tuple[PointOutcome, ...]
    extra_points: int
    extra_checkers: int
    bar_right: bool
    off_right: bool
    numbered_right: bool | None = None
    in_view: bool = True

    @property
    def points_exact(self) -> int:
        return sum(p.exact for p in self.points)

    @property
    def exact(self) -> bool:
        """Every point, the bar and the borne-off counts right, and no invented checkers."""
        return (
            self.points_exact == len(self.points)
            and self.extra_checkers == 0
            and self.bar_right
            and self.off_right
        )


@dataclass(frozen=True)
class CornerScore:
    """Board-corner errors in pixels (TL, TR, BR, BL); None when the reader found no board.
    `in_view`: which corners no hand covers."""

    errors_px: tuple[float, float, float, float] | None
    board_width_px: float
    in_view: tuple[bool, bool, bool, bool] = (True, True, True, True)


@dataclass(frozen=True)
class DieOutcome:
    """One ground-truth die against the predicted die matched to it.

    `predicted_value` is None when the die was missed or its face not read. `attributes` maps
    each attribute the truth records (flat, on_checker, on_board, half) to whether the matched
    prediction agrees; it is empty for a missed die. `in_view`: not under a hand.
    """

    truth_value: int
    truth_flat: bool | None
    matched: bool
    predicted_value: int | None
    attributes: Mapping[str, bool] = field(default_factory=dict)
    in_view: bool = True

    @property
    def value_right(self) -> bool:
        return self.predicted_value == self.truth_value


@dataclass(frozen=True)
class DiceScore:
    """The dice of one image: one outcome per true die, and predicted dice matching none."""

    dice: tuple[DieOutcome, ...]
    false_positives: int


@dataclass(frozen=True)
class RollOutcome:
    """The throw verdict as a (truth class, predicted class) pair for the confusion matrix."""

    truth: str
    predicted: str


@dataclass(frozen=True)
class ImageScore:
    """All scores of one image; parts the ground truth does not label are None.

    `hand` is the truth's: whether a hand or arm is over the board in the picture.
    """

    name: str
    hand: bool
    board: BoardScore | None
    corners: CornerScore | None
    dice: DiceScore
    roll: RollOutcome | None
    timings_ms: Mapping[str, float]


def roll_class(verdict: RollVerdict | None) -> str:
    """The confusion-matrix class of a throw verdict."""
    if verdict is None:
        return NO_VERDICT
    if verdict.valid:
        return "valid"
    return verdict.reason or UNSPECIFIED_VOID


def score_board(truth: TruthBoard, reading: Reading, config: EvalConfig) -> BoardScore:
    """Compare the checkers of `reading` with `truth` point by point, plus bar and borne off."""
    pairs = dict(match_points(truth.points, reading.points, config.point_match_spacing_frac))
    outcomes = []
    for i, tp in enumerate(truth.points):
        pred = reading.points[pairs[i]] if i in pairs else None
        outcomes.append(
            PointOutcome(
                point=tp.point,
                truth_color=tp.color,
                truth_count=tp.count,
                predicted_color=None if pred is None else pred.color,
                predicted_count=None if pred is None else pred.count,
                in_view=tp.in_view,
            )
        )
    matched_predictions = set(pairs.values())
    extras = [p for j, p in enumerate(reading.points) if j not in matched_predictions]
    numbered = [
        (truth.points[i].point, reading.points[j].point)
        for i, j in pairs.items()
        if reading.points[j].point is not None
    ]
    return BoardScore(
        points=tuple(outcomes),
        extra_points=len(extras),
        extra_checkers=sum(p.count for p in extras),
        bar_right=_counts_equal(reading.bar, truth.bar),
        off_right=_counts_equal(reading.off, truth.off),
        numbered_right=all(t == p for t, p in numbered) if numbered else None,
        in_view=truth.checkers_in_view,
    )


def score_corners(truth: TruthBoard, reading: Reading) -> CornerScore:
    """Pixel distance of each predicted board corner from the true one, in TL, TR, BR, BL order."""
    if reading.corners is None:
        return CornerScore(None, truth.width_px, truth.corners_in_view)
    e = [distance(t, p) for t, p in zip(truth.corners, reading.corners, strict=True)]
    return CornerScore((e[0], e[1], e[2], e[3]), truth.width_px, truth.corners_in_view)


def score_dice(truth: Sequence[TruthDie], reading: Reading, config: EvalConfig) -> DiceScore:
    """Match predicted dice to true ones (centre inside the true box) and compare them."""
    pairs = dict(match_dice(truth, reading.dice, config.die_box_margin_frac))
    outcomes = []
    for i, td in enumerate(truth):
        if i not in pairs:
            outcomes.append(DieOutcome(td.value, td.flat, False, None, in_view=td.in_view))
            continue
        pd = reading.dice[pairs[i]]
        predicted_attrs: dict[str, object] = {
            "flat": pd.flat,
            "on_checker": pd.on_checker,
            "on_board": pd.on_board,
            "half": pd.half,
        }
        truth_attrs: dict[str, object] = {
            "flat": td.flat,
            "on_checker": td.on_checker,
            "on_board": td.on_board,
            "half": td.half,
        }
        agree = {
            name: predicted_attrs[name] == value
            for name, value in truth_attrs.items()
            if value is not None
        }
        outcomes.append(DieOutcome(td.value, td.flat, True, pd.value, agree, td.in_view))
    return DiceScore(dice=tuple(outcomes), false_positives=len(reading.dice) - len(pairs))


def score_image(
    name: str,
    truth: GroundTruth,
    reading: Reading,
    timings_ms: Mapping[str, float],
    config: EvalConfig,
) -> ImageScore:
    """Every score of one image."""
    board = truth.board
    return ImageScore(
        name=name,
        hand=truth.hand,
        board=None if board is None else score_board(board, reading, config),
        corners=None if board is None else score_corners(board, reading),
        dice=score_dice(truth.dice, reading, config),
        roll=(
            None
            if truth.roll is None
            else RollOutcome(truth=roll_class(truth.roll), predicted=roll_class(reading.roll))
        ),
        timings_ms=dict(timings_ms),
    )


def _counts_equal(predicted: SideCounts | None, truth: SideCounts) -> bool:
    return predicted is not None and predicted == truth


# ---------------------------------------------------------------------------------------------
# A data set


@dataclass(frozen=True)
class BoardSummary:
    """Checker reading over all labelled boards.

    `count_error_histogram` maps an absolute per-point count error ("0", "1", ..., and "N+" for
    the last bin) to how many points had it.
    """

    boards: int
    points_exact: Rate
    points_in_view_exact: Rate
    count_mae: float | None
    count_error_histogram: Mapping[str, int]
    points_unmatched: int
    extra_points: int
    boards_exact: Rate
    boards_in_view_exact: Rate
    bar_right: Rate
    off_right: Rate
    numbered_right: Rate


@dataclass(frozen=True)
class CornerSummary:
    """Board-corner accuracy; errors are over every corner of every board the reader found."""

    boards: int
    boards_not_found: int
    mean_error_px: float | None
    median_error_px: float | None
    max_error_px: float | None
    mean_error_frac: float | None
    corners_within_tolerance: Rate
    corners_in_view_within_tolerance: Rate
    boards_within_tolerance: Rate
    tolerance_frac: float


@dataclass(frozen=True)
class DiceSummary:
    """Dice reading. Value rates count a missed die as wrong; `on_flat` only counts flat dice,
    `on_flat_in_view` only those no hand covers."""

    dice: int
    detected: Rate
    false_positives: int
    value_right: Rate
    value_right_when_detected: Rate
    value_right_on_flat: Rate
    value_right_on_flat_in_view: Rate
    attributes: Mapping[str, Rate]


@dataclass(frozen=True)
class ClassStats:
    """Precision (of the times the class was predicted) and recall (of its true cases)."""

    precision: Rate
    recall: Rate


@dataclass(frozen=True)
class ConfusionMatrix:
    """Throw verdicts: `counts[i][j]` images of true class i predicted as class j."""

    classes: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    per_class: Mapping[str, ClassStats]
    accuracy: Rate


@dataclass(frozen=True)
class StageTiming:
    """Milliseconds one stage took, over the images that reported it."""

    images: int
    mean: float
    median: float
    p95: float
    max: float


@dataclass(frozen=True)
class Summary:
    """Totals over one evaluation run. Sections with nothing to measure are None.

    `board`, `dice` and `roll` cover every labelled image; `board_still`, `dice_still` and
    `roll_still` only the images without a hand over the board, the only ones the live referee
    reads (its scene gate waits hands out; a hand can hide checkers and dice).
    """

    images_scored: int
    board: BoardSummary | None
    board_still: BoardSummary | None
    corners: CornerSummary | None
    dice: DiceSummary | None
    dice_still: DiceSummary | None
    roll: ConfusionMatrix | None
    roll_still: ConfusionMatrix | None
    timings_ms: Mapping[str, StageTiming]


def summarize(scores: Sequence[ImageScore], config: EvalConfig) -> Summary:
    """Fold per-image scores into data-set totals."""
    boards = [s.board for s in scores if s.board is not None]
    still_boards = [s.board for s in scores if s.board is not None and not s.hand]
    corners = [s.corners for s in scores if s.corners is not None]
    still = [s for s in scores if not s.hand]
    rolls = [s.roll for s in scores if s.roll is not None]
    still_rolls = [s.roll for s in still if s.roll is not None]
    return Summary(
        images_scored=len(scores),
        board=summarize_boards(boards, config) if boards else None,
        board_still=summarize_boards(still_boards, config) if still_boards else None,
        corners=summarize_corners(corners, config) if corners else None,
        dice=_dice_of(scores),
        dice_still=_dice_of(still),
        roll=confusion_matrix(rolls) if rolls else None,
        roll_still=confusion_matrix(still_rolls) if still_rolls else None,
        timings_ms=summarize_timings(s.timings_ms for s in scores),
    )


def summarize_boards(boards: Sequence[BoardScore], config: EvalConfig) -> BoardSummary:
    """Totals of the checker scores of `boards`."""
    points = [p for b in boards for p in b.points]
    in_view = [p for p in points if p.in_view]
    boards_in_view = [b for b in boards if b.in_view]
    last = config.count_error_histogram_max
    histogram = {str(e): 0 for e in range(last)} | {f"{last}+": 0}
    for p in points:
        histogram[str(p.count_error) if p.count_error < last else f"{last}+"] += 1
    return BoardSummary(
        boards=len(boards),
        points_exact=Rate(sum(p.exact for p in points), len(points)),
        points_in_view_exact=Rate(sum(p.exact for p in in_view), len(in_view)),
        count_mae=(sum(p.count_error for p in points) / len(points)) if points else None,
        count_error_histogram=histogram,
        points_unmatched=sum(not p.matched for p in points),
        extra_points=sum(b.extra_points for b in boards),
        boards_exact=Rate(sum(b.exact for b in boards), len(boards)),
        boards_in_view_exact=Rate(sum(b.exact for b in boards_in_view), len(boards_in_view)),
        bar_right=Rate(sum(b.bar_right for b in boards), len(boards)),
        off_right=Rate(sum(b.off_right for b in boards), len(boards)),
        numbered_right=Rate(
            sum(b.numbered_right is True for b in boards),
            sum(b.numbered_right is not None for b in boards),
        ),
    )


def summarize_corners(corners: Sequence[CornerScore], config: EvalConfig) -> CornerSummary:
    """Totals of the corner errors; a board the reader did not find fails the tolerance."""
    found = [c for c in corners if c.errors_px is not None]
    errors = np.array([e for c in found for e in c.errors_px or ()], dtype=np.float64)
    fracs = np.array(
        [e / c.board_width_px for c in found for e in c.errors_px or ()], dtype=np.float64
    )
    tol = config.corner_tolerance_frac
    # A board not found counts its corners in view as infinitely far off.
    seen = [
        e / c.board_width_px
        for c in corners
        for e, shown in zip(c.errors_px or (math.inf,) * 4, c.in_view, strict=True)
        if shown
    ]
    boards_within = sum(all(e / c.board_width_px <= tol for e in c.errors_px or ()) for c in found)
    return CornerSummary(
        boards=len(corners),
        boards_not_found=len(corners) - len(found),
        mean_error_px=float(errors.mean()) if errors.size else None,
        median_error_px=float(np.median(errors)) if errors.size else None,
        max_error_px=float(errors.max()) if errors.size else None,
        mean_error_frac=float(fracs.mean()) if fracs.size else None,
        corners_within_tolerance=Rate(int((fracs <= tol).sum()), 4 * len(corners)),
        corners_in_view_within_tolerance=Rate(sum(f <= tol for f in seen), len(seen)),
        boards_within_tolerance=Rate(boards_within, len(corners)),
        tolerance_frac=tol,
    )


def _dice_of(scores: Sequence[ImageScore]) -> DiceSummary | None:
    """The dice totals of `scores`' images; None when they hold no die and no false one."""
    dice = [d for s in scores for d in s.dice.dice]
    false_positives = sum(s.dice.false_positives for s in scores)
    return summarize_dice(dice, false_positives) if dice or false_positives else None


def summarize_dice(dice: Sequence[DieOutcome], false_positives: int) -> DiceSummary:
    """Totals of the die outcomes."""
    detected = [d for d in dice if d.matched]
    flat = [d for d in dice if d.truth_flat]
    flat_in_view = [d for d in flat if d.in_view]
    attributes = {}
    for name in DIE_ATTRIBUTES:
        judged = [d.attributes[name] for d in detected if name in d.attributes]
        if judged:
            attributes[name] = Rate(sum(judged), len(judged))
    return DiceSummary(
        dice=len(dice),
        detected=Rate(len(detected), len(dice)),
        false_positives=false_positives,
        value_right=Rate(sum(d.value_right for d in dice), len(dice)),
        value_right_when_detected=Rate(sum(d.value_right for d in detected), len(detected)),
        value_right_on_flat=Rate(sum(d.value_right for d in flat), len(flat)),
        value_right_on_flat_in_view=Rate(
            sum(d.value_right for d in flat_in_view), len(flat_in_view)
        ),
        attributes=attributes,
    )


def confusion_matrix(outcomes: Sequence[RollOutcome]) -> ConfusionMatrix:
    """Confusion matrix of throw verdicts with per-class precision and recall.

    The core classes are always listed; any other class appears once a truth or a prediction
    uses it, known ones in RULES.md order, unknown ones (e.g. "missing") after them by name.
    """
    seen = {o.truth for o in outcomes} | {o.predicted for o in outcomes}
    known = [c for c in ROLL_CLASS_ORDER if c in CORE_ROLL_CLASSES or c in seen]
    classes = (*known, *sorted(seen - set(known)))
    index = {c: i for i, c in enumerate(classes)}
    counts = [[0] * len(classes) for _ in classes]
    for o in outcomes:
        counts[index[o.truth]][index[o.predicted]] += 1
    per_class = {
        c: ClassStats(
            precision=Rate(counts[i][i], sum(row[i] for row in counts)),
            recall=Rate(counts[i][i], sum(counts[i])),
        )
        for c, i in index.items()
    }
    return ConfusionMatrix(
        classes=classes,
        counts=tuple(tuple(row) for row in counts),
        per_class=per_class,
        accuracy=Rate(sum(counts[i][i] for i in range(len(classes))), len(outcomes)),
    )


def summarize_timings(per_image: Iterable[Mapping[str, float]]) -> dict[str, StageTiming]:
    """Per stage: mean, median, 95th percentile and maximum over the images reporting it."""
    samples: dict[str, list[float]] = {}
    for timings in per_image:
        for stage, ms in timings.items():
            if math.isfinite(ms):
                samples.setdefault(stage, []).append(ms)
    out = {}
    for stage, values in samples.items():
        arr = np.array(values, dtype=np.float64)
        out[stage] = StageTiming(
            images=len(values),
            mean=float(arr.mean()),
            median=float(np.median(arr)),
            p95=float(np.percentile(arr, 95)),
            max=float(arr.max()),
        )
    return out
