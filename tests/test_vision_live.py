"""The camera pipeline behind the session's `Vision` protocol (`referee.vision.live`): the
scene gate, one reading per settling, and the translation into observations."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.rules import LongNardy, ShortNardy, Side
from referee.session import Frame, Half, NoVisionError, Observation, SceneState
from referee.session.vision import load_vision
from referee.vision.calibration import profile_from_corners, save_profile, seen_to_board_order
from referee.vision.config import (
    BumpConfig,
    CalibrationConfig,
    GateConfig,
    HandConfig,
    VisionConfig,
)
from referee.vision.dice import DieSeen
from referee.vision.hands import Arm, arm_over_board
from referee.vision.live import DIE_CONFIDENCE, LiveVision, create_vision, to_observation
from referee.vision.pipeline import EarlierScene, VisionResult, _new_or_unmoved
from referee.vision.synthetic import DrawnBoard, DrawnDie, knocked, render, start_counts

SIZE = (1280, 720)
SEEN = np.array([[300.0, 120.0], [980.0, 140.0], [1010.0, 640.0], [270.0, 620.0]])
LOOK = {"field": (60, 110, 50), "point_colours": ((40, 40, 150), (200, 220, 230))}


def photo(*dice: DrawnDie) -> np.ndarray:
    board = DrawnBoard(counts=start_counts(), dice=dice, **LOOK)  # type: ignore[arg-type]
    return render(board, SEEN, SIZE, noise_sigma=2.0)


def test_a_reading_becomes_an_observation_with_halves_from_whites_seat() -> None:
    # Both dice in the half right of White's seat; read for Black the verdict would differ,
    # but the observation's halves do not depend on who threw.
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    assert vision.pipeline.profile is not None
    seen = to_observation(vision.pipeline.read(photo(*dice), "black"), 1.5, 7)
    assert seen.scene is SceneState.STILL and (seen.time, seen.frame) == (1.5, 7)
    assert sorted(d.value or 0 for d in seen.dice.dice) == [3, 5]
    assert {d.half for d in seen.dice.dice} == {Half.RIGHT}
    # The faces' confidence is the classifier's (clear drawn dice: sure); a die the pip counter
    # read carries none and gets DIE_CONFIDENCE.
    assert all(0.9 <= d.confidence <= 1.0 for d in seen.dice.dice)
    result = vision.pipeline.read(photo(*dice), "black")
    unscored = dataclasses.replace(
        result, dice=tuple(dataclasses.replace(d, confidence=None) for d in result.dice)
    )
    assert {d.confidence for d in to_observation(unscored).dice.dice} == {DIE_CONFIDENCE}
    assert seen.board is not None
    expected = ShortNardy().starting_position()
    assert seen.board.point(1).colour is Side.BLACK  # short nardy: black's 2 on White's 1
    assert seen.board.point(1).count.exact == 2
    assert expected.points[Side.WHITE][23] == seen.board.point(24).count.exact


def test_the_gate_says_moving_until_still_then_one_reading_answers() -> None:
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    image = photo()
    scenes = [vision.observe(Frame(image, i, i / 10)) for i in range(8)]
    assert scenes[0] is not None and scenes[0].scene is SceneState.MOVING
    settled = [s for s in scenes if s is not None and s.is_settled]
    assert settled and len(vision.times.read) == 1
    assert [s.frame for s in settled] == list(range(8 - len(settled), 8))


def test_a_blurred_picture_is_told_once_not_at_every_scene(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A camera out of focus: said at the first still scene, not again when a throw settles
    in the same blurred picture; said again once it has been sharp in between."""
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    sharp, thrown = photo(), photo(DrawnDie(3, (380.0, 200.0)), DrawnDie(5, (440.0, 250.0)))
    blurred, blurred_thrown = (cv2.GaussianBlur(p, (0, 0), 2.5) for p in (sharp, thrown))
    moving = [np.roll(sharp, 60, axis=1)] * 2
    pictures = [blurred] * 6 + moving + [blurred_thrown] * 6 + moving + [sharp] * 6
    pictures += moving + [blurred] * 6
    for i, image in enumerate(pictures):
        vision.observe(Frame(image, i, i / 10))
    assert len(vision.times.read) == 4
    told = [r.message for r in caplog.records if "blurred" in r.message]
    assert len(told) == 2 and told[0].startswith("the picture is blurred")
    assert vision.calibration.count("the picture is blurred") == 2


