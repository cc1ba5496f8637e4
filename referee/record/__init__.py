"""Match records: the match model, .mat / SGF / long-nardy text import and export, replay
through the rules core, and the live session's journal.

>>> from referee.record import read_record, write_record          # doctest: +SKIP
>>> replayed = read_record("match.mat")   # parsed and replayed; RecordError on any problem
>>> write_record(replayed.match, "match.sgf")
"""

from referee.record.errors import (
    JournalError,
    JournalVersionError,
    RecordError,
    RecordReplayError,
    RecordSyntaxError,
    UnsupportedRecordError,
)
from referee.record.formats import EXTENSIONS, FORMATS, dumps, format_of, read_record, write_record
from referee.record.journal import (
    Beavered,
    DisputeDecided,
    DoubleDropped,
    DoubleOffered,
    DoubleTaken,
    Event,
    GameStarted,
    GameWon,
    Journal,
    JournalEntry,
    JournalState,
    MatchOver,
    MatchStarted,
    OpeningThrow,
    PlayMade,
    Resumed,
    RollThrown,
)
from referee.record.mat import format_mat, format_text, parse_mat, read_mat
from referee.record.model import (
    Action,
    Beaver,
    Double,
    Drop,
    End,
    Game,
    Match,
    MatchHeader,
    Move,
    Result,
    Take,
)
from referee.record.replay import (
    ReplayedAction,
    ReplayedGame,
    ReplayedMatch,
    bear_off_points,
    replay_match,
)
from referee.record.sgf import format_sgf, parse_sgf, read_sgf

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "Action",
    "Beaver",
    "Beavered",
    "DisputeDecided",
    "Double",
    "DoubleDropped",
    "DoubleOffered",
    "DoubleTaken",
    "Drop",
    "End",
    "Event",
    "Game",
    "GameStarted",
    "GameWon",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JournalState",
    "JournalVersionError",
    "Match",
    "MatchHeader",
    "MatchOver",
    "MatchStarted",
    "Move",
    "OpeningThrow",
    "PlayMade",
    "RecordError",
    "RecordReplayError",
    "RecordSyntaxError",
    "ReplayedAction",
    "ReplayedGame",
    "ReplayedMatch",
    "Result",
    "Resumed",
    "RollThrown",
    "Take",
    "UnsupportedRecordError",
    "bear_off_points",
    "dumps",
    "format_mat",
    "format_of",
    "format_sgf",
    "format_text",
    "parse_mat",
    "parse_sgf",
    "read_mat",
    "read_record",
    "read_sgf",
    "replay_match",
    "write_record",
]
