"""The hand cover network's plumbing: where each checker place is sampled, how a covered place's
odds are disregarded, and that the 15-per-side rule then puts a hidden checker under the hand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.rules import variant_from_name
from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision.checker_model import (
    HEIGHTS,
    SLOTS,
    STRIPS,
    TRAY,
    count_loglik,
    count_loglik_with_rows,
)
from referee.vision.checker_truth import label_profile
from referee.vision.checkers import conserve, read_checkers
from referee.vision.config import CheckerConfig, VisionConfig
from referee.vision.geometry import POINTS, BoardModel, make_canvas
from referee.vision.hand_cover import (
    DEFAULT_MODEL,
    hidden_share,
    load_hand_cover_net,
    output_size,
    place_cover,
    uncovered,
)
from referee.vision.pipeline import canvas_for

ROOT = Path(__file__).resolve().parents[1]
CANVAS = make_canvas(BoardModel(), 640, 120.0, 70.0)


def _cover_over(canvas_box: tuple[float, float, float, float]) -> np.ndarray:
    """A cover grid that is 1 inside a box of canvas pixels (x0, y0, x1, y1), else 0."""
    cols, rows = output_size()
    width, height = CANVAS.size
    grid = np.zeros((rows, cols))
    x0, y0, x1, y1 = canvas_box
    grid[
        round(y0 * rows / height) : round(y1 * rows / height),
        round(x0 * cols / width) : round(x1 * cols / width),
    ] = 1.0
    return grid


@pytest.mark.parametrize("home", ["right", "left"])
def test_a_point_under_a_hand_is_covered_and_the_far_side_is_not(home: str) -> None:
    model = CANVAS.model
    x, y, direction = model.point_frame(3, home)  # type: ignore[arg-type]
    near = CANVAS.to_px(np.array([[x - 18, y], [x + 18, y + direction * 120]]))
    box = (near[:, 0].min(), near[:, 1].min(), near[:, 0].max(), near[:, 1].max())
    cover = place_cover(_cover_over(box), CANVAS, home)  # type: ignore[arg-type]
    assert cover.shape == (STRIPS, SLOTS)
    # Point 3's first slots lie inside the box; the box ends 120 mm along, before slot 4.
    assert np.all(cover[2, :3] > 0.9), cover[2]
    assert np.all(cover[2, 4:] < 0.1), cover[2]
    others = np.delete(cover, 2, axis=0)
    assert others.max() < 0.5
    # The points across the board and the tray are far from the box.
    assert cover[12:18].max() == 0.0 and cover[list(TRAY)].max() == 0.0


def test_no_hand_covers_nothing() -> None:
    cols, rows = output_size()
    assert place_cover(np.zeros((rows, cols)), CANVAS, "right").max() == 0.0


def test_what_a_covered_place_says_is_disregarded_in_proportion() -> None:
    assert hidden_share(np.array([0.0, 0.4, 0.7, 1.0]), 0.4, 0.5) == pytest.approx(
        [0.0, 0.0, 0.25, 0.5]
    )
    heights = np.zeros((2, SLOTS, HEIGHTS))
    heights[..., 0] = 1.0  # sure it is empty
    mixed = uncovered(heights, np.array([[0.0] * SLOTS, [1.0] * SLOTS]))
    assert mixed[0] == pytest.approx(heights[0])
    assert mixed[1] == pytest.approx(np.full((SLOTS, HEIGHTS), 1 / HEIGHTS))
    assert mixed.sum(axis=2) == pytest.approx(np.ones((2, SLOTS)))


def _sure_heights(counts: list[int]) -> np.ndarray:
    """Slot heights (points, SLOTS, HEIGHTS) near sure of rows of `counts` checkers."""
    heights = np.full((len(counts), SLOTS, HEIGHTS), 0.002)
    for p, n in enumerate(counts):
        for k in range(SLOTS):
            heights[p, k, 1 if k < n else 0] = 1.0
    return heights / heights.sum(axis=2, keepdims=True)


def test_a_checker_hidden_by_the_hand_is_put_under_it_not_on_another_point() -> None:
    # White: 5 on point 1, 5 on 2, 4 on 3 shown and 1 on point 4 under the hand; black: 15
    # on point 13 (counts read as rows; black's colour from the odds).
    counts = [5, 5, 4] + [0] * 9 + [5] + [0] * 11
    heights = _sure_heights(counts)
    colour = np.zeros(POINTS)
    colour[:3] = 10.0
    colour[12] = -10.0
    cover = np.zeros((POINTS, SLOTS))
    cover[3, :3] = 1.0
    config = CheckerConfig()
    tray = count_loglik(_sure_heights([0, 0]), "tray")
    bar = count_loglik(_sure_heights([0, 0]), "bar")

    def read(hidden: np.ndarray) -> dict[int, tuple[str | None, int]]:
        count_ll, _ = count_loglik_with_rows(uncovered(heights, hidden))
        # Black's 15 on one point: ten more than its row shows, as a stacked head reads.
        count_ll[12] = np.where(np.arange(count_ll.shape[1]) == 15, 0.0, -50.0)
        reading = conserve(
            count_ll, colour, bar, tray, config.conservation_penalty, None, hidden[:, 0]
        )
        return {p.point: (p.color, p.count) for p in reading.points if p.count}

    # Without the cover the missing checker costs the penalty (nothing shown can take it).
    assert read(np.zeros((POINTS, SLOTS))).get(4) is None
    seen = read(hidden_share(cover, config.hand_cover_start, config.hand_doubt))
    assert seen[4] == ("white", 1)
    assert seen[1] == ("white", 5) and seen[2] == ("white", 5) and seen[3] == ("white", 4)


needs_model = pytest.mark.skipif(
    load_hand_cover_net() is None, reason=f"{DEFAULT_MODEL.name} is not in models/"
)


def _board_truth(truth: dict) -> list[tuple[str | None, int]]:
    variant = variant_from_name(truth["variant"])
    position = truth["position"]
    board: list[tuple[str | None, int]] = [(None, 0)] * POINTS
    for p in range(1, POINTS + 1):
        if position["white"][p - 1]:
            board[p - 1] = ("white", position["white"][p - 1])
        if position["black"][p - 1]:
            board[variant.opponent_point(p) - 1] = ("black", position["black"][p - 1])
    return board


@needs_model
def test_the_network_finds_the_hand_of_a_rendered_scene() -> None:
    net = load_hand_cover_net()
    assert net is not None
    config = load_config(ROOT / "datasets" / "hands.json")
    found = 0
    for index in range(12):
        jpeg, truth = render_sample(config, 9, index, None)
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        profile = label_profile(truth)
        canvas = canvas_for(profile, VisionConfig())
        cover = net.cover(profile.rectify(image, canvas))
        cols, rows = output_size()
        assert cover.shape == (rows, cols)
        mask = np.zeros(image.shape[:2], np.uint8)
        outlines = [np.round(np.array(o)).astype(np.int32) for o in truth["hand_outlines"]]
        if outlines:
            cv2.fillPoly(mask, outlines, 255)
        shown = cv2.resize(
            profile.rectify(mask, canvas), (cols, rows), interpolation=cv2.INTER_AREA
        )
        hand = shown >= 128
        called = cover >= 0.5
        if not hand.any():
            assert called.mean() < 0.01, index
            continue
        iou = (hand & called).sum() / (hand | called).sum()
        found += iou >= 0.6
        assert iou >= 0.3, (index, iou)
    assert found >= 6


@needs_model
def test_rendered_hand_scenes_read_better_with_the_hand_cover() -> None:
    config = load_config(ROOT / "datasets" / "hands.json")
    with_cover = CheckerConfig()
    without = dataclasses.replace(with_cover, use_hand_model=False)
    points = {"with": 0, "without": 0}
    boards = {"with": 0, "without": 0}
    for index in range(30):
        jpeg, truth = render_sample(config, 9, index, None)
        if not truth["hand"]:
            continue
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        profile = label_profile(truth)
        canvas = canvas_for(profile, VisionConfig())
        rectified = profile.rectify(image, canvas)
        variant = variant_from_name(truth["variant"])
        board = _board_truth(truth)
        for name, used in (("with", with_cover), ("without", without)):
            read = read_checkers(rectified, canvas, profile.home, used, variant)
            seen = [(p.color, p.count) if p.count else (None, 0) for p in read.points]
            right = sum(s == t for s, t in zip(seen, board, strict=True))
            points[name] += right
            boards[name] += right == POINTS
    # 581 against 573 points right, 16 against 15 boards, when the shipped network was made.
    assert points["with"] >= points["without"] + 5, points
    assert boards["with"] >= boards["without"], boards
