"""The checker reader's parts: strip geometry, slot heights to counts, the 15-per-side rule,
colour clusters, and the true-corners diagnostic reader."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import pytest

from referee.rules import LongNardy, ShortNardy
from referee.scenes.config import config_from_dict
from referee.scenes.dataset import render_sample
from referee.vision.checker_model import (
    BAR,
    HEIGHTS,
    MAX_COUNT,
    SLOTS,
    STRIP_MM,
    STRIP_PX,
    STRIP_START_MM,
    STRIPS,
    TRAY,
    board_strips,
    boost_layers,
    count_loglik,
    count_loglik_with_rows,
    layer_heights,
    pile_heights,
)
from referee.vision.checker_truth import label_profile
from referee.vision.checkers import (
    CheckerEvidence,
    CheckerReading,
    DieOnChecker,
    PointCheckers,
    _model_evidence,
    colour_clusters,
    colour_odds,
    conserve,
    rim_odds,
    slot_centres,
    slot_colours,
)
from referee.vision.config import CheckerConfig, VisionConfig
from referee.vision.geometry import BoardModel, make_canvas
from referee.vision.pipeline import VisionPipeline


def one_hot(heights: list[int], sure: float = 0.97) -> np.ndarray:
    """Slot height probabilities (SLOTS, HEIGHTS) sure of `heights`."""
    out = np.full((SLOTS, HEIGHTS), (1 - sure) / (HEIGHTS - 1))
    out[np.arange(SLOTS), np.array(heights + [0] * (SLOTS - len(heights)))] = sure
    return out


def test_layer_and_pile_heights() -> None:
    assert layer_heights(0, 5).tolist() == [0] * SLOTS
    assert layer_heights(3, 5).tolist() == [1, 1, 1, 0, 0, 0, 0]
    assert layer_heights(13, 5).tolist() == [3, 3, 3, 2, 2, 0, 0]
    assert layer_heights(15, 6).tolist() == [3, 3, 3, 2, 2, 2, 0]
    assert pile_heights(0).tolist() == [0] * SLOTS
    assert pile_heights(12).tolist() == [5, 5, 2, 0, 0, 0, 0]


def test_counts_from_slot_heights() -> None:
    cases = {
        0: [],
        1: [1],
        5: [1, 1, 1, 1, 1],
        7: [1, 1, 1, 1, 1, 1, 1],
        8: [2, 2, 2, 1, 1],  # a row of five, three on it
        15: [3, 3, 3, 3, 3],
        12: [2, 2, 2, 2, 2, 2],  # a row of six run on, a second layer of six
    }
    heights = np.stack([one_hot(h) for h in cases.values()])
    assert count_loglik(heights).argmax(axis=1).tolist() == list(cases)
    assert count_loglik(np.stack([one_hot([2, 2])]), "bar").argmax(axis=1).tolist() == [5]
    assert count_loglik(np.stack([one_hot([5, 5, 3])]), "tray").argmax(axis=1).tolist() == [13]


def test_a_layer_the_network_half_sees_counts_once_boosted() -> None:
    # A row of five, and on its first checker a second one the network gives 45 %.
    heights = one_hot([1, 1, 1, 1, 1])
    heights[0] = [0.0, 0.55, 0.45, 0.0, 0.0, 0.0]
    assert count_loglik(heights[None]).argmax() == 5
    boosted = boost_layers(heights[None], 0.5)
    assert count_loglik(boosted).argmax() == 6
    assert np.allclose(boosted.sum(axis=2), 1.0)
    # The odds of the layer against one checker grow by e^0.5; a bare slot stays bare.
    assert boosted[0, 0, 2] / boosted[0, 0, 1] == pytest.approx(0.45 / 0.55 * np.exp(0.5))
    assert boosted[0, 6].argmax() == 0
    assert np.allclose(boost_layers(heights[None], 0.0), heights[None])


def test_strips_cut_each_point_from_its_base() -> None:
    canvas = make_canvas(BoardModel(), 640, 120.0, 70.0)
    w, h = canvas.size
    image = np.zeros((h, w, 3), np.uint8)
    model = canvas.model
    # Mark the third slot of points 3 and 20, and the first bar slot of black's half.
    for point in (3, 20):
        x, y = canvas.to_px(model.slot(point, 2))
        image[int(y) - 2 : int(y) + 3, int(x) - 2 : int(x) + 3] = 255
    strips = board_strips(image, canvas, "right")
    assert strips.shape == (STRIPS, STRIP_PX[1], STRIP_PX[0], 3)
    offset = model.checker_mm / 2 + model.checker_edge_gap_mm + 2 * model.pitch_mm
    row = (offset - STRIP_START_MM) / STRIP_MM[1] * STRIP_PX[1]
    for index in (2, 19):
        bright = np.nonzero(strips[index, ..., 0].max(axis=1) > 100)[0]
        assert len(bright) and abs(bright.mean() - row) < 2.0
        cols = np.nonzero(strips[index, ..., 0].max(axis=0) > 100)[0]
        assert abs(cols.mean() - (STRIP_PX[0] - 1) / 2) < 2.0
    others = [i for i in range(STRIPS) if i not in (2, 19)]
    assert strips[others].max() == 0
    assert BAR == (24, 25) and TRAY == (26, 27)


def _point_ll(count: int, sure: float = 0.97) -> np.ndarray:
    return count_loglik(np.stack([one_hot(layer_heights(count, 5).tolist(), sure)]))[0]


def test_conservation_settles_an_unsure_head() -> None:
    """White: 14 on point 24 read as 'some stack, unsure how high', 1 on 1; black sure 15 on
    12. Fifteen a side leaves one answer."""
    count_ll = np.stack([_point_ll(0)] * 24)
    count_ll[0] = _point_ll(1)
    count_ll[11] = _point_ll(15)
    unsure = np.log(np.full(MAX_COUNT + 1, 1e-3))
    unsure[10:16] = np.log(1 / 6)
    count_ll[23] = unsure
    odds = np.zeros(24)
    odds[[0, 23]] = 8.0
    odds[11] = -8.0
    empty = np.stack([_empty_rest(), _empty_rest()])
    reading = conserve(count_ll, odds, empty, empty, penalty=6.0)
    counts = {pc.point: (pc.color, pc.count) for pc in reading.points if pc.count}
    assert counts == {1: ("white", 1), 12: ("black", 15), 24: ("white", 14)}
    assert reading.bar == {"white": 0, "black": 0}
    assert reading.off == {"white": 0, "black": 0}


def _empty_rest() -> np.ndarray:
    ll = np.full(MAX_COUNT + 1, np.log(1e-3))
    ll[0] = 0.0
    return ll


def test_conservation_counts_borne_off_from_the_piles() -> None:
    """Black has 4 on the board and two piles in its tray: 11 borne off (piles of 5, 5, 1)."""
    count_ll = np.stack([_point_ll(0)] * 24)
    count_ll[4] = _point_ll(15)
    count_ll[19] = _point_ll(4)
    odds = np.zeros(24)
    odds[4], odds[19] = 8.0, -8.0
    bar = np.stack([_empty_rest(), _empty_rest()])
    off = np.stack([_empty_rest(), np.full(MAX_COUNT + 1, np.log(1e-3))])
    off[1, 6:16] = np.log(0.1)  # two piles seen, their heights unsure
    reading = conserve(count_ll, odds, bar, off, penalty=6.0)
    assert reading.off == {"white": 0, "black": 11}
    assert reading.inferred >= 0


def test_a_hidden_checker_does_not_move_others() -> None:
    """White's 15th checker is hidden: the points keep their sure counts, the total is 14."""
    count_ll = np.stack([_point_ll(0)] * 24)
    count_ll[0], count_ll[5] = _point_ll(5), _point_ll(9)
    count_ll[12] = _point_ll(15)
    odds = np.zeros(24)
    odds[[0, 5]] = 8.0
    odds[12] = -8.0
    empty = np.stack([_empty_rest(), _empty_rest()])
    reading = conserve(count_ll, odds, empty, empty, penalty=3.0)
    assert [pc.count for pc in reading.points if pc.count] == [5, 9, 15]


