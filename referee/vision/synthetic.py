"""Simple drawn boards for tests and benchmarks: a flat top-down board warped into a photo.

Nothing here is realistic lighting; it is a board with the right geometry, checkers and dice, so
calibration, the homography, the gate and the readers can be checked without the scene generator.
The board is painted in the board frame of `geometry` (as white sees it) and then warped so that
the playing surface's corners land where the caller says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.board_finder import RaisedView, surface_homography, surface_mm
from referee.vision.calibration import apply_homography
from referee.vision.camera import FloatArray
from referee.vision.geometry import BoardModel, HomeSide
from referee.vision.markers import MARKER_MARGIN_MM, OUTWARD, sticker_image

BGR = tuple[int, int, int]

# Pip positions on a face, in units of the die's side, centred on the face.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-0.27, -0.27), (0.27, 0.27)),
    3: ((-0.27, -0.27), (0.0, 0.0), (0.27, 0.27)),
    4: ((-0.27, -0.27), (0.27, -0.27), (-0.27, 0.27), (0.27, 0.27)),
    5: ((-0.27, -0.27), (0.27, -0.27), (0.0, 0.0), (-0.27, 0.27), (0.27, 0.27)),
    6: ((-0.27, -0.27), (-0.27, 0.0), (-0.27, 0.27), (0.27, -0.27), (0.27, 0.0), (0.27, 0.27)),
}


@dataclasses.dataclass(frozen=True)
class DrawnDie:
    """A die lying flat at board position `center_mm`, turned by `angle_deg`; drawn with the
    side faces the camera sees (`render`)."""

    value: int
    center_mm: tuple[float, float]
    angle_deg: float = 0.0


@dataclasses.dataclass(frozen=True)
class DrawnBoard:
    """What to draw: checkers per point in white's numbering (+ white, - black), dice, looks;
    `tray` False draws the frame over the tray's place (most long nardy boards have none)."""

    counts: tuple[int, ...] = (0,) * 24
    dice: tuple[DrawnDie, ...] = ()
    home: HomeSide = "right"
    tray: bool = True
    table: BGR = (60, 90, 60)
    frame: BGR = (40, 70, 120)
    field: BGR = (150, 190, 220)
    point_colours: tuple[BGR, BGR] = ((40, 40, 140), (70, 110, 160))
    white: BGR = (225, 230, 232)
    black: BGR = (35, 35, 38)
    die_body: BGR = (240, 240, 240)
    die_pips: BGR = (20, 20, 20)


def start_counts() -> tuple[int, ...]:
    """Short nardy's start in white's numbering (white positive, black negative)."""
    counts = [0] * 24
    for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        counts[point - 1] += n
        counts[24 - point] -= n  # black's point p is white's 25 - p
    return tuple(counts)


DieLift = Callable[[FloatArray], FloatArray]
"""Where (board mm from its foot) a die's top face at a board position (mm) shows."""


