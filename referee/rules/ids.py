"""Short-nardy identifiers players already use: GNU Backgammon's Position ID and Match ID, and
eXtreme Gammon's XGID, read and written.

Which side is which. GNU Backgammon numbers its players 0 and 1 and XG draws one at the top and
one at the bottom; the rules core names sides by colour. The mapping, fixed here and nowhere else:

- `Side.WHITE` is gnubg's player 0, drawn `O`, XG's top player (lower-case letters);
- `Side.BLACK` is gnubg's player 1, drawn `X`, XG's bottom player (upper-case letters).

This is the SGF backgammon convention (White = O = 0, Black = X = 1) and the way gnubg's own XGID
reader (`SetXGID`) maps XG's bottom player to its player 1.

A Position ID says nothing about colours: it lists the player not on roll, then the player on
roll, each from its own side (gnubg's board `[opponent, mover]`), so reading one needs the side
on roll. A Match ID names that side (`dice_owner`), and `from_gnubg_id` reads the two together.
"""

from __future__ import annotations

import base64
import binascii
import enum
import re
from dataclasses import dataclass

from referee.rules.errors import InvalidIdError, InvalidPositionError, InvalidRollError
from referee.rules.model import BAR, CHECKERS_PER_SIDE, Position, Roll, Side
from referee.rules.variants import ShortNardy, Variant, encode_side

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
MAX_CUBE_LOG2 = 15  # four bits in the Match ID
MAX_SCORE = (1 << 15) - 1  # fifteen bits in the Match ID
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class GameState(enum.IntEnum):
    """gnubg's game state (Match ID bits 9-11)."""

    NO_GAME = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(enum.IntEnum):
    """A resignation on offer (Match ID bits 14-15): what the resigning side offers to lose."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


# --- base64 ---------------------------------------------------------------------------------------


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _decode(text: str, length: int, what: str) -> bytes:
    """The bytes of a `length`-character unpadded base64 identifier, or InvalidIdError."""
    if not isinstance(text, str):
        raise InvalidIdError(f"a {what} is text, not {type(text).__name__}")
    if len(text) != length:
        raise InvalidIdError(f"a {what} has {length} characters, not {len(text)}: {text!r}")
    stray = sorted(set(text) - _BASE64)
    if stray:
        raise InvalidIdError(f"{what} {text!r} has characters outside base64: {''.join(stray)}")
    try:
        data = base64.b64decode(text + "=" * (-length % 4), validate=True)
    except binascii.Error as error:  # pragma: no cover - the alphabet check above catches it
        raise InvalidIdError(f"{what} {text!r} is not base64: {error}") from None
    # Only the canonical spelling is accepted: the spare bits of the last character are zero.
    if _encode(data) != text:
        raise InvalidIdError(f"{what} {text!r} has stray bits after its last byte")
    return data


# --- Position ID ----------------------------------------------------------------------------------


def _require_short(position: Position) -> None:
    if not isinstance(position.variant, ShortNardy):
        raise InvalidIdError(
            f"GNU Backgammon and XG identifiers describe short nardy (backgammon) positions, "
            f"not {position.variant.title}"
        )


def _both_stuck(position: Position) -> bool:
    """Both sides on the bar against closed home boards: a board no game reaches (a side can
    only hit while none of its own checkers waits on the bar), which gnubg refuses."""
    return all(
        position.bar[side] and all(n >= 2 for n in position.points[side.other][:6]) for side in Side
    )


def _check_board(position: Position) -> None:
    position.validate()
    if _both_stuck(position):
        raise InvalidPositionError(
            "impossible position: both sides are on the bar against closed home boards"
        )


def position_to_gnubg_id(position: Position) -> str:
    """GNU Backgammon's 14-character Position ID of a short-nardy position.

    The key lists the side not on roll, then the side on roll (`position.turn`), each as its
    points 1..24 and bar in its own numbering: a 1 bit per checker, a 0 bit closing each point;
    80 bits, least significant first, base64 without padding.
    """
    _require_short(position)
    _check_board(position)
    key = 0
    bit = 0
    for side in (position.turn.other, position.turn):
        for count in encode_side(position, side)[1 : BAR + 1]:
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return _encode(key.to_bytes(10, "little"))


def position_from_gnubg_id(
    text: str, *, turn: Side = Side.WHITE, variant: Variant | None = None
) -> Position:
    """The short-nardy position of a Position ID, `turn` being the side on roll.

    The ID does not say which colour is on roll; with a Match ID use `from_gnubg_id`.
    Checkers missing from a side's fifteen are borne off. `variant` is a `ShortNardy` (default
    options when None).
    """
    data = _decode(text, POSITION_ID_LENGTH, "Position ID")
    key = int.from_bytes(data, "little")
    counts = ([0] * 25, [0] * 25)
    player = slot = 0
    for bit in range(80):
        if not key >> bit & 1:
            slot += 1
            if slot == 25:
                player, slot = player + 1, 0
        elif player == 2:
            raise InvalidIdError(f"Position ID {text!r} has checkers after the last point")
        else:
            counts[player][slot] += 1
    for player, label in ((0, "the side not on roll"), (1, "the side on roll")):
        if sum(counts[player]) > CHECKERS_PER_SIDE:
            raise InvalidIdError(
                f"Position ID {text!r} gives {label} {sum(counts[player])} checkers"
            )
    by_side = {turn.other: counts[0], turn: counts[1]}
    return _position(text, "Position ID", variant, turn, by_side)


def _position(
    text: str, what: str, variant: Variant | None, turn: Side, by_side: dict[Side, list[int]]
) -> Position:
    """A checked position from each side's 25 counts (points 1..24, then the bar)."""
    variant = ShortNardy() if variant is None else variant
    sides = [by_side[side] for side in Side]
    position = Position(
        variant,
        turn,
        (tuple(sides[0][:24]), tuple(sides[1][:24])),
        (sides[0][24], sides[1][24]),
        (CHECKERS_PER_SIDE - sum(sides[0]), CHECKERS_PER_SIDE - sum(sides[1])),
    )
    _require_short(position)
    try:
        _check_board(position)
    except InvalidPositionError as error:
        raise InvalidIdError(f"{what} {text!r} describes an {error}") from None
    return position