def test_create_vision_is_what_watch_loads(tmp_path: Path) -> None:
    assert isinstance(load_vision(LongNardy(), None), LiveVision)
    assert create_vision(LongNardy(), None).calibration == "not yet calibrated"
    broken = tmp_path / "profile.json"
    broken.write_text("{}")
    with pytest.raises(NoVisionError, match="profile"):
        create_vision(LongNardy(), broken)


def test_a_profile_whose_picture_is_gone_still_referees_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    saved = tmp_path / "profile.json"
    save_profile(profile_from_corners(SEEN, SIZE), saved, photo())
    (tmp_path / "profile.jpg").unlink()
    with caplog.at_level("WARNING"):
        vision = create_vision(LongNardy(), saved)
    assert vision.pipeline.profile == profile_from_corners(SEEN, SIZE)
    assert "cannot read the profile's picture" in caplog.text


@pytest.mark.parametrize("white_seat", ["bottom", "top"])
def test_a_found_board_with_no_tray_takes_its_seat_from_the_starting_position(
    white_seat: str,
) -> None:
    # No tray to tell the seat: the finder puts white at the bottom, and the board as set up
    # for the start says otherwise when white sits at the top.
    corners = seen_to_board_order(SEEN, white_seat)  # type: ignore[arg-type]
    board = DrawnBoard(counts=start_counts(), tray=False, **LOOK)  # type: ignore[arg-type]
    image = render(board, corners, SIZE, noise_sigma=2.0)
    vision = LiveVision(start=ShortNardy().starting_position())
    scenes = [vision.observe(Frame(image, i, i / 10)) for i in range(8)]
    assert vision.pipeline.profile is not None
    width = float(np.linalg.norm(SEEN[1] - SEEN[0]))
    assert np.allclose(vision.pipeline.profile.corners, corners, atol=0.01 * width)
    assert ("turned round" in vision.calibration) == (white_seat == "top")
    seen = scenes[-1]
    assert seen is not None and seen.board is not None
    assert seen.board.point(24).colour is Side.WHITE and seen.board.point(24).count.exact == 2
    assert seen.board.point(1).colour is Side.BLACK and seen.board.point(1).count.exact == 2


def test_a_board_with_corner_markers_is_found_by_them_and_keeps_their_seat() -> None:
    # The markers put white at the top. The checkers are set up as if white sat at the bottom:
    # a board found without markers would be turned round to show the start; the markers win.
    corners = seen_to_board_order(SEEN, "top")
    start = start_counts()
    turned = [0] * 24
    for point in range(1, 25):
        turned[(point + 11) % 24] = start[point - 1]  # 180 degrees: point p where p + 12 was
    board = DrawnBoard(counts=tuple(turned), tray=False, **LOOK)  # type: ignore[arg-type]
    image = render(board, corners, SIZE, noise_sigma=2.0, stickers=(0, 1, 2, 3))
    flat = VisionConfig(calibration=CalibrationConfig(marker_height_frac=0.0))
    vision = LiveVision(config=flat, start=ShortNardy().starting_position())
    scenes = [vision.observe(Frame(image, i, i / 10)) for i in range(8)]
    assert vision.pipeline.profile is not None
    assert np.abs(np.array(vision.pipeline.profile.corners) - corners).max() < 1.0
    assert vision.calibration == "found by its corner markers in frame 0"
    seen = scenes[-1]
    assert seen is not None and seen.board is not None
    assert seen.board.point(12).colour is Side.WHITE and seen.board.point(12).count.exact == 2


def test_a_given_profile_keeps_its_seat_whatever_the_board_shows() -> None:
    # The user's profile says white sits at the bottom; the board set up for white at the top
    # reads as set up, turned round, and is left so (a mid-game start looks like anything).
    board = DrawnBoard(counts=start_counts(), tray=False, **LOOK)  # type: ignore[arg-type]
    image = render(board, seen_to_board_order(SEEN, "top"), SIZE, noise_sigma=2.0)
    vision = LiveVision(profile_from_corners(SEEN, SIZE), start=ShortNardy().starting_position())
    seen = [vision.observe(Frame(image, i, i / 10)) for i in range(8)][-1]
    assert vision.calibration == "profile given"
    assert seen is not None and seen.board is not None
    assert seen.board.point(12).colour is Side.WHITE  # white's 2 from point 24, turned round


