"""The match journal: every event of a live session, one JSON line each, on disk the moment it
happens, so that a power cut loses nothing and `referee watch --resume` can carry on.

A line is `{"v": 1, "seq": 7, "at": "2025-11-08T23:05:01.250Z", "kind": "play", ...}`: the
format version, the event's number (1, 2, 3, ... with no gaps), the UTC time it was written, and
the event's own fields (see the event classes below). `Journal.append` writes the line with one
`os.write` on a file opened for appending and `os.fsync`s it before returning.

Two kinds of event tell the story around the match without being part of it: `verdict` (what
the referee told the table when a throw or a move did not simply stand: void, unreadable, early,
illegal, unsure) and `incident` (the camera lost and back, frames skipped). Replaying reads past
them, so a journal with them rebuilds the same match as one without, and journals written
before they existed read as before.

Damage and what reading does about it (`Journal.replay`):

- The last line has no newline and is not a complete event: the power failed while it was being
  written. It is reported (`JournalState.torn_line`) and ignored; the event it held is lost (the
  referee looks at the board again). `Journal.resume` ends that line and appends a `resumed`
  event naming it, so later reads know it was dealt with. Nothing is truncated or rewritten.
- Anything else (garbage or a torn line in the middle, a line that is not an event, a gap in
  the numbers, a newer version) raises JournalError naming the file and line, and the file is
  left exactly as it was.
"""

from __future__ import annotations

import datetime
import enum
import json
import os
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

from referee.record.errors import JournalError, JournalVersionError, RecordError, RecordReplayError
from referee.record.model import (
    OWED_KINDS,
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
    move_numbers,
)
from referee.record.replay import ReplayedMatch, action_text, replay_match
from referee.rules import Next, Play, Position, Roll, Verdict
from referee.rules.errors import RulesError

VERSION = 1


# --- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Base of the journal's events; `kind` names each in the JSON line."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            data[f.name] = _encode(getattr(self, f.name))
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """The event a JSON object describes; RecordError when it does not describe one."""
        kind = data.get("kind")
        event_class = EVENT_TYPES.get(str(kind))
        if event_class is None:
            raise RecordError(f"unknown event kind {kind!r}")
        hints = typing.get_type_hints(event_class)
        values = {}
        for f in fields(event_class):
            if f.name in data:
                values[f.name] = _decode(hints[f.name], data[f.name], f.name)
            elif f.default is MISSING and f.default_factory is MISSING:
                raise RecordError(f"a {kind} event needs {f.name!r}")
        _check_values(values)
        return event_class(**values)


def _check_values(values: Mapping[str, Any]) -> None:
    """Refuse values no event can hold: a player other than 0/1, a die off 1..6, a cube < 2."""
    for name in ("player", "winner"):
        if values.get(name) not in (None, 0, 1):
            raise RecordError(f"{name!r} is 0 or 1, not {values[name]!r}")
    for name in ("dice", "read"):
        dice = values.get(name)
        if dice is not None and not all(1 <= die <= 6 for die in dice):
            raise RecordError(f"a die shows 1 to 6, not {list(dice)!r}")
    cube = values.get("cube")
    if cube is not None and cube < 2:
        raise RecordError(f"a doubled cube is at least 2, not {cube!r}")


@dataclass(frozen=True)
class MatchStarted(Event):
    """The match begins: players, length, variant and options, cube rules."""

    kind: ClassVar[str] = "match_started"
    header: MatchHeader


@dataclass(frozen=True)
class GameStarted(Event):
    """Game `number` (1-based) begins at `score` (player 1's, player 2's)."""

    kind: ClassVar[str] = "game_started"
    number: int
    score: tuple[int, int]


@dataclass(frozen=True)
class OpeningThrow(Event):
    """Each player throws one die: `dice` is (player 1's, player 2's); the higher starts, a tie
    is thrown again (another event)."""

    kind: ClassVar[str] = "opening_throw"
    dice: tuple[int, int]

    @property
    def starter(self) -> int | None:
        if self.dice[0] == self.dice[1]:
            return None
        return 0 if self.dice[0] > self.dice[1] else 1


@dataclass(frozen=True)
class RollThrown(Event):
    """`player` threw the dice: `dice` as read (None if unreadable); a void roll (die off the
    board, cocked, ...) has `valid` False and the `reason`, and must be thrown again."""

    kind: ClassVar[str] = "roll"
    player: int
    dice: tuple[int, int] | None
    valid: bool = True
    reason: str | None = None


