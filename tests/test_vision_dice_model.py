"""The learned die-crop classifier (`models/dice_value.onnx`) run through OpenCV's DNN module.

Die crops come from scenes the generator renders here (seeds the model was not trained on).
The floors are regression guards under the measured figures in the README's "Reading the board",
not targets; the real photos are read in `test_vision_real.py` and `test_vision_dice_detector.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision.calibration import BoardProfile, profile_from_corners
from referee.vision.config import DiceConfig
from referee.vision.dice import (
    DieSeen,
    _painted_out,
    centred,
    classify,
    dice_beside,
    find_dice_on_plain,
)
from referee.vision.dice_classifier import (
    CLASSES,
    CROP_PX,
    CROP_SIDES,
    DEFAULT_MODEL,
    DEFAULT_SECOND_MODEL,
    NONE,
    STRAIGHT_DOWN,
    DiceClassifier,
    Lean,
    crop_die,
    load_classifier,
    mean_of_log_probabilities,
)
from referee.vision.geometry import BoardModel
from referee.vision.pipeline import _TIP_DISCOUNT, _best, _discount, die_lean, read_alike

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def classifier() -> DiceClassifier:
    return DiceClassifier(DEFAULT_MODEL)


@pytest.fixture(scope="module")
def flat_dice() -> list[tuple[np.ndarray, int, float]]:
    """(crop, value, side) of the flat dice in a few easy generated scenes (seed 2, which no
    training or measuring set uses)."""
    config = load_config(ROOT / "datasets" / "overhead_easy.json")
    out = []
    for index in range(4):
        jpeg, truth = render_sample(config, 2, index, (1280, 720))
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        for die in truth["dice"]:
            if not die["flat"]:
                continue
            x0, y0, x1, y1 = die["box"]
            side = 0.85 * min(x1 - x0, y1 - y0)
            out.append((crop_die(image, tuple(die["top_center"]), side), die["value"], side))
    return out


def test_model_is_small_and_loads(classifier: DiceClassifier) -> None:
    assert DEFAULT_MODEL.stat().st_size < 2_000_000
    probs = classifier.probabilities([np.zeros((CROP_PX, CROP_PX, 3), np.uint8)] * 2)
    assert probs.shape == (2, len(CLASSES))
    assert np.allclose(probs.sum(axis=1), 1.0)


def test_the_second_network_is_asked_only_about_crops_the_first_is_unsure_of(
    flat_dice: list[tuple[np.ndarray, int, float]],
) -> None:
    first = DiceClassifier(DEFAULT_MODEL)
    second = DiceClassifier(DEFAULT_SECOND_MODEL)
    both = DiceClassifier(DEFAULT_MODEL, DEFAULT_SECOND_MODEL, second_below_none=0.5)
    wood = np.zeros((CROP_PX, CROP_PX, 3), np.uint8)
    wood[:] = (60, 110, 170)
    crops = [crop for crop, _, _ in flat_dice] + [wood]
    alone, other, asked = (c.probabilities(crops) for c in (first, second, both))
    unsure = alone[:, NONE] < 0.5
    # The dice are asked again, the bare wood (the first network is sure: no die) is not.
    assert unsure[:-1].all() and not unsure[-1], alone[:, NONE]
    assert np.allclose(asked[~unsure], alone[~unsure])
    expected = mean_of_log_probabilities(alone[unsure], other[unsure])
    assert np.allclose(asked[unsure], expected)
    assert not np.allclose(asked[unsure], alone[unsure])
    assert np.allclose(asked.sum(axis=1), 1.0)


def test_a_mirrored_classifier_averages_each_crop_with_its_mirror_image(
    flat_dice: list[tuple[np.ndarray, int, float]],
) -> None:
    plain = DiceClassifier(DEFAULT_MODEL, DEFAULT_SECOND_MODEL, second_below_none=0.8)
    mirrored = DiceClassifier(
        DEFAULT_MODEL, DEFAULT_SECOND_MODEL, second_below_none=0.8, mirrored=True
    )
    crops = [crop for crop, _, _ in flat_dice]
    leans = [0.1 * k for k in range(len(crops))]
    as_is = plain.probabilities(crops, leans)
    flipped = plain.probabilities([crop[:, ::-1] for crop in crops], leans)
    both = mirrored.probabilities(crops, leans)
    assert not np.allclose(as_is, flipped)
    assert np.allclose(both, mean_of_log_probabilities(as_is, flipped))
    # A crop and its mirror image are read alike.
    assert np.allclose(mirrored.probabilities([c[:, ::-1] for c in crops], leans), both)
    # What the first network is sure holds no die is read once, as it is.
    wood = np.zeros((CROP_PX, CROP_PX, 3), np.uint8)
    wood[:, : CROP_PX // 3] = (60, 110, 170)
    first = DiceClassifier(DEFAULT_MODEL).probabilities([wood])
    assert first[0, NONE] >= 0.8
    assert np.allclose(mirrored.probabilities([wood]), first)


def test_mean_of_log_probabilities_is_the_normalised_geometric_mean() -> None:
    first = np.array([[0.5, 0.5, 0.0], [0.9, 0.05, 0.05]])
    second = np.array([[0.1, 0.7, 0.2], [0.9, 0.05, 0.05]])
    mean = mean_of_log_probabilities(first, second)
    geometric = np.sqrt(first * second)
    assert np.allclose(mean, geometric / geometric.sum(axis=1, keepdims=True))
    # A class one network rules out stays out, however sure the other is.
    assert mean[0, 2] < 1e-100
    third = np.array([[0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
    cubic = np.cbrt(first[1] * second[1] * third[1])
    assert np.allclose(mean_of_log_probabilities(first, second, third)[1], cubic / cubic.sum())


def test_without_the_second_model_file_the_first_reads_alone(tmp_path: Path) -> None:
    alone = load_classifier(str(DEFAULT_MODEL), str(tmp_path / "absent.onnx"), 0.95)
    assert alone is not None and alone.second_path is None
    paired = load_classifier(str(DEFAULT_MODEL), str(DEFAULT_SECOND_MODEL), 0.95)
    assert paired is not None and paired.second_path == DEFAULT_SECOND_MODEL
    assert load_classifier(str(tmp_path / "absent.onnx")) is None


def test_crop_is_fixed_size_even_at_the_border() -> None:
    image = np.full((100, 120, 3), 200, np.uint8)
    for centre in ((0.0, 0.0), (119.0, 99.0), (60.0, 50.0)):
        assert crop_die(image, centre, 30.0).shape == (CROP_PX, CROP_PX, 3)


def test_reads_rendered_dice(
    classifier: DiceClassifier, flat_dice: list[tuple[np.ndarray, int, float]]
) -> None:
    assert len(flat_dice) >= 6
    probs = classifier.probabilities([crop for crop, _, _ in flat_dice])
    values = probs[:, :6].argmax(axis=1) + 1
    right = sum(int(v == d[1]) for v, d in zip(values, flat_dice, strict=True))
    assert right >= len(flat_dice) - 1, (values.tolist(), [d[1] for d in flat_dice])
    assert (probs[:, NONE] < 0.5).all()


def test_empty_board_is_no_die(classifier: DiceClassifier) -> None:
    wood = np.zeros((CROP_PX, CROP_PX, 3), np.uint8)
    wood[:] = (60, 110, 170)
    assert classifier.probabilities([wood])[0, NONE] > 0.5


def die_alone(crop: np.ndarray, size: int) -> np.ndarray:
    """The die in the middle of a `crop_die` crop (which is CROP_SIDES dice wide), `size` px."""
    margin = round(CROP_PX * (1 - 1 / CROP_SIDES) / 2)
    die = crop[margin : CROP_PX - margin, margin : CROP_PX - margin]
    return np.asarray(cv2.resize(die, (size, size), interpolation=cv2.INTER_LINEAR))


def test_without_the_detector_dice_in_a_tray_are_found_even_against_its_wall(
    flat_dice: list[tuple[np.ndarray, int, float]],
) -> None:
    """A tray's wall is a ring round its floor: the dice inside are not one blob with it, and a
    die touching the wall (one blob with it) is still proposed by its pips."""
    (free, free_value, _), (wall, wall_value, _) = [d for d in flat_dice if d[1] >= 4][:2]
    table = np.full((640, 640, 3), (235, 235, 235), np.uint8)
    cv2.rectangle(table, (60, 60), (580, 580), (40, 40, 40), 30)  # the wall, 45..75 thick
    table[75:566, 75:566] = (165, 170, 175)  # the floor
    table[280:360, 280:360] = die_alone(free, 80)
    table[400:480, 76:156] = die_alone(wall, 80)  # against the left wall
    found = find_dice_on_plain(table, DiceConfig(use_detector=False))

    def value_at(x: float, y: float) -> int | None:
        return next((d.value for d in found if math.dist(d.center, (x, y)) < 20), None)

    assert value_at(319.5, 319.5) == free_value
    assert value_at(115.5, 439.5) == wall_value


def test_without_the_detector_the_plain_reader_uses_the_model(
    flat_dice: list[tuple[np.ndarray, int, float]],
) -> None:
    """A die pasted onto a plain grey cloth: with the model its value is the model's; with the
    model turned off the pip counter runs instead (the same candidates, a different reading)."""
    crop, value, _ = next(d for d in flat_dice if d[1] in (4, 5, 6))
    cloth = np.full((480, 640, 3), (70, 120, 60), np.uint8)
    cloth[200:288, 280:368] = die_alone(crop, 88)
    with_model = find_dice_on_plain(cloth, DiceConfig(use_detector=False))
    assert with_model and all(d.pips == () for d in with_model)
    assert any(d.value == value for d in with_model)
    without = find_dice_on_plain(cloth, DiceConfig(use_model=False, use_detector=False))
    assert all(d.pips for d in without)


class FixedClassifier(DiceClassifier):
    """A stand-in that answers fixed class probabilities: for each call in turn, one row per
    crop in order."""

    def __init__(self, *calls: list[list[float]]) -> None:
        self.calls = [np.array(rows, float) for rows in calls]
        self.sizes: list[int] = []

    def probabilities(
        self, crops: Sequence[np.ndarray], leans: Sequence[float] | None = None
    ) -> np.ndarray:
        self.sizes.append(len(crops))
        return self.calls[len(self.sizes) - 1][: len(crops)]


def one_hot(**share: float) -> list[float]:
    return [share.get(f"c{name}" if name[0].isdigit() else name, 0.0) for name in CLASSES]


def test_one_die_seen_from_several_pip_groups_is_read_from_all_its_crops() -> None:
    side = 30.0
    candidates = [
        DieSeen((100.0, 100.0), None, (), side, True, 0.0),  # surest crop, but off-centre
        DieSeen((110.0, 108.0), None, (), side, True, 0.0),
        DieSeen((92.0, 95.0), None, (), side, True, 0.0),
        DieSeen((300.0, 100.0), None, (), side, True, 0.0),  # another die
        DieSeen((500.0, 100.0), None, (), side, True, 0.0),  # no die
    ]
    rows = [
        one_hot(c1=0.45, cocked=0.55),
        one_hot(c2=0.8, cocked=0.15, none=0.05),
        one_hot(c2=0.7, c1=0.2, none=0.1),
        one_hot(c5=0.9, none=0.1),
        one_hot(c3=0.2, none=0.8),
    ]
    image = np.zeros((200, 600, 3), np.uint8)
    # The three crops' weighted mean is a 2 with cocked 0.24; the crop at their centre weighs
    # as much as all of them.
    middles = [one_hot(c2=0.6, cocked=0.4), one_hot(c5=1.0)]
    classifier = FixedClassifier(rows, middles)
    dice = classify(image, candidates, classifier, DiceConfig())
    assert classifier.sizes == [5, 2]  # every candidate, then one crop per die
    assert [(d.center, d.value, d.flat) for d in dice] == [
        ((100.0, 100.0), 2, True),
        ((300.0, 100.0), 5, True),
    ]
    assert dice[0].score == 1.0
    tilted = [one_hot(c2=0.1, cocked=0.9), one_hot(c5=1.0)]
    dice = classify(image, candidates, FixedClassifier(rows, tilted), DiceConfig())
    assert [(d.value, d.flat) for d in dice] == [(2, False), (5, True)]


def test_pips_on_a_leaning_dies_side_face_are_that_die_not_another() -> None:
    # The camera sees 0.4 sides of a flat die's side face here: a candidate 1.1 sides from the
    # top face's, on that face, is the same die. Straight down, 1.1 sides apart are two dice.
    side = 20.0
    candidates = [
        DieSeen((100.0, 100.0), None, (), side, True, 0.0),
        DieSeen((100.0, 122.0), None, (), side, True, 0.0),
    ]
    rows = [one_hot(c5=1.0), one_hot(c3=0.9, none=0.1)]
    image = np.zeros((200, 200, 3), np.uint8)

    def leaning(centres: Sequence[tuple[float, float]]) -> list[Lean]:
        return [Lean(turn_deg=0.0, sides=0.4)] * len(centres)

    one = classify(
        image, candidates, FixedClassifier(rows, [one_hot(c5=1.0)]), DiceConfig(), leaning
    )
    assert [(d.center, d.value) for d in one] == [((100.0, 100.0), 5)]
    middles = [one_hot(c5=1.0), one_hot(c3=1.0)]
    two = classify(image, candidates, FixedClassifier(rows, middles), DiceConfig())
    assert [d.value for d in two] == [5, 3]


def test_a_flat_die_beside_a_cocked_one_is_the_die_it_leans_on() -> None:
    # The camera sees 0.4 sides of a flat die's side face here, so candidates within 1.3 sides
    # are one die; but a flat read 1.1 sides from a surer cocked one is the die it leans on.
    side = 20.0
    candidates = [
        DieSeen((100.0, 100.0), None, (), side, True, 0.0),
        DieSeen((100.0, 122.0), None, (), side, True, 0.0),
    ]
    cocked_then_flat = [one_hot(c4=0.2, cocked=0.8), one_hot(c3=0.9, none=0.1)]
    image = np.zeros((200, 200, 3), np.uint8)

    def leaning(centres: Sequence[tuple[float, float]]) -> list[Lean]:
        return [Lean(turn_deg=0.0, sides=0.4)] * len(centres)

    middles = [one_hot(c4=0.3, cocked=0.7), one_hot(c3=1.0)]
    classifier = FixedClassifier(cocked_then_flat, middles)
    two = classify(image, candidates, classifier, DiceConfig(), leaning)
    assert [(d.center, d.value, d.flat) for d in two] == [
        ((100.0, 100.0), 4, False),
        ((100.0, 122.0), 3, True),
    ]
    # Closer than two dice can lie (0.4 sides), the flat read is the cocked die's own crop.
    near = [candidates[0], DieSeen((100.0, 108.0), None, (), side, True, 0.0)]
    classifier = FixedClassifier(cocked_then_flat, [one_hot(c4=0.3, cocked=0.7)])
    one = classify(image, near, classifier, DiceConfig(), leaning)
    assert [d.flat for d in one] == [False]
    # A tilted read beside a surer flat one stays that die's side face.
    flat_then_cocked = [one_hot(c3=1.0), one_hot(c4=0.1, cocked=0.8, none=0.1)]
    classifier = FixedClassifier(flat_then_cocked, [one_hot(c3=1.0)])
    side_face = classify(image, candidates, classifier, DiceConfig(), leaning)
    assert [(d.value, d.flat) for d in side_face] == [(3, True)]


def test_a_die_spans_more_pixels_nearer_a_tilted_camera() -> None:
    # The far edge seen shorter than the near one: the camera leans over the near edge.
    seen = np.array([[400.0, 200.0], [880.0, 200.0], [1000.0, 650.0], [280.0, 650.0]])
    lean = die_lean(profile_from_corners(seen, (1280, 720)))
    near, far = (how.scale for how in lean([(640.0, 620.0), (640.0, 230.0)]))
    assert near > 1.0 > far
    assert near / far == pytest.approx(720 / 480, rel=0.15)
    assert die_lean(overhead_profile())([(960.0, 540.0)])[0].scale == pytest.approx(1.0, abs=0.01)


def overhead_profile(height_mm: float = 800.0, focal: float = 1920.0) -> BoardProfile:
    """The profile of a board seen by a camera `height_mm` straight above its middle, its axes
    along the picture's (1920x1080, principal point in the middle; 0.8 m is the distance
    `camera_pose` takes when a view straight down cannot tell it)."""
    model = BoardModel()
    w, d = model.width_mm, model.depth_mm
    corners = [
        (960 + focal * (x - w / 2) / height_mm, 540 + focal * (y - d / 2) / height_mm)
        for x, y in ((0, 0), (w, 0), (w, d), (0, d))
    ]
    return profile_from_corners(np.array(corners), (1920, 1080))


def test_a_flat_die_leans_away_from_the_point_under_the_camera() -> None:
    profile = overhead_profile()
    lean = die_lean(profile)
    assert lean([(960.0, 540.0)])[0].sides == pytest.approx(0.0, abs=1e-3)
    # 300 mm right of the middle, a die's top shows 300 / (800 - 16) of a side further right;
    # turning the crop by -90 degrees (clockwise) brings that to point down.
    [right] = lean([(960.0 + 1920 * 300 / 800, 540.0)])
    assert right.sides == pytest.approx(300 / (800 - profile.model.die_mm), rel=0.02)
    assert right.turn_deg == pytest.approx(-90.0, abs=0.5)
    [above] = lean([(960.0, 540.0 - 1920 * 200 / 800)])
    assert above.sides == pytest.approx(200 / 784, rel=0.02)
    assert abs(above.turn_deg) == pytest.approx(180.0, abs=0.5)


def test_a_crop_turned_by_the_lean_shows_the_lean_downwards() -> None:
    image = np.zeros((200, 200, 3), np.uint8)
    cv2.circle(image, (112, 94), 3, (255, 255, 255), -1)  # 12 px right of and 6 above the centre
    turn = math.degrees(math.atan2(-12.0, -6.0))
    crop = crop_die(image, (100.0, 100.0), 20.0, turn_deg=turn)
    ys, xs = np.nonzero(crop[..., 0] > 100)
    middle = (CROP_PX - 1) / 2
    assert abs(xs.mean() - middle) < 1.5 and ys.mean() - middle > 0.25 * CROP_PX


def test_a_second_read_of_one_die_gives_way_to_a_die_elsewhere() -> None:
    def die(x: float, value: int, score: float) -> DieSeen:
        return DieSeen((x, 100.0), value, (), 20.0, True, score)

    def same(d: DieSeen, surer: DieSeen) -> bool:
        return d.value == surer.value and abs(d.center[0] - surer.center[0]) < 26

    first, again, other = die(100, 5, 0.9), die(122, 5, 0.8), die(400, 3, 0.5)
    assert _best([other, again, first], same_die=same) == [first, other]
    # With nothing else seen, two dice read alike side by side stay two (doubles, touching).
    assert _best([again, first], same_die=same) == [first, again]
    # Without the rule, the two surest.
    assert _best([other, again, first]) == [first, again]


def test_dice_read_where_no_pips_showed_only_take_the_places_left() -> None:
    def die(x: float, score: float, rolling: bool = False) -> DieSeen:
        return DieSeen(
            (x, 100.0), None if rolling else 1, (), 20.0, not rolling, score, rolling=rolling
        )

    # Tuning scene 61/147: a red one whose pip the pip groups saw (0.91 sure), and two spots
    # the classifier was surer of, a checker read as a 6 and a blur read rolling.
    pips = die(400, 0.91)
    checker, blur = die(690, 0.95), die(750, 0.94, rolling=True)
    assert _best([pips], spots=[blur, checker]) == [pips, checker]
    # Without pips seen, spots read at rest before those read rolling (a hand's or a
    # shadow's edge reads rolling too: tuning scene 68/36's second die, 0.997 sure, lost to
    # a blur at 0.999), each kind surest first.
    at_rest = die(100, 0.5)
    assert _best([], spots=[blur, checker, at_rest]) == [at_rest, checker]
    assert _best([], spots=[blur, die(900, 0.3, rolling=True), checker]) == [checker, blur]
    # Pips seen twice leave no place to a spot.
    other = die(200, 0.6)
    assert _best([pips, other], spots=[checker]) == [other, pips]


def test_reads_alike_show_one_face_or_are_both_tilted() -> None:
    def die(value: int, flat: bool) -> DieSeen:
        return DieSeen((100.0, 100.0), value, (), 20.0, flat, 0.9)

    assert read_alike(die(5, True), die(5, True))
    assert not read_alike(die(5, True), die(3, True))
    # A cocked die's two pip groups, each read tilted, whatever face each crop guessed.
    assert read_alike(die(5, False), die(3, False))
    # Or one group's crops see its lean and the other's do not: the face is the same.
    assert read_alike(die(5, True), die(5, False))
    # A flat die showing another face beside a tilted one is the die it leans on.
    assert not read_alike(die(3, True), die(5, False))


def test_a_sure_die_at_a_triangles_tip_stays_surer_than_a_doubtful_one_elsewhere() -> None:
    profile = overhead_profile()
    model = profile.model
    _, tip = model.base_tip(3, profile.home)
    at_tip = profile.board_to_image(np.array([tip]))[0]
    middle = profile.board_to_image(np.array([[model.width_mm / 2, model.depth_mm / 2]]))[0]
    sure = DieSeen((float(at_tip[0]), float(at_tip[1])), 6, (), 20.0, True, 0.9999)
    doubtful = DieSeen((float(middle[0]), float(middle[1])), 2, (), 20.0, True, 0.7)
    none = np.zeros((0, 2))
    # The classifier's sureness: the tip scales the odds, and 0.9999 stays far above 0.7.
    kept = _discount([sure, doubtful], profile, none, sureness=True)
    assert kept[0].score > 0.99 and kept[1].score == pytest.approx(0.7)
    # The pip counter's scores are not probabilities: the tip scales the score itself.
    kept = _discount([sure, doubtful], profile, none, sureness=False)
    assert kept[0].score == pytest.approx(0.9999 * _TIP_DISCOUNT) and kept[
        1
    ].score == pytest.approx(0.7)


def test_the_die_found_is_painted_out_and_the_one_against_it_kept() -> None:
    image = np.full((200, 240, 3), 60, np.uint8)
    cv2.rectangle(image, (90, 90), (110, 110), (250, 250, 250), -1)  # the die found
    cv2.rectangle(image, (112, 90), (132, 110), (240, 240, 240), -1)  # the one against it
    painted = _painted_out(image, (100.0, 100.0), 20.0, STRAIGHT_DOWN)
    assert (painted[95:106, 95:106] == 60).all()
    assert (painted[95:106, 117:128] == 240).all()
    assert (image[95:106, 95:106] == 250).all()  # the caller's image is left as it was


def test_the_side_face_painted_out_is_the_one_between_the_top_face_and_the_foot() -> None:
    # Turn 0: the top face shows below the die's foot, so the side face seen lies above it.
    image = np.full((200, 240, 3), 60, np.uint8)
    cv2.rectangle(image, (90, 90), (110, 110), (250, 250, 250), -1)  # the top face
    cv2.rectangle(image, (90, 80), (110, 89), (200, 200, 200), -1)  # the side face above it
    cv2.rectangle(image, (90, 112), (110, 132), (240, 240, 240), -1)  # a die against it below
    painted = _painted_out(image, (100.0, 100.0), 20.0, Lean(turn_deg=0.0, sides=0.5))
    assert (painted[80:89, 95:106] == 60).all()
    assert (painted[125:132, 95:106] == 240).all()


def test_a_die_against_the_one_found_is_read_from_crops_all_round_it() -> None:
    image = np.full((200, 240, 3), 60, np.uint8)
    found = DieSeen((100.0, 100.0), 5, (), 20.0, True, 1.0)
    # Eight crops, the first straight right (towards the other die): a 3 there, nothing else.
    rows = [one_hot(c3=0.95, none=0.05)] + [one_hot(none=1.0)] * 7
    classifier = FixedClassifier(rows)
    beside = dice_beside(image, found, 20.0, classifier, DiceConfig())
    assert classifier.sizes == [8]
    assert [(d.value, d.flat) for d in beside] == [(3, True)]
    assert beside[0].center == pytest.approx((122.0, 100.0))
    # Read rolling, it is not taken (a still photo's die beside another is at rest).
    rolling = [one_hot(rolling=0.9, none=0.1)] + [one_hot(none=1.0)] * 7
    assert dice_beside(image, found, 20.0, FixedClassifier(rolling), DiceConfig()) == []


def test_a_die_takes_the_face_and_centre_of_the_crop_that_reads_it_surest() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    off_centre = DieSeen((100.0, 100.0), 3, (), 20.0, True, 0.9, 0.55)
    cocked = DieSeen((200.0, 100.0), 4, (), 20.0, False, 0.8)
    sure = DieSeen((100.0, 160.0), 6, (), 20.0, True, 0.9, 0.99)
    # The 3x3 grid 0.2 sides apart round the doubtful flat die: a doubtful 3 where it was
    # found, a sure 5 one step right and one down. Neither the cocked die nor the die whose
    # face is sure is searched.
    rows = [one_hot(c3=0.5, c5=0.3, none=0.2)] * 9
    rows[2 * 3 + 2] = one_hot(c5=0.95, none=0.05)
    classifier = FixedClassifier(rows)
    dice = centred(image, [off_centre, cocked, sure], classifier, DiceConfig())
    assert classifier.sizes == [9]
    assert dice[1:] == [cocked, sure]
    assert (dice[0].value, dice[0].flat, dice[0].score) == (5, True, 0.9)
    assert dice[0].center == pytest.approx((104.0, 104.0))
    assert dice[0].confidence == pytest.approx(1.0)
    # Turned off, nothing is read.
    off = FixedClassifier(rows)
    config = DiceConfig(face_search_sides=0.0)
    assert centred(image, [off_centre, cocked], off, config) == [off_centre, cocked]
    assert off.sizes == []


def test_a_die_whose_neighbouring_crops_see_it_lean_is_cocked() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    found = DieSeen((100.0, 100.0), 3, (), 20.0, True, 0.9, 0.6)
    # Round its centre the crops call it cocked (0.65), except the one where it was found and
    # the surest face's crop. Averaged over the 9 crops within one step of the centre, tilted
    # reaches the same 0.5 a single crop needs: the die is cocked.
    leaning = [one_hot(c3=0.35, cocked=0.65)] * 9
    leaning[4] = one_hot(c3=0.8, cocked=0.2)
    leaning[0] = one_hot(c3=0.95, none=0.05)
    [read] = centred(image, [found], FixedClassifier(leaning), DiceConfig())
    assert (read.value, read.flat) == (3, False)
    # One crop beside it leaning is not enough: the mean stays under 0.5.
    one = [one_hot(c3=0.8, cocked=0.2)] * 9
    one[5] = one_hot(c3=0.1, cocked=0.9)
    [read] = centred(image, [found], FixedClassifier(one), DiceConfig())
    assert read.flat


def test_a_die_does_not_move_onto_another() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    found = DieSeen((100.0, 100.0), 3, (), 20.0, True, 0.9)
    other = DieSeen((116.0, 100.0), 2, (), 20.0, True, 0.8)
    # The first die's surest crop lies 0.2 sides right, 12 px from the other die (two dice
    # lie 0.75 sides apart at least, `model_min_separation`): it reads the other die. The
    # other reads surest where it is.
    rows = [one_hot(c3=0.6, none=0.4)] * 9 + [one_hot(c2=0.6, none=0.4)] * 9
    rows[1 * 3 + 2] = one_hot(c2=0.99, none=0.01)
    rows[9 + 1 * 3 + 1] = one_hot(c2=0.98, none=0.02)
    dice = centred(image, [found, other], FixedClassifier(rows), DiceConfig())
    assert dice[0] == found
    assert dice[1].center == other.center and dice[1].confidence == pytest.approx(1.0)


def test_a_die_found_off_its_middle_is_read_at_its_middle(classifier: DiceClassifier) -> None:
    # Found half a side off its middle each way, a crop there takes in the board beside the
    # die and can misread it; the crops nearer its middle read it right.
    config = load_config(ROOT / "datasets" / "overhead_easy.json")
    misread_alone = 0
    for index in range(3):
        jpeg, truth = render_sample(config, 2, index, (1280, 720))
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        for die in (die for die in truth["dice"] if die["flat"]):
            x0, y0, x1, y1 = die["box"]
            side = 0.85 * min(x1 - x0, y1 - y0)
            x, y = die["top_center"]
            for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                start = DieSeen(
                    (x + 0.5 * sx * side, y + 0.5 * sy * side), None, (), side, True, 1.0
                )
                [alone] = classifier.probabilities([crop_die(image, start.center, side)], [0.0])
                misread_alone += int(np.argmax(alone[:6])) + 1 != die["value"]
                [read] = centred(image, [start], classifier, DiceConfig())
                assert read.value == die["value"]
    assert misread_alone > 0