def test_long_nardy_sends_no_checker_off_while_one_is_outside_home() -> None:
    """Black's head of 15 read as 10 (15 a little less likely) and its tray empty but unsure
    (a pile of 5 shows as one checker): without the variant the five go to the tray; in long
    nardy black, with checkers on its 24, cannot have borne off, so the head takes them. In
    short nardy a side that was hit during its bear-off may have, so the tray keeps them."""
    count_ll = np.stack([_point_ll(0)] * 24)
    count_ll[23] = _point_ll(15)
    head = np.full(MAX_COUNT + 1, np.log(1e-3))
    head[10], head[15] = 0.0, -8.0
    count_ll[11] = head
    odds = np.zeros(24)
    odds[23], odds[11] = 8.0, -8.0
    bar = np.stack([_empty_rest(), _empty_rest()])
    off = np.stack([_empty_rest(), _empty_rest()])
    off[1, 5] = -5.0
    plain = conserve(count_ll, odds, bar, off, penalty=6.0)
    long = conserve(count_ll, odds, bar, off, penalty=6.0, variant=LongNardy())
    short = conserve(count_ll, odds, bar, off, penalty=6.0, variant=ShortNardy())
    assert (plain.points[11].count, plain.off["black"]) == (10, 5)
    assert (short.points[11].count, short.off["black"]) == (10, 5)
    assert (long.points[11].count, long.off["black"]) == (15, 0)
    assert long.points[23] == plain.points[23] and long.points[23].count == 15