@dataclass(frozen=True)
class RollCorrected(Event):
    """`player`'s throw, journaled as `read`, showed `dice`: the move played showed the dice
    misread. It replaces the roll before the play (the play event names the dice played); after
    an opening throw whose dice the starter plays, `read` are those dice, starter's first."""

    kind: ClassVar[str] = "roll_corrected"
    player: int
    dice: tuple[int, int]
    read: tuple[int, int]


@dataclass(frozen=True)
class PlayMade(Event):
    """`player` finished a play of `dice` (picked the dice up); the referee's verdict. An illegal
    play waits for the opponent's `DisputeDecided`."""

    kind: ClassVar[str] = "play"
    player: int
    dice: tuple[int, int]
    play: Play
    legal: bool = True
    reasons: tuple[str, ...] = ()
    message: str = ""

    @classmethod
    def judged(cls, player: int, roll: Roll, play: Play, verdict: Verdict) -> PlayMade:
        """The event for a play the rules core judged (`referee.rules.judge`)."""
        return cls(
            player,
            (roll.die1, roll.die2),
            play,
            verdict.legal,
            tuple(str(reason) for reason in verdict.reasons),
            verdict.message,
        )


@dataclass(frozen=True)
class Continued(Event):
    """What follows a play when it is not the opponent's throw (RULES.md §4), written right
    after the play: `player` throws (`next` `throw`, having taken moves passed over, or
    `throw_again`, gulbar's second throw) or plays moves owed without a throw (`next` `ladder`
    or `passed`, `dice` one die per move). It repeats what the rules derive from the play, for
    the reader; replaying the match works the continuations out again (and marks the plays of
    owed moves), so a journal cut between a play and its continuation still replays."""

    kind: ClassVar[str] = "continuation"
    player: int
    next: Next
    dice: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        owing = self.next in OWED_KINDS
        if owing != bool(self.dice) or len(set(self.dice)) > 1 or len(self.dice) > 4:
            raise RecordError(
                "a continuation's 'dice' list one to four moves of one number for ladder or "
                f"passed moves, and nothing for {self.next}"
            )


@dataclass(frozen=True)
class DiceSet(Event):
    """`player` set two dice down by hand to show moves it owes without a throw (see
    `Continued`): their play begins, as a throw's does. `dice` as read."""

    kind: ClassVar[str] = "dice_set"
    player: int
    dice: tuple[int, int]


@dataclass(frozen=True)
class DisputeDecided(Event):
    """The opponent (`player`) of an illegal play accepted it as played, or demanded a correct
    play (`accepted` False: the play is taken back and a new `PlayMade` follows)."""

    kind: ClassVar[str] = "dispute"
    player: int
    accepted: bool


@dataclass(frozen=True)
class DoubleOffered(Event):
    """`player` turns the cube to `cube`."""

    kind: ClassVar[str] = "double"
    player: int
    cube: int


@dataclass(frozen=True)
class DoubleTaken(Event):
    kind: ClassVar[str] = "take"
    player: int


@dataclass(frozen=True)
class DoubleDropped(Event):
    kind: ClassVar[str] = "drop"
    player: int


@dataclass(frozen=True)
class Beavered(Event):
    """`player`, just doubled, redoubles to `cube` keeping the cube (money play, beaver rule);
    the doubler answers with take or drop."""

    kind: ClassVar[str] = "beaver"
    player: int
    cube: int


@dataclass(frozen=True)
class GameWon(Event):
    """The game is over: `winner` (None for a draw) scores `points`, by `end`."""

    kind: ClassVar[str] = "game_won"
    winner: int | None
    points: int
    end: End


@dataclass(frozen=True)
class MatchOver(Event):
    kind: ClassVar[str] = "match_over"
    winner: int | None
    score: tuple[int, int]


@dataclass(frozen=True)
class Resumed(Event):
    """A session carried on from this journal; `torn_line` is the unfinished line it found at
    the end (a power cut), if any."""

    kind: ClassVar[str] = "resumed"
    torn_line: int | None = None


