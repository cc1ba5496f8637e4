"""The seam between the camera pipeline and the session: the `Vision` protocol, a scripted
stand-in that replays observations, and loading the real one when it is installed.

The camera pipeline (`referee.vision`, being built) implements `Vision`: it turns each frame
into an `Observation`, or None while the picture is changing and nothing can be said yet. The
session never sees pixels, so until the pipeline exists it is driven by `ScriptedVision`.
"""

from __future__ import annotations

import importlib
import json
import os
import typing
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from referee.rules import Variant
from referee.session.errors import NoVisionError, ScriptError
from referee.session.observation import Observation, ObservationError
from referee.session.sources import EndOfSource, Frame, SourceItem

VISION_FACTORY = "referee.vision.live:create_vision"
"""Where `referee watch` looks for the camera pipeline: a callable taking the variant and the
profile file (or None) and returning a `Vision`."""


class Vision(Protocol):
    """The camera pipeline as the session sees it."""

    def observe(self, frame: Frame) -> Observation | None:
        """What `frame` shows, or None while nothing settled can be said (the picture changes
        and the pipeline cannot tell hands from rolling dice yet)."""
        ...


VisionFactory = Callable[[Variant, Path | None], Vision]


def load_vision(variant: Variant, profile: Path | None, factory: str = VISION_FACTORY) -> Vision:
    """The camera pipeline named by `factory` ("package.module:callable"), built for `variant`.

    Raises NoVisionError when it is not installed, so the caller can say so plainly.
    """
    module_name, _, attribute = factory.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise NoVisionError(
            f"no vision model is available ({module_name} cannot be imported: {exc}); "
            "use --script to replay recorded observations"
        ) from None
    create = getattr(module, attribute, None)
    if not callable(create):
        raise NoVisionError(f"no vision model is available ({module_name} has no {attribute})")
    return typing.cast(VisionFactory, create)(variant, profile)


class ScriptedVision:
    """Replays a list of observations, one per frame, whatever the frame shows.

    Each observation's `frame` and `time` are replaced by those of the frame it answers, so
    timings measured downstream are the source's. After the last observation it answers None.
    """

    def __init__(self, observations: Iterable[Observation]) -> None:
        self._observations: Iterator[Observation] = iter(observations)

    def observe(self, frame: Frame) -> Observation | None:
        observation = next(self._observations, None)
        if observation is None:
            return None
        return Observation(
            observation.scene, observation.board, observation.dice, frame.time, frame.index
        )


class ScriptSource:
    """A frame source for `ScriptedVision`: one blank frame per scripted observation, then the
    end. `fps` spaces the frames' times."""

    def __init__(self, frames: int, *, fps: float = 10.0) -> None:
        self.frames = frames
        self.fps = fps
        self._index = 0
        self._image = np.zeros((2, 2, 3), dtype=np.uint8)

    @property
    def name(self) -> str:
        return "script"

    def read(self) -> SourceItem:
        if self._index >= self.frames:
            return EndOfSource()
        index = self._index
        self._index += 1
        return Frame(self._image, index, index / self.fps)

    def close(self) -> None:
        """Nothing to release."""


def load_script(path: str | os.PathLike[str]) -> list[Observation]:
    """Observations from a file: a JSON list of observation objects, or one per line (JSON
    lines, blank lines and lines starting with # skipped). See `Observation.to_dict`."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"{source}: cannot read: {exc.strerror}") from None
    items: list[tuple[int, object]] = []
    stripped = text.lstrip()
    try:
        if stripped.startswith("["):
            items = list(enumerate(json.loads(text), start=1))
        else:
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip() and not line.lstrip().startswith("#"):
                    items.append((number, json.loads(line)))
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{source}: not JSON: {exc}") from None
    observations: list[Observation] = []
    for number, item in items:
        if not isinstance(item, dict):
            raise ScriptError(f"{source}: item {number} is not an observation object")
        try:
            observations.append(Observation.from_dict(item))
        except (ObservationError, TypeError, ValueError) as exc:
            raise ScriptError(f"{source}: item {number}: {exc}") from None
    return observations


def save_script(path: str | os.PathLike[str], observations: Iterable[Observation]) -> None:
    """Write observations as JSON lines, the form `load_script` reads."""
    with Path(path).open("w", encoding="utf-8") as out:
        for observation in observations:
            out.write(json.dumps(observation.to_dict(), separators=(",", ":")) + "\n")


__all__ = [
    "VISION_FACTORY",
    "ScriptSource",
    "ScriptedVision",
    "Vision",
    "VisionFactory",
    "load_script",
    "load_vision",
    "save_script",
]