def test_long_nardy_bears_off_a_side_that_is_all_home() -> None:
    """Black's 10 left all on its home points (white's 13..18 in long nardy): its tray's two
    piles count, as without the variant; no checker is put on the bar, where the unsure bar
    reading would put one (and then one fewer in the tray)."""
    count_ll = np.stack([_point_ll(0)] * 24)
    count_ll[23] = _point_ll(15)
    count_ll[14] = _point_ll(6)
    count_ll[16] = _point_ll(3)
    odds = np.zeros(24)
    odds[23], odds[14], odds[16] = 8.0, -8.0, -8.0
    bar = np.stack([_empty_rest(), _empty_rest()])
    bar[1, :2] = -3.0, 0.0
    off = np.stack([_empty_rest(), np.full(MAX_COUNT + 1, np.log(1e-3))])
    off[1, 5:16] = np.log(0.1)
    plain = conserve(count_ll, odds, bar, off, penalty=6.0)
    long = conserve(count_ll, odds, bar, off, penalty=6.0, variant=LongNardy())
    assert plain.bar["black"] == 1
    assert long.bar["black"] == 0 and long.off["black"] == 6
    assert [(pc.point, pc.count) for pc in long.points if pc.count] == [(15, 6), (17, 3), (24, 15)]


def test_a_stack_covers_the_slots_of_the_row_it_was_set_in() -> None:
    """Eight checkers in rows of five cover five slots, in rows of seven seven: a die lying
    in the sixth slot's place is beside the stack, not on it."""
    heights = np.stack(
        [one_hot(layer_heights(8, 5).tolist()), one_hot(layer_heights(8, 7).tolist())]
    )
    assert count_loglik_with_rows(heights)[1][:, 8].tolist() == [5, 7]
    points = tuple(PointCheckers(p, "white" if p == 1 else None, 8 if p == 1 else 0, 1.0)
                   for p in range(1, 25))  # fmt: skip
    seen = CheckerReading(points, {"white": 0, "black": 0}, {"white": 7, "black": 15}, 0)
    assert seen.covered_slots(1) == 7 and seen.covered_slots(2) == 0  # a row as long as it can
    told = CheckerReading(points, seen.bar, seen.off, 0, (5,) + (0,) * 23)
    assert told.covered_slots(1) == 5


class FixedHeights:
    """A strip network that reads every board as the same slot heights."""

    def __init__(self, heights: np.ndarray):
        self.heights_read = heights

    def heights(self, strips: np.ndarray) -> np.ndarray:
        assert len(strips) == STRIPS
        return self.heights_read.copy()


