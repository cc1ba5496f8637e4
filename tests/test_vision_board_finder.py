"""The marker-free board finder's border refinement: which of the straight edges along a raised
frame's inside is the playing surface's edge."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.board_finder import _border_points
from referee.vision.config import CalibrationConfig
from referee.vision.edges import EdgeImage

FRAME = (40, 80, 140)  # BGR: a brown frame top
WALL = (15, 30, 55)  # the frame's inner wall, in shade
FIELD = (60, 110, 40)  # green felt
TRIANGLE = (200, 210, 220)  # a light point


def _picture(wall_px: int, triangle_inset_px: int | None) -> np.ndarray:
    """The top border of a board: frame above y = 100 - wall_px, the wall down to the
    surface's edge at y = 100, the field below; optionally a light band (a row of light
    points' sides) from y = 100 + inset to 100 + inset + 30."""
    image = np.zeros((300, 600, 3), np.uint8)
    image[:] = FIELD
    image[: 100 - wall_px] = FRAME
    image[100 - wall_px : 100] = WALL
    if triangle_inset_px is not None:
        image[100 + triangle_inset_px : 130 + triangle_inset_px, :] = TRIANGLE
    return np.asarray(cv2.GaussianBlur(image, (3, 3), 0), np.uint8)


def _surface_edge_y(image: np.ndarray, coarse_y: float) -> float:
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    pts = _border_points(
        EdgeImage(image),
        lab,
        np.array([20.0, coarse_y]),
        np.array([580.0, coarse_y]),
        np.array([0.0, -1.0]),
        1000.0,
        CalibrationConfig(),
    )
    assert len(pts) > 20
    return float(np.median(pts[:, 1]))


def test_the_wall_is_skipped_for_the_surface_edge() -> None:
    # The coarse fit sits on the rim's top edge; the surface's edge is 8 px further in.
    assert abs(_surface_edge_y(_picture(8, None), 92.0) - 99.5) < 1.0


def test_a_stronger_edge_inside_the_surface_is_not_taken() -> None:
    # The light points start 7 px inside the surface's edge: a stronger edge than the
    # surface's own, but not the one next inward from the rim's top.
    assert abs(_surface_edge_y(_picture(8, 7), 100.0) - 99.5) < 1.0


def test_with_the_wall_hidden_the_visible_edge_is_kept() -> None:
    assert abs(_surface_edge_y(_picture(0, None), 97.0) - 99.5) < 1.0
