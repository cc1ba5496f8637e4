"""The shipped ONNX networks run with onnxruntime where it is installed, else with OpenCV's DNN.

onnxruntime runs the referee's small networks two to four times faster than OpenCV's DNN module
on two CPU cores (`scripts/bench_vision.py` times both), which is most of a read's time. It has
wheels for x86-64 and for 64-bit ARM (a Raspberry Pi on 64-bit Raspberry Pi OS); where it has
none (a 32-bit Pi OS) the referee installs without it and OpenCV, which it needs anyway, runs
the same files with the same results (within 1e-4 of each other). The environment variable
`REFEREE_ONNX_BACKEND` (`onnxruntime-int8`, `onnxruntime` or `opencv`) picks one by hand, for
comparing them.

Where onnxruntime runs, a network shipped with an 8-bit copy beside it (`NAME.int8.onnx`, made
by `scripts/quantize_models.py`: the dice classifiers, the tilt reader, the board dice
detector, the board face reader and the pile and stack readers) runs from that copy: on this
machine's CPU it classifies a batch of dice crops 2.6 times faster, and read the tuning sets'
throws as well as the 32-bit file (`models/dice_value.md`, `models/dice_board.md`). OpenCV's
DNN cannot run those copies, so it
always runs the 32-bit file; the backend `onnxruntime` does too.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Literal, TypeVar, cast

import cv2
import numpy as np
from numpy.typing import NDArray

Backend = Literal["onnxruntime-int8", "onnxruntime", "opencv"]
BACKENDS: tuple[Backend, ...] = ("onnxruntime-int8", "onnxruntime", "opencv")
INT8_SUFFIX = ".int8.onnx"

Net = TypeVar("Net")
# Every network a stage has asked for, by its wrapper and arguments (None: the file is absent).
_LOADED: dict[tuple[Hashable, ...], object] = {}


def optional_net(kind: Callable[..., Net], *args: Hashable) -> Net | None:
    """`kind(*args)`, a network's wrapper whose first argument is its file, made once per
    process; None when the file is absent, and the stage that asked then does without it
    (each loader's docstring says how). A file that is there but broken still raises."""
    key = (kind, *args)
    if key not in _LOADED:
        try:
            _LOADED[key] = kind(*args)
        except FileNotFoundError:
            _LOADED[key] = None
    return cast("Net | None", _LOADED[key])


def forget_nets() -> None:
    """Drop every network `optional_net` has made: the next ask loads it again (with the
    backend `REFEREE_ONNX_BACKEND` names then)."""
    _LOADED.clear()


def int8_copy(path: str | Path) -> Path:
    """Where the 8-bit copy of the network in `path` is kept (it may not exist)."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".onnx") + INT8_SUFFIX)


def installed_backends() -> tuple[Backend, ...]:
    """The backends this machine has, fastest first: OpenCV always, onnxruntime when installed
    (with and without the 8-bit copies)."""
    return BACKENDS if importlib.util.find_spec("onnxruntime") is not None else ("opencv",)


def default_backend() -> Backend:
    """`REFEREE_ONNX_BACKEND` when it is set; else onnxruntime with the 8-bit copies when it is
    installed, else OpenCV's DNN module. ValueError for a backend that is unknown or not
    installed."""
    installed = installed_backends()
    chosen = os.environ.get("REFEREE_ONNX_BACKEND", "")
    if not chosen:
        return installed[0]
    for backend in installed:
        if chosen == backend:
            return backend
    raise ValueError(
        f"REFEREE_ONNX_BACKEND={chosen!r}: "
        + (
            "onnxruntime is not installed"
            if chosen.startswith("onnxruntime")
            else "say onnxruntime-int8, onnxruntime or opencv"
        )
    )


def bgr_blob(images: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Pictures (N, H, W, 3; BGR, 8-bit) as a network's input: N x 3 x H x W scaled to 0..1,
    as the strip, corner and surface networks take them."""
    return np.ascontiguousarray(images.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class OnnxNet:
    """One ONNX network with one input and one output; `path` is the file loaded (the 8-bit
    copy of the file asked for, where the backend runs those and one is there). `threads`:
    how many threads onnxruntime runs it on (0: one a core).

    Raises FileNotFoundError naming `what` when the file is absent, and ValueError when the
    file is not a network the backend can load or an input does not fit it."""

    def __init__(
        self, path: str | Path, what: str, backend: Backend | None = None, threads: int = 0
    ):
        self.path = Path(path)
        self.backend: Backend = backend or default_backend()
        if not self.path.is_file():
            raise FileNotFoundError(f"{what} not found: {self.path}")
        if self.backend == "onnxruntime-int8" and int8_copy(self.path).is_file():
            self.path = int8_copy(self.path)
        if self.backend != "opencv":
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3  # errors only: no notes on the console
            options.intra_op_num_threads = threads
            # Idle worker threads sleep rather than spin: spinning, they take the cores from
            # the Python and OpenCV work between runs (a read took 160 ms, not 90).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            try:
                self._session = onnxruntime.InferenceSession(
                    str(self.path), options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime's errors share no base class but Exception
                raise ValueError(f"{what} {self.path} cannot be loaded: {exc}") from exc
            self._input = self._session.get_inputs()[0].name
        else:
            try:
                self._net = cv2.dnn.readNetFromONNX(str(self.path))
            except cv2.error as exc:
                raise ValueError(f"{what} {self.path} cannot be loaded: {exc}") from exc

    def run(self, blob: NDArray[np.float32]) -> NDArray[np.float64]:
        """The network's output for `blob` (its input, batch first)."""
        blob = np.ascontiguousarray(blob, np.float32)
        try:
            if self.backend != "opencv":
                out = self._session.run(None, {self._input: blob})[0]
            else:
                self._net.setInput(blob)
                out = self._net.forward()
        except Exception as exc:  # cv2.error, or onnxruntime's InvalidArgument and kin
            raise ValueError(
                f"{self.path.name} does not take an input of shape {blob.shape}: {exc}"
            ) from exc
        return np.asarray(out, np.float64)