# --- Match ID -------------------------------------------------------------------------------------


def _side_or_none(value: object) -> bool:
    return value is None or isinstance(value, Side)


@dataclass(frozen=True)
class MatchState:
    """Everything around the checkers that a Match ID holds, plus XGID's extra flags.

    Sides follow the module's mapping (WHITE = gnubg player 0). While a double is on offer
    `dice_owner` is the side that doubled and `turn` the side that must answer, and
    `cube_value` is still the value before the double, as in gnubg.
    """

    cube_value: int = 1
    cube_owner: Side | None = None
    """None when the cube is in the middle."""
    dice_owner: Side = Side.WHITE
    """The side on roll, or the side that did roll."""
    crawford: bool = False
    """This game is the Crawford game."""
    game_state: GameState = GameState.PLAYING
    turn: Side = Side.WHITE
    """The side that must act now (answer a double, accept a resignation, or roll and play)."""
    double_offered: bool = False
    resignation: Resignation = Resignation.NONE
    dice: Roll | None = None
    """The dice to play, None before rolling."""
    match_length: int = 0
    """0 for money play."""
    scores: tuple[int, int] = (0, 0)
    """Points already won, indexed by Side."""
    jacoby: bool = False
    """Money play under the Jacoby rule: the Match ID's 67th bit, which gnubg 1.07 sets when
    Jacoby is off (so older 66-bit IDs read as on), and the XGID rules field."""
    beaver: bool = False
    """Money play with beavers (XGID rules field only)."""
    max_cube: int = 1024
    """The cube limit XGID carries (XG's default is 2 to the 10th)."""

    def __post_init__(self) -> None:
        if not _power_of_two(self.cube_value, MAX_CUBE_LOG2):
            raise InvalidIdError(
                f"the cube shows a power of two up to 32768, not {self.cube_value}"
            )
        if not _power_of_two(self.max_cube, MAX_CUBE_LOG2):
            raise InvalidIdError(f"the cube limit is a power of two, not {self.max_cube}")
        if not (_side_or_none(self.cube_owner) and isinstance(self.dice_owner, Side)):
            raise InvalidIdError("cube_owner and dice_owner must be sides (cube_owner or None)")
        if not isinstance(self.turn, Side):
            raise InvalidIdError("turn must be a side")
        if self.dice is not None and not isinstance(self.dice, Roll):
            raise InvalidIdError(f"dice must be a Roll or None, not {self.dice!r}")
        if type(self.match_length) is not int or not 0 <= self.match_length <= MAX_SCORE:
            raise InvalidIdError(f"the match length is 0 to {MAX_SCORE}, not {self.match_length}")
        if len(self.scores) != 2 or any(
            type(score) is not int or not 0 <= score <= MAX_SCORE for score in self.scores
        ):
            raise InvalidIdError(f"scores are two numbers from 0 to {MAX_SCORE}: {self.scores}")
        if self.match_length and max(self.scores) > self.match_length:
            raise InvalidIdError(
                f"a score of {max(self.scores)} is past the match length {self.match_length}"
            )
        if self.crawford and not self.match_length:
            raise InvalidIdError("money play has no Crawford game")
        object.__setattr__(self, "game_state", GameState(self.game_state))
        object.__setattr__(self, "resignation", Resignation(self.resignation))

    def to_match_id(self) -> str:
        """gnubg's 12-character Match ID: 66 bits (gnubg 1.07 adds a 67th, "no Jacoby"),
        least significant first, nine bytes in base64. The higher die is written first."""
        dice = (self.dice.high, self.dice.low) if self.dice else (0, 0)
        fields = (
            (self.cube_value.bit_length() - 1, 4),
            (3 if self.cube_owner is None else int(self.cube_owner), 2),
            (int(self.dice_owner), 1),
            (int(self.crawford), 1),
            (int(self.game_state), 3),
            (int(self.turn), 1),
            (int(self.double_offered), 1),
            (int(self.resignation), 2),
            (dice[0], 3),
            (dice[1], 3),
            (self.match_length, 15),
            (self.scores[Side.WHITE], 15),
            (self.scores[Side.BLACK], 15),
            (int(not self.jacoby), 1),
        )
        key = 0
        bit = 0
        for value, width in fields:
            key |= value << bit
            bit += width
        return _encode(key.to_bytes(9, "little"))

    @classmethod
    def from_match_id(cls, text: str) -> MatchState:
        """Read a Match ID; a 66-bit ID of gnubg before 1.07 reads as Jacoby on, as there."""
        key = int.from_bytes(_decode(text, MATCH_ID_LENGTH, "Match ID"), "little")
        widths = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1)
        values = []
        bit = 0
        for width in widths:
            values.append(key >> bit & ((1 << width) - 1))
            bit += width
        if key >> bit:
            raise InvalidIdError(f"Match ID {text!r} sets bits past the 67th")
        cube, owner, mover, crawford, state, turn, doubled, resign = values[:8]
        die1, die2, length, score0, score1, no_jacoby = values[8:]
        if owner == 2:
            raise InvalidIdError(f"Match ID {text!r} has cube owner bits 10, which mean nothing")
        if state > max(GameState):
            raise InvalidIdError(f"Match ID {text!r} has an unknown game state {state}")
        try:
            dice = _dice(die1, die2)
        except InvalidRollError as error:
            raise InvalidIdError(f"Match ID {text!r}: {error}") from None
        try:
            return cls(
                cube_value=1 << cube,
                cube_owner=None if owner == 3 else Side(owner),
                dice_owner=Side(mover),
                crawford=bool(crawford),
                game_state=GameState(state),
                turn=Side(turn),
                double_offered=bool(doubled),
                resignation=Resignation(resign),
                dice=dice,
                match_length=length,
                scores=(score0, score1),
                jacoby=not no_jacoby,
            )
        except InvalidIdError as error:
            raise InvalidIdError(f"Match ID {text!r}: {error}") from None