def paint_board(
    board: DrawnBoard,
    model: BoardModel,
    px_per_mm: float,
    margin_mm: float,
    die_lift: DieLift | None = None,
) -> tuple[NDArray[np.uint8], FloatArray]:
    """The board painted top-down; returns the image and the board-mm → pixel homography.
    `die_lift` moves each die's top face off its foot (none: seen straight down)."""
    x0, y0, x1, y1 = model.outline_box(board.home)
    ox, oy = x0 - margin_mm, y0 - margin_mm
    width = round((x1 - x0 + 2 * margin_mm) * px_per_mm)
    height = round((y1 - y0 + 2 * margin_mm) * px_per_mm)
    to_px = np.array([[px_per_mm, 0, -ox * px_per_mm], [0, px_per_mm, -oy * px_per_mm], [0, 0, 1]])
    image = np.full((height, width, 3), board.table, dtype=np.uint8)

    def pts(mm: Sequence[Sequence[float]]) -> NDArray[np.int32]:
        return np.round(apply_homography(to_px, np.array(mm, float)) * 16).astype(np.int32)

    def rect(box: tuple[float, float, float, float], colour: BGR) -> None:
        a, b, c, d = box
        cv2.fillPoly(image, [pts([[a, b], [c, b], [c, d], [a, d]])], colour, cv2.LINE_AA, 4)

    rect((x0, y0, x1, y1), board.frame)
    rect((0.0, 0.0, model.width_mm, model.depth_mm), board.field)
    rect(model.bar_box(), board.frame)
    if board.tray:
        rect(model.tray_box(board.home), tuple(int(c * 0.8) for c in board.field))  # type: ignore[arg-type]
    half_w = model.point_width_mm / 2
    for point in range(1, 25):
        base, tip = model.base_tip(point, board.home)
        tri = [[base[0] - half_w, base[1]], [base[0] + half_w, base[1]], list(tip)]
        colour = board.point_colours[point % 2]
        cv2.fillPoly(image, [pts(tri)], colour, cv2.LINE_AA, 4)
    radius = model.checker_mm / 2 * px_per_mm
    for point, signed in enumerate(board.counts, start=1):
        colour = board.white if signed > 0 else board.black
        for index in range(abs(signed)):
            centre = apply_homography(to_px, model.slot(point, index, board.home))
            _checker(image, centre, radius, colour)
    for die in board.dice:
        lift = np.zeros(2) if die_lift is None else die_lift(np.array(die.center_mm, float))
        _die(
            image,
            die,
            model.die_mm * px_per_mm,
            apply_homography(to_px, np.array(die.center_mm, float)),
            lift * px_per_mm,
            board,
        )
    return image, to_px


def _checker(image: NDArray[np.uint8], centre: FloatArray, radius: float, colour: BGR) -> None:
    c = (round(centre[0] * 16), round(centre[1] * 16))
    shade = tuple(int(v * 0.75) for v in colour)
    cv2.circle(image, c, round(radius * 16), shade, -1, cv2.LINE_AA, 4)
    cv2.circle(image, c, round(radius * 0.82 * 16), colour, -1, cv2.LINE_AA, 4)
    # The groove turned into most checkers' tops.
    cv2.circle(
        image, c, round(radius * 0.6 * 16), shade, max(1, round(radius / 12)), cv2.LINE_AA, 4
    )


