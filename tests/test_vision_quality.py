"""The picture's fitness to read (`referee.vision.quality`): the board's size in pixels, the
sharpness of its edges, its exposure; and where the referee says so."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.vision.calibration import CalibrationError, profile_from_corners
from referee.vision.config import QualityConfig
from referee.vision.pipeline import VisionPipeline
from referee.vision.quality import measure_quality
from referee.vision.synthetic import DrawnBoard, render, start_counts

SIZE = (1280, 720)
SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])
CONFIG = QualityConfig()


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    return render(DrawnBoard(counts=start_counts()), SEEN, SIZE, noise_sigma=2.0)


def _scaled(photo: np.ndarray, gain: float) -> np.ndarray:
    return np.clip(photo.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def test_a_good_picture_has_nothing_to_say(photo: np.ndarray) -> None:
    quality = measure_quality(photo, profile_from_corners(SEEN, SIZE), CONFIG)
    assert quality.edge_px is not None and quality.edge_px < 1.0
    assert quality.edges >= CONFIG.min_edges
    assert quality.board_px == pytest.approx(profile_from_corners(SEEN, SIZE).board_width_px())
    assert quality.notes(CONFIG) == []


@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_the_edge_width_is_the_blur_added_to_the_pictures_own(
    photo: np.ndarray, sigma: float
) -> None:
    """A Gaussian blur adds to the edges' own width as independent blurs do (in quadrature),
    to within the measurement's 15 %."""
    profile = profile_from_corners(SEEN, SIZE)
    own = measure_quality(photo, profile, CONFIG).edge_px
    blurred = measure_quality(cv2.GaussianBlur(photo, (0, 0), sigma), profile, CONFIG).edge_px
    assert own is not None and blurred is not None
    assert blurred == pytest.approx(math.hypot(own, sigma), rel=0.15)


def test_a_blurred_picture_is_said_to_be(photo: np.ndarray) -> None:
    profile = profile_from_corners(SEEN, SIZE)
    assert (
        measure_quality(cv2.GaussianBlur(photo, (0, 0), 1.0), profile, CONFIG).notes(CONFIG) == []
    )
    [note] = measure_quality(cv2.GaussianBlur(photo, (0, 0), 2.0), profile, CONFIG).notes(CONFIG)
    assert note.startswith("the picture is blurred") and "focus the camera" in note


def test_a_dark_and_an_overexposed_picture_are_said_to_be(photo: np.ndarray) -> None:
    profile = profile_from_corners(SEEN, SIZE)
    assert measure_quality(_scaled(photo, 0.5), profile, CONFIG).notes(CONFIG) == []
    [dark] = measure_quality(_scaled(photo, 0.25), profile, CONFIG).notes(CONFIG)
    assert dark.startswith("the picture is too dark")
    bright = measure_quality(_scaled(photo, 3.0), profile, CONFIG)
    assert bright.clipped > CONFIG.max_clipped
    assert [n for n in bright.notes(CONFIG) if n.startswith("the picture is overexposed")]


def test_a_board_too_small_in_the_picture_is_read_with_a_note(photo: np.ndarray) -> None:
    full = profile_from_corners(SEEN, SIZE)
    assert VisionPipeline(profile=full).read(photo).note is None
    quarter = profile_from_corners(SEEN / 4, (SIZE[0] // 4, SIZE[1] // 4))
    small = cv2.resize(photo, quarter.image_size, interpolation=cv2.INTER_AREA)
    result = VisionPipeline(profile=quarter).read(small)
    assert result.note is not None
    assert f"the board is only {quarter.board_width_px():.0f} px wide" in result.note
    assert quarter.board_width_px() < CONFIG.min_board_px


def test_a_surface_outside_the_picture_is_a_calibration_error(
    photo: np.ndarray, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Corners past the picture's right edge, within the margin a profile allows: calibrating
    there says why and writes no profile (it used to write one, then fail with a traceback)."""
    beside = np.array([[1300.0, 100.0], [1500.0, 100.0], [1500.0, 500.0], [1300.0, 500.0]])
    with pytest.raises(CalibrationError, match="outside the picture"):
        measure_quality(photo, profile_from_corners(beside, SIZE), CONFIG)
    image, out = tmp_path / "board.png", tmp_path / "profile.json"
    cv2.imwrite(str(image), photo)
    corners = ",".join(f"{v:g}" for v in beside.reshape(-1))
    assert main(["calibrate", str(image), "--corners", corners, "--out", str(out)]) == 1
    assert "outside the picture" in capsys.readouterr().err
    assert not out.exists()


def test_referee_calibrate_warns_of_a_blurred_picture(
    photo: np.ndarray, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corners = ",".join(f"{v:g}" for v in SEEN.reshape(-1))
    sharp, blurred = tmp_path / "sharp.png", tmp_path / "blurred.png"
    cv2.imwrite(str(sharp), photo)
    cv2.imwrite(str(blurred), cv2.GaussianBlur(photo, (0, 0), 2.5))
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(sharp), "--corners", corners, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "warning" not in said
    assert "picture: board 710 px wide, edges 0.5" in said
    assert main(["calibrate", str(blurred), "--corners", corners, "--out", str(out)]) == 0
    assert "warning: the picture is blurred" in capsys.readouterr().out
    assert main(["read", str(blurred), "--profile", str(out)]) == 0
    assert "note: the picture is blurred" in capsys.readouterr().out
    assert main(["read", str(blurred), "--profile", str(out), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert read["picture"]["edge_px"] > CONFIG.max_edge_px
    assert set(read["picture"]) == {"board_px", "edge_px", "edges", "light", "clipped"}
    assert read["note"].startswith("the picture is blurred")