def _power_of_two(value: object, max_log2: int) -> bool:
    return (
        type(value) is int
        and value >= 1
        and value & (value - 1) == 0
        and value.bit_length() <= max_log2 + 1
    )


def _dice(die1: int, die2: int) -> Roll | None:
    if die1 == die2 == 0:
        return None
    if not (die1 and die2):
        raise InvalidRollError(f"one die is missing: {die1} and {die2}")
    return Roll(die1, die2)


def to_gnubg_id(position: Position, state: MatchState) -> str:
    """The `PositionID:MatchID` pair gnubg shows and reads (`set gnubgid`).

    `position.turn` must be the state's `dice_owner`, the side the Position ID is written for.
    """
    if position.turn != state.dice_owner:
        raise InvalidIdError(
            f"the position has {position.turn.label} to move but the dice belong to "
            f"{state.dice_owner.label}"
        )
    return f"{position_to_gnubg_id(position)}:{state.to_match_id()}"


def from_gnubg_id(text: str, variant: Variant | None = None) -> tuple[Position, MatchState]:
    """Read `PositionID:MatchID` (as gnubg writes it) into a position and its match state."""
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise InvalidIdError(f"a GNU Backgammon ID is 'PositionID:MatchID', not {text!r}")
    state = MatchState.from_match_id(parts[1])
    return position_from_gnubg_id(parts[0], turn=state.dice_owner, variant=variant), state


