"""The corner network: a last look at each of the playing surface's corners the board finder
put somewhere (`models/board_corners.md`).

The finder's border lines are right to a pixel or two on most boards, but where a frame shows
several straight edges side by side (an inlay, the rim's top, its inner wall, the surface's own
edge) it sometimes takes the wrong one, and a side lands 5-15 px off. A small network looks at
each corner as the finder's quadrilateral puts it, in board millimetres, and says where the
surface's corner is from there.

A corner's patch is the board around it, rectified with the homography of the quadrilateral
found, `PATCH_PX` pixels of `PATCH_MM_PER_PX` each, the corner in the middle; it is turned and
mirrored so that every corner looks like the same one: the long side (the one the points stand
on) runs along the patch's x, the short side along its y, and the surface lies towards +x, +y.
The network gives the true corner's offset from the middle in those millimetres.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.camera import FloatArray
from referee.vision.geometry import BoardModel
from referee.vision.onnx_net import OnnxNet, bgr_blob, optional_net

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "board_corners.onnx"
PATCH_PX = 80
PATCH_MM_PER_PX = 0.8


def long_side_first(seen: FloatArray) -> int:
    """How far the corners as seen (TL, TR, BR, BL) roll to start where a long side starts
    (the longer pair of opposite sides in the image): 0 or 1. `np.roll(seen, -shift, 0)` is the
    order the patches are cut in."""
    seen = np.asarray(seen, np.float64)
    across = np.linalg.norm(seen[1] - seen[0]) + np.linalg.norm(seen[2] - seen[3])
    down = np.linalg.norm(seen[3] - seen[0]) + np.linalg.norm(seen[2] - seen[1])
    return 0 if across >= down else 1


def _corners_and_turns(model: BoardModel) -> tuple[FloatArray, FloatArray]:
    """The surface's corners in board mm (the order `long_side_first` gives) and, per corner and
    axis, the sign that turns board mm into the patch's: +1 where the surface runs on towards +
    from that corner, -1 where it runs on towards -."""
    w, d = model.width_mm, model.depth_mm
    surface = np.array([[0, 0], [w, 0], [w, d], [0, d]], np.float64)
    return surface, np.where(surface == 0, 1.0, -1.0)


def patch_frames(corners: FloatArray, model: BoardModel) -> tuple[FloatArray, FloatArray]:
    """For `corners` in the order `long_side_first` gives: the homography (board mm → image)
    they make, and each corner's map (4, 3, 3) from its patch's pixels to board mm."""
    surface, turns = _corners_and_turns(model)
    H = cv2.getPerspectiveTransform(
        surface.astype(np.float32), np.asarray(corners, dtype=np.float32)
    )
    middle = (PATCH_PX - 1) / 2
    frames = [
        [
            [su * PATCH_MM_PER_PX, 0, x - su * PATCH_MM_PER_PX * middle],
            [0, sv * PATCH_MM_PER_PX, y - sv * PATCH_MM_PER_PX * middle],
            [0, 0, 1],
        ]
        for (x, y), (su, sv) in zip(surface, turns, strict=True)
    ]
    return np.asarray(H, np.float64), np.asarray(frames, np.float64)


def corner_patches(
    image: NDArray[np.uint8], corners: FloatArray, model: BoardModel
) -> NDArray[np.uint8]:
    """The four corners' patches (4, PATCH_PX, PATCH_PX, 3) for `corners` in the order
    `long_side_first` gives."""
    H, frames = patch_frames(corners, model)
    return np.stack(
        [
            cv2.warpPerspective(
                image,
                H @ frame,
                (PATCH_PX, PATCH_PX),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
            for frame in frames
        ]
    )


def offsets_mm(corners: FloatArray, points: FloatArray, model: BoardModel) -> FloatArray:
    """Where image `points` (4, 2) lie from the patch middles of `corners` (both in the order
    `long_side_first` gives), in each patch's turned millimetres: what the network learns."""
    H, _ = patch_frames(corners, model)
    mm = cv2.perspectiveTransform(np.float64(points).reshape(-1, 1, 2), np.linalg.inv(H))
    surface, turns = _corners_and_turns(model)
    return np.asarray((mm.reshape(-1, 2) - surface) * turns, np.float64)


