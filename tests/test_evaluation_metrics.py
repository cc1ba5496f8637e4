"""Metrics on hand-built cases whose right answers are worked out by hand in each test."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.evaluation.basics import RollVerdict, SideCounts
from referee.evaluation.config import EvalConfig
from referee.evaluation.matching import best_match
from referee.evaluation.metrics import (
    Rate,
    RollOutcome,
    confusion_matrix,
    roll_class,
    score_board,
    score_corners,
    score_dice,
    score_image,
    summarize,
    summarize_boards,
    summarize_corners,
    summarize_dice,
    summarize_timings,
)
from referee.evaluation.oracle import truth_to_reading
from referee.evaluation.reading import DieReading, PointReading, Reading
from referee.evaluation.truth import GroundTruth, TruthBoard, parse_scene_truth
from tests.evaluation_fixtures import die, scene_label, short_start

CONFIG = EvalConfig()


def start_truth() -> GroundTruth:
    """Short-nardy start: white 2 on 24, 5 on 13, 3 on 8, 5 on 6; black mirrored (25 - p)."""
    return parse_scene_truth(scene_label())


def board_of(truth: GroundTruth) -> TruthBoard:
    assert truth.board is not None
    return truth.board


def with_points(reading: Reading, change: dict[int, PointReading]) -> Reading:
    """`reading` with the points at the given indices (0 = white's point 1) replaced."""
    points = [change.get(i, p) for i, p in enumerate(reading.points)]
    return dataclasses.replace(reading, points=tuple(points))


def test_perfect_reading_scores_every_point() -> None:
    truth = start_truth()
    score = score_board(board_of(truth), truth_to_reading(truth), CONFIG)
    assert score.points_exact == 24
    assert score.exact
    summary = summarize_boards([score], CONFIG)
    assert summary.points_exact == Rate(24, 24)
    assert summary.count_mae == 0.0
    assert summary.count_error_histogram == {"0": 24, "1": 0, "2": 0, "3": 0, "4": 0, "5+": 0}
    assert summary.boards_exact == Rate(1, 1)


def test_two_wrong_counts_give_22_of_24() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    # White's point 6 holds 5 white: read as 6 (error 1). Point 1 holds 2 black: read as 5 (3).
    p6, p1 = reading.points[5], reading.points[0]
    assert (p6.color, p6.count, p1.color, p1.count) == ("white", 5, "black", 2)
    reading = with_points(
        reading, {5: dataclasses.replace(p6, count=6), 0: dataclasses.replace(p1, count=5)}
    )
    score = score_board(board_of(truth), reading, CONFIG)
    assert score.points_exact == 22
    assert not score.exact
    summary = summarize_boards([score], CONFIG)
    assert summary.points_exact == Rate(22, 24)
    assert summary.count_mae == pytest.approx(4 / 24)
    assert summary.count_error_histogram == {"0": 22, "1": 1, "2": 0, "3": 1, "4": 0, "5+": 0}
    assert summary.boards_exact == Rate(0, 1)


def test_wrong_colour_is_wrong_but_costs_no_count() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    reading = with_points(reading, {5: dataclasses.replace(reading.points[5], color="black")})
    score = score_board(board_of(truth), reading, CONFIG)
    assert score.points_exact == 23
    assert sum(p.count_error for p in score.points) == 0


def test_empty_point_needs_no_colour() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    assert reading.points[1].count == 0  # white's point 2 is empty at the start
    reading = with_points(reading, {1: dataclasses.replace(reading.points[1], color="white")})
    assert score_board(board_of(truth), reading, CONFIG).points_exact == 24


def test_points_are_matched_by_position_not_order() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    # Reverse the order and move every base and tip 10 px: spacing is 50, the limit 25.
    moved = tuple(
        dataclasses.replace(p, base=(p.base[0] + 10, p.base[1]), tip=(p.tip[0], p.tip[1] - 10))
        for p in reversed(reading.points)
    )
    score = score_board(board_of(truth), dataclasses.replace(reading, points=moved), CONFIG)
    assert score.points_exact == 24


def test_far_points_are_unmatched_and_invented() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    # White's point 6 (5 white) reported 30 px off both base and tip: beyond half a spacing.
    p6 = reading.points[5]
    far = dataclasses.replace(p6, base=(p6.base[0], p6.base[1] - 30), tip=(p6.tip[0], 310.0))
    score = score_board(board_of(truth), with_points(reading, {5: far}), CONFIG)
    assert score.points_exact == 23
    assert score.extra_points == 1 and score.extra_checkers == 5
    summary = summarize_boards([score], CONFIG)
    assert summary.points_unmatched == 1
    assert summary.count_mae == pytest.approx(5 / 24)  # unmatched = read as empty


def test_missing_point_counts_its_checkers_as_error() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    reading = dataclasses.replace(reading, points=reading.points[:23])  # white's 24 left out
    score = score_board(board_of(truth), reading, CONFIG)
    assert score.points_exact == 23
    assert [p.count_error for p in score.points if not p.matched] == [2]
    assert score.extra_points == 0


def test_invented_checkers_spoil_the_board() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    ghost = PointReading(base=(400.0, 10.0), tip=(400.0, 20.0), color="white", count=2)
    reading = dataclasses.replace(reading, points=(*reading.points, ghost))
    score = score_board(board_of(truth), reading, CONFIG)
    assert score.points_exact == 24
    assert (score.extra_points, score.extra_checkers) == (1, 2)
    assert not score.exact


def test_points_numbered_as_white_sees_them_show_the_seat() -> None:
    truth = start_truth()
    reading = truth_to_reading(truth)
    assert score_board(board_of(truth), reading, CONFIG).numbered_right is True
    # White put at the other long side: every point where it is, but numbered 12 away.
    turned = tuple(
        dataclasses.replace(p, point=(p.point + 11) % 24 + 1)
        for p in reading.points
        if p.point is not None
    )
    score = score_board(board_of(truth), dataclasses.replace(reading, points=turned), CONFIG)
    assert score.points_exact == 24 and score.numbered_right is False
    unnumbered = tuple(dataclasses.replace(p, point=None) for p in reading.points)
    plain = score_board(board_of(truth), dataclasses.replace(reading, points=unnumbered), CONFIG)
    assert plain.numbered_right is None and plain.exact
    summary = summarize_boards([score, plain], CONFIG)
    assert summary.numbered_right == Rate(0, 1)


def test_bar_and_off_counts() -> None:
    # The start, with one white checker on the bar and two black ones borne off (from 6s).
    white, black = short_start()
    white[5] -= 1
    black[5] -= 2
    truth = parse_scene_truth(scene_label(white=white, black=black, bar=(1, 0), off=(0, 2)))
    reading = truth_to_reading(truth)
    assert score_board(board_of(truth), reading, CONFIG).exact
    wrong_bar = dataclasses.replace(reading, bar=SideCounts(0, 0))
    no_off = dataclasses.replace(reading, off=None)
    s1 = score_board(board_of(truth), wrong_bar, CONFIG)
    s2 = score_board(board_of(truth), no_off, CONFIG)
    assert (s1.bar_right, s1.off_right, s1.exact) == (False, True, False)
    assert (s2.bar_right, s2.off_right, s2.exact) == (True, False, False)
    summary = summarize_boards([s1, s2], CONFIG)
    assert summary.bar_right == Rate(1, 2) and summary.off_right == Rate(1, 2)


def test_boards_without_a_hand_are_summarised_apart() -> None:
    clean = start_truth()
    under_hand = parse_scene_truth(scene_label(hand=True))
    # Under the hand one of the 5 white checkers on white's point 6 is hidden: read as 4.
    reading = truth_to_reading(under_hand)
    miscounted = with_points(reading, {5: dataclasses.replace(reading.points[5], count=4)})
    scores = [
        score_image("hand.png", under_hand, miscounted, {}, CONFIG),
        score_image("clean.png", clean, truth_to_reading(clean), {}, CONFIG),
    ]
    assert [s.hand for s in scores] == [True, False]
    summary = summarize(scores, CONFIG)
    assert summary.board is not None and summary.board_still is not None
    assert summary.board.points_exact == Rate(47, 48)
    assert summary.board.boards_exact == Rate(1, 2)
    still = summary.board_still
    assert still.boards == 1
    assert still.points_exact == Rate(24, 24) and still.boards_exact == Rate(1, 1)
    assert still.bar_right == Rate(1, 1) and still.off_right == Rate(1, 1)
    # Only hand scenes: every board is summarised, none is still.
    only_hand = summarize(scores[:1], CONFIG)
    assert only_hand.board is not None and only_hand.board_still is None


def test_what_a_hand_hides_is_left_out_of_the_in_view_figures() -> None:
    label = scene_label(hand=True)
    # The hand covers one of the 5 white checkers on white's point 6 and a fifth of one on 8,
    # the 5 and the board's bottom-right corner.
    label["checkers"] = [
        {"color": "white", "point": 6, "layer": 1, "hand_hidden": 0.8},
        {"color": "white", "point": 8, "layer": 1, "hand_hidden": 0.2},
        {"color": "white", "point": "off", "layer": 1, "hand_hidden": 1.0},
    ]
    label["dice"][1]["hand_hidden"] = 0.9
    label["board"]["corners_hand_hidden"] = [False, False, True, False]
    truth = parse_scene_truth(label)
    assert truth.board is not None
    assert [p.point for p in truth.board.points if not p.in_view] == [6]
    assert [d.in_view for d in truth.dice] == [True, False]
    assert truth.board.corners_in_view == (True, True, False, True)
    # Read: point 6 as 4 and point 8 as 2, the 5 missed, the hidden corner 5 % of the width off.
    reading = truth_to_reading(truth)
    read = with_points(
        reading,
        {
            5: dataclasses.replace(reading.points[5], count=4),
            7: dataclasses.replace(reading.points[7], count=2),
        },
    )
    assert read.corners is not None
    off = 0.05 * truth.board.width_px
    corners = (*read.corners[:2], (read.corners[2][0] + off, read.corners[2][1]), read.corners[3])
    read = dataclasses.replace(read, corners=corners, dice=read.dice[:1])
    summary = summarize([score_image("hand.png", truth, read, {}, CONFIG)], CONFIG)
    assert summary.board is not None and summary.corners is not None and summary.dice is not None
    assert summary.board.points_exact == Rate(22, 24)
    assert summary.board.points_in_view_exact == Rate(22, 23)  # 8 is in view and wrong
    assert summary.corners.corners_within_tolerance == Rate(3, 4)
    assert summary.corners.corners_in_view_within_tolerance == Rate(3, 3)
    assert summary.dice.value_right_on_flat == Rate(1, 2)
    assert summary.dice.value_right_on_flat_in_view == Rate(1, 1)


def test_a_board_is_in_view_only_when_no_checker_anywhere_is_under_a_hand() -> None:
    # One hand covers a checker in the tray; another only brushes one on point 6.
    tray_hidden = scene_label(hand=True)
    tray_hidden["checkers"] = [{"color": "white", "point": "off", "layer": 1, "hand_hidden": 1.0}]
    brushed = scene_label(hand=True)
    brushed["checkers"] = [{"color": "white", "point": 6, "layer": 1, "hand_hidden": 0.2}]
    hidden_truth, brushed_truth = parse_scene_truth(tray_hidden), parse_scene_truth(brushed)
    assert hidden_truth.board is not None and brushed_truth.board is not None
    assert all(p.in_view for p in hidden_truth.board.points)
    assert not hidden_truth.board.checkers_in_view
    assert brushed_truth.board.checkers_in_view
    # The first read right, the second with point 6 one short.
    reading = truth_to_reading(brushed_truth)
    short = with_points(reading, {5: dataclasses.replace(reading.points[5], count=4)})
    scores = [
        score_image("tray.png", hidden_truth, truth_to_reading(hidden_truth), {}, CONFIG),
        score_image("brushed.png", brushed_truth, short, {}, CONFIG),
    ]
    summary = summarize(scores, CONFIG)
    assert summary.board is not None
    assert summary.board.boards_exact == Rate(1, 2)
    assert summary.board.boards_in_view_exact == Rate(0, 1)


def test_dice_and_verdicts_without_a_hand_are_summarised_apart() -> None:
    clean = start_truth()
    under_hand = parse_scene_truth(scene_label(hand=True))
    # The hand hides the 5: only the 3 is read, and the throw is taken for an incomplete one.
    hidden = dataclasses.replace(
        truth_to_reading(under_hand),
        dice=truth_to_reading(under_hand).dice[:1],
        roll=RollVerdict(valid=False, reason="missing"),
    )
    scores = [
        score_image("hand.png", under_hand, hidden, {}, CONFIG),
        score_image("clean.png", clean, truth_to_reading(clean), {}, CONFIG),
    ]
    summary = summarize(scores, CONFIG)
    assert summary.dice is not None and summary.roll is not None
    assert summary.dice.value_right_on_flat == Rate(3, 4)
    assert summary.roll.accuracy == Rate(1, 2)
    assert summary.dice_still is not None and summary.roll_still is not None
    assert summary.dice_still.detected == Rate(2, 2)
    assert summary.dice_still.value_right_on_flat == Rate(2, 2)
    assert summary.roll_still.accuracy == Rate(1, 1)
    only_hand = summarize(scores[:1], CONFIG)
    assert only_hand.dice_still is None and only_hand.roll_still is None


def test_corner_errors_in_pixels_and_board_widths() -> None:
    board = board_of(start_truth())  # 700 px wide: 1 % is 7 px
    (tl, tr, br, bl) = board.corners
    # TL off by (3, 4) = 5 px; BR off by 8 px (1.14 % > 1 %); the other two exact.
    reading = Reading(corners=((tl[0] + 3, tl[1] + 4), tr, (br[0] + 8, br[1]), bl))
    score = score_corners(board, reading)
    assert score.errors_px == pytest.approx((5.0, 0.0, 8.0, 0.0))
    missing = score_corners(board, Reading())
    assert missing.errors_px is None
    summary = summarize_corners([score, missing], CONFIG)
    assert summary.boards_not_found == 1
    assert summary.mean_error_px == pytest.approx(13 / 4)
    assert summary.median_error_px == pytest.approx(2.5)
    assert summary.max_error_px == pytest.approx(8.0)
    assert summary.mean_error_frac == pytest.approx(13 / 4 / 700)
    # Three corners within 1 %, of eight; neither board has all four within.
    assert summary.corners_within_tolerance == Rate(3, 8)
    assert summary.boards_within_tolerance == Rate(0, 2)


def test_dice_matched_by_centre_inside_the_box() -> None:
    truth = parse_scene_truth(
        scene_label(dice=[die(3, (100.0, 100.0)), die(5, (200.0, 100.0), flat=False)])
    )
    reading = Reading(
        dice=(
            DieReading(center=(105.0, 96.0), value=3, half="right"),  # inside the 3's box
            DieReading(center=(215.0, 100.0), value=5),  # 15 px right: outside the 5's box
        )
    )
    score = score_dice(truth.dice, reading, CONFIG)
    assert [(d.matched, d.value_right) for d in score.dice] == [(True, True), (False, False)]
    assert score.false_positives == 1
    assert score.dice[0].attributes == {
        "flat": True,
        "on_checker": True,
        "on_board": True,
        "half": True,
    }
    summary = summarize_dice(score.dice, score.false_positives)
    assert summary.detected == Rate(1, 2)
    assert summary.value_right == Rate(1, 2)
    assert summary.value_right_when_detected == Rate(1, 1)
    assert summary.value_right_on_flat == Rate(1, 1)  # only the 3 lies flat
    # A margin of half the box reaches the second die: centre 15 px from a 10 px half-width.
    wide = score_dice(truth.dice, reading, EvalConfig(die_box_margin_frac=0.5))
    assert wide.false_positives == 0


def test_two_predictions_for_one_die_leave_one_false_positive() -> None:
    truth = parse_scene_truth(scene_label(dice=[die(2, (100.0, 100.0))]))
    reading = Reading(
        dice=(DieReading(center=(108.0, 100.0), value=4), DieReading((101.0, 100.0), 2))
    )
    score = score_dice(truth.dice, reading, CONFIG)
    assert score.dice[0].predicted_value == 2  # the nearer one wins
    assert score.false_positives == 1


def test_confusion_matrix_precision_and_recall() -> None:
    outcomes = (
        [RollOutcome("valid", "valid")] * 3
        + [RollOutcome("cocked", "valid"), RollOutcome("cocked", "cocked")]
        + [RollOutcome("on_checker", "missing")]
    )
    m = confusion_matrix(outcomes)
    assert m.classes == (
        "valid",
        "cocked",
        "on_checker",
        "off_board",
        "split_halves",
        "missing",
    )
    assert m.counts[0] == (3, 0, 0, 0, 0, 0)
    assert m.counts[1] == (1, 1, 0, 0, 0, 0)
    assert m.counts[2] == (0, 0, 0, 0, 0, 1)
    assert m.per_class["valid"].precision == Rate(3, 4)
    assert m.per_class["valid"].recall == Rate(3, 3)
    assert m.per_class["cocked"].precision == Rate(1, 1)
    assert m.per_class["cocked"].recall == Rate(1, 2)
    assert m.per_class["on_checker"].recall == Rate(0, 1)
    assert m.per_class["on_checker"].precision.share is None
    assert m.accuracy == Rate(4, 6)


def test_extra_verdict_classes_appear_only_when_present() -> None:
    m = confusion_matrix([RollOutcome("rolling", "valid"), RollOutcome("valid", "void")])
    core = ("valid", "cocked", "on_checker", "off_board", "split_halves")
    assert m.classes == (*core, "rolling", "void")
    assert "wrong_half" not in m.classes


def test_roll_classes() -> None:
    assert roll_class(RollVerdict(True)) == "valid"
    assert roll_class(RollVerdict(False, "split_halves")) == "split_halves"
    assert roll_class(RollVerdict(False, None)) == "void"
    assert roll_class(None) == "missing"


def test_timing_statistics() -> None:
    stats = summarize_timings([{"a": 1.0, "b": 7.0}, {"a": 2.0}, {"a": 3.0}, {"a": 4.0}])
    assert stats["a"].images == 4
    assert (stats["a"].mean, stats["a"].median, stats["a"].max) == (2.5, 2.5, 4.0)
    assert stats["a"].p95 == pytest.approx(3.85)  # linear interpolation: 1 + 0.95 * 3
    assert stats["b"].images == 1


def test_rate_share() -> None:
    assert Rate(22, 24).share == pytest.approx(22 / 24)
    assert Rate(0, 0).share is None


def test_best_match_pairs_within_reach() -> None:
    cost = np.array([[1.0, 2.0], [1.5, 10.0], [np.inf, 0.5]])
    assert best_match(cost, max_cost=5.0) == [(0, 0), (2, 1)]
    assert best_match(cost, max_cost=0.7) == [(2, 1)]
    assert best_match(np.zeros((0, 3)), max_cost=1.0) == []
    assert best_match(np.full((2, 2), np.inf), max_cost=np.inf) == []


def test_two_touching_dice_are_both_paired() -> None:
    """Each die's box holds both predictions; the one nearest either die is nearer the wrong
    one (cheapest first, it took that pair and left the other die unpaired)."""
    inf = np.inf
    cost = np.array([[7.3, inf], [7.2, 10.4]])
    assert best_match(cost, max_cost=inf) == [(0, 0), (1, 1)]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 4).flatmap(
        lambda rows: st.integers(0, 4).flatmap(
            lambda cols: st.lists(
                st.one_of(st.just(np.inf), st.integers(0, 9).map(float)),
                min_size=rows * cols,
                max_size=rows * cols,
            ).map(lambda values: np.array(values, np.float64).reshape(rows, cols))
        )
    ),
    st.sampled_from([np.inf, 5.0]),
)
def test_best_match_is_the_largest_pairing_of_least_cost(cost: np.ndarray, reach: float) -> None:
    """Against every pairing tried in turn: the most pairs, and the least total cost of those."""
    rows, cols = cost.shape
    allowed = np.isfinite(cost) & (cost <= reach)
    best = (0, 0.0)
    for order in itertools.permutations(range(max(rows, cols))):
        pairs = [(r, c) for r, c in zip(range(rows), order, strict=False) if c < cols]
        pairs = [(r, c) for r, c in pairs if allowed[r, c]]
        key = (len(pairs), -sum(cost[r, c] for r, c in pairs))
        best = max(best, key)
    found = best_match(cost, reach)
    assert len({r for r, _ in found}) == len({c for _, c in found}) == len(found)
    assert all(allowed[r, c] for r, c in found)
    assert (len(found), -sum(cost[r, c] for r, c in found)) == pytest.approx(best)
