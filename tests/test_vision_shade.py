"""Checker colours read as in full light (`referee/vision/shade.py`): the bare board near a
checker says how much a shadow darkens it.

Drawn boards check the measure itself: a shadow over part of a board with two triangle colours
is found where it falls and nowhere else, checkers in it do not hide it, and the colours lifted
by it are the lit ones. A rendered hand scene (seed 2 of `datasets/hands.json`, scene 99: an
arm's shadow across the white checkers of the home board's corner) reads every point right
with the measure and a point in full view the wrong colour without it.
"""

from __future__ import annotations

import collections
import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config as scene_config
from referee.scenes.dataset import render_sample
from referee.vision.checker_truth import label_profile
from referee.vision.checkers import slot_centres
from referee.vision.config import VisionConfig
from referee.vision.geometry import POINTS, BoardModel, make_canvas
from referee.vision.pipeline import VisionPipeline, canvas_for
from referee.vision.shade import board_light, place_light, relit, relit_photo, surface_kinds

ROOT = Path(__file__).resolve().parents[1]
CANVAS = make_canvas(BoardModel(), 640, 120.0, 70.0)
SLOTS = 5
FIELD, DARK, LIGHT = (150, 170, 190), (40, 60, 90), (120, 190, 230)


def drawn_board() -> np.ndarray:
    """The canvas with the field and the two triangle colours painted where `surface_kinds`
    puts them (the border bands, which it leaves out, painted field)."""
    kinds = surface_kinds(CANVAS, "right")
    board = np.full((*kinds.shape, 3), FIELD, np.uint8)
    board[kinds == 1] = DARK
    board[kinds == 2] = LIGHT
    return board


def in_shadow(board: np.ndarray, x0: int, x1: int, factor: float) -> np.ndarray:
    """`board` with every colour in the columns x0..x1 darkened by `factor`."""
    out = board.copy()
    out[:, x0:x1] = np.round(out[:, x0:x1] * factor).astype(np.uint8)
    return out


def test_kinds_part_triangles_field_and_the_rest() -> None:
    kinds = surface_kinds(CANVAS, "right")
    model = CANVAS.model
    base, tip = model.base_tip(3, "right")
    middle = CANVAS.to_px((base + tip) / 2)
    assert kinds[round(middle[1]), round(middle[0])] == 1  # an odd point
    field = CANVAS.to_px(np.array([model.width_mm / 4, model.depth_mm / 2]))
    assert kinds[round(field[1]), round(field[0])] == 3
    bar = CANVAS.to_px(np.array([model.width_mm / 2, model.depth_mm / 2]))
    assert kinds[round(bar[1]), round(bar[0])] == 0
    # Points 1 and 2 lie side by side, 1 and 24 face each other: each pair differs. Their
    # shared edge is left out.
    kinds_of = [
        int(kinds[round(p[1]), round(p[0])])
        for p in (CANVAS.to_px(sum(model.base_tip(n, "right")) / 2) for n in (1, 2, 24))
    ]
    assert kinds_of == [1, 2, 2]
    edge = CANVAS.to_px(model.base_tip(1, "right")[0] + [model.point_width_mm / 2, 20.0])
    assert kinds[round(edge[1]), round(edge[0])] == 0


def test_a_shadow_is_measured_where_it_falls_only() -> None:
    centres = slot_centres(CANVAS, "right", SLOTS)
    # The shadow over the board's left quarter: points 10-12 and 13-15 lie in it.
    x0 = round(CANVAS.to_px(np.array([0.0, 0.0]))[0])
    x1 = round(CANVAS.to_px(np.array([CANVAS.model.width_mm / 4, 0.0]))[0])
    board = in_shadow(drawn_board(), 0, x1, 0.45)
    light = place_light(board, CANVAS, "right", centres, np.zeros((POINTS, SLOTS)))
    shaded = (centres[..., 0] > x0 + 30) & (centres[..., 0] < x1 - 30)
    lit = centres[..., 0] > x1 + 30
    assert shaded.any() and lit.any()
    # Lightness (Lab's L, from the gamma-coded pixels) is taken down about as far.
    assert np.all((light[shaded] > 0.35) & (light[shaded] < 0.6))
    assert np.all(light[lit] == 1.0)


def test_checkers_in_the_shadow_do_not_hide_it() -> None:
    centres = slot_centres(CANVAS, "right", SLOTS)
    x1 = round(CANVAS.to_px(np.array([CANVAS.model.width_mm / 4, 0.0]))[0])
    board = drawn_board()
    occupied = np.zeros((POINTS, SLOTS))
    radius = round(CANVAS.model.checker_mm / 2 * CANVAS.px_per_mm)
    for point in (11, 14):  # rows of three white checkers, in the shadow below
        occupied[point - 1, :3] = 1.0
        for x, y in centres[point - 1, :3]:
            cv2.circle(board, (round(x), round(y)), radius, (235, 240, 245), -1)
    board = in_shadow(board, 0, x1, 0.45)
    light = place_light(board, CANVAS, "right", centres, occupied)
    assert np.all(light[[10, 13], :3] < 0.75)
    # Taken for bare board, the white checkers would have hidden the shadow.
    blind = place_light(board, CANVAS, "right", centres, np.zeros((POINTS, SLOTS)))
    assert np.all(blind[[10, 13], :3] > light[[10, 13], :3])


