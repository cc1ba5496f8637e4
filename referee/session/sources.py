"""Where frames come from: a USB camera, the Pi camera, a video file or a folder of images.

Every source answers `read()` with one of four things, so the session never has to catch a
camera's exceptions: a `Frame`; a `CorruptFrame` (a frame that came but cannot be used: it is
skipped and counted); `Unavailable` (no camera, or it stopped giving frames: the session keeps
waiting and says so, and the source tries to open it again on later reads); or `EndOfSource`
(a file or folder has no more frames).
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.session.errors import SourceError

Image = NDArray[np.uint8]
"""A BGR image, height × width × 3, as OpenCV gives it."""

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


@dataclass(frozen=True)
class Frame:
    """One image from a source: `index` counts the source's frames from 0, `time` is seconds on
    the source's clock (for files: the frame's place in the video or folder)."""

    image: Image
    index: int
    time: float


@dataclass(frozen=True)
class CorruptFrame:
    """A frame that arrived but cannot be used (undecodable file, empty or wrongly shaped)."""

    index: int
    reason: str


@dataclass(frozen=True)
class Unavailable:
    """The source gives no frames now: camera missing or unplugged; it may come back."""

    reason: str


@dataclass(frozen=True)
class EndOfSource:
    """A finite source (video, folder) has no more frames."""


SourceItem = Frame | CorruptFrame | Unavailable | EndOfSource


class FrameSource(Protocol):
    """Anything that gives frames one at a time."""

    @property
    def name(self) -> str:
        """What the source is, for messages: "camera 0", "game.mp4"."""
        ...

    def read(self) -> SourceItem:
        """The next frame, or why there is none; never raises for a missing camera."""
        ...

    def close(self) -> None:
        """Release the device or file; calling it twice is harmless."""
        ...


def check_image(image: Any) -> str | None:
    """Why `image` is no usable BGR frame, or None when it is one."""
    if not isinstance(image, np.ndarray):
        return "no image data"
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        return f"not an 8-bit colour image (shape {image.shape}, {image.dtype})"
    if image.shape[0] < 2 or image.shape[1] < 2:
        return f"an image of {image.shape[1]}×{image.shape[0]} pixels"
    return None


def checked_frame(image: Any, index: int, time_s: float) -> Frame | CorruptFrame:
    """`image` as frame `index` at `time_s`, or a corrupt frame saying why it is none."""
    problem = check_image(image)
    if problem is not None:
        return CorruptFrame(index, problem)
    return Frame(np.asarray(image, dtype=np.uint8), index, time_s)


class Capture(Protocol):
    """The part of `cv2.VideoCapture` the sources use (tests pass a stand-in)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


