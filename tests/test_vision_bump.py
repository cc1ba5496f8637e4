"""The bump watch (`referee.vision.bump`): a knocked camera or board is followed, a game going
on is not a knock."""

from __future__ import annotations

import numpy as np

from referee.vision.bump import BoardAnchor
from referee.vision.calibration import profile_from_corners
from referee.vision.config import BumpConfig
from referee.vision.synthetic import DrawnBoard, DrawnDie, knocked, render, start_counts

SIZE = (1280, 720)
SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])
LOOK = {"field": (60, 110, 50), "point_colours": ((40, 40, 150), (200, 220, 230))}
WIDTH = float(np.linalg.norm(SEEN[1] - SEEN[0]))


def photo(
    corners: np.ndarray, counts: tuple[int, ...] | None = None, *dice: DrawnDie
) -> np.ndarray:
    board = DrawnBoard(counts=counts or start_counts(), dice=dice, **LOOK)  # type: ignore[arg-type]
    return render(board, corners, SIZE, noise_sigma=2.0)


def test_a_knocked_board_is_followed_to_where_it_lies_now() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    anchor = BoardAnchor(photo(SEEN), profile, BumpConfig())
    now = knocked(SEEN, 1.5, (14.0, -9.0))
    look = anchor.follow(photo(now))
    assert look.aligned and look.moved
    assert look.move_frac > 0.02
    # The corners in the profile's (board) order, where the board lies now.
    expected = knocked(np.array(profile.corners), 1.5, (14.0, -9.0))
    assert np.abs(look.corners - expected).max() < 0.005 * WIDTH


def on_planks(corners: np.ndarray) -> np.ndarray:
    """The board drawn at `corners` on a table of planks that stays where it is."""
    key = (255, 0, 255)
    board = DrawnBoard(counts=start_counts(), table=key, **LOOK)  # type: ignore[arg-type]
    image = render(board, corners, SIZE)
    rows = np.arange(SIZE[1])[:, None, None]
    grain = (
        90
        + 40 * np.sin(rows / 9.0)
        + 25 * np.sign(np.sin(rows / 31.0 + np.arange(SIZE[0])[None, :, None] / 400.0))
    )
    planks = np.broadcast_to(np.clip(grain, 0, 255), image.shape).astype(np.uint8)
    table = np.abs(image.astype(int) - key).sum(axis=2) < 120
    return np.where(table[..., None], planks, image)


def test_a_board_knocked_on_the_table_is_followed_though_the_table_stays() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    anchor = BoardAnchor(on_planks(SEEN), profile, BumpConfig())
    now = knocked(SEEN, -1.0, (-12.0, 8.0))
    look = anchor.follow(on_planks(now))
    assert look.aligned and look.moved
    expected = knocked(np.array(profile.corners), -1.0, (-12.0, 8.0))
    assert np.abs(look.corners - expected).max() < 0.005 * WIDTH


def test_dice_thrown_and_checkers_moved_are_not_a_knock() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    anchor = BoardAnchor(photo(SEEN), profile, BumpConfig())
    counts = list(start_counts())
    counts[12] -= 1
    counts[9] += 1
    later = photo(SEEN, tuple(counts), DrawnDie(3, (380.0, 200.0), 20.0))
    look = anchor.follow(later)
    # The checker stood at a point's base, in the ring compared: the whole ring no longer
    # aligns, but it does without the pixels that changed, where the board was.
    assert look.aligned and look.changed and look.in_place and not look.moved
    assert look.correlation > BumpConfig().min_correlation
    assert np.array_equal(look.corners, np.array(profile.corners))


def test_a_picture_with_no_board_says_nothing() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    anchor = BoardAnchor(photo(SEEN), profile, BumpConfig())
    noise = np.random.default_rng(3).normal(90, 6, (SIZE[1], SIZE[0], 3))
    table = np.clip(noise, 0, 255).astype(np.uint8)
    for picture in (table, np.zeros((480, 640, 3), np.uint8)):
        look = anchor.follow(picture)
        assert not look.aligned and not look.moved and not look.in_place
        assert np.array_equal(look.corners, np.array(profile.corners))
