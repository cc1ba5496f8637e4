"""The match record: players, match settings and, per game, every roll, play and cube action, as
GNU Backgammon and Jellyfish record them.

Players are numbered 0 and 1: player 0 is "Player 1", the left column of a .mat file and White
in SGF; player 1 is "Player 2", the right column and Black. Every point number is in the mover's
own numbering (see `referee.rules.model`): 24..1, 25 the bar, 0 borne off.

These are plain values; `referee.record.replay` checks them against the rules.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.record.errors import RecordError
from referee.rules import Next, Play, Roll, Variant, variant_from_name
from referee.rules.errors import RulesError

PLAYERS = (0, 1)


def other(player: int) -> int:
    """The opponent of `player`."""
    return 1 - player


OWED_KINDS = (Next.LADDER, Next.PASSED)


@dataclass(frozen=True)
class Move:
    """A roll and the play made with it; an empty play when nothing could move.

    `owed` marks a play of moves owed without a throw (RULES.md §4): `ladder`, the next double
    of a doubles ladder, or `passed`, moves the other player could not play. `dice` then shows
    their number twice; how many moves were owed follows from the play before (replaying works
    it out with the variant's `after_play`).
    """

    player: int
    dice: tuple[int, int]
    play: Play = field(default_factory=Play)
    owed: Next | None = None

    kind: typing.ClassVar[str] = "move"

    def __post_init__(self) -> None:
        if self.owed is not None and self.owed not in OWED_KINDS:
            raise RecordError(f"owed moves are ladder or passed, not {self.owed}")
        if self.owed is not None and self.dice[0] != self.dice[1]:
            raise RecordError(f"owed moves are of one number, not {self.dice[0]}{self.dice[1]}")

    @property
    def roll(self) -> Roll:
        """The dice as a thrown roll (for owed moves, their number twice)."""
        return Roll(*self.dice)


@dataclass(frozen=True)
class Double:
    """`player` turns the cube to `cube` (offers it), before rolling."""

    player: int
    cube: int

    kind: typing.ClassVar[str] = "double"


@dataclass(frozen=True)
class Take:
    """`player` accepts the double and owns the cube."""

    player: int

    kind: typing.ClassVar[str] = "take"


@dataclass(frozen=True)
class Drop:
    """`player` refuses the double and loses the game at the cube value before it."""

    player: int

    kind: typing.ClassVar[str] = "drop"


@dataclass(frozen=True)
class Beaver:
    """`player`, just doubled, at once redoubles to `cube` and keeps the cube (money play with
    the beaver rule); the doubler then takes or drops."""

    player: int
    cube: int

    kind: typing.ClassVar[str] = "beaver"


Action = Move | Double | Take | Drop | Beaver
ACTION_TYPES: dict[str, type[Move | Double | Take | Drop | Beaver]] = {
    cls.kind: cls for cls in (Move, Double, Take, Drop, Beaver)
}


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form: `{"kind": "move", "player": 0, "dice": [4, 1], "play": "13/9 24/23"}`,
    with `"owed": "ladder"` or `"passed"` for owed moves."""
    data: dict[str, Any] = {"kind": action.kind, "player": action.player}
    if isinstance(action, Move):
        data["dice"] = list(action.dice)
        data["play"] = str(action.play)
        if action.owed is not None:
            data["owed"] = str(action.owed)
    elif isinstance(action, Double | Beaver):
        data["cube"] = action.cube
    return data


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Read the form `action_to_dict` writes; RecordError when it is not one."""
    kind = data.get("kind")
    player = data.get("player")
    if player not in PLAYERS or type(player) is not int:
        raise RecordError(f"an action's player is 0 or 1, not {player!r}")
    if kind == "move":
        dice = data.get("dice")
        play = data.get("play", "")
        if not isinstance(dice, list) or not isinstance(play, str):
            raise RecordError("a move needs 'dice' (two numbers) and 'play' (text)")
        owed = data.get("owed")
        if owed not in (None, *OWED_KINDS):
            raise RecordError(f"'owed' is ladder or passed, not {owed!r}")
        try:
            roll = Roll.from_list(dice)
            moves = Play.from_str(play)
        except RulesError as error:
            raise RecordError(f"bad move: {error}") from None
        return Move(player, (roll.die1, roll.die2), moves, None if owed is None else Next(owed))
    if kind in ("double", "beaver"):
        cube = data.get("cube")
        if type(cube) is not int or cube < 2:
            raise RecordError(f"a {kind} needs the new cube value, not {cube!r}")
        return Double(player, cube) if kind == "double" else Beaver(player, cube)
    if kind == "take":
        return Take(player)
    if kind == "drop":
        return Drop(player)
    raise RecordError(f"unknown action kind {kind!r}")


class End(enum.StrEnum):
    """How a game ended."""

    BEAR_OFF = "bear_off"
    DROP = "drop"
    RESIGN = "resign"
    DRAW = "draw"


@dataclass(frozen=True)
class Result:
    """The end of a game: `winner` scores `points` (None and 0 for a long-nardy draw).

    `end` is None when the record does not say how the game ended (a .mat "Wins" line);
    replaying fills it in.
    """

    winner: int | None
    points: int
    end: End | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "points": self.points,
            "end": None if self.end is None else str(self.end),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        winner, points, end = data.get("winner"), data.get("points"), data.get("end")
        if winner not in (None, *PLAYERS) or type(points) is not int or points < 0:
            raise RecordError(f"bad game result {dict(data)!r}")
        try:
            return cls(winner, points, None if end is None else End(end))
        except ValueError:
            raise RecordError(f"unknown game end {end!r}") from None


@dataclass(frozen=True)
class Game:
    """One game: the score before it, its actions in order, and its result (None while it is
    being played). `crawford` is whether it is the Crawford game when the record says so
    (SGF does, .mat does not: None)."""

    score: tuple[int, int] = (0, 0)
    actions: tuple[Action, ...] = ()
    result: Result | None = None
    crawford: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": list(self.score),
            "actions": [action_to_dict(action) for action in self.actions],
            "result": None if self.result is None else self.result.to_dict(),
            "crawford": self.crawford,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        score = data.get("score", [0, 0])
        if not (isinstance(score, list) and len(score) == 2 and all(type(s) is int for s in score)):
            raise RecordError(f"a game's score is two whole numbers, not {score!r}")
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, Mapping) for a in actions):
            raise RecordError("a game's 'actions' must be a list of objects")
        result = data.get("result")
        crawford = data.get("crawford")
        if crawford not in (None, True, False):
            raise RecordError(f"'crawford' is true, false or null, not {crawford!r}")
        return cls(
            (score[0], score[1]),
            tuple(action_from_dict(a) for a in actions),
            None if result is None else Result.from_dict(_mapping(result, "result")),
            crawford,
        )


# The header keys `MatchHeader` reads into typed fields; others stay in `extra`.
KEY_PLAYER_1 = "Player 1"
KEY_PLAYER_2 = "Player 2"
KEY_DATE = "EventDate"
KEY_VARIATION = "Variation"
KEY_CRAWFORD = "Crawford"
KEY_JACOBY = "Jacoby"
KEY_BEAVER = "Beaver"
KEY_CUBE_LIMIT = "CubeLimit"
KEY_HOME_MARS = "HomeMars"
FLAG_KEYS = {
    KEY_CRAWFORD: "crawford",
    KEY_JACOBY: "jacoby",
    KEY_BEAVER: "beaver",
    KEY_HOME_MARS: "home_mars",
}


@dataclass(frozen=True)
class MatchHeader:
    """Who plays what: everything about a match except its games.

    `length` 0 is money play. `variant` is a rules variant name or alias ("short", "long",
    "Backgammon", ...) and `options` its options (`referee.rules.variants`). The flags are None
    when the record does not state them; `home_mars` is the short-nardy stake rule scoring 4
    for a gammon with a loser's checker on the bar (RULES.md §5). `extra` keeps header entries
    this package does not interpret, in file order; `header_keys` is the order of the keys in
    the .mat/long text the header was read from (None otherwise), so that writing it back gives
    the same bytes.
    """

    players: tuple[str, str] = ("Player 1", "Player 2")
    length: int = 0
    variant: str = "short"
    options: Mapping[str, Any] = field(default_factory=dict)
    event_date: datetime.date | None = None
    crawford: bool | None = None
    jacoby: bool | None = None
    beaver: bool | None = None
    home_mars: bool | None = None
    cube_limit: int | None = None
    extra: tuple[tuple[str, str], ...] = ()
    comments: tuple[str, ...] = ()
    header_keys: tuple[str, ...] | None = None

    def rules_variant(self) -> Variant:
        """The rules variant with its options; RecordError when unknown."""
        try:
            return variant_from_name(self.variant, **dict(self.options))
        except RulesError as error:
            raise RecordError(str(error)) from None

    @property
    def crawford_rule(self) -> bool:
        """Whether the Crawford rule applies: stated, or by default in match play (as GNU
        Backgammon and Jellyfish default)."""
        return self.length > 0 and self.crawford is not False

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "length": self.length,
            "variant": self.variant,
            "options": dict(self.options),
            "event_date": None if self.event_date is None else self.event_date.isoformat(),
            "crawford": self.crawford,
            "jacoby": self.jacoby,
            "beaver": self.beaver,
            "home_mars": self.home_mars,
            "cube_limit": self.cube_limit,
            "extra": [list(pair) for pair in self.extra],
            "comments": list(self.comments),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchHeader:
        players = data.get("players", ["Player 1", "Player 2"])
        if not (isinstance(players, list) and len(players) == 2):
            raise RecordError("'players' must be a list of two names")
        length = data.get("length", 0)
        if type(length) is not int or length < 0:
            raise RecordError(f"'length' must be a whole number >= 0, not {length!r}")
        date_text = data.get("event_date")
        try:
            event_date = None if date_text is None else datetime.date.fromisoformat(date_text)
        except (TypeError, ValueError):
            raise RecordError(f"'event_date' must be YYYY-MM-DD, not {date_text!r}") from None
        flags = {}
        for name in FLAG_KEYS.values():
            value = data.get(name)
            if value not in (None, True, False):
                raise RecordError(f"{name!r} is true, false or null, not {value!r}")
            flags[name] = value
        cube_limit = data.get("cube_limit")
        if cube_limit is not None and type(cube_limit) is not int:
            raise RecordError(f"'cube_limit' must be a whole number, not {cube_limit!r}")
        extra = data.get("extra", [])
        if not isinstance(extra, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
            for p in extra
        ):
            raise RecordError("'extra' must be a list of [key, value] text pairs")
        comments = data.get("comments", [])
        if not isinstance(comments, list) or not all(isinstance(c, str) for c in comments):
            raise RecordError("'comments' must be a list of text lines")
        header = cls(
            players=(str(players[0]), str(players[1])),
            length=length,
            variant=str(data.get("variant", "short")),
            options=dict(_mapping(data.get("options", {}), "options")),
            event_date=event_date,
            crawford=flags["crawford"],
            jacoby=flags["jacoby"],
            beaver=flags["beaver"],
            home_mars=flags["home_mars"],
            cube_limit=cube_limit,
            extra=tuple((k, v) for k, v in extra),
            comments=tuple(comments),
        )
        header.rules_variant()  # refuse an unknown variant or option now, not at replay
        return header


@dataclass(frozen=True)
class Match:
    """A match (or money session): its header and its games in order."""

    header: MatchHeader = MatchHeader()
    games: tuple[Game, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "header": self.header.to_dict(),
            "games": [game.to_dict() for game in self.games],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        games = data.get("games", [])
        if not isinstance(games, list):
            raise RecordError("'games' must be a list")
        return cls(
            MatchHeader.from_dict(_mapping(data.get("header", {}), "header")),
            tuple(Game.from_dict(_mapping(game, "game")) for game in games),
        )


def _mapping(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RecordError(f"{name!r} must be an object")
    return value


def move_numbers(actions: tuple[Action, ...] | list[Action]) -> list[tuple[int, int]]:
    """(move number, column) of each action as a .mat file lays them out.

    Each action stands in its player's column, the left column for player 0. Rows fill in
    order: an action goes on the current row when its column is right of the row's last
    action, else on the next row. Actions that alternate fill every cell, except row 1's left
    one when player 1 acts first; a player acting twice in a row (a doubles ladder, a second
    throw, moves passed over: RULES.md §4) leaves the other column's cell empty.
    """
    numbers = []
    row, column = 0, 1
    for action in actions:
        if action.player <= column:
            row += 1
        column = action.player
        numbers.append((row, column))
    return numbers


# --- variant options as header text ------------------------------------------------------------


def option_key(name: str) -> str:
    """The header key of a variant option: `six_block` -> `SixBlock`."""
    return "".join(part.capitalize() for part in name.split("_"))


def option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "On" if value else "Off"
    return str(value)


def variant_option_keys(variant_name: str) -> dict[str, tuple[str, Any]]:
    """Header key -> (option name, option type) for every option of the variant."""
    cls = type(variant_from_name(variant_name))
    hints = typing.get_type_hints(cls)
    return {option_key(f.name): (f.name, hints[f.name]) for f in dataclasses.fields(cls)}


def parse_option(kind: Any, text: str) -> Any:
    """A header text as a value of the option type `kind`; RecordError when it is not one."""
    if kind is bool:
        lowered = text.strip().lower()
        if lowered in ("on", "yes", "true"):
            return True
        if lowered in ("off", "no", "false"):
            return False
        raise RecordError(f"expected On or Off, not {text!r}")
    if typing.get_origin(kind) is Literal:
        # Choices may be numbers (`ladder_moves_per_step`): compared as written.
        for choice in typing.get_args(kind):
            if str(choice) == text:
                return choice
        choices = ", ".join(map(str, typing.get_args(kind)))
        raise RecordError(f"expected one of {choices}, not {text!r}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise RecordError(f"expected a whole number, not {text!r}") from None
    return text