def arm(image: np.ndarray, x: int = 650) -> np.ndarray:
    """`image` with a forearm and hand reaching from below the picture onto the board, the
    hand at `x`."""
    out = image.copy()
    forearm = np.array([[x - 50, 719], [x + 50, 719], [x + 40, 420], [x - 40, 420]], np.int32)
    cv2.fillPoly(out, [forearm], (80, 120, 200))
    cv2.circle(out, (x, 400), 45, (90, 140, 215), -1)
    return out


def test_an_arm_over_the_board_is_hands_but_moved_checkers_and_dice_are_not() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    empty = photo()
    assert arm_over_board(arm(empty), empty, profile, HandConfig()) is Arm.SEEN
    thrown = photo(DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    assert arm_over_board(thrown, empty, profile, HandConfig()) is Arm.NONE
    # A checker taken from White's 13 to White's 10.
    counts = list(start_counts())
    counts[12] -= 1
    counts[9] += 1
    moved = render(DrawnBoard(counts=tuple(counts), **LOOK), SEEN, SIZE, noise_sigma=2.0)  # type: ignore[arg-type]
    assert arm_over_board(moved, empty, profile, HandConfig()) is Arm.NONE


def test_an_arm_as_grey_as_the_board_beneath_it_is_hands_by_its_colour() -> None:
    # Skin over light wood: where the arm lies, blue rises 60 and green falls 12, which leaves
    # the grey level (0.114 B + 0.587 G + 0.299 R) as it was.
    profile = profile_from_corners(SEEN, SIZE)
    empty = photo()
    mask = arm(np.zeros_like(empty)).any(axis=2)
    tinted = empty.astype(np.int16)
    tinted[mask] += np.array([60, -12, 0], np.int16)
    over = np.clip(tinted, 0, 255).astype(np.uint8)
    grey_change = cv2.absdiff(*(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY) for x in (over, empty)))
    assert int(grey_change.max()) < 30  # HandConfig.min_change: grey alone would not see it
    assert arm_over_board(over, empty, profile, HandConfig()) is Arm.SEEN


def sleeve_over_frame(empty: np.ndarray, x: int = 650) -> np.ndarray:
    """`empty` with an arm (`arm`) whose sleeve matches the board's frame: it changes the
    picture on the playing surface and beyond the board, but not where it crosses the frame."""
    profile = profile_from_corners(SEEN, SIZE)
    model = profile.model
    shape = empty.shape[:2]
    surface = profile.region_mask((0.0, 0.0, model.width_mm, model.depth_mm), shape, 1.0)
    frame = profile.region_mask(model.outline_box(profile.home), shape, 1.0) & ~surface
    over = arm(empty, x)
    crossing = arm(np.zeros_like(empty), x).any(axis=2)
    assert np.any(crossing & frame)  # the arm does cross the frame, unseen there
    over[frame] = empty[frame]
    return over


def test_an_arm_whose_sleeve_matches_the_boards_frame_is_an_arm_across_it() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    empty = photo()
    assert (
        arm_over_board(sleeve_over_frame(empty), empty, profile, HandConfig()) is Arm.ACROSS_FRAME
    )


def test_an_arm_whose_sleeve_matches_the_table_and_the_frame_is_seen_on_the_surface() -> None:
    # Nothing changes beyond the board: only the arm's large change on the playing surface,
    # reaching in from its border, tells it.
    profile = profile_from_corners(SEEN, SIZE)
    empty = photo()
    model = profile.model
    surface = profile.region_mask((0.0, 0.0, model.width_mm, model.depth_mm), SIZE[::-1], 1.0)
    over = empty.copy()
    forearm = np.array([[560, 719], [760, 719], [730, 380], [590, 380]], np.int32)
    cv2.fillPoly(over, [forearm], (80, 120, 200))
    over[~surface] = empty[~surface]
    assert arm_over_board(over, empty, profile, HandConfig()) is Arm.ON_SURFACE
    # Half as wide, it is too small to be told from checkers moved.
    narrow = empty.copy()
    cv2.fillPoly(
        narrow, [np.array([[620, 719], [700, 719], [690, 500], [630, 500]])], (80, 120, 200)
    )
    narrow[~surface] = empty[~surface]
    assert arm_over_board(narrow, empty, profile, HandConfig()) is Arm.NONE


def test_an_arm_seen_only_across_the_frame_is_hands_while_the_board_is_in_place() -> None:
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    empty = photo()
    frames = [empty] * 6 + [sleeve_over_frame(empty)] * 6 + [empty] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    assert [s.scene for s in seen[6:12] if s is not None][-1] is SceneState.HANDS
    assert seen[-1] is not None and seen[-1].scene is SceneState.NO_DICE
    assert len(vision.times.read) == 2  # before the arm and after it, never with it
    assert vision.pipeline.profile is not None and "moved" not in vision.calibration


