"""Rendered images and their labels: reproducible, and every label agrees with the geometry."""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from typing import Any

import cv2
import numpy as np
import pytest

from referee.rules import variant_from_name
from referee.scenes.config import SceneConfig
from referee.scenes.dataset import YOLO_CLASSES, render_sample, yolo_lines
from referee.scenes.dice import top_value
from referee.scenes.layout import BoardLayout
from referee.scenes.render import paint
from referee.scenes.scene import sample_scene
from referee.scenes.styles import BOARD_STYLES

SIZE = (320, 240)
CONFIG = SceneConfig()


@functools.cache
def sample(index: int, seed: int = 11) -> tuple[bytes, dict[str, Any]]:
    return render_sample(CONFIG, seed, index, SIZE)


def test_same_seed_same_bytes_other_seed_other_image() -> None:
    data, truth = sample(0)
    again, truth_again = render_sample(CONFIG, 11, 0, SIZE)
    assert data == again
    assert truth == truth_again
    other, _ = render_sample(CONFIG, 12, 0, SIZE)
    assert other != data


def test_image_decodes_at_the_labelled_size() -> None:
    data, truth = sample(1)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (truth["height"], truth["width"], 3) == (SIZE[1], SIZE[0], 3)
    assert truth["image"] == "000001.jpg"
    # A photographed board is not flat colour: plenty of distinct grey levels.
    assert len(np.unique(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))) > 100


@pytest.mark.parametrize("index", range(6))
def test_checker_labels_match_the_position(index: int) -> None:
    _, truth = sample(index)
    position = truth["position"]
    variant = variant_from_name(position["variant"])
    expected: Counter[tuple[str, object]] = Counter()
    for point in range(1, 25):
        expected[("white", point)] += position["white"][point - 1]
        expected[("black", point)] += position["black"][variant.opponent_point(point) - 1]
    for color in ("white", "black"):
        expected[(color, "bar")] += position["bar"][color]
        expected[(color, "off")] += position["off"][color]
    labelled = Counter((c["color"], c["point"]) for c in truth["checkers"])
    assert labelled == +expected
    width, height = truth["width"], truth["height"]
    for checker in truth["checkers"]:
        x1, y1, x2, y2 = checker["box"]
        assert 0 <= x1 < x2 <= width - 1 and 0 <= y1 < y2 <= height - 1
        assert checker["layer"] >= 1
        assert checker["visible"] == (checker["visible_fraction"] >= 0.5)
    # Layers stack without gaps on each point.
    layers: dict[tuple[str, object], list[int]] = {}
    for checker in truth["checkers"]:
        layers.setdefault((checker["color"], checker["point"]), []).append(checker["layer"])
    for stack in layers.values():
        assert set(stack) == set(range(1, max(stack) + 1))


@pytest.mark.parametrize("index", range(6))
def test_board_labels_are_the_projection_of_the_board(index: int) -> None:
    _, truth = sample(index)
    camera = truth["camera"]
    K = np.array(camera["K"])
    dist = np.array(camera["dist"])
    rvec, tvec = np.array(camera["rvec"]), np.array(camera["tvec"])
    layout = BoardLayout(BOARD_STYLES[truth["board"]["style"]].dims)

    def project(points: np.ndarray) -> np.ndarray:
        image, _ = cv2.projectPoints(points.reshape(-1, 1, 3), rvec, tvec, K, dist)
        return image.reshape(-1, 2)

    corners = np.array(truth["board"]["corners"])
    projected = project(layout.playing_corners())
    for corner in corners:
        assert np.min(np.linalg.norm(projected - corner, axis=1)) < 0.5
    # Image order: top-left, top-right, bottom-right, bottom-left.
    tl, tr, br, bl = corners
    assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]
    top, bottom = np.linalg.norm(tr - tl), np.linalg.norm(br - bl)
    assert truth["board"]["width_px"] == pytest.approx((top + bottom) / 2, abs=0.2)
    for entry, point in zip(truth["board"]["points"], range(1, 25), strict=True):
        assert entry["point"] == point
        triangle = layout.point_triangle(point)
        expected = project(np.vstack([triangle, (triangle[0] + triangle[1])[None] / 2]))
        assert np.allclose(entry["polygon"], expected[:3], atol=0.1)
        assert np.allclose(entry["tip"], expected[2], atol=0.1)
        assert np.allclose(entry["base"], expected[3], atol=0.1)
    assert camera["height_mm"] == pytest.approx(
        float((-cv2.Rodrigues(rvec)[0].T @ tvec)[2]), abs=0.5
    )
    assert 0 <= camera["tilt_deg"] <= 30.01


