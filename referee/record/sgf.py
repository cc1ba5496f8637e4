"""SGF for backgammon (GM[6]), as GNU Backgammon writes it: one game tree per game.

Root properties: `MI[length:7][game:0][ws:0][bs:0]` (match length, 0-based game number, White's
and Black's score), `PW`/`PB` the players (White is player 1, the left column of a .mat file),
`DT`, `RU[Crawford]` or `RU[Crawford:CrawfordGame]`, `RE[B+2R]` (Black wins 2 points, R: by
resignation). A move node is `B[41lpab]`: the dice, then a from/to letter pair per step. Letters
`a`..`x` are White's points 1..24 (so Black's 24..1), `y` the bar and `z` off. Cube nodes are
`W[double]`, `B[take]`, `B[drop]` (and `beaver`). Analysis properties are ignored on import.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field

from referee.record.errors import RecordSyntaxError, UnsupportedRecordError
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
from referee.record.replay import ReplayedMatch, crawford_flags, replay_match
from referee.rules import BAR, OFF, Play, ShortNardy, Step

APPLICATION = "nardy referee"
COLOURS = ("W", "B")  # player 0 is White, player 1 Black
# Root properties that GNU Backgammon writes for match information and their .mat header keys.
INFO_KEYS = {"EV": "Event", "RO": "Round", "PC": "Site", "AN": "Transcriber"}
SETUP_PROPERTIES = {"AB", "AW", "AE", "PL"}


# --- points and moves ---------------------------------------------------------------------------


def point_letter(player: int, point: int) -> str:
    """The SGF letter of `player`'s own point (25 bar, 0 off)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def letter_point(player: int, letter: str) -> int:
    """`player`'s own point number for an SGF letter."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index


def move_value(move: Move) -> str:
    letters = "".join(
        point_letter(move.player, step.start) + point_letter(move.player, step.end)
        for step in move.play.steps
    )
    return f"{move.dice[0]}{move.dice[1]}{letters}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# --- writing ------------------------------------------------------------------------------------


def format_sgf(match: Match, *, application: str = APPLICATION) -> str:
    """`match` as an SGF collection, one game tree per game (backgammon only)."""
    header = match.header
    if not isinstance(header.rules_variant(), ShortNardy):
        raise UnsupportedRecordError(
            f"SGF (GM[6]) holds backgammon (short nardy), not {header.variant}"
        )
    crawford = crawford_flags(match)
    trees = []
    for index, game in enumerate(match.games):
        root = [f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]"]
        if header.length:
            root.append(
                f"MI[length:{header.length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]"
            )
        root.append(f"PW[{_escape(header.players[0])}]PB[{_escape(header.players[1])}]")
        if index == 0:
            if header.event_date is not None:
                root.append(f"DT[{header.event_date.isoformat()}]")
            for prop, key in INFO_KEYS.items():
                value = dict(header.extra).get(key)
                if value is not None:
                    root.append(f"{prop}[{_escape(value)}]")
            if header.comments:
                root.append(f"GC[{_escape(chr(10).join(header.comments))}]")
        if header.crawford_rule:
            root.append("RU[Crawford:CrawfordGame]" if crawford[index] else "RU[Crawford]")
        elif header.jacoby:
            root.append("RU[Jacoby]")
        result = game.result
        if result is not None and result.winner is not None:
            resigned = "R" if result.end is End.RESIGN else ""
            root.append(f"RE[{COLOURS[result.winner]}+{result.points}{resigned}]")
        nodes = [f"\n;{COLOURS[action.player]}[{_node_value(action)}]" for action in game.actions]
        trees.append("".join(root) + "".join(nodes) + ")\n")
    return "".join(trees)


def _node_value(action: Action) -> str:
    if isinstance(action, Move):
        return move_value(action)
    return action.kind


# --- reading: the SGF syntax --------------------------------------------------------------------


@dataclass
class _Node:
    line: int
    properties: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Tree:
    nodes: list[_Node] = field(default_factory=list)
    children: list[_Tree] = field(default_factory=list)

    def main_line(self) -> list[_Node]:
        nodes = list(self.nodes)
        if self.children:
            nodes += self.children[0].main_line()
        return nodes


class _Reader:
    """A recursive-descent reader of SGF's collection / game tree / node / property grammar."""

    def __init__(self, text: str, source: str | None) -> None:
        self.text = text
        self.source = source
        self.at = 0

    def error(self, message: str) -> RecordSyntaxError:
        line = self.text.count("\n", 0, self.at) + 1
        return RecordSyntaxError(message, source=self.source, line=line)

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def collection(self) -> list[_Tree]:
        trees = []
        while self.peek() == "(":
            trees.append(self.tree())
        if self.peek():
            raise self.error(f"expected '(' to start a game, found {self.peek()!r}")
        if not trees:
            raise self.error("no game tree: an SGF file starts with '(;'")
        return trees

    def tree(self) -> _Tree:
        self.at += 1  # "("
        tree = _Tree()
        while self.peek() == ";":
            tree.nodes.append(self.node())
        if not tree.nodes:
            raise self.error("a game tree must start with a node ';'")
        while self.peek() == "(":
            tree.children.append(self.tree())
        if self.peek() != ")":
            raise self.error(
                f"expected ')' to end the game tree, found {self.peek() or 'the end'!r}"
            )
        self.at += 1
        return tree

    def node(self) -> _Node:
        self.at += 1  # ";"
        node = _Node(self.text.count("\n", 0, self.at) + 1)
        while self.peek().isalpha():
            start = self.at
            while self.at < len(self.text) and self.text[self.at].isalpha():
                self.at += 1
            name = self.text[start : self.at]
            values = []
            while self.peek() == "[":
                values.append(self.value())
            if not values:
                raise self.error(f"the property {name} has no [value]")
            node.properties.setdefault(name.upper(), []).extend(values)
        return node

    def value(self) -> str:
        self.at += 1  # "["
        chars: list[str] = []
        while True:
            if self.at >= len(self.text):
                raise self.error("a [value] is not closed: the file is cut short")
            char = self.text[self.at]
            self.at += 1
            if char == "]":
                return "".join(chars)
            if char == "\\":
                if self.at >= len(self.text):
                    raise self.error("a [value] is not closed: the file is cut short")
                escaped = self.text[self.at]
                self.at += 1
                if escaped != "\n":  # a backslash before a newline joins lines
                    chars.append(escaped)
            else:
                chars.append(char)