class VerdictType(enum.StrEnum):
    """Which verdict the referee gave: the ones that are more than a throw or a play standing."""

    THROW_VOID = "throw_void"
    """Throw again: `reasons` are the faults (`rolling`, `off_board`, `cocked`, `on_checker`,
    `split_halves`, `wrong_half`), or `not_owed_dice` for dice set down that do not show the
    moves owed."""
    THROW_UNSURE = "throw_unsure"
    """The dice could not be read (a face, whose die is whose, too many dice): the players were
    asked to look; nothing was decided."""
    EARLY_THROW = "early_throw"
    """A throw before the mover picked up the dice: it does not count."""
    MOVE_ILLEGAL = "move_illegal"
    """The finished move is no legal play of the roll (red)."""
    MOVE_UNSURE = "move_unsure"
    """The finished move could not be read with confidence (amber): the players were asked."""


@dataclass(frozen=True)
class VerdictGiven(Event):
    """The referee's verdict on a throw or a finished move, as the table was shown it, written
    when it was given. For the reader and for disputes afterwards: replaying ignores it (the
    `roll`, `play` and `dispute` events beside it are what the match is made of).

    `player` threw or moved (None for the opening throw, one die each). `dice` are the dice as
    read for a throw (for an early throw every die seen, the mover's too), the roll for a move.
    `reasons` are codes (the throw's faults, the rules core's reasons for an illegal move).
    `confidence` is the verdict's (an unreadable throw's: its least sure face); `points` the
    points lit on the table (the physical numbering, 0 borne off, 25 the bar). For a move,
    `play` is the play as read when illegal (None when the board cannot stand as any play:
    checkers appeared or went backwards) or the likeliest legal play when unsure, with its
    `probability`; `closest` the legal plays closest to an illegal one.
    """

    kind: ClassVar[str] = "verdict"
    verdict: VerdictType
    player: int | None
    dice: tuple[int, ...] = ()
    reasons: tuple[str, ...] = ()
    message: str = ""
    confidence: float | None = None
    points: tuple[int, ...] = ()
    play: Play | None = None
    probability: float | None = None
    closest: tuple[Play, ...] = ()


class IncidentType(enum.StrEnum):
    """What happened to the referee's sight of the table."""

    SOURCE_LOST = "source_lost"
    """The camera (or other source) stopped giving frames; `message` says why."""
    SOURCE_BACK = "source_back"
    """Frames came again, `seconds` after they stopped."""
    FRAMES_SKIPPED = "frames_skipped"
    """Frames came that could not be used: `frames` skipped since the last such line, `total`
    since the session started (or resumed), `message` the latest reason. Written at a skipped
    frame when no count was written in the last minute (frames skipped meanwhile wait for the
    next count), and before a `source_lost`: a flaky camera costs a line a minute, not one a
    frame."""


@dataclass(frozen=True)
class IncidentNoted(Event):
    """Trouble with what the referee sees, written as it happens. For the reader: replaying
    ignores it."""

    kind: ClassVar[str] = "incident"
    incident: IncidentType
    message: str = ""
    seconds: float | None = None
    frames: int | None = None
    total: int | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        MatchStarted,
        GameStarted,
        OpeningThrow,
        RollThrown,
        RollCorrected,
        PlayMade,
        Continued,
        DiceSet,
        DisputeDecided,
        DoubleOffered,
        DoubleTaken,
        DoubleDropped,
        Beavered,
        GameWon,
        MatchOver,
        Resumed,
        VerdictGiven,
        IncidentNoted,
    )
}

_TOLD_ONLY = (Resumed, VerdictGiven, IncidentNoted)
"""Events that tell what happened around the match and change nothing in it."""


def _encode(value: Any) -> Any:
    if isinstance(value, MatchHeader):
        return value.to_dict()
    if isinstance(value, Play | enum.Enum):
        return str(value)
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    return value


