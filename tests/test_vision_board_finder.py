"""The marker-free board finder's border refinement: which of the straight edges along a raised
frame's inside is the playing surface's edge."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config as load_scene_config
from referee.scenes.dataset import render_sample
from referee.vision import board_finder
from referee.vision.board_finder import (
    ModelScorer,
    RaisedView,
    _a_proper_quad,
    _border_edge,
    _jump_sides,
    _shift_by_points,
    camera_pose,
    candidate_quads,
    find_board,
    line_quads,
    polish,
    rim_shifts,
    surface_homography,
    surface_mm,
)
from referee.vision.calibration import CalibrationError, apply_homography, order_seen
from referee.vision.camera import LensModel
from referee.vision.config import CalibrationConfig
from referee.vision.edges import EdgeImage
from referee.vision.geometry import BoardModel
from referee.vision.synthetic import DrawnBoard, render

ROOT = Path(__file__).resolve().parents[1]
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


def _surface_edge_y(image: np.ndarray, coarse_y: float, rim_shift: float | None = None) -> float:
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    edge = _border_edge(
        EdgeImage(image),
        lab,
        np.array([20.0, coarse_y]),
        np.array([580.0, coarse_y]),
        np.array([0.0, -1.0]),
        1000.0,
        CalibrationConfig(),
        None if rim_shift is None else np.full(CalibrationConfig().refine_samples, rim_shift),
    )
    pts = edge.surface(rim_hides=True)
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


def test_a_hidden_wall_puts_the_surface_edge_beyond_the_rim_top() -> None:
    # Only the rim's top edge shows (at y = 99.5); the camera stands beyond this side, so the
    # rim hides 3 px of the surface: its edge lies 3 px further out (up).
    assert abs(_surface_edge_y(_picture(0, None), 97.0, rim_shift=-3.0) - 96.5) < 1.0


def test_a_seen_wall_picks_the_edge_where_the_rim_height_puts_it() -> None:
    # The wall shows 8 px: the surface's edge is the one 8 px inside the rim's top, not the
    # light points' edge 7 px further in.
    assert abs(_surface_edge_y(_picture(8, 7), 96.0, rim_shift=8.0) - 99.5) < 1.0


def test_a_wall_taller_than_reckoned_is_still_skipped() -> None:
    # The wall, the frame's wood in shade, shows 30 px where the rim's reckoned height says 12
    # and the board's width allows 22: the surface's edge (field against wall, stronger than
    # the rim's top against its own wall) is still the one taken, not the rim's top.
    image = np.zeros((300, 600, 3), np.uint8)
    image[:] = FIELD
    image[:70] = FRAME
    image[70:100] = (28, 58, 105)
    image = np.asarray(cv2.GaussianBlur(image, (3, 3), 0), np.uint8)
    assert abs(_surface_edge_y(image, 85.0, rim_shift=12.0) - 99.5) < 1.0


def test_a_faint_line_beyond_the_wall_is_not_taken_for_the_surface_edge() -> None:
    # The field meets the rim's top at y = 100 (the wall hidden though the rim's height says
    # 12 px should show); 25 px inside, the field turns a shade lighter. That edge is farther
    # in than the board's width allows a wall, within reach of a wall taller than reckoned,
    # and weaker than the rim's: not the surface's edge.
    image = np.zeros((300, 600, 3), np.uint8)
    image[:] = FIELD
    image[:100] = FRAME
    image[125:] = (90, 150, 70)
    image = np.asarray(cv2.GaussianBlur(image, (3, 3), 0), np.uint8)
    assert abs(_surface_edge_y(image, 110.0, rim_shift=12.0) - 99.5) < 1.0


@pytest.mark.parametrize("rim_shift", [None, 0.0, 4.0])
def test_an_inlaid_line_inside_the_surface_edge_is_not_taken(rim_shift: float | None) -> None:
    # A wooden board whose field is the frame's wood a shade darker, with no rim edge apart
    # from the surface's own (the wall's face blends into the rim's top): the edge at y = 100
    # has the frame's colour outside, and 3 px inside it runs a thin light line, the
    # stringing, weaker than it and with the frame's colour (give or take a shade) inside it.
    # Whether the rim's height says a wall of 4 px should show or none, the line is not taken.
    image = np.zeros((300, 600, 3), np.uint8)
    image[:] = (36, 57, 88)
    image[:100] = (50, 78, 120)
    image[103] = (68, 101, 147)
    image = np.asarray(cv2.GaussianBlur(image, (3, 3), 0), np.uint8)
    assert abs(_surface_edge_y(image, 98.0, rim_shift) - 99.5) < 1.0


def test_a_short_lone_edge_is_not_taken_for_the_border() -> None:
    # Navy field and a dark brown frame blend over 12 px (no edge steep enough shows there),
    # and a row of light checkers along a quarter of the border has an edge 12 px inside it:
    # the coarse line is kept (`border_widest_cover`).
    field, frame = np.array([70.0, 30.0, 25.0]), np.array([25.0, 35.0, 55.0])
    ramp = np.clip((np.arange(300) - 88) / 12, 0, 1)[:, None, None]
    image = np.asarray(np.broadcast_to(frame + ramp * (field - frame), (300, 600, 3)), np.uint8)
    image[112:150, 20:170] = (220, 225, 230)
    image = np.asarray(cv2.GaussianBlur(image, (3, 3), 0), np.uint8)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    edge = _border_edge(
        EdgeImage(image),
        lab,
        np.array([20.0, 100.0]),
        np.array([580.0, 100.0]),
        np.array([0.0, -1.0]),
        1000.0,
        CalibrationConfig(),
    )
    assert len(edge.points) == 0


def _camera(
    tilt_deg: float, focal: float, azimuth_deg: float = 30.0, height_mm: float = 1000.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A camera `height_mm` from the board's plane (z = 0, on its -z side), tilted `tilt_deg`
    from straight down, towards the board's middle (258, 200) from direction `azimuth_deg`."""
    a, z = np.radians(tilt_deg), np.radians(azimuth_deg)
    middle = np.array([258.0, 200.0, 0.0])
    away = height_mm * np.tan(a) * np.array([np.sin(z), -np.cos(z), 0.0])
    centre = middle + away + np.array([0.0, 0.0, -height_mm])
    forward = (middle - centre) / np.linalg.norm(middle - centre)
    right = np.cross(forward, np.array([0.0, 1.0, 0.0]))
    right /= -np.linalg.norm(right)
    down = np.cross(forward, right)
    R = np.stack([right, down, forward])
    return np.array([[focal, 0, 640], [0, focal, 360], [0, 0, 1.0]]), R, -R @ centre


