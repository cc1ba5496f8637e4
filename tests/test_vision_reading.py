"""Reading a drawn board end to end: checkers, dice and verdict, the rules `Position`, the
`vision` reader of `referee eval`, the config file, and `referee read` / `referee calibrate`."""

from __future__ import annotations

import json
from dataclasses import astuple
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.configfile import dataclass_from_dict
from referee.evaluation.readers import ReaderOptionError, create_reader
from referee.evaluation.reading import ReadHints, reading_from_json
from referee.rules import Position, ShortNardy
from referee.vision import dice as dice_module
from referee.vision.calibration import load_profile, profile_from_corners, save_profile
from referee.vision.config import DiceConfig, VisionConfig, load_config
from referee.vision.dice import _CurvatureKernels, find_pips, pip_kernel, to_grey
from referee.vision.dice_detector import DetectedDie
from referee.vision.markers import CharucoPattern
from referee.vision.pipeline import VisionPipeline
from referee.vision.position import to_position
from referee.vision.synthetic import DrawnBoard, DrawnDie, knocked, render, start_counts
from tests.test_vision_calibration import framed_tray, warped_views
from tests.test_vision_dice_detector import FixedBoardDetector, board_anchors

SIZE = (1280, 720)
SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])
CORNERS_ARG = ",".join(f"{v:g}" for v in SEEN.reshape(-1))
# A clean board: green felt, red and cream points, so both checker colours stand out.
LOOK = {"field": (60, 110, 50), "point_colours": ((40, 40, 150), (200, 220, 230))}


