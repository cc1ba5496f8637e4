"""The scene gate: is the scene still (worth reading) or moving (a hand, rolling dice)?

Each frame is shrunk to a small grey image and blurred; the share of pixels that changed by more
than a threshold since the previous frame is the motion measure. Hysteresis keeps the state from
flickering: any frame at or above `moving_frac` makes the scene moving at once, and only
`still_frames` quiet frames in a row (at or below `still_frac`) make it still again. A frame
between the two leaves a still scene still (a die nudged, a shadow), but restarts the count of
a moving one: a die rocking to rest after a throw changes only a few of the small image's
pixels, and a scene read before it stops shows it cocked. The first frame counts as moving,
since nothing is known yet.
"""

from __future__ import annotations

import dataclasses
import time

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.vision.config import GateConfig


@dataclasses.dataclass(frozen=True)
class GateState:
    """The gate's answer for one frame.

    Attributes:
        still: whether the scene has settled (read it now).
        changed_frac: share of pixels that changed since the previous frame (1.0 on the first).
        became_still: True on exactly the frame where the scene settles after motion.
        elapsed_ms: time this frame took in the gate.
    """

    still: bool
    changed_frac: float
    became_still: bool
    elapsed_ms: float


class SceneGate:
    """Feed frames in order with `update`; it says when the scene is still."""

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._previous: NDArray[np.uint8] | None = None
        self._quiet_run = 0
        self._still = False

    def reset(self) -> None:
        """Forget the past (e.g. after the camera was moved)."""
        self._previous = None
        self._quiet_run = 0
        self._still = False

    def small(self, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The shrunk, blurred grey frame the gate compares."""
        cfg = self.config
        h, w = frame.shape[:2]
        size = (cfg.width_px, max(1, round(h * cfg.width_px / w)))
        # INTER_AREA averages whole blocks, which removes most sensor noise before differencing.
        shrunk = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(shrunk, cv2.COLOR_BGR2GRAY) if shrunk.ndim == 3 else shrunk
        if cfg.blur_px > 1:
            grey = cv2.blur(grey, (cfg.blur_px, cfg.blur_px))
        return np.asarray(grey, dtype=np.uint8)

    def update(self, frame: NDArray[np.uint8]) -> GateState:
        """The state after `frame` (BGR or grey)."""
        start = time.perf_counter()
        cfg = self.config
        grey = self.small(frame)
        previous, self._previous = self._previous, grey
        if previous is None or previous.shape != grey.shape:
            self._quiet_run = 0
            self._still = False
            return GateState(False, 1.0, False, (time.perf_counter() - start) * 1e3)
        diff = cv2.absdiff(grey, previous)
        changed = float(np.count_nonzero(diff > cfg.pixel_threshold)) / diff.size
        was_still = self._still
        if changed >= cfg.moving_frac:
            self._quiet_run = 0
            self._still = False
        elif changed <= cfg.still_frac:
            self._quiet_run += 1
            if self._quiet_run >= cfg.still_frames:
                self._still = True
        elif not self._still:
            # Something small still moves (a die rocking to rest): wait for it.
            self._quiet_run = 0
        became = self._still and not was_still
        return GateState(self._still, changed, became, (time.perf_counter() - start) * 1e3)