def test_the_15_checker_rule_outweighs_one_stacks_sure_miscount() -> None:
    """Two heads of 15; the network is sure the top layer of one has only two of three (a
    count of 14 about e^6.8 likelier than 15). Taken at full weight that beats the rule's
    penalty of 6 for a side one short; at the shipped weight the rule wins."""
    heights = np.stack([one_hot([], 0.999)] * STRIPS)
    heights[11] = one_hot([3, 3, 3, 3, 3], 0.999)
    heights[23] = one_hot([3, 3, 3, 3, 2], 0.999)
    heights[23, 4] = [0.0002, 0.0002, 0.9985, 0.0011, 0.0, 0.0]
    canvas = make_canvas(BoardModel(), 640, 120.0, 70.0)
    width, height = canvas.size
    grey = np.full((height, width, 3), 128, np.uint8)

    def heads(count_weight: float) -> list[tuple[int, int]]:
        # The heights are fixed; the hand cover network is not asked about a plain grey board,
        # which it has never seen.
        config = dataclasses.replace(
            CheckerConfig(), count_weight=count_weight, use_hand_model=False
        )
        reading = _model_evidence(
            grey, canvas, "right", config, FixedHeights(heights), None, None
        ).reading()
        assert reading.bar == reading.off == {"white": 0, "black": 0}
        return [(pc.point, pc.count) for pc in reading.points if pc.count]

    assert CheckerConfig().count_weight < 0.85
    assert heads(CheckerConfig().count_weight) == [(12, 15), (24, 15)]
    assert heads(1.0) == [(12, 15), (24, 14)]


def test_a_checker_under_a_die_takes_its_rims_colour() -> None:
    """White: 14 on point 1 and one on point 7; black: 14 on point 24 and one on point 13. A
    dark die on point 7's checker reads its middle surely black, so 16 black and 14 white: the
    rule turns point 13's less surely black checker white. Read from its rim, which shows past
    the die, point 7's checker is white and point 13's stays black."""
    count_ll = np.full((24, MAX_COUNT + 1), np.log(1e-4))
    count_ll[:, 0] = 0.0
    slot_odds = np.zeros((24, SLOTS))
    occupied = np.zeros((24, SLOTS))
    for point, count, odds in ((1, 14, 6.0), (7, 1, -6.0), (13, 1, -4.0), (24, 14, -6.0)):
        count_ll[point - 1] = np.log(1e-4)
        count_ll[point - 1, count] = 0.0
        rows = min(count, 5)
        slot_odds[point - 1, :rows] = odds
        occupied[point - 1, :rows] = 1.0
    evidence = CheckerEvidence(
        count_ll,
        slot_odds,
        lambda die: 5.0 if die.place == (6, 0) else float(slot_odds[die.place]),
        occupied,
        np.stack([_empty_rest(), _empty_rest()]),
        np.stack([_empty_rest(), _empty_rest()]),
        np.broadcast_to(np.minimum(np.arange(MAX_COUNT + 1), 5), (24, MAX_COUNT + 1)),
        np.zeros(24),
        CheckerConfig(),
        None,
    )

    def lone(reading: CheckerReading) -> list[tuple[int, str | None]]:
        return [(pc.point, pc.color) for pc in reading.points if pc.count == 1]

    assert lone(evidence.reading()) == [(7, "black"), (13, "white")]
    under_die = evidence.reading([DieOnChecker((6, 0), (0.0, 0.0), (0.0, 0.0))])
    assert lone(under_die) == [(7, "white"), (13, "black")]
    assert under_die.slots[0] == 5 and under_die.slots[23] == 5