def _project(K: np.ndarray, R: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    img = (p @ R.T + t) @ K.T
    return np.asarray(img[:, :2] / img[:, 2:3])


def _board_homography(K: np.ndarray, R: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Board mm (a 516 x 400 board's plane) to the camera's image pixels."""
    board = np.array([[0, 0, 0], [516, 0, 0], [516, 400, 0], [0, 400, 0]], dtype=np.float64)
    return cv2.getPerspectiveTransform(
        board[:, :2].astype(np.float32), _project(K, R, t, board).astype(np.float32)
    ).astype(np.float64)


def test_the_camera_pose_comes_back_from_the_board_plane() -> None:
    K, R, t = _camera(25.0, 1100.0)
    H = _board_homography(K, R, t)
    K2, R2, t2 = camera_pose(H, (1280, 720))
    # Tilted across both board axes the view fixes the focal length (the usual camera height
    # pulls it only a little).
    assert abs(K2[0, 0] - 1100.0) < 0.05 * 1100.0
    assert np.allclose(-R2.T @ t2, -R.T @ t, atol=50.0)


def _rim_shift_seen(K: np.ndarray, R: np.ndarray, t: np.ndarray, y: float) -> tuple[float, float]:
    """(true, estimated) shift of a 14 mm rim's top at the middle of the long side at `y`."""
    floor = np.array([[258.0, y, 0.0]])
    # The camera is at z < 0 here: the rim stands towards it.
    top = floor + np.array([0.0, 0.0, -14.0])
    seen = _project(K, R, t, np.concatenate([floor, top]))
    outward = _project(K, R, t, floor + np.array([0.0, y - 200.0, 0.0]) / 200.0)[0] - seen[0]
    outward /= np.linalg.norm(outward)
    H = _board_homography(K, R, t)
    return float((seen[1] - seen[0]) @ outward), float(
        rim_shifts(H, (1280, 720), seen[:1], outward, 14.0)[0]
    )


def test_a_view_tilted_along_one_board_axis_gets_the_usual_camera_height() -> None:
    # Tilted along the board's short axis only, the board's axes look perpendicular under any
    # focal length; the one a camera 0.8 m away needs is taken. (The image's larger side, taken
    # before, put the rim 5.9 px over the near edge instead of 2.5.)
    K, R, t = _camera(22.0, 900.0, azimuth_deg=0.0, height_mm=800.0)
    K2, _, _ = camera_pose(_board_homography(K, R, t), (1280, 720))
    assert abs(K2[0, 0] - 900.0) < 0.15 * 900.0
    for y in (0.0, 400.0):
        true_shift, shift = _rim_shift_seen(K, R, t, y)
        assert abs(shift - true_shift) < 1.2


def test_a_calibrated_lens_gives_the_focal_length_the_view_cannot() -> None:
    # Tilted along one board axis from 1.3 m: the usual-distance guess is 40 % short; a lens
    # measured with the checkerboard says it.
    K, R, t = _camera(20.0, 1400.0, azimuth_deg=0.0, height_mm=1300.0)
    H = _board_homography(K, R, t)
    guessed, _, _ = camera_pose(H, (1280, 720))
    assert guessed[0, 0] < 0.8 * 1400.0
    lens = LensModel(tuple(tuple(float(v) for v in row) for row in K), (0.0,), calibrated=True)  # type: ignore[arg-type]
    K2, R2, t2 = camera_pose(H, (1280, 720), lens)
    assert K2[0, 0] == pytest.approx(1400.0)
    assert np.allclose(-R2.T @ t2, -R.T @ t, atol=1.0)
    # An uncalibrated lens (a guess) does not count.
    assert camera_pose(H, (1280, 720), LensModel.guess(1280, 720))[0][0, 0] == guessed[0, 0]


def test_rim_shifts_match_the_rim_seen_by_the_camera() -> None:
    # The camera stands beyond the y = 0 side: there the rim hides the surface (shift < 0);
    # across the board, at y = 400, the wall faces the camera (shift > 0).
    K, R, t = _camera(35.0, 1000.0)
    for y, sign in ((0.0, -1.0), (400.0, 1.0)):
        true_shift, shift = _rim_shift_seen(K, R, t, y)
        assert np.sign(shift) == sign
        assert abs(shift - true_shift) < 0.2


def test_a_raised_point_is_brought_down_to_its_foot() -> None:
    # A die's top 24 mm up (a die on a checker) near a corner of a board seen 35 degrees
    # obliquely shows far from the spot it stands on; its foot is found again.
    K, R, t = _camera(35.0, 1000.0)
    view = RaisedView(_board_homography(K, R, t), (1280, 720))
    foot = np.array([[40.0, 370.0, 0.0]])
    top = foot + np.array([0.0, 0.0, -24.0])  # the camera is at z < 0
    seen = _project(K, R, t, top)
    below = _project(K, R, t, foot)
    assert np.linalg.norm(seen - below) > 10.0
    assert np.linalg.norm(view.foot(seen, 24.0) - below) < 0.2


def test_an_outline_broken_by_an_arm_still_gives_its_quadrilateral() -> None:
    # A light board on a dark table, an arm (a wide band) across it from the bottom edge: no
    # closed outline, but the four long sides still show.
    image = np.full((360, 640, 3), (30, 40, 50), np.uint8)
    board = np.array([[150, 60], [500, 80], [480, 320], [170, 300]], np.int32)
    cv2.fillConvexPoly(image, board, (150, 190, 210))
    cv2.line(image, (280, 360), (360, 150), (60, 80, 160), 60)
    quads = line_quads(image, CalibrationConfig())
    assert min(float(np.abs(q - board).max()) for q in quads) < 3.0


def test_a_fit_on_the_frames_outer_edges_jumps_back_to_the_surface() -> None:
    # A light frame on a dark table: its outer edges, 28 mm (5.4 % of the width) beyond the
    # surface's long sides, are the strongest lines in view. A fit whose long sides lie on them
    # is a hill-climb's local best; moving both sides in together finds the surface.
    model = BoardModel()
    truth = np.array([[120.0, 80.0], [520.0, 80.0], [520.0, 390.0], [120.0, 390.0]])
    board = DrawnBoard(table=(20, 20, 20), frame=(200, 210, 220), field=(120, 130, 60))
    image = render(board, truth, (640, 480), model)
    scorer = ModelScorer(EdgeImage(image), model, per_segment=12)
    frame_px = 28.0 * 400.0 / model.width_mm
    on_frame = truth + np.array([[0, -1], [0, -1], [0, 1], [0, 1]]) * frame_px
    stuck = polish(scorer, on_frame, step=1.0, rounds=2)
    assert np.abs(stuck - truth).max() > 10.0
    jumps = (0.03, 0.05, 0.07, 0.09)
    for start in (stuck, truth):
        # The stretched fit's triangles show at 0.07 here: a board for this test's drawing.
        found = _jump_sides(scorer, start, jumps, min_points=0.05, min_points_kept=0.9)
        assert np.abs(found - truth).max() < 2.0
    assert np.array_equal(_jump_sides(scorer, stuck, (), 0.05, 0.9), stuck)
    # A fit whose points do not show is no board, and no jump makes it one.
    assert np.array_equal(_jump_sides(scorer, stuck, jumps, 1.0, 0.9), stuck)


def test_a_fit_a_point_along_the_board_shifts_back() -> None:
    # The triangles repeat every point: a fit one point along the board still puts most of
    # them on triangles, and with an arm over the far end no hill-climb walks it back. Moving
    # it whole points along the board, in board millimetres, does.
    model = BoardModel()
    truth = np.array([[120.0, 80.0], [520.0, 80.0], [520.0, 390.0], [120.0, 390.0]])
    board = DrawnBoard(table=(20, 20, 20), frame=(60, 90, 140), field=(120, 130, 60))
    image = render(board, truth, (640, 480), model)
    cv2.rectangle(image, (470, 0), (640, 480), (90, 120, 170), -1)  # an arm over one end
    scorer = ModelScorer(EdgeImage(image), model, per_segment=12)
    H = surface_homography(model, truth)
    along = np.array([model.point_width_mm, 0.0])
    off = polish(scorer, apply_homography(H, surface_mm(model) - along), 1.0, 2)
    assert np.abs(off - truth).max() > 20.0
    config = CalibrationConfig()
    assert np.abs(_shift_by_points(scorer, off, config) - truth).max() < 3.0
    # A right fit stays, and with no shifts to try the fit stays as it is.
    assert np.abs(_shift_by_points(scorer, truth, config) - truth).max() < 3.0
    assert np.array_equal(_shift_by_points(scorer, off, CalibrationConfig(point_shifts=())), off)


def test_a_hill_climb_keeps_to_proper_quadrilaterals() -> None:
    # A board seen square on or steeply in perspective is a proper quadrilateral; a sliver (all
    # the model's lines on one strong edge outscore any board), a doubled corner (even one
    # whose stub of a side turns squarely) and a bow-tie are not, so polishing never steps
    # onto one.
    assert _a_proper_quad(np.array([[0.0, 0.0], [400.0, 0.0], [400.0, 300.0], [0.0, 300.0]]))
    assert _a_proper_quad(np.array([[150.0, 50.0], [450.0, 50.0], [600.0, 300.0], [0.0, 300.0]]))
    assert _a_proper_quad(np.array([[0.0, 300.0], [400.0, 300.0], [400.0, 0.0], [0.0, 0.0]]))
    sliver = np.array([[281.5, 571.0], [260.0, 256.2], [254.1, 167.4], [254.5, 160.0]])
    doubled = np.array([[200.0, 473.5], [162.1, 127.6], [162.1, 127.3], [208.1, 3.8]])
    stub = np.array([[0.0, 0.0], [400.0, 0.0], [400.0, 1.0], [0.0, 300.0]])
    bow_tie = np.array([[0.0, 0.0], [400.0, 300.0], [400.0, 0.0], [0.0, 300.0]])
    for quad in (sliver, doubled, stub, bow_tie):
        assert not _a_proper_quad(quad)


def test_a_dark_board_in_shadow_is_found_in_the_picture_evened_out() -> None:
    """A dark wenge board with someone's shadow across it (seed 2 of `datasets/shadows.json`,
    which no tuning or measuring set uses, scene 56): no outline the finder proposes shows the
    points until the picture's lightness is evened out, and the board found then is refined in
    the picture as taken."""
    scenes = load_scene_config(ROOT / "datasets" / "shadows.json")
    jpeg, truth = render_sample(scenes, 2, 56, None)
    assert truth["style"]["board"] == "wenge_dark"
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    with pytest.raises(CalibrationError, match="no points show"):
        find_board(image, dataclasses.replace(CalibrationConfig(), evened_clip=0.0))
    found = order_seen(np.array(find_board(image, CalibrationConfig()).corners))
    expected = order_seen(np.array(truth["board"]["corners"]))
    error = np.linalg.norm(found - expected, axis=1).max() / truth["board"]["width_px"]
    assert error < 0.01


def test_an_outline_broken_where_its_edge_fades_still_gives_its_quadrilateral() -> None:
    """A board on a dark table where a light patch of the table meets the board's edge (or a
    shadow darkens a dark frame to the table's tone): the outline encloses nothing there, but
    the hull of its edges still spans the board."""
    ys, xs = np.mgrid[0:360, 0:640].astype(np.float64)
    # The table lightens smoothly to the board's own tone round the left side's lower part.
    table = 40 + 50 * np.exp(-((xs - 145) ** 2 + (ys - 240) ** 2) / (2 * 50.0**2))
    corners = np.array([[150.0, 80.0], [500.0, 70.0], [510.0, 300.0], [140.0, 290.0]])
    inside = np.zeros((360, 640), np.uint8)
    cv2.fillConvexPoly(inside, corners.astype(np.int32), 1)
    grey = np.where(inside > 0, 90.0, table).astype(np.uint8)
    image = np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), np.uint8)
    config = CalibrationConfig()

    def nearest(quads: list[np.ndarray]) -> float:
        return min((float(np.abs(q - corners).max()) for q in quads), default=math.inf)

    assert nearest(candidate_quads(image, config)) < 5
    # Without the hulls the broken outline gives nothing near it.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(board_finder, "_HULL_MIN_AREA", math.inf)
        assert nearest(candidate_quads(image, config)) > 30


def test_a_board_under_a_strongly_bent_lens_is_found_in_the_picture_straightened() -> None:
    """Tuning scene 103 of seed 71 of `datasets/bent_lens.json`: a dark wenge board under a lens
    with k1 -0.24. The straight-sided fit in the picture as taken cuts across a bowed side, 3 %
    of the width off; the lens fitted beside it is bent enough to straighten the work image,
    where the board is found again within 1 %."""
    scenes = load_scene_config(ROOT / "datasets" / "bent_lens.json")
    jpeg, truth = render_sample(scenes, 71, 103, (1280, 720))
    assert truth["camera"]["dist"][0] < -0.2
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    expected = order_seen(np.array(truth["board"]["corners"]))

    def error(config: CalibrationConfig) -> float:
        found = order_seen(np.array(find_board(image, config).corners))
        return float(np.linalg.norm(found - expected, axis=1).max() / truth["board"]["width_px"])

    assert error(dataclasses.replace(CalibrationConfig(), bent_refit_max_k1=-2.0)) > 0.02
    assert error(CalibrationConfig()) < 0.01


def test_straightening_takes_the_lens_bend_out_of_a_picture() -> None:
    """A straight line drawn through a guessed lens with k1 -0.25 comes out bowed; the picture
    straightened by that k1 has it straight again."""
    lens = LensModel.guess(1280, 720, -0.25)
    line = np.stack([np.linspace(100, 1180, 60), np.full(60, 60.0)], axis=1)
    bowed = lens.distort(line)
    image = np.zeros((720, 1280, 3), np.uint8)
    cv2.polylines(image, [np.round(bowed).astype(np.int32)], False, (255, 255, 255), 2)
    rows = [
        float(np.mean(np.nonzero(column)[0]))
        for column in (board_finder.straightened(image, -0.25)[:, x, 0] for x in (200, 640, 1080))
    ]
    assert max(rows) - min(rows) < 1.5
    assert bowed[:, 1].max() - bowed[:, 1].min() > 8