def test_a_hand_unseen_in_the_earlier_scene_is_no_arm_when_it_goes() -> None:
    # A hand resting at the board's edge, missed by the check, was read as a still scene; the
    # board without it then changes the way an arm across the frame does, but not against
    # the scene read before that one.
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    empty = photo()
    for i in range(6):
        vision.observe(Frame(empty, i, i / 10))
    vision._older, vision._earlier = empty, EarlierScene(sleeve_over_frame(empty), ())
    frames = [arm(empty)] * 2 + [empty] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames, 6)]
    assert seen[-1] is not None and seen[-1].scene is SceneState.NO_DICE


def test_a_hand_resting_over_the_board_is_not_read_until_it_goes() -> None:
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    empty = photo()
    frames = [empty] * 6 + [arm(empty)] * 6 + [empty] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    scenes = [s.scene for s in seen if s is not None]
    assert SceneState.HANDS in scenes
    assert seen[-1] is not None and seen[-1].scene is SceneState.NO_DICE
    assert len(vision.times.read) == 2  # before the arm and after it, never with it


def test_a_hand_pausing_at_several_places_is_never_read() -> None:
    # Moving a checker, the hand stops over the board more often than `max_settlings`; each
    # stop is another picture, so none of them is taken for a board without hands.
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    empty = photo()
    places = (650, 450, 800, 550, 700)
    assert len(places) > vision.config.hands.max_settlings
    frames = [empty] * 6 + [arm(empty, x) for x in places for _ in range(6)] + [empty] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    stops = [s.scene for s in seen[6:-6] if s is not None and s.frame % 6 == 5]
    assert stops == [SceneState.HANDS] * len(places)
    assert seen[-1] is not None and seen[-1].scene is SceneState.NO_DICE
    assert len(vision.times.read) == 2  # before the hand and after it


def test_a_picture_that_keeps_looking_like_hands_is_read_after_a_few_settlings() -> None:
    # The earlier scene had the arm (the referee started with a hand over the board): the
    # board without it looks like hands against it, settling after settling (something
    # passing the camera between them), and alike.
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    empty = photo()
    limit = vision.config.hands.max_settlings
    frames = [arm(empty)] * 6
    for _ in range(limit + 1):
        frames += [arm(empty, 450)] + [empty] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    settled = [s.scene for s in seen[6:] if s is not None and s.frame % 7 == 5]
    assert settled == [SceneState.HANDS] * limit + [SceneState.NO_DICE]


