"""The shipped networks give the same answers on both runtimes, and bad files or inputs say so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.vision.onnx_net import BACKENDS, Backend, OnnxNet, default_backend

MODELS = Path(__file__).resolve().parents[1] / "models"

# Each shipped network with an input of the shape it takes (batch first).
SHAPES = {
    "checker_strip.onnx": (28, 3, 176, 40),
    "dice_value.onnx": (16, 4, 48, 48),
    "dice_value_second.onnx": (16, 4, 48, 48),
    "dice_face.onnx": (8, 3, 64, 64),
    "dice_detector.onnx": (1, 3, 416, 416),
}


def test_onnxruntime_is_the_default_where_it_is_installed() -> None:
    pytest.importorskip("onnxruntime")
    assert default_backend() == "onnxruntime"


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_both_runtimes_give_the_same_output(name: str) -> None:
    pytest.importorskip("onnxruntime")
    blob = np.random.default_rng(3).random(SHAPES[name], dtype=np.float32)
    fast, reference = (OnnxNet(MODELS / name, name, backend).run(blob) for backend in BACKENDS)
    assert fast.shape == reference.shape
    assert fast.shape[0] == SHAPES[name][0]
    assert np.allclose(fast, reference, rtol=1e-3, atol=1e-3 * np.abs(reference).max())


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_missing_file_names_what_is_missing(backend: Backend, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="checker model not found"):
        OnnxNet(tmp_path / "none.onnx", "checker model", backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_file_that_is_no_network_is_refused(backend: Backend, tmp_path: Path) -> None:
    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="cannot be loaded"):
        OnnxNet(junk, "dice model", backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_input_of_the_wrong_shape_is_refused(backend: Backend) -> None:
    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    net = OnnxNet(MODELS / "dice_detector.onnx", "dice detector", backend)
    with pytest.raises(ValueError, match="does not take an input of shape"):
        net.run(np.zeros((1, 3, 320, 320), np.float32))


def test_the_environment_picks_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_ONNX_BACKEND", "opencv")
    assert default_backend() == "opencv"
    assert OnnxNet(MODELS / "dice_face.onnx", "dice face model").backend == "opencv"
    monkeypatch.setenv("REFEREE_ONNX_BACKEND", "tensorflow")
    with pytest.raises(ValueError, match="say onnxruntime or opencv"):
        default_backend()
