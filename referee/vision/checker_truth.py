"""Generated scenes' true board geometry, for measuring and fitting the checker stage alone.

`label_profile` is the profile a perfect calibration would give for a scene label (its corners
and lens). `TrueCornersReader` is a diagnostic `referee eval` reader that reads each scene with
that profile instead of finding the board, so checker errors caused by the board finder are
told apart from the checker stage's own:

    referee eval --data DIR --reader referee.vision.checker_truth:TrueCornersReader

It reads the label beside each image (through `ReadHints.image_path`), which a real reader
must not: its figures are an upper bound on what the checker stage gives with a perfect board.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from referee.evaluation.basics import Image
from referee.evaluation.readers import ReaderOptionError
from referee.evaluation.reading import ReadHints, Reading
from referee.vision.calibration import (
    SEATS,
    BoardProfile,
    Seat,
    order_seen,
    seen_to_board_order,
)
from referee.vision.camera import LensModel
from referee.vision.config import load_config
from referee.vision.pipeline import VisionPipeline
from referee.vision.reader import hinted_variant, hinted_zone, to_reading


def label_seat(label: Mapping[str, Any]) -> Seat:
    """White's seat in a scene label: the image edge that puts white's point 1 at the near-right
    corner (board order index 2) of the label's corners."""
    board = label["board"]
    seen = order_seen(np.array(board["corners"], dtype=np.float64))
    point_one = np.array(board["points"][0]["base"], dtype=np.float64)
    return min(
        SEATS, key=lambda s: float(np.linalg.norm(seen_to_board_order(seen, s)[2] - point_one))
    )


def label_profile(label: Mapping[str, Any]) -> BoardProfile:
    """The profile a perfect calibration would give for a scene label."""
    camera = label["camera"]
    seen = order_seen(np.array(label["board"]["corners"], dtype=np.float64))
    corners = seen_to_board_order(seen, label_seat(label))
    k = [[float(v) for v in row] for row in camera["K"]]
    lens = LensModel(
        ((k[0][0], k[0][1], k[0][2]), (k[1][0], k[1][1], k[1][2]), (k[2][0], k[2][1], k[2][2])),
        tuple(float(v) for v in camera["dist"]),
    )
    size = (int(label["width"]), int(label["height"]))
    return BoardProfile(size, tuple((float(x), float(y)) for x, y in corners), lens)


class TrueCornersReader:
    """The vision pipeline with each scene's true corners and lens (diagnostics only)."""

    name = "vision-true-corners"

    def __init__(self, options: Mapping[str, str]) -> None:
        unknown = sorted(set(options) - {"config"})
        if unknown:
            raise ReaderOptionError(f"unknown option(s) {', '.join(unknown)}; accepted: config")
        try:
            self.config = load_config(options.get("config"))
        except (OSError, ValueError) as exc:
            raise ReaderOptionError(str(exc)) from exc

    def read(self, image: Image, hints: ReadHints) -> Reading:
        if hints.image_path is None:
            raise ValueError("the true-corners reader needs the image's path to find its label")
        label = json.loads(Path(hints.image_path).with_suffix(".json").read_text("utf-8"))
        roller = hints.roller or "white"
        pipeline = VisionPipeline(self.config, label_profile(label))
        result = pipeline.read(image, roller, hinted_zone(hints), variant=hinted_variant(hints))
        return to_reading(result, roller)