def _decode(hint: Any, value: Any, name: str) -> Any:
    """`value` from JSON as the type `hint`; RecordError naming the field when it is not."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        (inner,) = [option for option in options if option is not type(None)]
        return _decode(inner, value, name)
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise RecordError(f"{name!r} must be a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item, name) for item in value)
        if len(value) != len(args):
            raise RecordError(f"{name!r} must have {len(args)} items")
        return tuple(_decode(arg, item, name) for arg, item in zip(args, value, strict=True))
    try:
        if hint is MatchHeader:
            if not isinstance(value, Mapping):
                raise RecordError(f"{name!r} must be an object")
            return MatchHeader.from_dict(value)
        if hint is Play:
            if not isinstance(value, str):
                raise RecordError(f"{name!r} must be text like '24/18 13/11*'")
            return Play.from_str(value)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return hint(value)
    except (RulesError, ValueError) as error:
        raise RecordError(f"{name!r}: {error}") from None
    if hint is float and type(value) is int:
        return float(value)  # another writer may give a whole number of seconds as 3
    if type(value) is not hint:
        raise RecordError(f"{name!r} must be {hint.__name__}, not {value!r}")
    return value


# --- reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JournalEntry:
    """One event as read back, with where and when it was written."""

    line: int
    seq: int
    at: str
    event: Event


@dataclass(frozen=True)
class JournalState:
    """What a journal says: its events, the match rebuilt from them, and what a resumed session
    must pick up (`pending`: a valid roll not yet played, moves owed without a throw (the
    `continuation` naming them, or the dice set down for them), or an illegal play waiting for
    the opponent's decision; an unanswered double is the last action of the match itself)."""

    path: Path
    entries: tuple[JournalEntry, ...]
    replayed: ReplayedMatch
    pending: JournalEntry | None
    opening: OpeningThrow | None
    finished: bool
    torn_line: int | None
    unterminated: bool
    lines: int

    @property
    def match(self) -> Match:
        return self.replayed.match

    @property
    def position(self) -> Position | None:
        """The position on the board after the last recorded action (None before game 1)."""
        games = self.replayed.games
        return games[-1].final if games else None

    @property
    def next_seq(self) -> int:
        return self.entries[-1].seq + 1 if self.entries else 1


def _read_entries(path: Path) -> tuple[list[JournalEntry], int | None, bool, int]:
    """The entries of the journal at `path`, the torn final line (ignored), whether the last
    line lacked its newline, and how many lines the file has."""
    data = path.read_bytes()
    source = str(path)
    if not data:
        raise JournalError("the journal is empty: no match_started event", source=source)
    lines = data.split(b"\n")
    unterminated = lines[-1] != b""
    if not unterminated:
        lines.pop()
    entries: list[JournalEntry] = []
    torn: int | None = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = _parse_line(raw)
        except RecordError as error:
            last = number == len(lines)
            if last and unterminated:
                torn = number
                break
            following = lines[number] if number < len(lines) else b""
            if _acknowledges(following, number):
                continue  # torn by an earlier power cut, and acknowledged on resuming
            raise JournalError(error.message, source=source, line=number) from None
        entry = _entry(record, number, source, entries[-1].seq + 1 if entries else 1)
        entries.append(entry)
    if not entries:
        raise JournalError("no complete event in the journal", source=source, line=torn)
    return entries, torn, unterminated and torn is None, len(lines)


def _parse_line(raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text: garbage, or a line cut short") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"not a JSON event ({error.msg}): garbage, or a line cut short") from None
    if not isinstance(record, dict):
        raise RecordError("a journal line must be a JSON object")
    return record


def _acknowledges(raw: bytes, torn_line: int) -> bool:
    """Whether `raw` is the `resumed` event written after the torn line `torn_line`."""
    try:
        record = _parse_line(raw)
    except RecordError:
        return False
    return record.get("kind") == Resumed.kind and record.get("torn_line") == torn_line


def _entry(record: dict[str, Any], number: int, source: str, wanted_seq: int) -> JournalEntry:
    version = record.get("v")
    if type(version) is not int:
        raise JournalError("the line has no format version 'v'", source=source, line=number)
    if version != VERSION:
        newer = "a newer" if version > VERSION else "an unknown"
        raise JournalVersionError(
            f"journal format version {version}, written by {newer} referee; this one reads "
            f"version {VERSION}",
            source=source,
            line=number,
        )
    seq, at = record.get("seq"), record.get("at")
    if seq != wanted_seq:
        raise JournalError(
            f"event number {seq!r} where {wanted_seq} was due: lines are missing, repeated or "
            "out of order",
            source=source,
            line=number,
        )
    if not isinstance(at, str):
        raise JournalError("the line has no time 'at'", source=source, line=number)
    try:
        event = Event.from_dict(record)
    except RecordError as error:
        raise JournalError(error.message, source=source, line=number) from None
    return JournalEntry(number, wanted_seq, at, event)


class _GameDraft:
    def __init__(self, number: int, score: tuple[int, int]) -> None:
        self.number = number
        self.score = score
        self.actions: list[Action] = []
        self.lines: list[int] = []
        self.result: Result | None = None

    def add(self, action: Action, line: int) -> None:
        self.actions.append(action)
        self.lines.append(line)

    def build(self) -> Game:
        return Game(self.score, tuple(self.actions), self.result)


class _Rebuilder:
    """Turns journal entries into the match they record."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.header: MatchHeader | None = None
        self.games: list[_GameDraft] = []
        self.pending: JournalEntry | None = None
        self.owed: JournalEntry | None = None  # the continuation naming moves owed, until played
        self.opening: OpeningThrow | None = None
        self.finished = False

    def fail(self, message: str, entry: JournalEntry) -> JournalError:
        return JournalError(message, source=self.source, line=entry.line)

    def game(self, entry: JournalEntry) -> _GameDraft:
        if not self.games or self.games[-1].result is not None:
            raise self.fail(f"a {entry.event.kind} event outside a game", entry)
        return self.games[-1]

    def feed(self, entry: JournalEntry) -> None:
        event = entry.event
        if self.header is None:
            if not isinstance(event, MatchStarted):
                raise self.fail("the journal must begin with a match_started event", entry)
            self.header = event.header
            return
        if isinstance(event, MatchStarted):
            raise self.fail("a second match_started event", entry)
        if isinstance(event, _TOLD_ONLY):
            return
        if self.finished:
            raise self.fail(f"a {event.kind} event after match_over", entry)
        if isinstance(event, GameStarted):
            if self.games and self.games[-1].result is None:
                raise self.fail("a new game before the last one was won", entry)
            if event.number != len(self.games) + 1:
                raise self.fail(f"game {event.number} where {len(self.games) + 1} was due", entry)
            self.games.append(_GameDraft(event.number, event.score))
            self.opening, self.pending, self.owed = None, None, None
        elif isinstance(event, MatchOver):
            self.finished = True
        elif isinstance(event, OpeningThrow):
            self.game(entry)
            self.opening = event
        elif isinstance(event, RollThrown):
            self.game(entry)
            if event.valid:
                if self.owed is not None:
                    raise self.fail("a throw while moves are owed without one", entry)
                self.pending = entry
        elif isinstance(event, RollCorrected):
            game = self.game(entry)
            pending = self.pending
            thrown = pending is not None and isinstance(pending.event, RollThrown | RollCorrected)
            if not (thrown or (pending is None and self.opening_roll_waits(game))):
                raise self.fail("a roll corrected with no throw waiting for its play", entry)
            self.pending = entry
        elif isinstance(event, PlayMade):
            self.play(event, entry)
        elif isinstance(event, Continued):
            self.game(entry)
            if event.next in OWED_KINDS:
                self.pending = self.owed = entry
        elif isinstance(event, DiceSet):
            self.game(entry)
            self.pending = entry
        elif isinstance(event, DisputeDecided):
            self.dispute(event, entry)
        elif isinstance(event, GameWon):
            game = self.game(entry)
            game.result = Result(event.winner, event.points, event.end)
            self.pending = self.owed = None
        else:
            self.game(entry).add(_cube_action(event), entry.line)

    def opening_roll_waits(self, game: _GameDraft) -> bool:
        """Whether the opening throw's dice wait to be played as the game's first move."""
        assert self.header is not None
        return (
            self.opening is not None
            and self.opening.starter is not None
            and not game.actions
            and self.header.rules_variant().opening_roll_is_first_move
        )

    def play(self, event: PlayMade, entry: JournalEntry) -> None:
        game = self.game(entry)
        if self.pending is not None and isinstance(self.pending.event, PlayMade):
            raise self.fail("a play before the dispute about the last one was decided", entry)
        if event.legal:
            game.add(Move(event.player, event.dice, event.play), entry.line)
            self.pending = self.owed = None
        else:
            self.pending = entry

    def dispute(self, event: DisputeDecided, entry: JournalEntry) -> None:
        game = self.game(entry)
        pending = self.pending
        if pending is None or not isinstance(pending.event, PlayMade):
            raise self.fail("a dispute decision without an illegal play to decide", entry)
        play = pending.event
        if event.player == play.player:
            raise self.fail("the player who made the play cannot decide its dispute", entry)
        if event.accepted:
            game.add(Move(play.player, play.dice, play.play), pending.line)
            self.pending = self.owed = None
        elif self.owed is not None:
            self.pending = self.owed  # taken back: the owed moves are to be played again
        else:
            # Taken back: the same roll is played again, so the roll is pending once more.
            self.pending = JournalEntry(
                pending.line,
                pending.seq,
                pending.at,
                RollThrown(play.player, play.dice),
            )

    def match(self) -> Match:
        assert self.header is not None
        return Match(self.header, tuple(game.build() for game in self.games))


def _cube_action(event: Event) -> Action:
    if isinstance(event, DoubleOffered):
        return Double(event.player, event.cube)
    if isinstance(event, DoubleTaken):
        return Take(event.player)
    if isinstance(event, DoubleDropped):
        return Drop(event.player)
    assert isinstance(event, Beavered)
    return Beaver(event.player, event.cube)


def _replay(path: Path) -> JournalState:
    source = str(path)
    entries, torn, unterminated, lines = _read_entries(path)
    rebuilder = _Rebuilder(source)
    for entry in entries:
        rebuilder.feed(entry)
    match = rebuilder.match()
    try:
        replayed = replay_match(match, strict=False, source=source)
    except RecordReplayError as error:
        # Point at the journal line of the action the rules refused.
        line = None
        if 1 <= error.game <= len(rebuilder.games):
            draft = rebuilder.games[error.game - 1]
            numbers = move_numbers(draft.actions)
            line = next(
                (
                    draft.lines[i]
                    for i, (move, _) in enumerate(numbers)
                    if move == error.move and action_text(draft.actions[i]) == error.text
                ),
                None,
            )
        raise JournalError(error.message, source=source, line=line) from None
    return JournalState(
        path,
        tuple(entries),
        replayed,
        rebuilder.pending,
        rebuilder.opening,
        rebuilder.finished,
        torn,
        unterminated,
        lines,
    )


# --- writing ------------------------------------------------------------------------------------


def _now() -> str:
    moment = datetime.datetime.now(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _fsync_folder(path: Path) -> None:
    """Make a new file's name durable: fsync the folder that holds it (POSIX)."""
    try:
        handle = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass  # some file systems cannot fsync a folder; the file itself is synced
    finally:
        os.close(handle)


class Journal:
    """An open journal file that events are appended to, each synced to disk before `append`
    returns. Make one with `Journal.create` (new match) or `Journal.resume` (carry on)."""

    def __init__(self, path: Path, handle: int, next_seq: int, next_line: int) -> None:
        self.path = path
        self._handle: int | None = handle
        self._next_seq = next_seq
        self._next_line = next_line

    @classmethod
    def create(cls, path: str | Path, header: MatchHeader) -> Journal:
        """Start a journal for a new match at `path`, which must not exist yet."""
        path = Path(path)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except FileExistsError:
            raise JournalError(
                "a journal already exists here; not overwriting it (resume it, or choose "
                "another name)",
                source=str(path),
            ) from None
        _fsync_folder(path)
        journal = cls(path, handle, 1, 1)
        journal.append(MatchStarted(header))
        return journal

    @classmethod
    def resume(cls, path: str | Path) -> tuple[Journal, JournalState]:
        """Open an existing journal to carry on: its state, and the journal to append to.

        Refuses (JournalError, file untouched) when the journal is damaged anywhere but in its
        last, torn line; see the module's notes.
        """
        path = Path(path)
        state = _replay(path)
        handle = os.open(path, os.O_WRONLY | os.O_APPEND)
        journal = cls(path, handle, state.next_seq, state.lines + 1)
        if state.torn_line is not None or state.unterminated:
            journal._write(b"\n")
        journal.append(Resumed(state.torn_line))
        return journal, state

    @staticmethod
    def replay(path: str | Path) -> JournalState:
        """Read the journal at `path` back (read only): its events and the match they record."""
        return _replay(Path(path))

    def append(self, event: Event) -> JournalEntry:
        """Write `event` as the next line and fsync it; the entry as written."""
        at = _now()
        record = {"v": VERSION, "seq": self._next_seq, "at": at, **event.to_dict()}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._write(line.encode("utf-8"))
        entry = JournalEntry(self._next_line, self._next_seq, at, event)
        self._next_seq += 1
        self._next_line += 1
        return entry

    def _write(self, data: bytes) -> None:
        if self._handle is None:
            raise JournalError("the journal is closed", source=str(self.path))
        view = memoryview(data)
        while view:
            written = os.write(self._handle, view)
            view = view[written:]
        os.fsync(self._handle)

    def close(self) -> None:
        if self._handle is not None:
            os.close(self._handle)
            self._handle = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