# --- reading: the games -------------------------------------------------------------------------

_MOVE_VALUE = re.compile(r"^([1-6])([1-6])((?:[a-z][a-z]){0,4})$")
_RESULT = re.compile(r"^([WB])\+(\d+)(R?)$", re.IGNORECASE)


class _Interpreter:
    def __init__(self, source: str | None) -> None:
        self.source = source

    def error(self, message: str, node: _Node) -> RecordSyntaxError:
        return RecordSyntaxError(message, source=self.source, line=node.line)

    def match(self, trees: list[_Tree]) -> Match:
        header: MatchHeader | None = None
        games: list[Game] = []
        score = (0, 0)
        for index, tree in enumerate(trees):
            nodes = tree.main_line()
            root = nodes[0]
            this_header, info = self.header(root, index)
            if header is None:
                header = this_header
            elif (this_header.players, this_header.length) != (header.players, header.length):
                raise self.error("this game's players or match length differ from game 1", root)
            game_score = info.get("score") or score
            game = Game(
                score=game_score,
                actions=self.actions(nodes[1:] if _is_root_only(root) else nodes),
                result=self.result(root),
                crawford=self.crawford_game(root, header),
            )
            games.append(game)
            if game.result is not None and game.result.winner is not None:
                totals = list(game.score)
                totals[game.result.winner] += game.result.points
                score = (totals[0], totals[1])
        assert header is not None
        return Match(header, tuple(games))

    def header(self, root: _Node, index: int) -> tuple[MatchHeader, dict[str, tuple[int, int]]]:
        props = root.properties
        if props.get("GM", [""])[0] != "6":
            raise UnsupportedRecordError(
                f"GM[{props.get('GM', ['?'])[0]}] is not backgammon (GM[6])",
                source=self.source,
                line=root.line,
            )
        rules = {rule for value in props.get("RU", []) for rule in value.split(":")}
        unsupported = rules - {"Crawford", "CrawfordGame", "Jacoby", "NoCube", ""}
        if unsupported or "CV" in props:
            what = ", ".join(sorted(unsupported)) if unsupported else "automatic doubles (CV)"
            raise UnsupportedRecordError(
                f"the rule {what} is not supported", source=self.source, line=root.line
            )
        mi: dict[str, int] = {}
        for value in props.get("MI", []):
            key, _, number = value.partition(":")
            if not number.strip().isdigit():
                raise self.error(f"MI[{value}] is not 'key:number'", root)
            mi[key.strip()] = int(number)
        if mi.get("game", index) != index:
            raise self.error(f"expected game {index} in MI, found game {mi['game']}", root)
        info: dict[str, tuple[int, int]] = {}
        if "ws" in mi and "bs" in mi:
            info["score"] = (mi["ws"], mi["bs"])
        length = mi.get("length", 0)
        extra = [(key, props[prop][0]) for prop, key in INFO_KEYS.items() if prop in props]
        event_date = None
        if "DT" in props:
            try:
                event_date = datetime.date.fromisoformat(props["DT"][0][:10])
            except ValueError:
                extra.append(("EventDate", props["DT"][0]))
        header = MatchHeader(
            players=(props.get("PW", ["White"])[0], props.get("PB", ["Black"])[0]),
            length=length,
            event_date=event_date,
            crawford=("Crawford" in rules) if length else None,
            jacoby=True if "Jacoby" in rules else None,
            extra=tuple(extra),
            comments=tuple(props["GC"][0].split("\n")) if "GC" in props else (),
        )
        return header, info

    def crawford_game(self, root: _Node, header: MatchHeader | None) -> bool | None:
        if header is None or not header.length:
            return None
        rules = {rule for value in root.properties.get("RU", []) for rule in value.split(":")}
        return "CrawfordGame" in rules

    def result(self, root: _Node) -> Result | None:
        values = root.properties.get("RE")
        if not values or values[0] in ("", "?", "0", "Void"):
            return None
        result = _RESULT.match(values[0])
        if not result:
            raise self.error(f"RE[{values[0]}] is not like 'W+2' or 'B+1R'", root)
        colour, points, resigned = result.groups()
        winner = COLOURS.index(colour.upper())
        return Result(winner, int(points), End.RESIGN if resigned else None)

    def actions(self, nodes: list[_Node]) -> tuple[Action, ...]:
        actions: list[Action] = []
        cube, offered = 1, 1
        for node in nodes:
            if SETUP_PROPERTIES & node.properties.keys():
                raise UnsupportedRecordError(
                    "the game edits the board (AB/AW/AE/PL), which cannot be replayed",
                    source=self.source,
                    line=node.line,
                )
            colours = [c for c in COLOURS if c in node.properties]
            if not colours:
                continue  # a comment or analysis node
            if len(colours) > 1:
                raise self.error("a node with both W and B", node)
            player = COLOURS.index(colours[0])
            value = node.properties[colours[0]][0].strip().lower()
            # The cube values the nodes imply (replaying checks them against the rules).
            if value == "double":
                offered = cube * 2
                actions.append(Double(player, offered))
            elif value == "beaver":
                offered *= 2
                actions.append(Beaver(player, offered))
            elif value == "take":
                cube = offered
                actions.append(Take(player))
            elif value == "drop":
                actions.append(Drop(player))
            else:
                actions.append(self.move(player, value, node))
        return tuple(actions)

    def move(self, player: int, value: str, node: _Node) -> Move:
        move = _MOVE_VALUE.match(value)
        if not move:
            raise self.error(f"cannot read the move {value!r}", node)
        letters = move.group(3)
        steps = []
        for k in range(0, len(letters), 2):
            start, end = letters[k], letters[k + 1]
            if start == "z" or end == "y":
                raise self.error(f"the step {start}{end} in {value!r} runs backwards", node)
            steps.append(Step(letter_point(player, start), letter_point(player, end)))
        return Move(player, (int(move.group(1)), int(move.group(2))), Play(tuple(steps)))


def _is_root_only(root: _Node) -> bool:
    return not any(colour in root.properties for colour in COLOURS)


def parse_sgf(text: str, *, source: str | None = None) -> Match:
    """The match an SGF collection records, as written: not yet replayed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    trees = _Reader(text, source).collection()
    return _Interpreter(source).match(trees)


def read_sgf(text: str, *, source: str | None = None, strict: bool = True) -> ReplayedMatch:
    """Parse an SGF collection and replay it through the rules (see `replay`)."""
    return replay_match(parse_sgf(text, source=source), strict=strict, source=source)