# --- XGID -----------------------------------------------------------------------------------------

_XG_NUMBER = re.compile(r"^-?\d+$")


def _xg_side(side: Side | None) -> int:
    return 0 if side is None else (1 if side is Side.BLACK else -1)


def to_xgid(position: Position, state: MatchState) -> str:
    """eXtreme Gammon's XGID of a short-nardy position and its match state.

    Position characters: White's bar, then points 1..24 in Black's numbering, then Black's bar;
    `A`..`O` count Black's checkers, `a`..`o` White's, `-` is empty. Then the cube's power of
    two, its owner (1 Black, -1 White, 0 middle), the side on roll (1 Black, -1 White), the dice
    (`00` not rolled, `D` a double on offer), Black's score, White's score, the rules flags
    (match: 1 in the Crawford game; money: 1 Jacoby + 2 beaver), match length, cube limit as a
    power of two.
    """
    _require_short(position)
    _check_board(position)
    if position.turn != state.dice_owner:
        raise InvalidIdError(
            f"the position has {position.turn.label} to move but the dice belong to "
            f"{state.dice_owner.label}"
        )
    white, black = position.points[Side.WHITE], position.points[Side.BLACK]
    chars = [_xg_char(position.bar[Side.WHITE], "a")]
    for point in range(1, 25):
        mine, theirs = black[point - 1], white[24 - point]
        chars.append(_xg_char(mine, "A") if mine else _xg_char(theirs, "a"))
    chars.append(_xg_char(position.bar[Side.BLACK], "A"))
    if state.double_offered:
        dice = "D"
    elif state.dice is None:
        dice = "00"
    else:
        dice = f"{state.dice.high}{state.dice.low}"
    rules = int(state.crawford) if state.match_length else state.jacoby + 2 * state.beaver
    fields = (
        state.cube_value.bit_length() - 1,
        _xg_side(state.cube_owner),
        _xg_side(state.dice_owner),
        dice,
        state.scores[Side.BLACK],
        state.scores[Side.WHITE],
        rules,
        state.match_length,
        state.max_cube.bit_length() - 1,
    )
    return "XGID=" + "".join(chars) + "".join(f":{field}" for field in fields)


def _xg_char(count: int, first: str) -> str:
    return chr(ord(first) + count - 1) if count else "-"