def test_a_die_read_tilted_is_looked_at_again_before_the_session_hears_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first still frame of a throw catches one die still rocking (read tilted, as the
    # reader sees a flat die turned a few degrees); it lies flat by the next look.
    thrown = photo(DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    # The thrower's hand passes over the picture (two dice alone are too small a change for
    # the gate to see a new scene).
    frames = [photo()] * 6 + [arm(photo(), 450)] * 2 + [thrown] * 10

    def referee(look_again: int) -> tuple[list[int], list[Observation]]:
        config = VisionConfig(gate=GateConfig(tilted_look_again_frames=look_again))
        vision = LiveVision(profile_from_corners(SEEN, SIZE), config)
        real_read = vision.pipeline.read
        looks: list[int] = []

        def read(image: np.ndarray, **options: Any) -> VisionResult:
            result = real_read(image, **options)
            looks.append(len(result.dice))
            if len(looks) == 2:
                rocking = dataclasses.replace(result.dice[0], flat=False)
                result = dataclasses.replace(result, dice=(rocking, *result.dice[1:]))
            return result

        monkeypatch.setattr(vision.pipeline, "read", read)
        seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
        return looks, [s for s in seen[6:] if s is not None and s.scene is SceneState.STILL]

    looks, told = referee(3)
    assert looks == [0, 2, 2]
    assert told and all(die.flat for s in told for die in s.dice.dice)
    # Without the second look the session is told of the rocking die at once.
    looks_once, told_at_once = referee(0)
    assert looks_once == [0, 2]
    assert not told_at_once[0].dice.dice[0].flat
    assert told[0].frame == told_at_once[0].frame + 3


def test_an_earlier_scene_keeps_unmoved_dice_as_read_and_drops_unchanged_spots() -> None:
    pipeline = LiveVision(profile_from_corners(SEEN, SIZE)).pipeline
    dice = (DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    thrown = photo(*dice)
    first = pipeline.read(thrown, earlier=EarlierScene(photo(), ()))
    assert sorted(d.value or 0 for d in first.dice) == [3, 5]  # new since the empty board
    # The same picture again: the dice have not moved, so they keep the earlier reading, even
    # where that reading was another value.
    relabelled = tuple(
        dataclasses.replace(d, value=6, confidence=0.7) if d.value == 3 else d for d in first.dice
    )
    again = pipeline.read(thrown, earlier=EarlierScene(thrown, relabelled))
    assert sorted((d.value or 0, d.confidence) for d in again.dice) == sorted(
        (d.value or 0, d.confidence) for d in relabelled
    )
    # Spots that were there unread before and have not changed are not dice.
    assert pipeline.read(thrown, earlier=EarlierScene(thrown, ())).dice == ()


def test_dice_lying_there_at_start_up_are_not_a_throw_until_thrown_again() -> None:
    vision = LiveVision(profile_from_corners(SEEN, SIZE))
    lying = photo(DrawnDie(2, (120.0, 200.0), 5.0))
    thrown = photo(DrawnDie(3, (380.0, 200.0), 20.0), DrawnDie(5, (440.0, 250.0), -10.0))
    frames = [lying] * 6 + [arm(photo())] * 2 + [thrown] * 6  # a hand takes them and throws
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    first, last = seen[5], seen[-1]
    assert first is not None and first.scene is SceneState.NO_DICE
    assert last is not None and last.scene is SceneState.STILL
    assert sorted(d.value or 0 for d in last.dice.dice) == [3, 5]


def test_an_untouched_die_is_kept_once_however_many_candidates_lie_near_it() -> None:
    board = np.full((200, 200, 3), 90, np.uint8)
    then = DieSeen((100.0, 100.0), 2, (), 22.0, True, 1.0, 0.97)
    earlier = EarlierScene(board, (then,))
    # Two pip groups of the one die, a little more than the classifier's merging reach apart.
    near = [
        DieSeen((92.0, 100.0), 1, (), 22.0, True, 0.9, 0.5),
        DieSeen((113.0, 100.0), 1, (), 22.0, True, 0.8, 0.5),
    ]
    kept = _new_or_unmoved(near, board.copy(), earlier, 22.0, 10.0)
    assert [(d.center, d.value, d.confidence) for d in kept] == [((100.0, 100.0), 2, 0.97)]


def test_a_knocked_camera_moves_the_profile_and_the_board_reads_as_before() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    vision = LiveVision(profile)
    board = DrawnBoard(counts=start_counts(), **LOOK)  # type: ignore[arg-type]
    now = knocked(SEEN, -1.5, (18.0, 12.0))
    frames = [photo()] * 6 + [render(board, now, SIZE, noise_sigma=2.0)] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    moved = vision.pipeline.profile
    assert moved is not None and moved is not profile
    expected = knocked(np.array(profile.corners), -1.5, (18.0, 12.0))
    width = profile.board_width_px()
    assert np.abs(np.array(moved.corners) - expected).max() < 0.005 * width
    assert "the board moved" in vision.calibration
    last = seen[-1]
    assert last is not None and last.board is not None
    assert last.board.point(1).colour is Side.BLACK and last.board.point(1).count.exact == 2
    assert last.board.point(24).colour is Side.WHITE and last.board.point(24).count.exact == 2


def test_a_knock_that_changes_the_picture_like_an_arm_is_followed_at_once() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    vision = LiveVision(profile)
    board = DrawnBoard(counts=start_counts(), **LOOK)  # type: ignore[arg-type]
    before = photo()
    after = render(board, knocked(SEEN, -2.0, (25.0, 15.0)), SIZE, noise_sigma=2.0)
    assert arm_over_board(after, before, profile, HandConfig()) is Arm.SEEN
    frames = [before] * 6 + [after] * 6
    seen = [vision.observe(Frame(image, i, i / 10)) for i, image in enumerate(frames)]
    assert "the board moved" in vision.calibration
    last = seen[-1]
    assert last is not None and last.scene is SceneState.NO_DICE and last.board is not None
    assert last.board.point(1).colour is Side.BLACK and last.board.point(1).count.exact == 2


def test_a_board_knocked_between_calibration_and_play_is_followed_from_its_first_look(
    tmp_path: Path,
) -> None:
    profile = profile_from_corners(SEEN, SIZE)
    saved = tmp_path / "profile.json"
    save_profile(profile, saved, photo())
    vision = create_vision(LongNardy(), saved)
    board = DrawnBoard(counts=start_counts(), **LOOK)  # type: ignore[arg-type]
    now = knocked(SEEN, 1.0, (-15.0, 10.0))
    # Every frame of the game shows the knocked board: only the picture the profile was made
    # from tells that it moved.
    seen = [
        vision.observe(Frame(render(board, now, SIZE, noise_sigma=2.0), i, i / 10))
        for i in range(6)
    ]
    moved = vision.pipeline.profile
    assert moved is not None
    expected = knocked(np.array(profile.corners), 1.0, (-15.0, 10.0))
    assert np.abs(np.array(moved.corners) - expected).max() < 0.005 * profile.board_width_px()
    last = seen[-1]
    assert last is not None and last.board is not None
    assert last.board.point(1).count.exact == 2 and last.board.point(24).count.exact == 2


def test_a_board_knocked_too_far_to_follow_is_found_again_with_its_seat() -> None:
    # White sits at the top, as the user's profile says; with no tray to tell, the finder alone
    # would put white at the bottom. Found again, the seat stays the profile's.
    profile = profile_from_corners(SEEN, SIZE, "top")
    config = VisionConfig(bump=BumpConfig(max_unaligned=1))
    vision = LiveVision(profile, config)
    board = DrawnBoard(counts=start_counts(), tray=False, **LOOK)  # type: ignore[arg-type]
    now = SEEN * 0.8 + np.array([230.0, 110.0])
    frames = [render(board, np.array(profile.corners), SIZE, noise_sigma=2.0)] * 6
    frames += [render(board, seen_to_board_order(now, "top"), SIZE, noise_sigma=2.0)] * 6
    for i, image in enumerate(frames):
        vision.observe(Frame(image, i, i / 10))
    found = vision.pipeline.profile
    assert found is not None
    width = float(np.linalg.norm(now[1] - now[0]))
    expected = seen_to_board_order(now, "top")
    assert np.abs(np.array(found.corners) - expected).max() < 0.01 * width
    assert "found again" in vision.calibration and len(vision.times.calibrate) == 1


def test_a_board_with_corner_markers_is_found_again_by_them() -> None:
    # White at the top by the markers (id 0 at white's far left, here the image's bottom right),
    # on a board with no tray: the finder alone would put white at the bottom. The profile was
    # followed after an earlier knock: the markers count however it was made.
    profile = profile_from_corners(SEEN, SIZE, "top")
    profile = profile.with_corners(np.array(profile.corners), "followed after a knock")
    # The markers moved off the board's outline change the picture as an arm would: the hands
    # check (off here) waits such settlings out first.
    # A drawn board is flat: its markers lie level with the surface.
    config = VisionConfig(
        calibration=CalibrationConfig(marker_height_frac=0.0),
        bump=BumpConfig(max_unaligned=1),
        hands=HandConfig(max_settlings=0),
    )
    vision = LiveVision(profile, config)
    board = DrawnBoard(counts=start_counts(), tray=False, **LOOK)  # type: ignore[arg-type]
    now = seen_to_board_order(SEEN * 0.8 + np.array([230.0, 110.0]), "top")
    frames = [
        render(board, np.array(profile.corners), SIZE, noise_sigma=2.0, stickers=(0, 1, 2, 3))
    ] * 6
    frames += [render(board, now, SIZE, noise_sigma=2.0, stickers=(0, 1, 2, 3))] * 6
    for i, image in enumerate(frames):
        vision.observe(Frame(image, i, i / 10))
    found = vision.pipeline.profile
    assert found is not None and found.method == "aruco, found again"
    assert np.abs(np.array(found.corners) - now).max() < 1.0
    assert "found again" in vision.calibration


def test_a_board_that_cannot_be_found_again_keeps_its_profile() -> None:
    profile = profile_from_corners(SEEN, SIZE)
    # The board lifted away: the whole picture changed, which the hands check (off here) takes
    # for an arm for its first few settlings.
    config = VisionConfig(bump=BumpConfig(max_unaligned=1), hands=HandConfig(max_settlings=0))
    vision = LiveVision(profile, config)
    table = np.clip(np.random.default_rng(5).normal(90, 6, (SIZE[1], SIZE[0], 3)), 0, 255)
    frames = [photo()] * 6 + [table.astype(np.uint8)] * 6
    for i, image in enumerate(frames):
        vision.observe(Frame(image, i, i / 10))
    assert vision.pipeline.profile is profile
    assert "could not be found again" in vision.calibration
