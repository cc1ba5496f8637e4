"""Vision from a scene video's ground truth: what `referee scenes video` says each frame shows.

`TruthVision` stands in for the camera pipeline on a rendered video (an oracle): it answers each
frame with the observation its label implies, so the whole live loop (video file, session,
signals, journal) runs end to end before a real board reader exists. The labels are the video
script of datasets/FORMAT.md: per frame whether it is still and which still it belongs to, per
still the position and the dice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.rules import Position, RulesError, Side
from referee.session.errors import ScriptError
from referee.session.observation import (
    BoardObservation,
    DiceObservation,
    DieObservation,
    Half,
    Observation,
    SceneState,
)
from referee.session.sources import Frame

_ROLLING = DiceObservation((DieObservation(None, rolling=True), DieObservation(None, rolling=True)))


def _half(label: Any, roller: Side) -> Half | None:
    """A die's half as the scene labels it (as the roller sees it) in White's seat's terms."""
    if label not in ("left", "right"):
        return None
    return Half(label).seen_by(roller)


def _still(still: Mapping[str, Any], where: str) -> Observation:
    try:
        position = Position.from_dict(still["position"])
    except (KeyError, TypeError, RulesError) as exc:
        raise ScriptError(f"{where}: no usable position ({exc})") from None
    roll = still.get("roll") or {}
    roller = Side.from_label(str(roll.get("roller", position.turn.label)))
    dice = [
        DieObservation(
            value=die.get("value"),
            flat=bool(die.get("flat", True)),
            on_checker=bool(die.get("on_checker", False)),
            on_board=bool(die.get("on_board", True)),
            half=_half(die.get("half"), roller),
            rolling=bool(die.get("rolling", False)),
        )
        for die in still.get("dice", [])
    ]
    return Observation.settled(BoardObservation.from_position(position), dice)


def observations_by_frame(script: Mapping[str, Any]) -> list[Observation]:
    """One observation per frame of a video script: settled frames show their still's board
    and dice; moving frames show hands (a hand over the board) or rolling dice."""
    stills: Sequence[Any] = script.get("stills", [])
    frames: Sequence[Any] = script.get("frames", [])
    if not isinstance(stills, list) or not isinstance(frames, list):
        raise ScriptError("a video script has 'stills' and 'frames' lists")
    settled = [_still(still, f"stills[{k}]") for k, still in enumerate(stills)]
    fps = float(script.get("fps", 25.0)) or 25.0
    observations: list[Observation] = []
    for i, frame in enumerate(frames):
        index = frame.get("still_index")
        time = i / fps
        if frame.get("still") and isinstance(index, int) and 0 <= index < len(settled):
            seen = settled[index]
            observations.append(Observation(seen.scene, seen.board, seen.dice, time, i))
        elif frame.get("hand"):
            observations.append(Observation(SceneState.HANDS, time=time, frame=i))
        else:
            dice = _ROLLING if frame.get("phase") == "rolling" else DiceObservation()
            observations.append(Observation(SceneState.MOVING, dice=dice, time=time, frame=i))
    return observations


class TruthVision:
    """Answers each frame of a rendered video with what its ground truth says it shows."""

    def __init__(self, script: Mapping[str, Any]) -> None:
        self.observations = observations_by_frame(script)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> TruthVision:
        """The vision for the video script at `path` (the JSON beside the video)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ScriptError(f"{path}: cannot read: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ScriptError(f"{path}: not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ScriptError(f"{path}: a video script is a JSON object")
        return cls(data)

    def observe(self, frame: Frame) -> Observation | None:
        if not 0 <= frame.index < len(self.observations):
            return None
        return self.observations[frame.index]


__all__ = ["TruthVision", "observations_by_frame"]