def moved(corners: FloatArray, offsets: FloatArray, model: BoardModel) -> FloatArray:
    """`corners` (in the order `long_side_first` gives) moved by the network's `offsets` (4, 2;
    turned mm)."""
    H, _ = patch_frames(corners, model)
    surface, turns = _corners_and_turns(model)
    mm = surface + np.asarray(offsets, np.float64) * turns
    out = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), H)
    return np.asarray(out.reshape(-1, 2), np.float64)


class CornerNet:
    """The ONNX corner network (`OnnxNet`): input `patch`, output `offset` (N x 2, mm)."""

    def __init__(self, path: str | Path = DEFAULT_MODEL):
        self.path = Path(path)
        self._net = OnnxNet(self.path, "corner model")

    def offsets(self, patches: NDArray[np.uint8]) -> FloatArray:
        """Each patch's corner offset from its middle (N, 2; turned mm)."""
        return np.asarray(self._net.run(bgr_blob(patches)).reshape(len(patches), 2), np.float64)


def load_corner_net(path: str = str(DEFAULT_MODEL)) -> CornerNet | None:
    """The network at `path`, loaded once per process; None when the file is absent (the
    finder's corners then stand as its lines put them)."""
    return optional_net(CornerNet, path)


def refine_corners(
    image: NDArray[np.uint8],
    seen: FloatArray,
    net: CornerNet,
    model: BoardModel,
    rounds: int,
    max_move_mm: float,
    steady_shift_mm: float = 0.0,
    steady_mm: float = 0.0,
) -> FloatArray:
    """The corners as seen (TL, TR, BR, BL) after `rounds` looks by the network, each look from
    where the last one put them. A corner is moved only where the network's offset is within
    `max_move_mm`: further than that the patch is not the corner it was trained on.

    With `steady_shift_mm`, each look is taken again from the corners moved that far each way
    (eight starts round the one found, in the patches' turned millimetres), and a corner is
    moved only where the network puts it within `steady_mm` of the same place from every
    start it trusts (the farthest of those places from their mean, board mm). Where a hand or
    an arm hides the corner the network cannot see it and answers much the same offset from
    wherever it starts, so its places scatter as far as the starts do; where it sees the
    corner they meet (on the tuning hand set, boards found within 1 % of the width after its
    look 185 of 200, with this 192). All the starts' patches go through the network at once."""
    shift = long_side_first(seen)
    ordered = np.roll(np.asarray(seen, np.float64), -shift, axis=0)
    s = steady_shift_mm
    starts = [(0.0, 0.0)] + (
        [(dx, dy) for dx in (-s, 0.0, s) for dy in (-s, 0.0, s) if dx or dy] if s > 0 else []
    )
    for _ in range(rounds):
        begun = [moved(ordered, np.tile(start, (4, 1)), model) for start in starts]
        patches = np.concatenate([corner_patches(image, b, model) for b in begun])
        offsets = net.offsets(patches).reshape(len(starts), 4, 2)
        trusted = np.linalg.norm(offsets, axis=2) <= max_move_mm
        places = np.array([moved(b, o, model) for b, o in zip(begun, offsets, strict=True)])
        answer = np.where(trusted[0][:, None], places[0], ordered)
        if len(starts) > 1:
            steady = _steady(places, trusted, ordered, model, steady_mm)
            answer = np.where(steady[:, None], answer, ordered)
        ordered = answer
    return np.roll(ordered, shift, axis=0)


def _steady(
    places: FloatArray,
    trusted: NDArray[np.bool_],
    corners: FloatArray,
    model: BoardModel,
    within_mm: float,
) -> NDArray[np.bool_]:
    """Per corner, whether the network's `places` for it (starts x 4 x 2, image px) from the
    starts it trusts (starts x 4) lie within `within_mm` of their mean, measured in the patches'
    millimetres (`offsets_mm` from `corners`); a corner trusted from fewer than two starts is
    not steady."""
    mm = np.array([offsets_mm(corners, at, model) for at in places])
    steady = np.zeros(len(corners), dtype=bool)
    for k in range(len(corners)):
        seen = mm[trusted[:, k], k]
        if len(seen) >= 2:
            steady[k] = float(np.linalg.norm(seen - seen.mean(axis=0), axis=1).max()) <= within_mm
    return steady