def _die(
    image: NDArray[np.uint8],
    die: DrawnDie,
    side: float,
    foot: FloatArray,
    lift: FloatArray,
    board: DrawnBoard,
) -> None:
    """A die whose foot square is centred on `foot` and whose top face shows `lift` px from it:
    the side faces between them in shade, then the top face and its pips."""
    a = np.deg2rad(die.angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    square = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * side @ rot.T
    centre = foot + lift
    hull = cv2.convexHull(np.concatenate([square + foot, square + centre]).astype(np.float32))
    shade = tuple(int(c * 0.7) for c in board.die_body)
    cv2.fillPoly(
        image, [np.round(hull.reshape(-1, 2) * 16).astype(np.int32)], shade, cv2.LINE_AA, 4
    )
    top = np.round((square + centre) * 16).astype(np.int32)
    cv2.fillPoly(image, [top], board.die_body, cv2.LINE_AA, 4)
    for u, v in PIPS[die.value]:
        p = np.array([u, v]) * side @ rot.T + centre
        pc = (round(p[0] * 16), round(p[1] * 16))
        cv2.circle(image, pc, round(side * 0.09 * 16), board.die_pips, -1, cv2.LINE_AA, 4)


def paint_stickers(
    image: NDArray[np.uint8],
    to_px: FloatArray,
    model: BoardModel,
    corners: Sequence[int] = (0, 1, 2, 3),
    turns: Sequence[int] = (0, 0, 0, 0),
    art: Callable[[int, float], NDArray[np.uint8]] = sticker_image,
) -> None:
    """Stick the printed corner marker of each of `corners` (0..3, board order) on a top-down
    painting whose board mm → pixel map is `to_px` (a scale and shift), one of its corners on
    the playing surface's corner and the rest out over the frame, turned by `turns[corner]`
    quarter turns. `art` draws a corner's sticker at a scale (pixels per mm): the printed one
    unless a benchmark says."""
    px_per_mm = float(to_px[0, 0])
    # Drawn at a scale where the marker's cells are whole pixels (so the printed sizes hold to
    # the millimetre), then brought to the painting's.
    art_per_mm = np.ceil(px_per_mm * MARKER_MARGIN_MM) / MARKER_MARGIN_MM
    scale = px_per_mm / art_per_mm
    surface = apply_homography(to_px, surface_mm(model).astype(np.float64))
    for corner in corners:
        sx, sy = OUTWARD[corner]
        printed = np.rot90(art(corner, art_per_mm), turns[corner]).astype(np.float32)
        side = printed.shape[0] * scale
        x, y = surface[corner]
        # Pixel centres are whole coordinates, so a picture's outer edge lies half a pixel
        # beyond its first and last centres: the sticker's edges meet on the surface's corner.
        edge_x = x - (side if sx < 0 else 0.0)
        edge_y = y - (side if sy < 0 else 0.0)
        left, top = int(np.floor(edge_x)), int(np.floor(edge_y))
        offset = 0.5 * scale
        move = np.array([[scale, 0.0, edge_x - left + offset], [0.0, scale, edge_y - top + offset]])
        reach = int(np.ceil(side)) + 2
        ink = cv2.warpAffine(printed, move, (reach, reach), flags=cv2.INTER_LINEAR)
        cover = cv2.warpAffine(np.ones_like(printed), move, (reach, reach), flags=cv2.INTER_LINEAR)
        patch = image[top : top + reach, left : left + reach].astype(np.float32)
        mixed = patch * (1 - cover[..., None]) + ink[..., None]
        image[top : top + reach, left : left + reach] = np.clip(mixed + 0.5, 0, 255)


def knocked(corners: FloatArray, degrees: float, shift: tuple[float, float]) -> FloatArray:
    """`corners` (in any order) turned by `degrees` about their middle and moved by `shift`
    pixels: where a knock of the camera or the board puts them."""
    corners = np.asarray(corners, np.float64)
    centre = corners.mean(axis=0)
    turn = np.radians(degrees)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    return np.asarray((corners - centre) @ rotation.T + centre + np.array(shift), np.float64)


def render(
    board: DrawnBoard,
    surface_corners: FloatArray,
    image_size: tuple[int, int],
    model: BoardModel | None = None,
    noise_sigma: float = 0.0,
    seed: int = 0,
    stickers: Sequence[int] = (),
    sticker_art: Callable[[int, float], NDArray[np.uint8]] = sticker_image,
) -> NDArray[np.uint8]:
    """A photo of `board` whose playing surface's corners (white's view: far-left, far-right,
    near-right, near-left) land on `surface_corners` in an image of `image_size`. Dice show the
    side faces that the camera these corners imply (`RaisedView`) would see. `stickers`: the
    corners (0..3) with their printed marker stuck on the frame (`paint_stickers`, drawn by
    `sticker_art`)."""
    model = model or BoardModel()
    board_to_image = surface_homography(model, surface_corners)
    view = RaisedView(board_to_image, image_size)
    image_to_board = np.asarray(np.linalg.inv(board_to_image), dtype=np.float64)

    def die_lift(centre_mm: FloatArray) -> FloatArray:
        foot = apply_homography(board_to_image, centre_mm[None])
        top = foot + view.shift(foot, model.die_mm)
        return np.asarray(apply_homography(image_to_board, top)[0] - centre_mm, dtype=np.float64)

    px_per_mm = 2.0
    painted, to_px = paint_board(board, model, px_per_mm, margin_mm=400.0, die_lift=die_lift)
    paint_stickers(painted, to_px, model, stickers, art=sticker_art)
    # The painting's pixels to the photo's: back to board mm, then as the corners say.
    H = board_to_image @ np.linalg.inv(to_px)
    out = cv2.warpPerspective(
        painted, H, image_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if noise_sigma > 0:
        rng = np.random.default_rng(seed)
        noisy = out.astype(np.float32) + rng.normal(0.0, noise_sigma, out.shape)
        out = np.clip(noisy, 0, 255)
    return np.asarray(out, dtype=np.uint8)
