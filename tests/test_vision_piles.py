"""The borne-off pile reader (`referee/vision/piles.py`, `models/checker_pile.onnx`): where the
tray's pile places are, how a pile's crop is cut and turned by the camera's slant, how its
odds are joined with the strip network's, and the shipped model on piles the generator
renders here (seed 7 of the bear-off config, which no training, tuning or measuring set uses).
The floor there is a regression guard under the figures in `models/checker_pile.md`, not a
target.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.rules.variants import variant_from_name
from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision import checkers as checkers_module
from referee.vision.board_finder import RaisedView
from referee.vision.checker_model import HEIGHTS, SLOTS
from referee.vision.checker_truth import label_profile
from referee.vision.checkers import read_checkers
from referee.vision.config import CheckerConfig, VisionConfig
from referee.vision.geometry import BoardModel, make_canvas
from referee.vision.piles import (
    DEFAULT_MODEL,
    PILE_CROP_PX,
    PILE_FOOT_ROW,
    PILE_MM_PER_PX,
    PileNet,
    join_pile_heights,
    load_pile_net,
    pile_crop,
    pile_feet,
    pile_slants,
    tray_direction,
    tray_heights,
)
from referee.vision.pipeline import VisionPipeline, canvas_for

ROOT = Path(__file__).resolve().parents[1]
CANVAS = make_canvas(BoardModel(), 640, 60.0, 40.0)


@pytest.mark.parametrize("home", ["right", "left"])
def test_pile_places_run_from_each_end_wall_inside_the_tray(home: str) -> None:
    model = CANVAS.model
    x0, y0, x1, y1 = model.tray_box(home)  # type: ignore[arg-type]
    feet = pile_feet(CANVAS, home)  # type: ignore[arg-type]
    walls = tray_direction(CANVAS, home)  # type: ignore[arg-type]
    assert np.allclose(feet[..., 0], (x0 + x1) / 2)
    first = 2.0 + model.checker_mm / 2
    # White's compartment piles from the far wall (y = depth) toward the middle, black's from y = 0.
    assert walls[0, 1] == 1.0 and walls[1, 1] == -1.0
    assert feet[0, 0, 1] == pytest.approx(y1 - first)
    assert feet[1, 0, 1] == pytest.approx(y0 + first)
    assert np.allclose(np.diff(feet[0, :, 1]), -(model.checker_mm + 1))
    assert np.allclose(np.diff(feet[1, :, 1]), model.checker_mm + 1)


def _dot_board(dot_mm: np.ndarray) -> np.ndarray:
    """A grey rectified board with one white dot at `dot_mm`."""
    w, h = CANVAS.size
    image = np.full((h, w, 3), 90, np.uint8)
    x, y = CANVAS.to_px(dot_mm)
    cv2.circle(image, (round(x), round(y)), 2, (255, 255, 255), -1)
    return image


def _brightest(crop: np.ndarray) -> tuple[int, int]:
    row, col = np.unravel_index(int(crop.sum(axis=2).argmax()), crop.shape[:2])
    return int(row), int(col)


def test_the_crop_puts_the_foot_low_in_the_middle_and_the_slant_up() -> None:
    foot = np.array([560.0, 300.0])
    slant = np.array([0.3, 0.4])  # 0.5 mm a mm of height, along (0.6, 0.8)
    wall = np.array([0.0, 1.0])
    row, col = _brightest(pile_crop(_dot_board(foot), CANVAS, foot, slant, wall))
    assert row == pytest.approx(PILE_FOOT_ROW, abs=1.5)
    assert col == pytest.approx((PILE_CROP_PX[0] - 1) / 2, abs=1.5)
    # A point 20 mm further along the slant shows 20 mm higher in the crop.
    above = foot + 20 * slant / 0.5
    row, col = _brightest(pile_crop(_dot_board(above), CANVAS, foot, slant, wall))
    assert row == pytest.approx(PILE_FOOT_ROW - 20 / PILE_MM_PER_PX, abs=1.5)
    assert col == pytest.approx((PILE_CROP_PX[0] - 1) / 2, abs=1.5)


def test_with_no_slant_to_speak_of_the_crop_is_turned_toward_the_end_wall() -> None:
    foot = np.array([560.0, 300.0])
    wall = np.array([0.0, -1.0])
    dot = foot + 15 * wall
    row, _ = _brightest(pile_crop(_dot_board(dot), CANVAS, foot, np.array([0.005, 0.0]), wall))
    assert row == pytest.approx(PILE_FOOT_ROW - 15 / PILE_MM_PER_PX, abs=1.5)


def test_odds_are_joined_as_a_weighted_geometric_mean() -> None:
    strip = np.array([0.1, 0.6, 0.1, 0.1, 0.05, 0.05])
    pile = np.array([0.0, 0.1, 0.1, 0.1, 0.1, 0.6])
    assert np.allclose(join_pile_heights(strip, pile, 0.0), strip)
    assert np.allclose(join_pile_heights(strip, pile, 1.0), pile, atol=1e-8)
    half = np.sqrt(strip * np.clip(pile, 1e-9, 1))
    assert np.allclose(join_pile_heights(strip, pile, 0.5), half / half.sum())


class FixedPiles(PileNet):
    """A stand-in that reads every crop as a pile of five and keeps the slant sizes asked."""

    def __init__(self) -> None:
        self.sizes: list[float] = []

    def heights(self, crops: np.ndarray, slant_sizes: np.ndarray) -> np.ndarray:
        assert crops.shape[1:] == (PILE_CROP_PX[1], PILE_CROP_PX[0], 3)
        self.sizes += list(slant_sizes)
        return np.tile(np.eye(HEIGHTS)[5], (len(crops), 1))


def test_only_places_the_strip_network_may_hold_a_checker_are_asked() -> None:
    strip = np.zeros((2, SLOTS, HEIGHTS))
    strip[..., 0] = 1.0
    strip[1, 0] = [0.0, 0.7, 0.1, 0.1, 0.05, 0.05]  # black's first pile: the strip says one
    strip[1, 1] = [0.99, 0.01, 0, 0, 0, 0]  # next to nothing: not asked
    slants = np.zeros((2, SLOTS, 2))
    slants[1, 0] = (0.3, 0.4)
    net = FixedPiles()
    rectified = np.zeros((CANVAS.size[1], CANVAS.size[0], 3), np.uint8)
    out = tray_heights(rectified, CANVAS, "right", strip, slants, net, 0.5, 0.02)
    assert net.sizes == [pytest.approx(0.5)]
    assert out[1, 0].argmax() == 5
    assert np.array_equal(
        np.delete(out.reshape(-1, HEIGHTS), SLOTS, axis=0),
        np.delete(strip.reshape(-1, HEIGHTS), SLOTS, axis=0),
    )


def test_the_reader_is_optional() -> None:
    assert load_pile_net("/nonexistent.onnx") is None
    assert load_pile_net() is not None and load_pile_net().path == DEFAULT_MODEL  # type: ignore[union-attr]


def test_rendered_bear_offs_trays_read_better_with_the_pile_reader() -> None:
    config = load_config(ROOT / "datasets" / "bearoff.json")
    checkers = CheckerConfig()
    alone = dataclasses.replace(checkers, use_pile_model=False)
    right = {"strip": 0, "piles": 0}
    trays = 0
    for index in range(16):
        jpeg, truth = render_sample(config, 7, index, None)
        image = np.asarray(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), np.uint8)
        profile = label_profile(truth)
        canvas = canvas_for(profile, VisionConfig())
        rectified = profile.rectify(image, canvas)
        view = RaisedView(profile.inverse, profile.image_size, profile.lens)
        slants = pile_slants(profile, view, pile_feet(canvas, profile.home))
        variant = variant_from_name(truth["variant"])
        off = truth["position"]["off"]
        trays += sum(1 for n in off.values() if n)
        for name, used in (("strip", alone), ("piles", checkers)):
            read = read_checkers(rectified, canvas, profile.home, used, variant, slants)
            right[name] += sum(1 for c, n in off.items() if n and read.off[c] == n)
    assert trays >= 20
    # 21 of 24 by the strip network alone, 22 with the pile reader (tray counts after the
    # 15-checker rule, which already mends most of the strip network's pile heights).
    assert right["piles"] > right["strip"], (right, trays)
    assert right["piles"] >= trays - 2, (right, trays)


def test_the_pipeline_asks_about_the_tray_with_its_cameras_slant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = load_config(ROOT / "datasets" / "bearoff.json")
    jpeg, truth = render_sample(config, 7, 0, None)
    image = np.asarray(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    profile = label_profile(truth)
    net = FixedPiles()
    monkeypatch.setattr(checkers_module, "load_pile_net", lambda path: net)
    VisionPipeline(VisionConfig(), profile).read(image)
    canvas = canvas_for(profile, VisionConfig())
    view = RaisedView(profile.inverse, profile.image_size, profile.lens)
    sizes = np.hypot(*pile_slants(profile, view, pile_feet(canvas, profile.home)).T).T
    assert net.sizes, "the tray of a bear-off was not read by the pile network"
    assert all(np.isclose(sizes, size).any() for size in net.sizes)
    monkeypatch.setattr(checkers_module, "load_pile_net", lambda path: pytest.fail("asked"))
    off = dataclasses.replace(VisionConfig().checkers, use_pile_model=False)
    VisionPipeline(dataclasses.replace(VisionConfig(), checkers=off), profile).read(image)
