"""How high the checkers stand at each place of the tray and the points, read from the
camera's slant.

From above, a pile of five shows as much of its top as a single checker does, and a second
layer set squarely on a row as much as the row; what tells them apart is the side of the
pile, which shows as far past its foot as the camera's slant throws a point that high
(`RaisedView`). The strip network (`checker_model.py`) reads strips cut from the board's
plane, where a tall pile leans out of the strip on a slanted view; it gets a fifth of the
tray's piles wrong, and under-calls a head's layers. This reader cuts, for a place where
checkers may stand, a crop of the rectified board turned so that the slant points up, and a
small network says how many checkers stand there (0..5): `models/checker_pile.onnx` for the
tray's piles, `models/checker_stack.onnx` for the slots of the points' rows (both trained by
`scripts/train_piles.py`, cards beside them). The crop's fourth channel is the slant's size
(board millimetres a point moves per millimetre of height), so the network knows how much
side a checker adds. Its odds are joined with the strip network's for those places
(`joined_heights`), and the count log-likelihoods are taken from them as before.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.board_finder import RaisedView
from referee.vision.calibration import BoardProfile
from referee.vision.camera import FloatArray
from referee.vision.checker_model import HEIGHTS, SLOTS, TRAY, strip_frames
from referee.vision.dice_classifier import (
    mean_of_log_probabilities,
    softmax_rows,
    weighted_geometric_mean,
)
from referee.vision.geometry import POINTS, Canvas, HomeSide
from referee.vision.onnx_net import OnnxNet, optional_net
from referee.vision.workers import WORKER_THREADS

PILE_CROP_PX = (64, 96)
"""Crop size (across, up) in pixels."""
PILE_MM_PER_PX = 0.875
"""Board millimetres per crop pixel (the rectified board has about 0.8)."""
PILE_FOOT_ROW = 66
"""Crop row (from the top) of the pile's foot: 30 rows below it, 66 above for the slant."""
PILE_SLANT_HEIGHT_MM = 20.0
"""Height at which the slant is measured (the middle of a pile of five)."""
PILE_WALL_GAP_MM = 2.0
PILE_PITCH_EXTRA_MM = 1.0
"""Piles stand `PILE_WALL_GAP_MM` from the compartment's end wall and a checker's width and
`PILE_PITCH_EXTRA_MM` apart (as the strip network's tray slots)."""
# The slant's direction is kept only where it is this long (mm per mm); nearer straight above,
# the crop is turned the tray's way (toward the end wall), and its height barely shows anyway.
_MIN_SLANT = 0.02

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "checker_pile.onnx"
STACK_MODEL = DEFAULT_MODEL.with_name("checker_stack.onnx")


def pile_feet(canvas: Canvas, home: HomeSide) -> FloatArray:
    """Board millimetres (2, SLOTS, 2) of the foot of every pile place in the tray's two
    compartments (white's, black's), from the end wall inward, where players pile them."""
    model = canvas.model
    frames = strip_frames(canvas, home)
    feet = np.zeros((2, SLOTS, 2))
    for side, strip in enumerate(TRAY):
        x, y, direction = frames[strip]
        # The strip's origin lies 2 mm less the edge gap in from the end wall.
        wall = y - direction * (2 - model.checker_edge_gap_mm)
        pitch = model.checker_mm + PILE_PITCH_EXTRA_MM
        along = PILE_WALL_GAP_MM + model.checker_mm / 2 + np.arange(SLOTS) * pitch
        feet[side, :, 0] = x
        feet[side, :, 1] = wall + direction * along
    return feet


def pile_slants(profile: BoardProfile, view: RaisedView, feet_mm: FloatArray) -> FloatArray:
    """The slant (..., 2) at board points `feet_mm` (..., 2): how many board millimetres a
    point `PILE_SLANT_HEIGHT_MM` above each shows beyond it, per millimetre of height."""
    feet = np.asarray(feet_mm, np.float64).reshape(-1, 2)
    seen = profile.board_to_image(feet)
    shift = view.shift(profile.lens.undistort(seen), PILE_SLANT_HEIGHT_MM)
    tops = profile.image_to_board(seen + shift)
    return np.asarray((tops - feet) / PILE_SLANT_HEIGHT_MM).reshape(np.shape(feet_mm))


def tray_direction(canvas: Canvas, home: HomeSide) -> FloatArray:
    """Unit board vectors (2, 2): each compartment's way toward its end wall."""
    frames = strip_frames(canvas, home)
    return np.array([[0.0, -frames[strip][2]] for strip in TRAY])


@functools.lru_cache(maxsize=8)
def place_feet(canvas: Canvas, home: HomeSide) -> FloatArray:
    """Board millimetres (POINTS + 2, SLOTS, 2) of every place checkers stand: the 24 points'
    row slots (white's numbering, `BoardModel.slot`), then the tray's pile places. Kept per
    board (read-only): the pipeline and the checker stage ask for it every read."""
    model = canvas.model
    rows = [[model.slot(p, k, home) for k in range(SLOTS)] for p in range(1, POINTS + 1)]
    feet = np.concatenate([np.array(rows), pile_feet(canvas, home)])
    feet.flags.writeable = False
    return feet


