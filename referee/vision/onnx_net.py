"""The shipped ONNX networks run with onnxruntime where it is installed, else with OpenCV's DNN.

onnxruntime runs the referee's small networks two to four times faster than OpenCV's DNN module
on two CPU cores (`scripts/bench_vision.py` times both), which is most of a read's time. It has
wheels for x86-64 and for 64-bit ARM (a Raspberry Pi on 64-bit Raspberry Pi OS); where it has
none (a 32-bit Pi OS) the referee installs without it and OpenCV, which it needs anyway, runs
the same files with the same results (within 1e-4 of each other). The environment variable
`REFEREE_ONNX_BACKEND` (`onnxruntime` or `opencv`) picks one by hand, for comparing them.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

Backend = Literal["onnxruntime", "opencv"]
BACKENDS: tuple[Backend, ...] = ("onnxruntime", "opencv")


def installed_backends() -> tuple[Backend, ...]:
    """The backends this machine has: OpenCV always, onnxruntime (first) when installed."""
    return BACKENDS if importlib.util.find_spec("onnxruntime") is not None else ("opencv",)


def default_backend() -> Backend:
    """`REFEREE_ONNX_BACKEND` when it is set; else onnxruntime when it is installed, else
    OpenCV's DNN module. ValueError for a backend that is unknown or not installed."""
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
            if chosen == "onnxruntime"
            else "say onnxruntime or opencv"
        )
    )


class OnnxNet:
    """One ONNX network with one input and one output.

    Raises FileNotFoundError naming `what` when the file is absent, and ValueError when the
    file is not a network the backend can load or an input does not fit it."""

    def __init__(self, path: str | Path, what: str, backend: Backend | None = None):
        self.path = Path(path)
        self.backend: Backend = backend or default_backend()
        if not self.path.is_file():
            raise FileNotFoundError(f"{what} not found: {self.path}")
        if self.backend == "onnxruntime":
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3  # errors only: no notes on the console
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
            if self.backend == "onnxruntime":
                out = self._session.run(None, {self._input: blob})[0]
            else:
                self._net.setInput(blob)
                out = self._net.forward()
        except Exception as exc:  # cv2.error, or onnxruntime's InvalidArgument and kin
            raise ValueError(
                f"{self.path.name} does not take an input of shape {blob.shape}: {exc}"
            ) from exc
        return np.asarray(out, np.float64)