class OpenCvCamera:
    """A camera OpenCV opens by number (`cv2.VideoCapture(n)`): USB webcams, capture cards.

    With no camera there, or when it stops giving frames (unplugged), `read` answers
    `Unavailable` and tries to open it again at most every `reopen_s` seconds.
    """

    def __init__(
        self,
        index: int,
        *,
        reopen_s: float = 1.0,
        opener: Callable[[int], Capture] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.index = index
        self.reopen_s = reopen_s
        self._opener: Callable[[int], Capture] = opener or cv2.VideoCapture
        self._clock = clock
        self._capture: Capture | None = None
        self._next_try = 0.0
        self._frames = 0

    @property
    def name(self) -> str:
        return f"camera {self.index}"

    def read(self) -> SourceItem:
        now = self._clock()
        if self._capture is None:
            if now < self._next_try:
                return Unavailable(f"{self.name} is not available")
            self._next_try = now + self.reopen_s
            capture = self._opener(self.index)
            if not capture.isOpened():
                capture.release()
                return Unavailable(f"no {self.name}: is it plugged in?")
            self._capture = capture
        ok, image = self._capture.read()
        if not ok:
            # A camera that was unplugged keeps failing: let go of it and open it afresh.
            self._capture.release()
            self._capture = None
            self._next_try = now + self.reopen_s
            return Unavailable(f"{self.name} stopped giving frames")
        self._frames += 1
        return checked_frame(image, self._frames - 1, now)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class PiCamera:
    """The Raspberry Pi camera through Picamera2 (Raspberry Pi OS's `python3-picamera2`).

    Raises SourceError when Picamera2 is not installed (not a Pi). An RGB888 configuration gives
    BGR arrays, as OpenCV expects.
    """

    def __init__(
        self,
        size: tuple[int, int] = (1280, 720),
        *,
        reopen_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        try:
            module = importlib.import_module("picamera2")
        except ImportError:
            raise SourceError(
                "Picamera2 is not installed: on a Raspberry Pi, `sudo apt install "
                "python3-picamera2` (and make the virtual environment with "
                "--system-site-packages)"
            ) from None
        self._factory: Callable[[], Any] = module.Picamera2
        self.size = size
        self.reopen_s = reopen_s
        self._clock = clock
        self._camera: Any = None
        self._next_try = 0.0
        self._frames = 0

    @property
    def name(self) -> str:
        return "Pi camera"

    def read(self) -> SourceItem:
        now = self._clock()
        if self._camera is None:
            if now < self._next_try:
                return Unavailable("the Pi camera is not available")
            self._next_try = now + self.reopen_s
            try:
                camera = self._factory()
                camera.configure(
                    camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
                )
                camera.start()
            except Exception as exc:  # libcamera raises plain RuntimeErrors, IndexError, ...
                return Unavailable(f"the Pi camera cannot be opened: {exc}")
            self._camera = camera
        try:
            image = self._camera.capture_array("main")
        except Exception as exc:  # a camera cable pulled out mid-capture
            self.close()
            self._next_try = now + self.reopen_s
            return Unavailable(f"the Pi camera stopped giving frames: {exc}")
        self._frames += 1
        return checked_frame(image, self._frames - 1, now)

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.close()
            finally:
                self._camera = None


class VideoFile:
    """Frames of a video file, in order; `time` is the frame's time in the video."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"no video file {self.path}")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            raise SourceError(f"{self.path} cannot be read as a video")
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        self._fps = fps if fps and fps > 0 else 25.0
        self._count = int(self._capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._index = 0

    @property
    def name(self) -> str:
        return self.path.name

    def read(self) -> SourceItem:
        index = self._index
        if self._count and index >= self._count:
            return EndOfSource()
        ok, image = self._capture.read()
        self._index += 1
        if not ok:
            # Before the frame count, a failed read is a damaged frame; after it, the end.
            if self._count and index < self._count - 1:
                return CorruptFrame(index, "the frame cannot be decoded")
            return EndOfSource()
        return checked_frame(image, index, index / self._fps)

    def close(self) -> None:
        self._capture.release()


class ImageFolder:
    """The images of a folder in name order, one frame each, `fps` frames to the second."""

    def __init__(self, path: str | os.PathLike[str], *, fps: float = 5.0) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise SourceError(f"no image folder {self.path}")
        self.files = sorted(
            p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
        )
        if not self.files:
            raise SourceError(f"{self.path} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.fps = fps
        self._index = 0

    @property
    def name(self) -> str:
        return self.path.name

    def read(self) -> SourceItem:
        index = self._index
        if index >= len(self.files):
            return EndOfSource()
        self._index += 1
        image = cv2.imread(str(self.files[index]), cv2.IMREAD_COLOR)
        if image is None:
            return CorruptFrame(index, f"{self.files[index].name} cannot be decoded")
        return Frame(np.asarray(image, dtype=np.uint8), index, index / self.fps)

    def close(self) -> None:
        """Nothing to release: each image is read and closed in `read`."""


__all__ = [
    "IMAGE_SUFFIXES",
    "Capture",
    "CorruptFrame",
    "EndOfSource",
    "Frame",
    "FrameSource",
    "ImageFolder",
    "OpenCvCamera",
    "PiCamera",
    "SourceItem",
    "Unavailable",
    "VideoFile",
    "check_image",
]
