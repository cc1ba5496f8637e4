"""The Jellyfish / GNU Backgammon `.mat` match text, and the long-nardy text format built on it.

Layout, as GNU Backgammon exports it (and as `format_mat` writes it, byte for byte):

    ; [EventDate "2025.11.08"]             header lines, then one blank line

     7 point match                          0 for money play

     Game 1
     charlot1 : 0                   charlot2 : 0
      1)                             41: 13/9 24/23
      2) 31: 6/5 8/5                 41: 6/5 9/5
     ...
                                      Wins 2 points

Each row is `%3d) `, the left player's cell padded to 27 characters and a space, then the right
player's cell. A move cell is the dice, `: `, and each step `from/to` in the mover's numbering
(25 bar, 0 off, `*` a hit) followed by a space, except after a fourth step. Cube cells are
` Doubles => 2`, ` Takes`, ` Drops`; the result is `Wins N point(s)` in the winner's column.
The long-nardy format (LONG_FORMAT.md) is this layout with `; [Variation "long"]` and the
variant's options as header lines, and `Draw` for a drawn game.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.record.errors import RecordError, RecordSyntaxError, UnsupportedRecordError
from referee.record.model import (
    FLAG_KEYS,
    KEY_CUBE_LIMIT,
    KEY_DATE,
    KEY_PLAYER_1,
    KEY_PLAYER_2,
    KEY_VARIATION,
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
    option_key,
    option_text,
    parse_option,
    variant_option_keys,
)
from referee.record.replay import ReplayedMatch, action_text, replay_match
from referee.rules import Next, Play, ShortNardy, variant_from_name
from referee.rules.errors import RulesError

LEFT_EMPTY = 15  # a row whose first cell starts this far after `)` has an empty left cell
WINNER_SPLIT = 20  # a "Wins" further right than this column is the right player's


# --- writing ------------------------------------------------------------------------------------


def format_mat(match: Match) -> str:
    """`match` as a .mat file (short nardy / backgammon only)."""
    header = match.header
    if not isinstance(header.rules_variant(), ShortNardy):
        raise UnsupportedRecordError(
            f"a .mat file holds backgammon (short nardy), not {header.variant}; "
            "use the long-nardy text format"
        )
    for number, game in enumerate(match.games, start=1):
        rows = move_numbers(game.actions)[1:]
        pairs = zip(game.actions[:-1], game.actions[1:], rows, strict=True)
        for previous, action, (row, _) in pairs:
            if action.player == previous.player:
                # GNU Backgammon reads the cells of a row as strictly alternating.
                raise UnsupportedRecordError(
                    f"game {number}, move {row}: {header.players[action.player]} acts twice "
                    "in a row, which a .mat file cannot lay out"
                )
    return format_text(match, pad_bytes=True)


def format_text(match: Match, *, pad_bytes: bool = False) -> str:
    """`match` in the .mat layout, whatever its variant (the long-nardy text format).

    With `pad_bytes` the score line pads player 1's part to 31 UTF-8 bytes, as GNU Backgammon
    (C's printf) does; otherwise to 31 characters, which lines up on screen.
    """
    header = match.header
    parts = [_preamble(header)]
    for number, game in enumerate(match.games, start=1):
        parts.append(_game_text(number, game, header.players, pad_bytes))
    return "".join(parts)


def _points(points: int) -> str:
    return f"Wins {points} point{'s' if points > 1 else ''}"


def _header_values(header: MatchHeader) -> dict[str, str]:
    """Every header entry the header has a value for, by key."""
    values: dict[str, str] = {KEY_PLAYER_1: header.players[0], KEY_PLAYER_2: header.players[1]}
    if header.event_date is not None:
        date = header.event_date
        values[KEY_DATE] = f"{date.year:04d}.{date.month:02d}.{date.day:02d}"
    variant = header.rules_variant()
    long = not isinstance(variant, ShortNardy)
    if long or header.variant != "short":
        values[KEY_VARIATION] = header.variant
    # A long-nardy file states every option, so it reads the same if defaults change; a .mat
    # only those the record has (GNU Backgammon knows none of them).
    for option in dataclasses.fields(variant):
        if long or option.name in header.options:
            values[option_key(option.name)] = option_text(getattr(variant, option.name))
    for key, name in FLAG_KEYS.items():
        flag = getattr(header, name)
        if flag is not None:
            values[key] = option_text(flag)
    if header.cube_limit is not None:
        values[KEY_CUBE_LIMIT] = str(header.cube_limit)
    for key, value in header.extra:
        values.setdefault(key, value)
    return values


def _preamble(header: MatchHeader) -> str:
    values = _header_values(header)
    if header.header_keys is None:
        keys = list(values)
    else:
        # As read, then what the header has gained since (never the players: GNU Backgammon's
        # own files name them in the score lines only).
        keys = [key for key in header.header_keys if key in values]
        keys += [
            key
            for key in values
            if key not in header.header_keys and key not in (KEY_PLAYER_1, KEY_PLAYER_2)
        ]
    text = "".join(f'; [{key} "{values[key]}"]\n' for key in keys)
    if header.comments:
        text += "\n" + "".join(f"; {line}\n" for line in header.comments)
    return f"{text}\n {header.length} point match\n\n"


def _game_text(number: int, game: Game, players: tuple[str, str], pad_bytes: bool) -> str:
    out = [f" Game {number}\n"]
    left = f"{players[0]} : {game.score[0]}"
    width = len(left.encode("utf-8")) if pad_bytes else len(left)
    out.append(f" {left}{' ' * max(0, 31 - width)}{players[1]} : {game.score[1]}\n")
    numbers = move_numbers(game.actions)
    last_double = 1
    dropped = False
    for index, (action, (row, column)) in enumerate(zip(game.actions, numbers, strict=True)):
        text = action_text(action)
        if isinstance(action, Double | Beaver):
            last_double = action.cube
        if isinstance(action, Drop):
            points = game.result.points if game.result is not None else last_double // 2
            text += ("\n      " if column == 1 else " " * 23) + _points(points)
            dropped = True
        opens_row = index == 0 or numbers[index - 1][0] != row
        if opens_row and index > 0 and numbers[index - 1][1] == 0:
            out.append("\n")  # the row before has no right cell: its player acted again
        if opens_row and column == 1:
            out.append(f"{row:3d})" + " " * 29)  # an empty left cell
        out.append(text + "\n" if column == 1 else f"{row:3d}) {text:<27} ")
        if dropped:
            out.append("\n" if column == 1 else "\n\n")
    row_open = bool(numbers) and numbers[-1][1] == 0 and not dropped
    result = game.result
    if result is not None and not dropped:
        if result.winner is None:
            out.append(("\n" if row_open else "") + "      Draw\n\n")
        elif result.winner == 0:
            out.append(("\n" if row_open else "") + f"      {_points(result.points)}\n\n")
        else:
            out.append((" " if row_open else " " * 34) + f"{_points(result.points)}\n\n")
    elif result is None and row_open:
        out.append("\n")  # an unfinished game: end the half-written row
    return "".join(out)


# --- reading ------------------------------------------------------------------------------------

_MATCH_LINE = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_HEADER_LINE = re.compile(r'^;\s*\[\s*([^"\]]*?)\s+"(.*)"\s*\]\s*$')
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_ROW_LINE = re.compile(r"^\s*(\d+)\)(.*)$")
_TOKEN = re.compile(
    r"""(?P<owed>ladder|passed)\s+(?P<odice>[1-6][1-6]):
    |(?P<dice>[1-6][1-6]):
    |(?P<double>Doubles?)\s*=>\s*(?P<cube>\d+)
    |(?P<beaver>Beavers?)\s*=>\s*(?P<bcube>\d+)
    |(?P<take>Takes?|Accepts?)\b
    |(?P<drop>Drops?|Passes|Pass|Rejects?)\b
    |(?P<wins>Wins)\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?
    |(?P<draw>Draws?)\b
    |(?P<step>[^\s/]+(?:/[^\s/]+)+)
    |(?P<other>\S+)""",
    re.VERBOSE | re.IGNORECASE,
)
_KINDS = ("owed", "dice", "double", "beaver", "take", "drop", "wins", "draw", "step", "other")


@dataclass
class _Cell:
    kind: str
    column: int  # character position in the line
    values: list[str] = field(default_factory=list)
    owed: Next | None = None  # for a move of owed moves: ladder or passed


@dataclass
class _GameDraft:
    number: int
    line: int
    score: tuple[int, int] | None = None
    actions: list[Action] = field(default_factory=list)
    result: Result | None = None
    slot: int = 0  # the next cell's place: row (slot // 2) + 1, column slot % 2

    def build(self) -> Game:
        assert self.score is not None
        return Game(self.score, tuple(self.actions), self.result)


class _Parser:
    def __init__(self, text: str, source: str | None) -> None:
        self.source = source
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.number = 0
        self.comments: list[str] = []

    def error(self, message: str, line: int | None = None) -> RecordSyntaxError:
        return RecordSyntaxError(message, source=self.source, line=line or self.number)

    def numbered(self) -> Iterator[tuple[int, str]]:
        for number, line in enumerate(self.lines, start=1):
            self.number = number
            yield number, line.rstrip("\r")

    def parse(self) -> Match:
        lines = self.numbered()
        header, length = self.preamble(lines)
        players: tuple[str, str] | None = None
        if KEY_PLAYER_1 in header and KEY_PLAYER_2 in header:
            players = (header[KEY_PLAYER_1][0], header[KEY_PLAYER_2][0])
        games: list[Game] = []
        draft: _GameDraft | None = None
        for number, line in lines:
            if not line.strip():
                continue
            game_line = _GAME_LINE.match(line)
            if game_line:
                if draft is not None:
                    games.append(draft.build())
                wanted = len(games) + 1
                if int(game_line.group(1)) != wanted:
                    raise self.error(f"expected game {wanted}, found {line.strip()!r}")
                draft = _GameDraft(wanted, number)
                continue
            if draft is None:
                raise self.error(f"expected ' Game 1', found {line.strip()!r}")
            if draft.score is None:
                players = self.score_line(line, draft, players)
                continue
            self.body_line(line, draft)
        if draft is not None:
            if draft.score is None:
                raise self.error(f"game {draft.number} has no score line", draft.line)
            games.append(draft.build())
        return Match(self.header(header, length, players), tuple(games))

    # --- preamble ---------------------------------------------------------------------------

    def preamble(self, lines: Iterator[tuple[int, str]]) -> tuple[dict[str, tuple[str, int]], int]:
        entries: dict[str, tuple[str, int]] = {}
        for number, line in lines:
            match_line = _MATCH_LINE.match(line)
            if match_line:
                return entries, int(match_line.group(1))
            if not line.strip():
                continue
            entry = _HEADER_LINE.match(line)
            if entry:
                key, value = entry.groups()
                if key in entries:
                    raise self.error(f"the header key {key!r} is given twice")
                entries[key] = (value, number)
            elif line.startswith(";"):
                self.comments.append(line[2:] if line.startswith("; ") else line[1:])
            else:
                raise self.error(
                    "expected a header line '; [Key \"value\"]', a comment or ' N point "
                    f"match', found {line.strip()[:60]!r}"
                )
        raise self.error("no ' N point match' line", len(self.lines) or 1)

    def header(
        self, entries: dict[str, tuple[str, int]], length: int, players: tuple[str, str] | None
    ) -> MatchHeader:
        values: dict[str, Any] = {}
        extra: list[tuple[str, str]] = []
        variant = "short"
        if KEY_VARIATION in entries:
            variant, line = entries[KEY_VARIATION]
            try:
                variant_from_name(variant)
            except RulesError:
                raise UnsupportedRecordError(
                    f"the variation {variant!r} is not one the referee knows",
                    source=self.source,
                    line=line,
                ) from None
        option_keys = variant_option_keys(variant)
        options: dict[str, Any] = {}
        for key, (value, line) in entries.items():
            try:
                if key in (KEY_PLAYER_1, KEY_PLAYER_2, KEY_VARIATION):
                    continue
                if key == KEY_DATE:
                    date = _date(value)
                    if date is None:
                        extra.append((key, value))  # kept as written
                    values["event_date"] = date
                elif key in FLAG_KEYS:
                    values[FLAG_KEYS[key]] = parse_option(bool, value)
                elif key == KEY_CUBE_LIMIT:
                    values["cube_limit"] = parse_option(int, value)
                elif key in option_keys:
                    name, kind = option_keys[key]
                    options[name] = parse_option(kind, value)
                else:
                    extra.append((key, value))
            except RecordError as error:
                raise self.error(f"header {key!r}: {error.message}", line) from None
        header = MatchHeader(
            players=players or ("Player 1", "Player 2"),
            length=length,
            variant=variant,
            options=options,
            extra=tuple(extra),
            comments=tuple(self.comments),
            header_keys=tuple(entries),
            **values,
        )
        try:
            header.rules_variant()
        except RecordError as error:
            raise self.error(error.message, entries[KEY_VARIATION][1]) from None
        return header

    # --- games ------------------------------------------------------------------------------

    def score_line(
        self, line: str, draft: _GameDraft, players: tuple[str, str] | None
    ) -> tuple[str, str]:
        score = _SCORE_LINE.match(line)
        if not score:
            raise self.error(f"expected the score line 'name : 0   name : 0', found {line!r}")
        names = (score.group(1), score.group(3))
        if players is not None and names != players:
            raise self.error(
                f"the score line names {names[0]} and {names[1]}, but the match is between "
                f"{players[0]} and {players[1]}"
            )
        draft.score = (int(score.group(2)), int(score.group(4)))
        return names

    def body_line(self, line: str, draft: _GameDraft) -> None:
        row_line = _ROW_LINE.match(line)
        if row_line:
            row, rest, offset = int(row_line.group(1)), row_line.group(2), row_line.start(2)
        else:
            row, rest, offset = 0, line, 0
        cells = self.cells(rest, offset)
        moves = [cell for cell in cells if cell.kind not in ("wins", "draw")]
        if row_line is None and moves:
            raise self.error(f"expected a numbered row or a result, found {line.strip()!r}")
        if row_line is not None:
            if not moves:
                raise self.error(f"move {row} is empty")
            if draft.result is not None:
                raise self.error(f"move {row} comes after the game's result")
            self.place(row, moves, offset, draft)
        for cell in cells:
            if cell.kind in ("wins", "draw"):
                if draft.result is not None:
                    raise self.error(f"game {draft.number} has a second result")
                if cell.kind == "draw":
                    draft.result = Result(None, 0, End.DRAW)
                else:
                    winner = 0 if cell.column <= WINNER_SPLIT else 1
                    draft.result = Result(winner, int(cell.values[0]))

    def cells(self, rest: str, offset: int) -> list[_Cell]:
        cells: list[_Cell] = []
        for token in _TOKEN.finditer(rest):
            kind = next(name for name in _KINDS if token.group(name) is not None)
            column = offset + token.start()
            if kind == "step":
                if not cells or cells[-1].kind != "dice":
                    raise self.error(f"the move {token.group()!r} has no dice before it")
                cells[-1].values.append(token.group())
            elif kind == "dice":
                cells.append(_Cell("dice", column, [token.group()[:2]]))
            elif kind == "owed":
                owed = Next(token.group("owed").lower())
                cells.append(_Cell("dice", column, [token.group("odice")], owed))
            elif kind in ("double", "beaver"):
                cube = token.group("cube") or token.group("bcube")
                cells.append(_Cell(kind, column, [cube]))
            elif kind in ("take", "drop", "draw"):
                cells.append(_Cell(kind, column))
            elif kind == "wins":
                cells.append(_Cell("wins", column, [token.group("points")]))
            else:
                raise self.error(f"cannot read {token.group()!r}")
        return cells

    def place(self, row: int, moves: list[_Cell], offset: int, draft: _GameDraft) -> None:
        """Lay the cells of row `row` into the game: the left player's, then the right's.

        A row follows the last cell placed: on that cell's row, or on the next row. A cell is
        left empty where the other player acted twice (RULES.md §4: a ladder, a second throw,
        passed moves); replaying checks whose turn it was.
        """
        first = 1 if moves[0].column - offset >= LEFT_EMPTY else 0
        slot = 2 * (row - 1) + first
        expected_row, expected_column = draft.slot // 2 + 1, draft.slot % 2
        follows = (row == expected_row and slot >= draft.slot) or (
            expected_column == 1 and row == expected_row + 1
        )
        if not follows:
            side = f"right cell, or move {expected_row + 1}" if expected_column else "left cell"
            found = f"move {row}, {'right' if first else 'left'} cell"
            raise self.error(f"expected move {expected_row}, {side}; found {found}")
        if first + len(moves) > 2:
            raise self.error(f"move {row} has more than two cells")
        for cell in moves:
            player = slot % 2
            draft.actions.append(self.action(cell, player))
            slot += 1
        draft.slot = slot

    def action(self, cell: _Cell, player: int) -> Action:
        if cell.kind == "dice":
            dice = cell.values[0]
            try:
                play = Play.from_str(" ".join(cell.values[1:]))
            except RulesError as error:
                raise self.error(str(error)) from None
            try:
                return Move(player, (int(dice[0]), int(dice[1])), play, cell.owed)
            except RecordError as error:
                raise self.error(error.message) from None
        if cell.kind == "double":
            return Double(player, int(cell.values[0]))
        if cell.kind == "beaver":
            return Beaver(player, int(cell.values[0]))
        if cell.kind == "take":
            return Take(player)
        return Drop(player)


def _date(text: str) -> datetime.date | None:
    parts = re.fullmatch(r"(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})", text.strip())
    if not parts:
        return None
    try:
        return datetime.date(*(int(p) for p in parts.groups()))
    except ValueError:
        return None


def parse_mat(text: str, *, source: str | None = None) -> Match:
    """The match a .mat (or long-nardy) text records, as written: not yet replayed."""
    return _Parser(text, source).parse()


def read_mat(text: str, *, source: str | None = None, strict: bool = True) -> ReplayedMatch:
    """Parse a .mat (or long-nardy) text and replay it through the rules (see `replay`)."""
    return replay_match(parse_mat(text, source=source), strict=strict, source=source)
