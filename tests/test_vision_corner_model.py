"""The corner network's patches and what its answers do to the corners (`corner_model`)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import SceneConfig
from referee.scenes.dataset import make_dataset
from referee.vision.config import CalibrationConfig
from referee.vision.corner_model import (
    DEFAULT_MODEL,
    PATCH_MM_PER_PX,
    PATCH_PX,
    corner_patches,
    load_corner_net,
    long_side_first,
    offsets_mm,
    refine_corners,
)
from referee.vision.geometry import BoardModel

MODEL = BoardModel()
# A board seen from above at an angle: TL, TR, BR, BL.
LANDSCAPE = np.array([[100.0, 80.0], [620.0, 95.0], [600.0, 430.0], [90.0, 410.0]])


def surface_image(corners: np.ndarray) -> np.ndarray:
    """A white surface inside `corners` on black."""
    image = np.zeros((520, 720, 3), np.uint8)
    cv2.fillPoly(image, [np.round(corners).astype(np.int32)], (255, 255, 255))
    return image


def test_the_long_side_comes_first() -> None:
    assert long_side_first(LANDSCAPE) == 0
    portrait = LANDSCAPE[:, ::-1].copy()[[0, 3, 2, 1]]  # the same board turned a quarter
    assert long_side_first(portrait) == 1


def test_every_corner_looks_like_the_first() -> None:
    """Each patch has the corner in its middle and the surface towards +x, +y."""
    patches = corner_patches(surface_image(LANDSCAPE), LANDSCAPE, MODEL)
    assert patches.shape == (4, PATCH_PX, PATCH_PX, 3)
    q = PATCH_PX // 4
    for patch in patches:
        grey = patch[..., 0].astype(float)
        assert grey[-q:, -q:].mean() > 250  # inside the surface
        assert grey[:q, :q].mean() < 5 and grey[:q, -q:].mean() < 5 and grey[-q:, :q].mean() < 5


def test_offsets_and_moves_round_trip() -> None:
    rng = np.random.default_rng(3)
    found = LANDSCAPE + rng.normal(0, 4, (4, 2))
    offsets = offsets_mm(found, LANDSCAPE, MODEL)
    assert np.abs(offsets).max() > 1.0
    assert np.allclose(offsets_mm(LANDSCAPE, LANDSCAPE, MODEL), 0.0, atol=1e-6)


class SeeingNet:
    """A network double that sees the corner: in each patch the white surface's two edges
    (sub-pixel, from how much of each row and column is white, away from the corner), their
    crossing's offset from the middle in the patch's millimetres."""

    def __init__(self) -> None:
        self.calls = 0
        self.patches = 0

    def offsets(self, patches: np.ndarray) -> np.ndarray:
        assert patches.shape[1:] == (PATCH_PX, PATCH_PX, 3)
        self.calls += 1
        self.patches = len(patches)
        middle = (PATCH_PX - 1) / 2
        out = []
        for patch in patches:
            white = patch[..., 0].astype(float) / 255
            inside = np.argwhere(white > 0.5)
            top, left = inside.min(axis=0)
            # Rows below the corner: the surface starts at x = width - white share; columns
            # right of it likewise.
            rows = np.arange(top + 6, PATCH_PX - 2)
            cols = np.arange(left + 6, PATCH_PX - 2)
            xs = PATCH_PX - white[rows].sum(axis=1) - 0.5
            ys = PATCH_PX - white[:, cols].sum(axis=0) - 0.5
            x_fit = np.polyfit(rows, xs, 1)  # x of the upright edge as a line in y
            y_fit = np.polyfit(cols, ys, 1)  # y of the lying edge as a line in x
            # Cross them: x = a*y + b, y = c*x + d.
            a, b = x_fit
            c, d = y_fit
            x = (a * d + b) / (1 - a * c)
            y = c * x + d
            out.append([(x - middle) * PATCH_MM_PER_PX, (y - middle) * PATCH_MM_PER_PX])
        return np.array(out)


class BlindNet:
    """A network double that cannot see the corner (a hand over it): the same offsets from
    wherever it looks."""

    def __init__(self, offsets: np.ndarray) -> None:
        self.answer = offsets

    def offsets(self, patches: np.ndarray) -> np.ndarray:
        assert patches.shape[1:] == (PATCH_PX, PATCH_PX, 3) and len(patches) % 4 == 0
        return np.tile(self.answer, (len(patches) // 4, 1))


@pytest.mark.parametrize("turned", [False, True])
def test_refinement_moves_corners_to_where_the_network_sees_them(turned: bool) -> None:
    truth = LANDSCAPE[:, ::-1].copy()[[0, 3, 2, 1]] if turned else LANDSCAPE
    shift = long_side_first(truth)
    assert shift == int(turned)
    found = truth + np.array([[6.0, 0.0], [6.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    image = surface_image(truth)
    net = SeeingNet()
    refined = refine_corners(image, found, net, MODEL, 1, 20.0, 4.0, 3.0)
    # One pass of the network: the look from the corners found, and eight from starts round.
    assert (net.calls, net.patches) == (1, 9 * 4)
    # Within the double's own sight of a pixel-drawn surface (6 px off before).
    assert np.linalg.norm(refined - truth, axis=1).max() < 1.5
    # One look alone moves them there too.
    single = refine_corners(image, found, SeeingNet(), MODEL, 1, 20.0)
    assert np.linalg.norm(single - truth, axis=1).max() < 1.5
    # An answer beyond the reach is not trusted: the corners stay.
    far = refine_corners(image, found, SeeingNet(), MODEL, 1, 1.0, 4.0, 3.0)
    assert np.allclose(far, found)


def test_a_network_that_cannot_see_the_corner_moves_nothing() -> None:
    """Answering alike from every start, its places scatter as far as the starts: not steady."""
    found = LANDSCAPE + np.array([[6.0, 0.0], [6.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    image = surface_image(LANDSCAPE)
    blind = BlindNet(offsets_mm(found, LANDSCAPE, MODEL))
    assert np.allclose(refine_corners(image, found, blind, MODEL, 1, 20.0, 4.0, 3.0), found)
    # Asked once, it is believed (and here happens to be right).
    once = refine_corners(image, found, BlindNet(blind.answer), MODEL, 1, 20.0)
    assert np.allclose(once, LANDSCAPE, atol=1e-6)
    # Starts nearer than the steadiness allowed cannot tell: the corners move.
    near = refine_corners(image, found, BlindNet(blind.answer), MODEL, 1, 20.0, 1.0, 3.0)
    assert np.allclose(near, LANDSCAPE, atol=1e-6)


def test_the_shipped_network_brings_a_side_off_by_1_5_percent_back(tmp_path: Path) -> None:
    """Generated scenes (a seed no network was trained on), each with its top side's line put
    1.5 % of the board's width too far out, as when the finder takes the rim's top edge: the
    shipped network brings every corner within 1 % (the issue's target), most far closer."""
    net = load_corner_net(str(DEFAULT_MODEL))
    assert net is not None and CalibrationConfig().use_corner_model
    make_dataset(tmp_path, 4, 3, SceneConfig(), (1280, 720), progress=False)
    errors = []
    for label in sorted(tmp_path.glob("0*.json")):
        truth = json.loads(label.read_text(encoding="utf-8"))
        seen = np.asarray(truth["board"]["corners"], np.float64)
        width = float(truth["board"]["width_px"])
        outward = seen[0] - seen[3] + seen[1] - seen[2]
        found = seen.copy()
        found[:2] += 0.015 * width * outward / np.linalg.norm(outward)
        image = np.asarray(cv2.imread(str(label.with_suffix(".jpg"))), np.uint8)
        refined = refine_corners(image, found, net, MODEL, 1, 20.0, 4.0, 3.0)
        errors.append(np.linalg.norm(refined - seen, axis=1) / width)
    assert np.max(errors) < 0.01, errors
    assert np.median(errors) < 0.002, errors