def from_xgid(text: str, variant: Variant | None = None) -> tuple[Position, MatchState]:
    """Read an XGID (with or without the `XGID=` prefix) into a position and its match state.

    Beaver and raccoon states (dice `B`, `R`) are refused: the match state has no place for
    them, as gnubg's reader has none.
    """
    if not isinstance(text, str):
        raise InvalidIdError(f"an XGID is text, not {type(text).__name__}")
    body = text.strip().removeprefix("XGID=")
    parts = body.split(":")
    if len(parts) != 10:
        raise InvalidIdError(f"an XGID has a position and 9 fields after it, not {text!r}")
    board, cube, owner, mover, dice_text, black_score, white_score, rules, length, limit = parts
    if len(board) != 26:
        raise InvalidIdError(f"an XGID position has 26 characters, not {len(board)}: {board!r}")
    numbers = (cube, owner, mover, black_score, white_score, rules, length, limit)
    if not all(_XG_NUMBER.match(number) for number in numbers):
        raise InvalidIdError(f"XGID {text!r} has a field that is not a whole number")
    by_side = {Side.WHITE: [0] * 25, Side.BLACK: [0] * 25}
    for index, char in enumerate(board):
        if char == "-":
            continue
        if "A" <= char <= "O" and index > 0:
            by_side[Side.BLACK][index - 1] = ord(char) - ord("A") + 1
        elif "a" <= char <= "o" and index < 25:
            # Index 0 is White's bar (slot 24); point i of Black is White's 25 - i.
            by_side[Side.WHITE][24 - index] = ord(char) - ord("a") + 1
        else:
            raise InvalidIdError(f"XGID {text!r}: {char!r} cannot stand at position {index}")
    for side, label in ((Side.BLACK, "Black (upper case)"), (Side.WHITE, "White (lower case)")):
        if sum(by_side[side]) > CHECKERS_PER_SIDE:
            raise InvalidIdError(f"XGID {text!r} gives {label} {sum(by_side[side])} checkers")
    sides = {1: Side.BLACK, -1: Side.WHITE}
    if int(mover) not in sides:
        raise InvalidIdError(f"XGID {text!r}: the side on roll is 1 or -1, not {mover}")
    if int(owner) not in (*sides, 0):
        raise InvalidIdError(f"XGID {text!r}: the cube owner is 1, 0 or -1, not {owner}")
    if int(cube) > MAX_CUBE_LOG2 or int(cube) < 0 or not 0 <= int(limit) <= MAX_CUBE_LOG2:
        raise InvalidIdError(f"XGID {text!r}: the cube and its limit are powers 0 to 15")
    dice_owner = sides[int(mover)]
    doubled = dice_text == "D"
    if doubled:
        dice = None
    elif re.fullmatch(r"[0-6]{2}", dice_text):
        try:
            dice = _dice(int(dice_text[0]), int(dice_text[1]))
        except InvalidRollError as error:
            raise InvalidIdError(f"XGID {text!r}: {error}") from None
    elif dice_text in ("B", "R"):
        raise InvalidIdError(f"XGID {text!r}: beaver and raccoon XGIDs are not supported")
    else:
        raise InvalidIdError(f"XGID {text!r}: the dice are two digits or D, not {dice_text!r}")
    match_length = int(length)
    flags = int(rules)
    if not 0 <= flags <= (1 if match_length else 3):
        raise InvalidIdError(f"XGID {text!r}: rules flags {flags} do not fit this game")
    try:
        state = MatchState(
            cube_value=1 << int(cube),
            cube_owner=sides.get(int(owner)),
            dice_owner=dice_owner,
            crawford=bool(match_length and flags),
            game_state=GameState.PLAYING,
            turn=dice_owner.other if doubled else dice_owner,
            double_offered=doubled,
            dice=dice,
            match_length=match_length,
            scores=(int(white_score), int(black_score)),
            jacoby=not match_length and bool(flags & 1),
            beaver=not match_length and bool(flags & 2),
            max_cube=1 << int(limit),
        )
    except InvalidIdError as error:
        raise InvalidIdError(f"XGID {text!r}: {error}") from None
    return _position(text, "XGID", variant, dice_owner, by_side), state


__all__ = [
    "GameState",
    "MatchState",
    "Resignation",
    "from_gnubg_id",
    "from_xgid",
    "position_from_gnubg_id",
    "position_to_gnubg_id",
    "to_gnubg_id",
    "to_xgid",
]