@pytest.fixture(scope="module")
def start_photo() -> np.ndarray:
    return render(DrawnBoard(counts=start_counts(), **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]


def test_reads_the_starting_position(start_photo: np.ndarray) -> None:
    profile = profile_from_corners(SEEN, SIZE)
    result = VisionPipeline(profile=profile).read(start_photo)
    signed = tuple(
        (p.count if p.color == "white" else -p.count) if p.count else 0 for p in result.points
    )
    assert signed == start_counts()
    assert result.bar == {"white": 0, "black": 0}
    assert result.off == {"white": 0, "black": 0}
    position = to_position(result, "short", "white", validate=True)
    assert position == ShortNardy().starting_position()
    assert isinstance(position, Position)
    assert set(result.timings_ms) == {"picture", "rectify", "checkers", "dice", "verdict"}


def test_reads_dice_and_judges_the_throw() -> None:
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    photo = render(DrawnBoard(dice=dice, **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    pipeline = VisionPipeline(profile=profile_from_corners(SEEN, SIZE))
    result = pipeline.read(photo, "white", "right_half")
    assert sorted(d.value for d in result.dice) == [3, 5]
    assert all(d.on_board and d.flat and d.half == "right" for d in result.dice)
    assert result.roll.valid
    # The same throw seen by black is in black's left half: void under right_half.
    assert pipeline.read(photo, "black", "right_half").roll.reason == "wrong_half"
    # One die on the table beyond the board's frame.
    away = (dice[0], DrawnDie(5, (380.0, -90.0), 0.0))
    photo = render(DrawnBoard(dice=away, **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    result = pipeline.read(photo, "white", "same_half")
    assert result.roll.reason == "off_board"


class CountingBoardDetector(FixedBoardDetector):
    """A board dice detector that finds nothing and counts how often it is asked."""

    def __init__(self) -> None:
        super().__init__(board_anchors())
        self.asked = 0

    def detect(self, image: np.ndarray, min_score: float, max_overlap: float) -> list[DetectedDie]:
        self.asked += 1
        return super().detect(image, min_score, max_overlap)


def test_the_board_dice_detector_is_asked_only_where_the_pip_groups_miss_the_throw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    detector = CountingBoardDetector()
    monkeypatch.setattr(dice_module, "board_detector_for", lambda config: detector)
    pipeline = VisionPipeline(profile=profile_from_corners(SEEN, SIZE))
    both = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    photo = render(DrawnBoard(dice=both, **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    assert sorted(d.value for d in pipeline.read(photo).dice) == [3, 5]
    assert detector.asked == 0
    one = render(DrawnBoard(dice=both[:1], **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    assert [d.value for d in pipeline.read(one).dice] == [3]
    assert detector.asked == 1
    # Set above 1, the detector is always asked.
    config = VisionConfig(dice=DiceConfig(board_detector_unless_sure=1.01))
    always = VisionPipeline(config, profile_from_corners(SEEN, SIZE))
    assert sorted(d.value for d in always.read(photo).dice) == [3, 5]
    assert detector.asked == 2


def test_referee_read_json_gives_each_dies_confidence_and_faces(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    photo = render(DrawnBoard(dice=dice, **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    image_path = tmp_path / "throw.png"
    cv2.imwrite(str(image_path), photo)
    assert main(["read", str(image_path), "--corners", CORNERS_ARG, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(d["value"] for d in out["dice"]) == [3, 5]
    for die in out["dice"]:
        assert len(die["faces"]) == 6 and abs(sum(die["faces"]) - 1) < 0.01
        assert die["confidence"] == pytest.approx(die["faces"][die["value"] - 1], abs=1e-4)
        assert die["confidence"] > 0.6


def test_vision_is_a_registered_reader(start_photo: np.ndarray, tmp_path: Path) -> None:
    image_path = tmp_path / "start.png"
    cv2.imwrite(str(image_path), start_photo)
    reader = create_reader("vision", {})
    reading = reader.read(start_photo, ReadHints(image_path, "short", "white", "right_half"))
    assert reading.corners is not None and len(reading.points) == 24
    assert sum(p.count for p in reading.points) == 30
    assert reading.roll is not None


def test_the_vision_reader_reads_a_shrunk_image_back_onto_the_images_pixels(
    start_photo: np.ndarray,
) -> None:
    hints = ReadHints(None, "short", "white", "right_half")
    full = create_reader("vision", {}).read(start_photo, hints)
    half = create_reader("vision", {"scale": "0.5"}).read(start_photo, hints)
    assert full.corners is not None and half.corners is not None
    assert np.abs(np.array(half.corners) - np.array(full.corners)).max() < 4
    assert [(p.point, p.color, p.count) for p in half.points] == [
        (p.point, p.color, p.count) for p in full.points
    ]
    bases = np.array([p.base for p in half.points]) - np.array([p.base for p in full.points])
    assert np.abs(bases).max() < 4
    for bad in ("0", "1.5", "half"):
        with pytest.raises(ReaderOptionError, match="scale"):
            create_reader("vision", {"scale": bad})


def test_config_json_names_only_what_changes(tmp_path: Path) -> None:
    path = tmp_path / "vision.json"
    path.write_text(json.dumps({"dice": {"min_pip_contrast": 50}}), encoding="utf-8")
    config = load_config(path)
    assert config.dice.min_pip_contrast == 50
    assert config.checkers == VisionConfig().checkers
    assert dataclass_from_dict(VisionConfig, config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown"):
        dataclass_from_dict(VisionConfig, {"dice": {"no_such_threshold": 1}})
    with pytest.raises(ValueError, match="tilt_crops must be 1, 5 or 9"):
        dataclass_from_dict(VisionConfig, {"dice": {"tilt_crops": 4}})


def test_referee_read_json(start_photo: np.ndarray, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    image_path = tmp_path / "start.png"
    cv2.imwrite(str(image_path), start_photo)
    assert main(["read", str(image_path), "--corners", CORNERS_ARG, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"corners", "points", "bar", "off", "dice", "roll", "timings_ms"} <= set(out)
    assert [p["point"] for p in out["points"]] == list(range(1, 25))
    assert {"base", "tip", "color", "count", "confidence"} <= set(out["points"][0])
    reading = reading_from_json(out)  # the harness reads it back
    assert len(reading.points) == 24
    assert main(["read", str(image_path), "--corners", CORNERS_ARG]) == 0
    assert "points (white's numbering)" in capsys.readouterr().out
    # The starting position is one short nardy can reach: naming the variant changes nothing.
    assert (
        main(["read", str(image_path), "--corners", CORNERS_ARG, "--json", "--variant", "short"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["points"] == out["points"]


def test_referee_calibrate_and_check(start_photo: np.ndarray, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    image_path = tmp_path / "start.png"
    cv2.imwrite(str(image_path), start_photo)
    profile = tmp_path / "profile.json"
    args = ["calibrate", str(image_path), "--corners", CORNERS_ARG, "--out", str(profile)]
    assert main(args) == 0
    assert json.loads(profile.read_text(encoding="utf-8"))["method"] == "corners"
    assert main(["calibrate", str(image_path), "--check", str(profile)]) == 0
    assert "in place" in capsys.readouterr().out
    assert main(["read", str(image_path), "--profile", str(profile), "--json"]) == 0
    assert main(["calibrate", "--sheets", str(tmp_path / "sheets")]) == 0
    sheets = sorted(path.name for path in (tmp_path / "sheets").glob("*.png"))
    assert sheets == [
        "aruco_corner_markers_A4_300dpi.png",
        "charuco_9x6_30mm_A4_300dpi.png",
        "checkerboard_10x7_25mm_A4_300dpi.png",
    ]
    assert main(["calibrate", str(tmp_path / "missing.png")]) == 2


def test_referee_calibrate_from_markers_and_the_lens_from_charuco_photos(tmp_path: Path) -> None:
    image_path = tmp_path / "markers.png"
    photo = render(
        DrawnBoard(counts=start_counts()), SEEN, SIZE, noise_sigma=2.0, stickers=(0, 1, 2, 3)
    )
    cv2.imwrite(str(image_path), photo)
    profile_path = tmp_path / "profile.json"
    # A drawn board is flat: its markers lie level with the surface, not on a raised frame.
    flat = tmp_path / "flat.json"
    flat.write_text('{"calibration": {"marker_height_frac": 0}}', encoding="utf-8")
    marker_args = ["--markers", "--config", str(flat), "--out", str(profile_path)]
    assert main(["calibrate", str(image_path), *marker_args]) == 0
    profile = load_profile(profile_path)
    assert profile.method == "aruco"
    assert np.abs(np.array(profile.corners) - SEEN).max() < 0.75
    # Without being told: a picture with all four markers is read by them.
    auto = tmp_path / "auto.json"
    assert main(["calibrate", str(image_path), "--config", str(flat), "--out", str(auto)]) == 0
    assert load_profile(auto).method == "aruco"
    assert np.abs(np.array(load_profile(auto).corners) - SEEN).max() < 0.75
    # The old spelling still works; a picture without the markers is refused, naming them.
    assert main(["calibrate", str(image_path), "--aruco", "--out", str(profile_path)]) == 0
    # On a raised frame (the default: its rim's height) each corner is brought down, inwards.
    raised = np.array(load_profile(profile_path).corners)
    assert 1.0 < np.abs(raised - SEEN).max() < 15.0
    bare = tmp_path / "bare.png"
    cv2.imwrite(str(bare), render(DrawnBoard(), SEEN, SIZE))
    assert main(["calibrate", str(bare), "--markers", "--out", str(tmp_path / "no.json")]) == 1
    assert not (tmp_path / "no.json").exists()

    shifts = [(0, 0, 0.0), (60, -40, 0.15), (-50, 30, -0.12), (30, 50, 0.1)]
    for n, view in enumerate(warped_views(CharucoPattern().sheet(dpi=60), shifts)):
        cv2.imwrite(str(tmp_path / f"lens{n}.png"), view)
    lens_path = tmp_path / "lens.json"
    lens_args = ["calibrate", "--lens-images", str(tmp_path / "lens*.png"), "--out", str(lens_path)]
    assert main([*lens_args, "--charuco"]) == 0
    assert json.loads(lens_path.read_text(encoding="utf-8"))["calibrated"] is True
    assert main(lens_args) == 1  # not a checkerboard: none of the photos is used
    assert main([*lens_args, "--charuco", "--square-mm", "0"]) == 2


def test_calibrate_check_compares_with_the_profiles_picture_and_update_follows_a_knock(
    start_photo: np.ndarray, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    image_path, knocked_path = tmp_path / "start.png", tmp_path / "knocked.png"
    cv2.imwrite(str(image_path), start_photo)
    now = knocked(SEEN, 1.2, (16.0, -8.0))
    board = DrawnBoard(counts=start_counts(), **LOOK)  # type: ignore[arg-type]
    cv2.imwrite(str(knocked_path), render(board, now, SIZE, noise_sigma=2.0, seed=4))
    profile = tmp_path / "table.json"
    args = ["calibrate", str(image_path), "--corners", CORNERS_ARG, "--out", str(profile)]
    assert main(args) == 0
    assert json.loads(profile.read_text(encoding="utf-8"))["picture"] == "table.jpg"
    assert (tmp_path / "table.jpg").exists()
    capsys.readouterr()
    assert main(["calibrate", str(image_path), "--check", str(profile)]) == 0
    assert capsys.readouterr().out.startswith("board in place")
    check = ["calibrate", str(knocked_path), "--check", str(profile)]
    assert main(check) == 1
    out = capsys.readouterr().out
    assert out.startswith("board moved") and "--update" in out
    assert main([*check, "--update"]) == 0
    assert "profile moved with the board" in capsys.readouterr().out
    followed = load_profile(profile)
    width = float(np.linalg.norm(SEEN[1] - SEEN[0]))
    assert np.abs(np.array(followed.corners) - knocked(SEEN, 1.2, (16.0, -8.0))).max() < (
        0.005 * width
    )
    # The picture was taken afresh with it: the knocked frame is now where the board belongs.
    assert main(check) == 0
    # A profile saved without its picture is checked by the border alone, and says so.
    bare = tmp_path / "bare.json"
    save_profile(profile_from_corners(SEEN, SIZE), bare)
    assert main(["calibrate", str(image_path), "--check", str(bare)]) == 0
    assert "saved without its picture" in capsys.readouterr().out
    # A picture that has gone is a clear error, not a silent pass.
    (tmp_path / "table.jpg").unlink()
    assert main(check) == 1
    assert "cannot read the profile's picture" in capsys.readouterr().err


def test_referee_read_and_calibrate_say_a_tray_is_no_board(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    image_path = tmp_path / "tray.png"
    cv2.imwrite(str(image_path), framed_tray())
    assert main(["read", str(image_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("no board found: the best outline is not a board")
    assert lines[1] == "dice: none seen"  # no halves without a board
    assert main(["calibrate", str(image_path), "--out", str(tmp_path / "p.json")]) != 0
    err = capsys.readouterr().err
    assert "is not a board" in err
    # What to do next: the corners by hand, or the printed markers.
    assert "--corners" in err and "--markers" in err
    assert not (tmp_path / "p.json").exists()


def test_dice_alone_on_a_plain_surface() -> None:
    table = np.full((480, 640, 3), (170, 190, 200), np.uint8)
    rng = np.random.default_rng(5)
    table = np.clip(table + rng.normal(0, 3, table.shape), 0, 255).astype(np.uint8)
    spots = {2: (160, 150), 5: (420, 140), 6: (300, 330)}
    side = 44
    layout = {
        2: ((-1, -1), (1, 1)),
        5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
        6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
    }
    for value, (x, y) in spots.items():
        cv2.rectangle(
            table,
            (x - side // 2, y - side // 2),
            (x + side // 2, y + side // 2),
            (245, 245, 245),
            -1,
        )
        for u, v in layout[value]:
            cv2.circle(table, (x + u * 12, y + v * 12), 4, (20, 20, 20), -1)
    # The pip counter's own check: the learned detector and reader (trained on rendered and
    # photographed dice) are not asked to read these drawn squares; test_vision_dice_model.py
    # and test_vision_dice_detector.py cover them.
    counter = VisionConfig(
        dice=dataclass_from_dict(DiceConfig, {"use_model": False, "use_detector": False})
    )
    result = VisionPipeline(counter).read_dice_only(table)
    assert result.corners is None
    read = {d.value: d.center for d in result.dice}
    assert set(read) == set(spots)
    for value, (x, y) in spots.items():
        assert abs(read[value][0] - x) < 4 and abs(read[value][1] - y) < 4


def test_referee_read_judges_the_throw_by_the_variant_named(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # Both dice in white's right half, black's left: black's throw is valid in long nardy (one
    # half), void in short nardy (the roller's right half).
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    photo = render(DrawnBoard(dice=dice, **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    image_path = tmp_path / "throw.png"
    cv2.imwrite(str(image_path), photo)
    read = ["read", str(image_path), "--corners", CORNERS_ARG, "--json", "--roller", "black"]

    def reason(*more: str) -> str:
        """The throw verdict: "valid", or why it is void."""
        assert main([*read, *more]) == 0
        roll = json.loads(capsys.readouterr().out)["roll"]
        return "valid" if roll["valid"] else str(roll["reason"])

    assert reason("--variant", "short") == "wrong_half"
    assert reason("--variant", "long") == reason("--variant", "длинные нарды") == "valid"
    assert reason("--variant", "gulbar") == "valid"
    assert reason("--variant", "short", "--zone", "same_half") == "valid"
    assert reason() == "valid"
    assert main([*read, "--variant", "snakes"]) == 1
    assert "unknown variant 'snakes'" in capsys.readouterr().err


def _black_hat(grey: np.ndarray, pip_px: float) -> np.ndarray:
    """find_pips's black-hat response for dark pips of `pip_px` diameter."""
    smooth = cv2.GaussianBlur(grey, (3, 3), 0)
    return cv2.morphologyEx(smooth, cv2.MORPH_BLACKHAT, pip_kernel(pip_px))


def test_a_pip_with_a_highlight_is_as_strong_as_its_dark_ring() -> None:
    # A pip's hollow catches the light: its darkest part is a ring round a lighter middle, and
    # the peak of the response is that ring. The pip is one, at its middle, as strong as the
    # ring (its middle's response is weaker).
    grey = np.full((60, 60), 220, np.uint8)
    cv2.circle(grey, (30, 30), 4, 40, -1)
    grey[29:31, 29:31] = 200
    response = _black_hat(grey, 8.0)
    pips = [p for p in find_pips(grey, 8.0, DiceConfig()) if p.polarity == 1]
    assert len(pips) == 1
    assert abs(pips[0].x - 30) <= 1 and abs(pips[0].y - 30) <= 1
    assert pips[0].contrast == response.max() > response[int(pips[0].y), int(pips[0].x)]


def test_a_ring_wider_than_a_pip_is_no_pip() -> None:
    # A ring twice a pip's size round a grey middle: the response's peak is the ring, and its
    # centre, in the middle, is a minimum of the blurred response (curvatures both positive,
    # as strong as a spot's), though strong enough there to pass for a pip.
    config = DiceConfig()
    for middle in (150, 170, 220):
        grey = np.full((60, 60), 220, np.uint8)
        cv2.circle(grey, (30, 30), 6, 40, 3)
        cv2.circle(grey, (30, 30), 3, middle, -1)
        if middle < 220:
            assert _black_hat(grey, 8.0)[30, 30] >= config.min_pip_contrast  # the case in question
        dark = [p for p in find_pips(grey, 8.0, config) if p.polarity == 1]
        assert not [p for p in dark if abs(p.x - 30) <= 2 and abs(p.y - 30) <= 2]
        assert all(p.contrast >= config.min_pip_contrast for p in dark)


def test_pips_inside_a_mask_are_those_found_in_the_whole_picture() -> None:
    # find_pips searches only round the mask; its filters must see what they see uncropped.
    dice = (DrawnDie(6, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    # No noise: flat-topped peaks, whose centres fall on half pixels.
    photo = render(DrawnBoard(dice=dice, **LOOK), SEEN, SIZE, noise_sigma=0.0)  # type: ignore[arg-type]
    grey = to_grey(photo)
    mask = np.zeros(grey.shape, np.uint8)
    # Moved so that the part searched starts on an odd column (halves round to even).
    cv2.fillPoly(mask, [(SEEN + np.array([8.0, 3.0])).astype(np.int32)], 1)
    config = DiceConfig()
    everywhere = find_pips(grey, 6.0, config)
    inside = find_pips(grey, 6.0, config, mask)
    expected = [p for p in everywhere if mask[int(p.y), int(p.x)]]
    assert len(inside) > 30  # the dice's eleven pips and the board's own spots
    assert sorted(inside, key=astuple) == sorted(expected, key=astuple)


def test_read_says_why_an_image_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "gone.jpg"
    assert main(["read", str(missing)]) == 2
    assert capsys.readouterr().err.strip().endswith("gone.jpg: No such file or directory")
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("not a photo", encoding="utf-8")
    assert main(["read", str(not_image)]) == 2
    assert "not an image OpenCV can decode" in capsys.readouterr().err
    assert main(["calibrate", str(not_image), "--corners", CORNERS_ARG]) == 2
    assert "notes.jpg: not an image" in capsys.readouterr().err


def test_the_ridge_tests_curvatures_are_the_blurred_responses() -> None:
    # find_pips reads the curvatures at the peaks only; they must be those of OpenCV's float
    # blur then 3 x 3 Sobel over the whole picture.
    rng = np.random.default_rng(3)
    response = rng.integers(0, 255, (80, 90), dtype=np.uint8)
    sigma = 1.3
    blurred = cv2.GaussianBlur(response.astype(np.float32), (0, 0), sigma)
    ys, xs = rng.integers(8, 72, 50), rng.integers(8, 82, 50)
    read = _CurvatureKernels(sigma).at(response, xs, ys)
    for (dx, dy), values in zip(((2, 0), (0, 2), (1, 1)), read, strict=True):
        whole = cv2.Sobel(blurred, cv2.CV_32F, dx, dy, ksize=3)[ys, xs]
        assert np.allclose(values, whole, rtol=1e-4, atol=1e-2)