def test_the_rims_colour_is_the_checkers_past_a_die_on_it() -> None:
    """A white checker on point 7's first slot with a dark die standing on its middle, its top
    face showing further out (as far from under the camera): the middle reads black, the rim
    round the die white."""
    canvas = make_canvas(BoardModel(), 640, 120.0, 70.0)
    width, height = canvas.size
    board = np.full((height, width, 3), (60, 120, 160), np.uint8)
    centre = slot_centres(canvas, "right", SLOTS)[6, 0]
    radius = canvas.model.checker_mm / 2 * canvas.px_per_mm
    side = canvas.model.die_mm * canvas.px_per_mm
    x, y = (round(float(v)) for v in centre)
    cv2.circle(board, (x, y), round(radius), (235, 235, 235), -1)
    top = (x + round(0.6 * radius), y)
    half = round(side / 2)
    cv2.rectangle(board, (x - half, y - half), (top[0] + half, y + half), (30, 30, 30), -1)
    white, black = np.array([235.0, 128.0, 128.0]), np.array([30.0, 128.0, 128.0])
    lab = np.asarray(cv2.cvtColor(board, cv2.COLOR_BGR2LAB), np.float64)
    middle = colour_odds(slot_colours(board, canvas, "right")[6, 0], white, black, 6.0)
    assert lab[y, x, 0] < 60 and middle < -3

    def rim(foot: tuple[float, float], top: tuple[float, float]) -> float:
        return rim_odds(board, canvas, "right", DieOnChecker((6, 0), foot, top), (white, black), 6)

    assert rim((x, y), (float(top[0]), float(top[1]))) > 3
    # Where the die is said to lie across the checker's other half, what is left of the ring is
    # mostly the die.
    assert rim((x - radius / 2, y - radius), (x - radius / 2, y + radius)) < 0


def _true_points(truth: dict[str, Any]) -> list[tuple[str | None, int]]:
    """(colour, count) of every point, white's numbering, from a scene's label."""
    points: list[tuple[str | None, int]] = [(None, 0)] * 24
    for checker in truth["checkers"]:
        if isinstance(checker["point"], int):
            _, count = points[checker["point"] - 1]
            points[checker["point"] - 1] = (checker["color"], count + 1)
    return points


def test_a_checker_a_die_lies_on_is_read_by_its_rim() -> None:
    """Two rendered scenes (an unused seed) where a die lies on a lone checker and its middle
    shows the die's colour: read by their rims every point is right; read by their middles
    the checker takes the other colour, and the 15-per-side rule turns one elsewhere."""
    scenes = config_from_dict(
        {
            "dice": {"situation_weights": {"on_checker": 1.0}},
            "hand_probability": 0.0,
            "camera": {"resolutions": [[1280, 720]]},
        }
    )
    rim = VisionConfig()
    middle = dataclasses.replace(
        rim, checkers=dataclasses.replace(rim.checkers, rim_colour_under_dice=False)
    )
    for index in (4, 24):
        jpeg, truth = render_sample(scenes, 3, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        expected = _true_points(truth)
        read = {
            config.checkers.rim_colour_under_dice: [
                (p.color, p.count)
                for p in VisionPipeline(config, label_profile(truth)).read(image).points
            ]
            for config in (rim, middle)
        }
        assert read[True] == expected, index
        wrong = [(k + 1, seen) for k, seen in enumerate(read[False]) if seen != expected[k]]
        assert len(wrong) == 2 and all(count == 1 for _, (_, count) in wrong), index


def test_colour_clusters_put_the_lighter_set_first() -> None:
    rng = np.random.default_rng(1)
    red = rng.normal([120.0, 175.0, 150.0], 3.0, (20, 3))
    black = rng.normal([40.0, 128.0, 128.0], 3.0, (15, 3))
    board = rng.normal([150.0, 140.0, 160.0], 3.0, (30, 3))
    colours = np.concatenate([red, black, board])
    weights = np.concatenate([np.ones(35), np.zeros(30)])
    white, dark, apart = colour_clusters(colours, weights, 25.0)
    assert apart
    assert white[0] == pytest.approx(120.0, abs=3) and dark[0] == pytest.approx(40.0, abs=3)
    _, _, apart = colour_clusters(black, np.ones(15), 25.0)
    assert not apart


def test_default_config_uses_the_shipped_model() -> None:
    config = VisionConfig().checkers
    assert config.use_model and config.model_path == ""