@pytest.mark.parametrize("index", range(6))
def test_dice_labels_agree_with_their_pose(index: int) -> None:
    _, truth = sample(index)
    assert len(truth["dice"]) == 2
    width, height = truth["width"], truth["height"]
    for die in truth["dice"]:
        rotation = np.array(die["pose"]["rotation_matrix"])
        assert top_value(rotation) == die["value"]
        x1, y1, x2, y2 = die["box"]
        assert 0 <= x1 < x2 <= width - 1 and 0 <= y1 < y2 <= height - 1
        assert die["on_board"] == (die["half"] is not None)
        assert die["flat"] == (die["cocked_against"] is None and not die["rolling"])
    roll = truth["roll"]
    assert roll["valid"] == (roll["reason"] is None)
    assert roll["roller"] == truth["position"]["turn"]


def test_yolo_rows_are_normalised_boxes_of_known_classes() -> None:
    _, truth = sample(2)
    lines = yolo_lines(truth)
    visible = sum(c["visible"] for c in truth["checkers"])
    assert len(lines) == visible + len(truth["dice"])
    for line in lines:
        cls, *numbers = line.split()
        assert 0 <= int(cls) < len(YOLO_CLASSES)
        assert all(0.0 <= float(v) <= 1.0 for v in numbers)


def test_the_evaluation_harness_reads_the_labels() -> None:
    from referee.evaluation.truth import parse_scene_truth

    _, truth = sample(3)
    parsed = parse_scene_truth(truth)
    assert parsed.board is not None
    assert (
        sum(p.count for p in parsed.board.points)
        + sum(truth["position"]["bar"].values())
        + sum(truth["position"]["off"].values())
        == 30
    )
    assert len(parsed.dice) == 2


def test_dice_halves_are_named_from_the_roller_and_from_white() -> None:
    for index in range(6):
        _, truth = sample(index)
        roller = truth["roll"]["roller"]
        for die in truth["dice"]:
            if not die["on_board"]:
                assert die["half"] is None and die["half_from_white"] is None
                continue
            x = die["pose"]["position_mm"][0]
            assert die["half_from_white"] == ("right" if x > 0 else "left")
            same = die["half"] == die["half_from_white"]
            assert same == (roller == "white")


def test_what_a_hand_hides_is_labelled() -> None:
    # Image 13 of seed 11 has an arm over the board.
    rng = np.random.default_rng((11, 13))
    scene = sample_scene(rng, CONFIG, SIZE, 11)
    assert scene.frame.hands
    with_hand = paint(scene.look, scene.frame, np.random.default_rng(0))
    without = paint(
        scene.look, dataclasses.replace(scene.frame, hands=()), np.random.default_rng(0)
    )
    assert not any(without.checker_hand_hidden) and not any(without.die_hand_hidden)
    assert not any(without.corner_hand_hidden)
    _, truth = sample(13)
    hidden = [c for c in truth["checkers"] if c["hand_hidden"] >= 0.5]
    assert hidden and any(truth["board"]["corners_hand_hidden"])
    assert [c["hand_hidden"] for c in truth["checkers"]] == [
        round(h, 3) for h in with_hand.checker_hand_hidden
    ]
    # Where the label says the hand lies over a checker, the hand changed the picture.
    change = np.abs(with_hand.photo.astype(int) - without.photo.astype(int)).max(axis=2)
    for checker in hidden:
        x, y = (round(v) for v in checker["center"])
        if 0 <= x < SIZE[0] and 0 <= y < SIZE[1]:
            assert change[y, x] > 20
    # What no hand covers is labelled so.
    _, clear = sample(0)
    assert not clear["hand"] and not any(c["hand_hidden"] for c in clear["checkers"])


def test_an_onlooker_only_shades_the_scene_drawn_without_one() -> None:
    # The onlooker is drawn last, so the same seed gives the same scene, shaded where their
    # shadow falls; a config without one draws nothing for it and says nothing of it.
    plain_config = dataclasses.replace(CONFIG, hand_probability=0.0)
    shaded_config = dataclasses.replace(plain_config, onlooker_probability=1.0)
    plain, plain_truth = render_sample(plain_config, 11, 3, (640, 480))
    shaded, shaded_truth = render_sample(shaded_config, 11, 3, (640, 480))
    assert "onlooker" not in plain_truth["style"]
    assert shaded_truth["style"]["onlooker"] is True
    assert shaded_truth["checkers"] == plain_truth["checkers"]
    assert shaded_truth["dice"] == plain_truth["dice"]
    grey = [
        cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE).astype(float)
        for data in (plain, shaded)
    ]
    darker = grey[0] - grey[1]
    # A shadow: a region at least a twentieth of the picture darkened by a tenth or more of
    # the grey scale, and nothing lightened beyond the JPEG's own noise.
    assert (darker > 25).mean() > 0.05
    assert (darker < -25).mean() < 0.001