@functools.lru_cache(maxsize=8)
def place_edges(canvas: Canvas, home: HomeSide) -> FloatArray:
    """Unit board vectors (POINTS + 2, 2) a crop is turned to where the slant is too small to
    say: each point's way toward the board's edge, each compartment's toward its end wall.
    Kept per board (read-only)."""
    points = [[0.0, -canvas.model.point_frame(p, home)[2]] for p in range(1, POINTS + 1)]
    edges = np.concatenate([np.array(points), tray_direction(canvas, home)])
    edges.flags.writeable = False
    return edges


def crop_axes(slant: FloatArray, upright: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The crop's up and across unit vectors (board frame) for a place whose slant is `slant`
    (mm per mm of height); `upright` is up where the slant is too small to say (`place_edges`)."""
    length = float(np.hypot(*slant))
    up = slant / length if length >= _MIN_SLANT else upright
    return up, np.array([-up[1], up[0]])


def pile_crop(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    foot_mm: FloatArray,
    slant: FloatArray,
    upright: FloatArray,
    turn_deg: float = 0.0,
    shift_mm: tuple[float, float] = (0.0, 0.0),
) -> NDArray[np.uint8]:
    """The crop (rows, cols, 3) of the rectified board round a place's foot, the slant up (or
    `upright`, where the slant is too small to say). `turn_deg` and `shift_mm` (across, up)
    move it, for training."""
    up, across = crop_axes(slant, upright)
    if turn_deg:
        c, s = math.cos(math.radians(turn_deg)), math.sin(math.radians(turn_deg))
        up, across = c * up + s * across, c * across - s * up
    w, h = PILE_CROP_PX
    u = (np.arange(w) - (w - 1) / 2) * PILE_MM_PER_PX + shift_mm[0]
    v = (PILE_FOOT_ROW - np.arange(h)) * PILE_MM_PER_PX + shift_mm[1]
    mm = foot_mm + u[None, :, None] * across + v[:, None, None] * up
    px = canvas.to_px(mm).astype(np.float32)
    out = cv2.remap(
        rectified, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, np.uint8)


def to_blob(crops: NDArray[np.uint8], slant_sizes: FloatArray) -> NDArray[np.float32]:
    """Crops (N, rows, cols, 3) and their slants' sizes (N,) as the network's input:
    N x 4 x rows x cols, BGR scaled to 0..1 and the slant's size as a constant plane."""
    n, h, w, _ = crops.shape
    blob = np.empty((n, 4, h, w), np.float32)
    blob[:, :3] = crops.transpose(0, 3, 1, 2)
    blob[:, :3] /= 255.0
    blob[:, 3] = np.asarray(slant_sizes, np.float32)[:, None, None]
    return blob


class PileNet:
    """The ONNX pile network (`OnnxNet`): a crop's chances of 0..5 checkers."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "pile model", threads=WORKER_THREADS)

    def heights(self, crops: NDArray[np.uint8], slant_sizes: FloatArray) -> FloatArray:
        """Height probabilities (N, HEIGHTS) of `pile_crop` crops: the geometric mean of the
        crop's and its mirror image's (a pile looks the same either way across)."""
        n = len(crops)
        both = np.concatenate([crops, crops[:, :, ::-1]])
        logits = self._net.run(to_blob(both, np.tile(slant_sizes, 2))).reshape(2 * n, HEIGHTS)
        probs = softmax_rows(logits)
        return mean_of_log_probabilities(probs[:n], probs[n:])


def load_pile_net(path: str = str(DEFAULT_MODEL)) -> PileNet | None:
    """The network at `path`, loaded once per process; None when the file is absent (the
    tray is then read by the strip network alone)."""
    return optional_net(PileNet, path)


def joined_heights(
    rectified: NDArray[np.uint8],
    canvas: Canvas,
    strip: FloatArray,
    feet: FloatArray,
    slants: FloatArray,
    edges: FloatArray,
    asked: NDArray[np.bool_],
    net: PileNet,
    weight: float,
) -> FloatArray:
    """Slot height probabilities (N, SLOTS, HEIGHTS) of N strips with `net`'s odds joined to
    the strip network's (`strip`, the same shape) at the places `asked` (N, SLOTS): their
    geometric mean, `net` weighing `weight` (0..1). `feet` and `slants` (N, SLOTS, 2) as
    `place_feet` and `pile_slants` give them, `edges` (N, 2) as `place_edges`."""
    where = np.argwhere(asked)
    if not len(where):
        return strip
    crops = np.stack(
        [pile_crop(rectified, canvas, feet[n, k], slants[n, k], edges[n]) for n, k in where]
    )
    sizes = np.hypot(slants[asked][:, 0], slants[asked][:, 1])
    out = strip.copy()
    out[asked] = weighted_geometric_mean(strip[asked], net.heights(crops, sizes), weight)
    return out
