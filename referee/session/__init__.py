"""The live session: follows a real game from what the camera sees, judges every throw and
move, signals the verdicts and journals the match.

>>> from referee.rules import LongNardy, Play, Roll
>>> from referee.session import BoardObservation, interpret
>>> start = LongNardy().starting_position()
>>> seen = BoardObservation.from_position(start.play(Play.from_str("24/18 18/13")))
>>> interpret(start, Roll(6, 5), seen).message
'Legal 6-5: 24/18 18/13.'
"""

from referee.session.config import SessionConfig, load_session_config
from referee.session.errors import (
    NoVisionError,
    ScriptError,
    SessionConfigError,
    SessionError,
    SourceError,
)
from referee.session.events import EventKind, SessionEvent
from referee.session.interpret import (
    Candidate,
    Interpretation,
    Outcome,
    Place,
    interpret,
    misfits,
    play_between,
)
from referee.session.machine import Phase, Session
from referee.session.observation import (
    BoardObservation,
    Count,
    CountObservation,
    CubeObservation,
    DiceObservation,
    DieObservation,
    Half,
    Observation,
    ObservationError,
    PointObservation,
    SceneState,
)
from referee.session.runner import Runner, RunStats
from referee.session.script import TableScript
from referee.session.sources import (
    CorruptFrame,
    EndOfSource,
    Frame,
    FrameSource,
    ImageFolder,
    OpenCvCamera,
    PiCamera,
    Unavailable,
    VideoFile,
)
from referee.session.throws import ThrowFault, ThrowReading, read_opening_throw, read_throw
from referee.session.truth import TruthVision
from referee.session.vision import (
    ScriptedVision,
    ScriptSource,
    Vision,
    load_script,
    load_vision,
    save_script,
)

__all__ = [
    "BoardObservation",
    "Candidate",
    "CorruptFrame",
    "Count",
    "CountObservation",
    "CubeObservation",
    "DiceObservation",
    "DieObservation",
    "EndOfSource",
    "EventKind",
    "Frame",
    "FrameSource",
    "Half",
    "ImageFolder",
    "Interpretation",
    "NoVisionError",
    "Observation",
    "ObservationError",
    "OpenCvCamera",
    "Outcome",
    "Phase",
    "PiCamera",
    "Place",
    "PointObservation",
    "RunStats",
    "Runner",
    "SceneState",
    "ScriptError",
    "ScriptSource",
    "ScriptedVision",
    "Session",
    "SessionConfig",
    "SessionConfigError",
    "SessionError",
    "SessionEvent",
    "SourceError",
    "TableScript",
    "ThrowFault",
    "ThrowReading",
    "TruthVision",
    "Unavailable",
    "VideoFile",
    "Vision",
    "interpret",
    "load_script",
    "load_session_config",
    "load_vision",
    "misfits",
    "play_between",
    "read_opening_throw",
    "read_throw",
    "save_script",
]
