"""The shipped networks give the same answers on both runtimes, their 8-bit copies read dice as
they do, and bad files or inputs say so."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.scenes.config import load_config
from referee.scenes.dataset import render_sample
from referee.vision.dice_classifier import CLASSES, TILT_CLASSES, crop_die, softmax_rows, to_blob
from referee.vision.dice_detector import BOARD_INPUT_PX, boxes_found
from referee.vision.onnx_net import (
    BACKENDS,
    Backend,
    OnnxNet,
    default_backend,
    int8_copy,
    optional_net,
)

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"

# Each shipped network with an input of the shape it takes (batch first).
SHAPES = {
    "checker_strip.onnx": (28, 3, 176, 40),
    "dice_value.onnx": (16, 4, 48, 48),
    "dice_value_second.onnx": (16, 4, 48, 48),
    "dice_tilt.onnx": (18, 4, 48, 48),
    "dice_face.onnx": (8, 3, 64, 64),
    "dice_detector.onnx": (1, 3, 416, 416),
    "dice_board.onnx": (1, 3, 384, 640),
    "board_corners.onnx": (4, 3, 80, 80),
}


def test_onnxruntime_with_the_8_bit_copies_is_the_default_where_it_is_installed() -> None:
    pytest.importorskip("onnxruntime")
    assert default_backend() == "onnxruntime-int8"
    assert OnnxNet(MODELS / "dice_value.onnx", "dice model").path.name == "dice_value.int8.onnx"
    # A network shipped without an 8-bit copy runs from its own file.
    assert OnnxNet(MODELS / "dice_face.onnx", "dice face model").path.name == "dice_face.onnx"
    assert OnnxNet(MODELS / "dice_value.onnx", "dice model", "onnxruntime").path.name == (
        "dice_value.onnx"
    )


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_both_runtimes_give_the_same_output(name: str) -> None:
    pytest.importorskip("onnxruntime")
    blob = np.random.default_rng(3).random(SHAPES[name], dtype=np.float32)
    fast, reference = (
        OnnxNet(MODELS / name, name, backend).run(blob) for backend in ("onnxruntime", "opencv")
    )
    assert fast.shape == reference.shape
    assert fast.shape[0] == SHAPES[name][0]
    assert np.allclose(fast, reference, rtol=1e-3, atol=1e-3 * np.abs(reference).max())


@pytest.fixture(scope="module")
def dice_and_board_crops() -> np.ndarray:
    """The classifier's input for every die of a few generated scenes (seed 2, which no training
    or measuring set uses), cut at its top face, and for as many spots of the board beside."""
    config = load_config(ROOT / "datasets" / "default.json")
    rng = np.random.default_rng(5)
    crops = []
    for index in range(6):
        jpeg, truth = render_sample(config, 2, index, (1280, 720))
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        for die in truth["dice"]:
            x0, y0, x1, y1 = die["box"]
            side = 0.85 * min(x1 - x0, y1 - y0)
            crops.append(crop_die(image, tuple(die["top_center"]), side))
            spot = (float(rng.uniform(200, 1080)), float(rng.uniform(150, 570)))
            crops.append(crop_die(image, spot, side))
    return to_blob(crops, [0.0] * len(crops))


@pytest.mark.parametrize("name", ["dice_value.onnx", "dice_value_second.onnx"])
def test_the_8_bit_copies_read_dice_as_their_networks_do(
    name: str, dice_and_board_crops: np.ndarray
) -> None:
    pytest.importorskip("onnxruntime")
    assert int8_copy(MODELS / name).is_file()
    full, eight = (
        softmax_rows(OnnxNet(MODELS / name, name, backend).run(dice_and_board_crops))
        for backend in ("onnxruntime", "onnxruntime-int8")
    )
    assert full.shape == eight.shape == (len(dice_and_board_crops), len(CLASSES))
    assert len(full) >= 20
    sure = full.max(axis=1) > 0.8
    assert sure.sum() >= len(full) // 2
    assert (full.argmax(axis=1)[sure] == eight.argmax(axis=1)[sure]).all()
    assert np.abs(full - eight).max() < 0.1
    assert np.abs(full - eight).mean() < 0.01


def test_the_8_bit_tilt_reader_reads_dice_as_its_network_does(
    dice_and_board_crops: np.ndarray,
) -> None:
    pytest.importorskip("onnxruntime")
    name = "dice_tilt.onnx"
    assert int8_copy(MODELS / name).is_file()
    full, eight = (
        softmax_rows(OnnxNet(MODELS / name, name, backend).run(dice_and_board_crops[::2]))
        for backend in ("onnxruntime", "onnxruntime-int8")
    )
    assert full.shape == eight.shape == (len(dice_and_board_crops) // 2, len(TILT_CLASSES))
    sure = full.max(axis=1) > 0.8
    assert sure.sum() >= len(full) // 2
    assert (full.argmax(axis=1)[sure] == eight.argmax(axis=1)[sure]).all()
    assert np.abs(full - eight).max() < 0.1


def test_the_8_bit_board_detector_finds_the_dice_its_network_does() -> None:
    # Generated frames of seed 2 (no training or measuring set uses it): every box the 32-bit
    # network is sure of comes back from the 8-bit copy within a pixel or two, and the copy
    # adds no sure box of its own.
    pytest.importorskip("onnxruntime")
    name = "dice_board.onnx"
    assert int8_copy(MODELS / name).is_file()
    full, eight = (OnnxNet(MODELS / name, name, b) for b in ("onnxruntime", "onnxruntime-int8"))
    config = load_config(ROOT / "datasets" / "default.json")
    sure = 0
    for index in range(6):
        jpeg, _ = render_sample(config, 2, index, (1280, 720))
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        boxes = [boxes_found(net, name, image, BOARD_INPUT_PX, 0.25, 0.5) for net in (full, eight)]
        for one, other in (boxes, boxes[::-1]):
            for box in one:
                if box.score < 0.5:
                    continue
                sure += 1
                gaps = [np.hypot(*np.subtract(box.center, b.center)) for b in other]
                assert min(gaps, default=np.inf) < 2.0
    assert sure >= 10  # most of the six frames' dice, counted from both networks


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_missing_file_names_what_is_missing(backend: Backend, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="checker model not found"):
        OnnxNet(tmp_path / "none.onnx", "checker model", backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_file_that_is_no_network_is_refused(backend: Backend, tmp_path: Path) -> None:
    if backend != "opencv":
        pytest.importorskip("onnxruntime")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="cannot be loaded"):
        OnnxNet(junk, "dice model", backend)


def test_a_broken_8_bit_copy_is_refused_by_name(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    network = tmp_path / "dice_value.onnx"
    network.write_bytes((MODELS / "dice_value.onnx").read_bytes())
    int8_copy(network).write_bytes(b"cut short")
    with pytest.raises(ValueError, match=r"dice_value\.int8\.onnx cannot be loaded"):
        OnnxNet(network, "dice model", "onnxruntime-int8")
    # The 32-bit file itself is still there for the runtimes that read it.
    assert OnnxNet(network, "dice model", "onnxruntime").path == network


def test_a_network_is_loaded_once_and_an_absent_one_is_none(tmp_path: Path) -> None:
    """The stages ask for their networks at every read: the file is loaded the first time
    only, and a missing optional network is no error (the stage does without it)."""
    network = tmp_path / "dice_tilt.onnx"
    network.write_bytes((MODELS / "dice_tilt.onnx").read_bytes())
    first = optional_net(OnnxNet, str(network), "dice tilt model")
    assert first is not None and optional_net(OnnxNet, str(network), "dice tilt model") is first
    assert optional_net(OnnxNet, str(tmp_path / "none.onnx"), "dice tilt model") is None
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a network")
    # A file that is there but is no network is a fault to report, not a network to skip.
    with pytest.raises(ValueError, match="cannot be loaded"):
        optional_net(OnnxNet, str(junk), "dice tilt model")


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_input_of_the_wrong_shape_is_refused(backend: Backend) -> None:
    if backend != "opencv":
        pytest.importorskip("onnxruntime")
    net = OnnxNet(MODELS / "dice_detector.onnx", "dice detector", backend)
    with pytest.raises(ValueError, match="does not take an input of shape"):
        net.run(np.zeros((1, 3, 320, 320), np.float32))


def test_the_environment_picks_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_ONNX_BACKEND", "opencv")
    assert default_backend() == "opencv"
    assert OnnxNet(MODELS / "dice_face.onnx", "dice face model").backend == "opencv"
    monkeypatch.setenv("REFEREE_ONNX_BACKEND", "tensorflow")
    with pytest.raises(ValueError, match="say onnxruntime-int8, onnxruntime or opencv"):
        default_backend()
