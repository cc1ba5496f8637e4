"""Frame sources and the live loop: unplugged cameras, corrupt frames, files and folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.record import MatchHeader
from referee.rules import LongNardy, Side
from referee.session import (
    CorruptFrame,
    EndOfSource,
    EventKind,
    Frame,
    ImageFolder,
    OpenCvCamera,
    Phase,
    PiCamera,
    Runner,
    ScriptedVision,
    Session,
    SessionEvent,
    SourceError,
    TableScript,
    Unavailable,
    VideoFile,
)
from referee.signals import Decision, Indication, Kind
from tests.session_helpers import Clock

IMAGE = np.zeros((4, 6, 3), dtype=np.uint8)


class FakeCamera:
    """A USB camera that can be unplugged, and that sometimes sends a broken frame."""

    def __init__(self) -> None:
        self.plugged = True
        self.broken_every = 0
        self.reads = 0
        self.opened = 0

    def open(self, index: int) -> FakeCapture:
        self.opened += 1
        return FakeCapture(self)


class FakeCapture:
    def __init__(self, camera: FakeCamera) -> None:
        self.camera = camera
        self.open = camera.plugged

    def isOpened(self) -> bool:
        return self.open

    def read(self) -> tuple[bool, Any]:
        camera = self.camera
        if not (self.open and camera.plugged):
            return False, None
        camera.reads += 1
        if camera.broken_every and camera.reads % camera.broken_every == 0:
            return True, np.zeros((0, 0), dtype=np.uint8)
        return True, IMAGE

    def release(self) -> None:
        self.open = False


class Lamps:
    def __init__(self) -> None:
        self.shown: list[Indication] = []

    def show(self, indication: Indication) -> None:
        self.shown.append(indication)


def scripted_game() -> TableScript:
    script = TableScript(LongNardy())
    script.opening(6, 5).play("24/18 18/13").pick_up()
    script.throw(Side.BLACK, 4, 2).play("24/20 20/18").pick_up()
    script.throw(Side.WHITE, 3, 1).play("24/21 21/20").pick_up()
    return script


def live(camera: FakeCamera, clock: Clock) -> tuple[Runner, Session, Lamps, list[SessionEvent]]:
    lamps = Lamps()
    events: list[SessionEvent] = []
    session = Session.new(MatchHeader(variant="long"), signals=lamps, on_event=events.append)
    source = OpenCvCamera(0, reopen_s=1.0, opener=camera.open, clock=clock)
    vision = ScriptedVision(scripted_game().observations)
    runner = Runner(source, vision, session, idle_s=0.25, sleep=clock.sleep)
    return runner, session, lamps, events


def test_camera_unplugged_mid_game_waits_and_carries_on() -> None:
    camera, clock = FakeCamera(), Clock()
    runner, session, lamps, events = live(camera, clock)
    runner.run(max_reads=3)
    assert session.phase is Phase.MOVING  # the opening is thrown, White is moving

    camera.plugged = False
    runner.run(max_reads=27)
    lost = [e for e in events if e.kind is EventKind.SOURCE_LOST]
    assert len(lost) == 1 and "stopped giving frames" in lost[0].message
    assert lamps.shown[-1].kind is Kind.WAITING and "camera" in lamps.shown[-1].message
    assert runner.stats.unavailable == 24 and camera.opened > 1  # it keeps trying
    assert session.phase is Phase.MOVING  # nothing lost, nothing invented

    camera.plugged = True
    runner.run(max_reads=100)
    assert [e.kind for e in events].count(EventKind.SOURCE_BACK) == 1
    moves = [e for e in events if e.kind is EventKind.MOVE_LEGAL]
    assert [str(e.interpretation.best.play) for e in moves if e.interpretation] == [
        "24/18 18/13",
        "24/20 20/18",
        "24/21 21/20",
    ]
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is Side.BLACK


def test_no_camera_at_start_is_waited_for() -> None:
    camera, clock = FakeCamera(), Clock()
    camera.plugged = False
    runner, session, _, events = live(camera, clock)
    runner.run(max_reads=5)
    assert [e.kind for e in events][-1] is EventKind.SOURCE_LOST
    assert "is it plugged in" in events[-1].message
    camera.plugged = True
    runner.run(max_reads=100)
    assert session.phase is Phase.AWAIT_THROW


def test_corrupt_frames_are_skipped_and_counted() -> None:
    camera, clock = FakeCamera(), Clock()
    camera.broken_every = 4
    runner, session, _, events = live(camera, clock)
    stats = runner.run(max_reads=60)
    assert stats.corrupt == session.frames_skipped > 0
    assert stats.corrupt == sum(e.kind is EventKind.FRAME_SKIPPED for e in events)
    # Every scripted observation still reached the session: the game is where it should be.
    assert sum(e.kind is EventKind.MOVE_LEGAL for e in events) == 3


def test_buttons_are_read_between_frames() -> None:
    camera, clock = FakeCamera(), Clock()
    lamps = Lamps()
    session = Session.new(MatchHeader(variant="long"), signals=lamps)
    pressed = [Decision.ACCEPT]
    runner = Runner(
        OpenCvCamera(0, opener=camera.open, clock=clock),
        ScriptedVision([]),
        session,
        decisions=lambda: pressed.pop() if pressed else None,
        sleep=clock.sleep,
    )
    runner.run(max_reads=2)
    assert runner.stats.decisions == 1


def test_image_folder_skips_unreadable_files_and_ends(tmp_path: Path) -> None:
    for name in ("a.png", "c.png"):
        cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), 90, dtype=np.uint8))
    (tmp_path / "b.png").write_bytes(b"not a picture")
    (tmp_path / "notes.txt").write_text("ignored")
    folder = ImageFolder(tmp_path, fps=2.0)
    items = [folder.read() for _ in range(4)]
    assert isinstance(items[0], Frame) and isinstance(items[2], Frame)
    assert items[2].time == 1.0
    assert isinstance(items[1], CorruptFrame) and "b.png" in items[1].reason
    assert isinstance(items[3], EndOfSource)


def test_video_file_frames_then_end(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for value in (10, 120, 240):
        writer.write(np.full((24, 32, 3), value, dtype=np.uint8))
    writer.release()
    video = VideoFile(path)
    items = [video.read() for _ in range(4)]
    video.close()
    frames = [item for item in items if isinstance(item, Frame)]
    assert len(frames) == 3 and frames[1].time == pytest.approx(0.1)
    assert isinstance(items[3], EndOfSource)


def test_missing_files_and_cameras_are_reported() -> None:
    with pytest.raises(SourceError):
        VideoFile("/nonexistent/game.mp4")
    with pytest.raises(SourceError):
        ImageFolder("/nonexistent/frames")
    camera = FakeCamera()
    camera.plugged = False
    assert isinstance(OpenCvCamera(3, opener=camera.open).read(), Unavailable)


def test_pi_camera_needs_picamera2() -> None:
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="Picamera2 is not installed"):
            PiCamera()
    else:  # on a Raspberry Pi the source can be made
        PiCamera().close()
