"""Anti-aliased polygons cover their true area and put their edges where the geometry says."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.scenes.raster import SAMPLES, coverage, fill_convex

# OpenCV counts a sample on the polygon's edge as inside: at most one sample too many per side.
EDGE_SLACK = 1.0 / SAMPLES


def perimeter(polygon: np.ndarray) -> float:
    return float(np.linalg.norm(np.roll(polygon, -1, axis=0) - polygon, axis=1).sum())


@pytest.mark.parametrize("offset", [0.0, 0.25, 0.5, 0.8])
def test_a_square_covers_its_area(offset: float) -> None:
    low, high = 20.0 + offset, 120.0 + offset
    square = np.array([[low, low], [high, low], [high, high], [low, high]])
    area = coverage(square, (160, 160)).astype(np.float64).sum() / 255
    # OpenCV's LINE_AA fill covers about 10,290 px here.
    assert 10_000 <= area <= 10_000 + perimeter(square) * EDGE_SLACK


@pytest.mark.parametrize("angle", [0.3, 1.0, 2.2])
def test_a_turned_triangle_covers_its_area(angle: float) -> None:
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    triangle = np.array([[-40.0, -25.0], [45.0, -10.0], [5.0, 50.0]]) @ turn.T + [70.3, 69.6]
    area = coverage(triangle, (140, 140)).astype(np.float64).sum() / 255
    true = cv2.contourArea(triangle.astype(np.float32))
    assert abs(area - true) <= perimeter(triangle) * EDGE_SLACK


@pytest.mark.parametrize("edge", [10.0, 10.25, 10.5, 10.75])
def test_an_edge_covers_the_share_of_the_pixel_on_its_side(edge: float) -> None:
    # Pixel 10 spans 9.5 .. 10.5; the polygon begins at `edge`.
    strip = np.array([[edge, 0.0], [30.0, 0.0], [30.0, 8.0], [edge, 8.0]])
    share = coverage(strip, (8, 32))[4, 10] / 255
    assert share == pytest.approx(np.clip(10.5 - edge, 0.0, 1.0), abs=EDGE_SLACK)
    assert coverage(strip, (8, 32))[4, 9] == 0


def test_fill_blends_the_colour_by_coverage_and_leaves_the_rest() -> None:
    image = np.full((20, 30, 3), 100, np.uint8)
    # Half of column 10 is inside, columns 11-18 wholly, most of 19; nothing above row 5.
    fill_convex(
        image, np.array([[10.0, 5.0], [19.4, 5.0], [19.4, 40.0], [10.0, 40.0]]), (0, 0, 200)
    )
    assert image[10, 15].tolist() == [0, 0, 200]
    assert image[10, 10].tolist() == pytest.approx([50, 50, 150], abs=13)
    assert (image[:4] == 100).all()
    assert (image[:, :10] == 100).all() and (image[:, 20:] == 100).all()


def test_a_polygon_outside_the_image_changes_nothing() -> None:
    image = np.zeros((10, 10), np.uint8)
    fill_convex(image, np.array([[20.0, 20.0], [30.0, 20.0], [25.0, 30.0]]), 255)
    fill_convex(image, np.array([[-20.0, -5.0], [-12.0, -5.0], [-15.0, -1.0]]), 255)
    assert not image.any()