def test_no_shadow_reads_every_place_lit() -> None:
    centres = slot_centres(CANVAS, "right", SLOTS)
    light = place_light(drawn_board(), CANVAS, "right", centres, np.zeros((POINTS, SLOTS)))
    assert np.all(light == 1.0)


def test_relit_colours_are_the_lit_ones() -> None:
    lit = np.array([[[235.0, 131.0, 140.0]], [[60.0, 140.0, 150.0]]])
    neutral = np.array([0.0, 128.0, 128.0])
    shaded = neutral + (lit - neutral) * 0.5
    assert np.allclose(relit(shaded, np.full((2, 1), 0.5)), lit)
    assert np.allclose(relit(lit, np.ones((2, 1))), lit)
    # However deep the shadow measured, a colour is lifted at most five times.
    assert np.allclose(relit(shaded, np.full((2, 1), 0.01)), relit(shaded, np.full((2, 1), 0.2)))


@pytest.fixture(scope="module")
def arm_shadow_scene() -> tuple[np.ndarray, dict]:
    jpeg, truth = render_sample(scene_config(ROOT / "datasets" / "hands.json"), 2, 99, None)
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), truth


def wrong_points(image: np.ndarray, truth: dict, config: VisionConfig) -> dict[int, bool]:
    """The points read wrong, each with whether its checkers are all in full view."""
    checkers = collections.defaultdict(list)
    for checker in truth["checkers"]:
        if isinstance(checker["point"], int):
            checkers[checker["point"]].append(checker)
    read = VisionPipeline(config, label_profile(truth)).read(image)
    wrong = {}
    for point in read.points:
        here = checkers[point.point]
        if (here[0]["color"] if here else None, len(here)) != (point.color, point.count):
            wrong[point.point] = all(c["hand_hidden"] == 0 for c in here)
    return wrong


def test_rendered_arm_shadow_reads_right_only_with_the_light_measured(
    arm_shadow_scene: tuple[np.ndarray, dict],
) -> None:
    image, truth = arm_shadow_scene
    config = VisionConfig()
    as_seen = dataclasses.replace(
        config, checkers=dataclasses.replace(config.checkers, shade_reach=0.0)
    )
    assert wrong_points(image, truth, config) == {}
    assert any(wrong_points(image, truth, as_seen).values())


def test_board_light_finds_a_shadow_past_unknown_white_checkers() -> None:
    # The dice are read before the checkers are known: white checkers stand on the bare board
    # it measures, and are left out as far from their surface's colour.
    board = drawn_board()
    radius = round(CANVAS.model.checker_mm / 2 * CANVAS.px_per_mm)
    centres = slot_centres(CANVAS, "right", SLOTS)
    for x, y in centres[[10, 13], :3].reshape(-1, 2):
        cv2.circle(board, (round(x), round(y)), radius, (235, 240, 245), -1)
    x1 = round(CANVAS.to_px(np.array([CANVAS.model.width_mm / 4, 0.0]))[0])
    light = board_light(in_shadow(board, 0, x1, 0.45), CANVAS, "right")
    # On the quarter-size map: the shadowed quarter's middle and the far half's.
    mid_y = light.shape[0] // 2
    shaded = light[mid_y, round(x1 / 4 * 0.6)]
    assert 0.35 < shaded < 0.6
    assert light[mid_y, round(light.shape[1] * 0.75)] == pytest.approx(1.0, abs=0.01)
    assert np.all(board_light(board, CANVAS, "right") > 0.99)


@pytest.fixture(scope="module")
def shadowed_throw() -> tuple[np.ndarray, dict]:
    # Seed 2 of `datasets/shadows.json`, scene 59: a cocked die in someone's shadow.
    jpeg, truth = render_sample(
        scene_config(ROOT / "datasets" / "shadows.json"), 2, 59, (1280, 720)
    )
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), truth


def test_relit_photo_divides_the_shadow_out_and_leaves_a_lit_photo(
    shadowed_throw: tuple[np.ndarray, dict],
) -> None:
    image, truth = shadowed_throw
    profile = label_profile(truth)
    canvas = canvas_for(profile, VisionConfig())
    lit = np.ones((canvas.size[1] // 4 + 1, canvas.size[0] // 4 + 1), np.float32)
    assert relit_photo(image, profile, canvas, lit) is image
    half = relit_photo(image, profile, canvas, lit * 0.5)
    x, y = np.round(np.mean(truth["board"]["corners"], axis=0)).astype(int)
    assert np.allclose(half[y, x], np.minimum(2.0 * image[y, x], 255), atol=2)


def test_rendered_cocked_die_in_a_shadow_is_caught_only_relit(
    shadowed_throw: tuple[np.ndarray, dict],
) -> None:
    image, truth = shadowed_throw
    assert truth["roll"]["reason"] == "cocked"
    config = VisionConfig()
    as_taken = dataclasses.replace(config, dice=dataclasses.replace(config.dice, shade_reach=0.0))
    roller, zone = truth["roll"]["roller"], truth["roll"]["roll_zone"]
    read = VisionPipeline(config, label_profile(truth)).read(image, roller, zone)
    assert read.roll.reason == "cocked"
    unlit = VisionPipeline(as_taken, label_profile(truth)).read(image, roller, zone)
    assert unlit.roll.reason != "cocked"
