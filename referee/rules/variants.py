"""Variants: the rules that differ between long nardy, short nardy and their relatives.

A variant is a frozen dataclass whose fields are the options RULES.md names; the classic games
are `LongNardy` and `ShortNardy`, and the §4 variants subclass `LongNardy`, overriding only the
rules in which they differ (like python-chess's variant boards).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from referee.rules.errors import InvalidOptionError, InvalidPlayError, UnknownVariantError
from referee.rules.model import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    Play,
    Position,
    Roll,
    Side,
    Status,
    Step,
)
from referee.rules.movegen import RawStep, RawSteps, SearchTree, StepRules, legal_end_states, search
from referee.rules.turns import Continuation, Next

# The internal board of one side, seen from that side: index 0 = borne off, 1..24 = points,
# 25 = bar.
Board = tuple[int, ...]


class Relax:
    """Rules the judge may switch off one at a time to explain an illegal play."""

    HEAD_RULE = "head_rule"
    LANDED_ON_OPPONENT = "landed_on_opponent"
    SIX_BLOCK = "six_block"
    BORE_OFF_NOT_HOME = "bore_off_not_home"
    BAR_FIRST = "bar_first"
    BORE_OFF_INEXACT = "bore_off_inexact"
    MOVED_INSIDE_HOME = "moved_inside_home"
    HIT_THEN_JOIN = "hit_then_join"
    BORE_OFF_AFTER_HIT = "bore_off_after_hit"


SLOTS = 26  # off, points 1..24, bar
OPPONENT = SLOTS  # first slot of the opponent's board in a packed short-nardy state
HEAD_USED = SLOTS  # slot of a packed long-nardy state counting checkers taken from the head
UNIT = tuple(1 << (8 * slot) for slot in range(2 * SLOTS))
BOARD_MASK = UNIT[SLOTS] - 1


def encode_side(position: Position, side: Side) -> Board:
    return (position.off[side], *position.points[side], position.bar[side])


def pack(board: Board, first_slot: int = 0) -> int:
    """A side's board as an int, one byte per slot, starting at `first_slot`."""
    return int.from_bytes(bytes(board), "little") << (8 * first_slot)


@dataclass(frozen=True)
class Variant:
    """Rules and options shared by every variant; subclasses supply the movement rules."""

    name: ClassVar[str]
    title: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    relaxations: ClassVar[tuple[str, ...]] = ()
    unused_options: ClassVar[tuple[str, ...]] = ()
    """Inherited options that a subclass's own rule replaces: setting one is refused."""

    hits: ClassVar[bool] = True
    """Whether a checker can be hit. Without hitting no checker is ever on the bar, and a side
    that has borne off has all its checkers home (none can be sent back out)."""

    opening_roll_is_first_move: bool = True
    next_game_starter: Literal["previous_winner", "previous_black"] = "previous_winner"

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value, kind = getattr(self, f.name), hints[f.name]
            allowed = typing.get_args(kind) if typing.get_origin(kind) is Literal else None
            if allowed is not None and value not in allowed:
                choices = ", ".join(map(repr, allowed))
                raise InvalidOptionError(f"{self.name}: {f.name} must be one of {choices}")
            if allowed is None and type(value) is not kind:
                raise InvalidOptionError(
                    f"{self.name}: {f.name} must be {kind.__name__}, not {value!r}"
                )
            if f.name in self.unused_options and value != f.default:
                raise InvalidOptionError(f"{self.name} has its own rule instead of {f.name}")

    def opponent_point(self, point: int) -> int:
        """The opponent's number for the mover's `point` (1..24)."""
        raise NotImplementedError

    def facing(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        """One side's 24 point counts reordered so index i is the other side's point i + 1."""
        raise NotImplementedError

    def starting_position(self, turn: Side = Side.WHITE) -> Position:
        raise NotImplementedError

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> VariantStepRules:
        raise NotImplementedError

    def extra_status(self, position: Position) -> Status:
        """Problems specific to this variant: without hitting, checkers on the bar, and a side
        that has borne off with checkers outside home."""
        status = Status.VALID
        if self.hits:
            return status
        if any(position.bar):
            status |= Status.BAR_IN_LONG_NARDY
        for side in Side:
            if position.off[side] and any(position.points[side][6:]):
                status |= Status.BORNE_OFF_OUTSIDE_HOME
        return status

    def relaxable(self) -> tuple[str, ...]:
        """The rules (`Relax` codes) the judge may switch off here: `relaxations`, plus those of
        options that are on."""
        return self.relaxations

    def clause(self, reason: str) -> str | None:
        """This variant's wording of why a play breaks rule `reason`, where the judge's general
        wording would be wrong for it; None to use the general one."""
        return None

    def to_play(self, roll: Roll) -> Roll:
        """The moves `roll` gives here: the roll itself, unless a variant plays a thrown double
        another number of times."""
        return roll

    def after_play(self, position: Position, roll: Roll, play: Play) -> Continuation:
        """What follows `play` of `roll` (thrown, or moves owed) by the side to move in
        `position`: the game is over once it has borne off its last checker; otherwise
        `continuation` tells."""
        mover = position.turn
        borne_off = sum(step.end == OFF for step in play.steps)
        if position.off[mover] + borne_off >= CHECKERS_PER_SIDE:
            return Continuation(mover, Next.GAME_OVER)
        return self.continuation(position, roll, play)

    def continuation(self, position: Position, roll: Roll, play: Play) -> Continuation:
        """What follows a play that did not end the game: in the classic games, the opponent
        throws (variants with doubles ladders or passed moves override this)."""
        return Continuation(position.turn.other, Next.THROW)

    def non_default_options(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def legal_moves(self, position: Position, roll: Roll) -> list[tuple[Play, Position]]:
        """Each distinct legal result of `roll` with one play reaching it (turn passed)."""
        rules, ends = self._legal_ends(position, roll)
        unique = {rules.board_bits(state): (steps, state) for steps, state in reversed(ends)}
        return [
            (_play_from_raw(steps), rules.to_position(state)) for steps, state in unique.values()
        ]

    def legal_positions(self, position: Position, roll: Roll) -> list[Position]:
        """The distinct legal results of `roll` (turn passed), without building plays."""
        rules, ends = self._legal_ends(position, roll)
        unique = {rules.board_bits(state): state for _, state in ends}
        return [rules.to_position(state) for state in unique.values()]

    def _legal_ends(
        self, position: Position, roll: Roll
    ) -> tuple[VariantStepRules, list[tuple[RawSteps, Hashable]]]:
        position.validate()
        roll = self.to_play(roll)
        rules = self.step_rules(position, roll)
        return rules, legal_end_states(rules, search(rules, roll))

    def apply_steps(self, position: Position, steps: Iterable[Step]) -> Position:
        """Replay `steps` for the side to move, keeping the books (hits go to the bar)."""
        mover = list(encode_side(position, position.turn))
        opponent = list(encode_side(position, position.turn.other))
        for step in steps:
            if not (OFF <= step.end < step.start <= BAR) or mover[step.start] == 0:
                raise InvalidPlayError(f"{step} moves no checker of the side to move")
            mover[step.start] -= 1
            mover[step.end] += 1
            if step.end != OFF:
                self._land(opponent, self.opponent_point(step.end))
        return _decode(self, position.turn.other, position.turn, tuple(mover), tuple(opponent))

    def _land(self, opponent: list[int], opponent_point: int) -> None:
        """Bookkeeping when a replayed step lands on the opponent's point: nothing by default
        (no hitting); a checker on an opponent's point is left for `status()` and the judge."""

    def render(self, position: Position) -> str:
        lines = [f"{self.title}, {position.turn.label} to move"]
        for side in Side:
            stacks = [f"{p}:{n}" for p in range(24, 0, -1) if (n := position.points[side][p - 1])]
            extras = [
                f"{label} {n}"
                for label, n in (("bar", position.bar[side]), ("off", position.off[side]))
                if n
            ]
            lines.append(f"  {side.label}: {' '.join(stacks + extras) or '-'}")
        return "\n".join(lines)


def _play_from_raw(steps: Iterable[RawStep]) -> Play:
    return Play(tuple(Step(start, end, hit) for start, end, hit in steps))


def _decode(
    variant: Variant,
    turn: Side,
    mover: Side,
    mover_board: Board | bytes,
    opponent_board: Board | bytes,
) -> Position:
    white, black = (
        (mover_board, opponent_board) if mover is Side.WHITE else (opponent_board, mover_board)
    )
    return Position(
        variant,
        turn,
        (tuple(white[1:25]), tuple(black[1:25])),
        (white[BAR], black[BAR]),
        (white[OFF], black[OFF]),
    )


class VariantStepRules(StepRules):
    """Step rules bound to one position, roll and set of relaxed rules."""

    def __init__(
        self, variant: Variant, position: Position, roll: Roll, relax: frozenset[str]
    ) -> None:
        self.variant = variant
        self.position = position
        self.roll = roll
        self.relax = relax
        self.mover = position.turn
        self.next_turn = position.turn.other
        self.opponent_start = encode_side(position, position.turn.other)

    def board_bits(self, state: Hashable) -> int:
        """The part of `state` that is the board (equal for equal boards)."""
        assert isinstance(state, int)
        return state

    def to_position(self, state: Hashable) -> Position:
        raise NotImplementedError

    def explain(self, state: Hashable) -> str:
        """Why `state` may not end the turn (only called when `may_end_turn` is False)."""
        return ""


# --------------------------------------------------------------------------------------------
# Short nardy (backgammon)


@dataclass(frozen=True)
class ShortNardy(Variant):
    """Short nardy, i.e. backgammon (RULES.md §5): hits, the bar, closed points.

    The default is GNU Backgammon's game. Two seed sentences restrict a checker that has just
    hit inside its own home (points 1..6), each an option, off by default:
    `no_bearoff_after_home_hit` (000): it may not be borne off in the same turn;
    `no_hit_then_join` (004): it may not move on, in the same turn, onto a point already holding
    the mover's checkers (covering it with another checker, moving on to an empty point, or
    bearing it off stay allowed).
    """

    name: ClassVar[str] = "short"
    title: ClassVar[str] = "short nardy"
    aliases: ClassVar[tuple[str, ...]] = (
        "backgammon",
        "short nardy",
        "короткие нарды",
        "короткие",
        "tavla",
    )
    relaxations: ClassVar[tuple[str, ...]] = (
        Relax.LANDED_ON_OPPONENT,
        Relax.BORE_OFF_NOT_HOME,
        Relax.BAR_FIRST,
    )

    roll_zone: Literal["same_half", "right_half"] = "right_half"
    no_bearoff_after_home_hit: bool = False
    no_hit_then_join: bool = False

    def opponent_point(self, point: int) -> int:
        return 25 - point if point else 0

    def facing(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        return counts[::-1]

    def starting_position(self, turn: Side = Side.WHITE) -> Position:
        counts = [0] * 24
        for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
            counts[point - 1] = n
        side = tuple(counts)
        return Position(self, turn, (side, side))

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> ShortStepRules:
        # The plain rules keep the fast state; only the hit options need to remember hitters.
        if self.no_bearoff_after_home_hit or self.no_hit_then_join:
            return HomeHitStepRules(self, position, roll, relax)
        return ShortStepRules(self, position, roll, relax)

    def relaxable(self) -> tuple[str, ...]:
        optional = (
            (Relax.BORE_OFF_AFTER_HIT, self.no_bearoff_after_home_hit),
            (Relax.HIT_THEN_JOIN, self.no_hit_then_join),
        )
        return self.relaxations + tuple(code for code, on in optional if on)

    def _land(self, opponent: list[int], opponent_point: int) -> None:
        if opponent[opponent_point] == 1:
            opponent[opponent_point] = 0
            opponent[BAR] += 1


class ShortStepRules(VariantStepRules):
    """State: one int packing the mover's board in slots 0..25 and the opponent's (from its own
    side) in slots 26..51, a byte per slot: a step is two additions and the state hashes fast."""

    def __init__(
        self, variant: Variant, position: Position, roll: Roll, relax: frozenset[str]
    ) -> None:
        super().__init__(variant, position, roll, relax)
        self.closed = CHECKERS_PER_SIDE + 1 if Relax.LANDED_ON_OPPONENT in relax else 2
        self.bar_free = Relax.BAR_FIRST in relax
        self.anywhere_off = Relax.BORE_OFF_NOT_HOME in relax

    def initial(self) -> int:
        return pack(encode_side(self.position, self.mover)) | pack(self.opponent_start, OPPONENT)

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        assert isinstance(state, int)
        board = state.to_bytes(2 * SLOTS, "little")
        unit = UNIT
        closed = self.closed
        found: list[tuple[RawStep, Hashable]] = []
        if board[BAR]:
            # Entering uses the die's own number: die n enters on the mover's point 25 - n,
            # which is the opponent's point n.
            end = 25 - die
            opposing = board[OPPONENT + die]
            if opposing < closed:
                entered = state - unit[BAR] + unit[end]
                if opposing == 1:
                    entered += unit[OPPONENT + BAR] - unit[OPPONENT + die]
                found.append(((BAR, end, opposing == 1), entered))
            if not self.bar_free:
                return found
        highest = 24
        while highest and not board[highest]:
            highest -= 1
        all_home = self.anywhere_off or (highest <= 6 and not board[BAR])
        for start in range(highest, 0, -1):
            if not board[start]:
                continue
            end = start - die
            if end >= 1:
                opposing = board[OPPONENT + 25 - end]
                if opposing >= closed:
                    continue
                moved = state - unit[start] + unit[end]
                if opposing == 1:
                    moved += unit[OPPONENT + BAR] - unit[OPPONENT + 25 - end]
                found.append(((start, end, opposing == 1), moved))
            elif all_home and (end == 0 or start == highest):
                found.append(((start, OFF, False), state - unit[start] + unit[OFF]))
            elif not all_home:
                break  # every lower start also ends off the board
        return found

    def may_end_turn(self, state: Hashable) -> bool:
        return True

    def to_position(self, state: Hashable) -> Position:
        assert isinstance(state, int)
        board = state.to_bytes(2 * SLOTS, "little")
        return _decode(self.variant, self.next_turn, self.mover, board[:SLOTS], board[SLOTS:])


HITTERS = 2 * SLOTS  # first slot of the hitter counts in a HomeHitStepRules state
HITTER_BITS = 8 * HITTERS
SHORT_BOARD_MASK = (1 << HITTER_BITS) - 1


class HomeHitStepRules(ShortStepRules):
    """Short nardy with `no_bearoff_after_home_hit` or `no_hit_then_join`: the state also
    counts, in slot 52 + p, the mover's checkers on point p that hit inside home this turn.

    Checkers on one point are alike, so when a point holds hitters and others, moving "a checker"
    from it branches into moving a hitter and moving another; the board decides the results.
    """

    variant: ShortNardy

    def __init__(
        self, variant: ShortNardy, position: Position, roll: Roll, relax: frozenset[str]
    ) -> None:
        super().__init__(variant, position, roll, relax)
        self.bearoff_forbidden = (
            variant.no_bearoff_after_home_hit and Relax.BORE_OFF_AFTER_HIT not in relax
        )
        self.join_forbidden = variant.no_hit_then_join and Relax.HIT_THEN_JOIN not in relax

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        assert isinstance(state, int)
        board_state = state & SHORT_BOARD_MASK
        marks = state >> HITTER_BITS
        hitters = marks.to_bytes(SLOTS, "little")
        board = board_state.to_bytes(HITTERS, "little")
        unit = UNIT
        found: list[tuple[RawStep, Hashable]] = []
        for step, reached in super().steps(board_state, die):
            assert isinstance(reached, int)
            start, end, hit = step
            here = hitters[start]  # (never marked on the bar: hits inside home only)
            if board[start] > here:
                # Another checker moves; it becomes a hitter if it hits inside home.
                marked = marks + (unit[end] if hit and end <= 6 else 0)
                found.append((step, reached | marked << HITTER_BITS))
            if not here:
                continue
            if end == OFF and self.bearoff_forbidden:
                continue
            if end != OFF and self.join_forbidden and board[end]:
                continue
            marked = marks - unit[start] + (unit[end] if end != OFF else 0)
            found.append((step, reached | marked << HITTER_BITS))
        return found

    def to_position(self, state: Hashable) -> Position:
        assert isinstance(state, int)
        return super().to_position(state & SHORT_BOARD_MASK)

    def board_bits(self, state: Hashable) -> int:
        assert isinstance(state, int)
        return state & SHORT_BOARD_MASK


# --------------------------------------------------------------------------------------------
# Long nardy


@dataclass(frozen=True)
class LongNardy(Variant):
    """Classic long nardy (RULES.md §3): no hitting, the head rule, the six-block rule.

    Both sides move the same way round; each side's head is its own 24, which is the other's 12.

    `first_turn_head_exception`: `classic` (002), `none`, or `any_block`, 003's wider reading:
    on a first turn a second checker may leave the head whenever a lone checker could not play
    the whole roll, whatever opponent checker stops it; so after White's first 5-5 (one checker
    on Black's 16) Black may take two off the head with 6-2 (24/18 24/22) and with 4-4, where
    002's note allows one. Not the default, because 002 says the opposite for 4-4.
    """

    name: ClassVar[str] = "long"
    title: ClassVar[str] = "long nardy"
    aliases: ClassVar[tuple[str, ...]] = ("long nardy", "длинные нарды", "длинные", "narde")
    relaxations: ClassVar[tuple[str, ...]] = (
        Relax.HEAD_RULE,
        Relax.LANDED_ON_OPPONENT,
        Relax.SIX_BLOCK,
        Relax.BORE_OFF_NOT_HOME,
    )

    roll_zone: Literal["same_half", "right_half"] = "same_half"
    first_turn_head_exception: Literal["classic", "none", "any_block"] = "classic"
    six_block: Literal["ahead", "home_entered"] = "ahead"
    koks: bool = False
    last_roll_draw: bool = False

    HEAD: ClassVar[int] = 24
    hits: ClassVar[bool] = False

    def opponent_point(self, point: int) -> int:
        return (point + 11) % 24 + 1 if point else 0

    def facing(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        return counts[12:] + counts[:12]

    def starting_position(self, turn: Side = Side.WHITE) -> Position:
        side = (0,) * 23 + (CHECKERS_PER_SIDE,)
        return Position(self, turn, (side, side))

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> LongStepRules:
        return LongStepRules(self, position, roll, relax)

    def head_limit(self, position: Position, roll: Roll, blocked: tuple[bool, ...]) -> int:
        """How many checkers may leave the head this turn (RULES.md §3, head rule).

        Two only on a first turn (all 15 on the head) with a double whose lone checker would be
        stopped by the opponent's head before playing the whole roll: 6-6, 4-4 and 3-3 from the
        start. When another opponent checker stops it earlier (002's note), the reason for the
        exception is gone and one leaves; with `any_block` any such stop lets a second leave,
        for two different dice too. `roll` may be owed moves (fewer than four of a double).
        """
        mode = self.first_turn_head_exception
        if mode == "none" or position.points[position.turn][self.HEAD - 1] != CHECKERS_PER_SIDE:
            return 1
        if roll.is_double:
            opponent_head = self.opponent_point(self.HEAD)
            point = self.HEAD
            for die in roll.moves:
                point -= die
                if point < 1:
                    return 1
                if blocked[point]:
                    return 2 if mode == "any_block" or point == opponent_head else 1
            return 1
        if mode == "classic":
            return 1
        lone_plays_both = any(
            not blocked[self.HEAD - first] and not blocked[self.HEAD - first - second]
            for first, second in ((roll.high, roll.low), (roll.low, roll.high))
        )
        return 1 if lone_plays_both else 2

    def block_objection(
        self, opponent_lowest: int, opponent_board: Board, low: int, high: int
    ) -> str | None:
        """Why the mover's block of six or more consecutive points, `low`..`high` in the
        opponent's numbering, may not stand; None when it may.

        `opponent_lowest` is the opponent's lowest occupied point, 0 when it has borne off.
        """
        if opponent_lowest >= low:
            return "has no opponent checker ahead"
        if self.six_block == "home_entered" and not (
            opponent_board[OFF] > 0 or any(opponent_board[1:7])
        ):
            return "stands before any opponent checker has entered its home"
        return None


class LongStepRules(VariantStepRules):
    """State: one int packing the mover's board in slots 0..25 and, in slot 26, how many
    checkers left the head this turn. The opponent cannot move or be hit during the turn, so it
    stays outside the state."""

    variant: LongNardy

    def __init__(
        self, variant: LongNardy, position: Position, roll: Roll, relax: frozenset[str]
    ) -> None:
        super().__init__(variant, position, roll, relax)
        opp = self.opponent_start
        occupied = tuple(
            point > 0 and opp[variant.opponent_point(point)] > 0 for point in range(25)
        )
        self.blocked = (False,) * 25 if Relax.LANDED_ON_OPPONENT in relax else occupied
        self.head_limit = (
            CHECKERS_PER_SIDE
            if Relax.HEAD_RULE in relax
            else variant.head_limit(position, roll, occupied)
        )
        self.anywhere_off = Relax.BORE_OFF_NOT_HOME in relax
        # The mover's points in the opponent's numbering order (index q -> mover point), for
        # finding blocks along the opponent's route.
        self.by_opponent_point = tuple(variant.opponent_point(q) if q else 0 for q in range(25))
        self.opponent_lowest = (
            0 if opp[OFF] else min((q for q in range(1, 25) if opp[q]), default=25)
        )

    def initial(self) -> int:
        return pack(encode_side(self.position, self.mover))

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        assert isinstance(state, int)
        board = state.to_bytes(HEAD_USED + 1, "little")
        unit = UNIT
        head = LongNardy.HEAD
        blocked = self.blocked
        found: list[tuple[RawStep, Hashable]] = []
        highest = 24
        while highest and not board[highest]:
            highest -= 1
        all_home = self.anywhere_off or highest <= 6
        for start in range(highest, 0, -1):
            if not board[start]:
                continue
            head_step = 0
            if start == head:
                if board[HEAD_USED] >= self.head_limit:
                    continue
                head_step = unit[HEAD_USED]
            end = start - die
            if end >= 1:
                if blocked[end]:
                    continue
            elif all_home and (end == 0 or start == highest):
                end = OFF
            elif all_home:
                continue
            else:
                break  # every lower start also ends off the board
            found.append(((start, end, False), state - unit[start] + unit[end] + head_step))
        return found

    def may_end_turn(self, state: Hashable) -> bool:
        if Relax.SIX_BLOCK in self.relax:
            return True
        return self.illegal_block(state) is None

    def illegal_block(self, state: Hashable) -> tuple[int, int, str] | None:
        """The (lowest, highest) opponent-numbered points of a block of six or more that may
        not stand, and why; or None."""
        assert isinstance(state, int)
        board = state.to_bytes(HEAD_USED + 1, "little")
        by_q = self.by_opponent_point
        run = 0
        for q in range(1, 25):
            if not board[by_q[q]]:
                run = 0
                continue
            run += 1
            if run == 6:  # judged once per block, over its whole length
                high = q
                while high < 24 and board[by_q[high + 1]]:
                    high += 1
                objection = self.variant.block_objection(
                    self.opponent_lowest, self.opponent_start, q - 5, high
                )
                if objection is not None:
                    return (q - 5, high, objection)
        return None

    def explain(self, state: Hashable) -> str:
        block = self.illegal_block(state)
        if block is None:
            return ""
        low, high, objection = block
        points = sorted((self.by_opponent_point[q] for q in range(low, high + 1)), reverse=True)
        return f"the block on points {', '.join(map(str, points))} {objection}"

    def to_position(self, state: Hashable) -> Position:
        assert isinstance(state, int)
        board = state.to_bytes(HEAD_USED + 1, "little")[:SLOTS]
        return _decode(self.variant, self.next_turn, self.mover, board, self.opponent_start)

    def board_bits(self, state: Hashable) -> int:
        assert isinstance(state, int)
        return state & BOARD_MASK


# --------------------------------------------------------------------------------------------
# The RULES.md §4 variants subclass LongNardy, so their module is imported only now that
# LongNardy exists (it imports this module back).
from referee.rules.long_variants import LONG_VARIANTS  # noqa: E402

VARIANTS: tuple[type[Variant], ...] = (LongNardy, ShortNardy, *LONG_VARIANTS)


def variant_from_name(name: str, **options: Any) -> Variant:
    """The variant called `name` (its name or any alias, any case) with the given options."""
    wanted = name.strip().lower()
    for cls in VARIANTS:
        if wanted == cls.name or wanted in cls.aliases:
            known = {f.name for f in dataclasses.fields(cls)}
            unknown = sorted(set(options) - known)
            if unknown:
                raise UnknownVariantError(f"{cls.name} has no option {', '.join(unknown)}")
            return cls(**options)
    names = ", ".join(cls.name for cls in VARIANTS)
    raise UnknownVariantError(f"unknown variant {name!r}; known: {names}")


def tree_for(
    position: Position, roll: Roll, relax: frozenset[str] = frozenset()
) -> tuple[VariantStepRules, SearchTree]:
    """The step rules and the full search tree of `roll` from `position` (for the judge)."""
    roll = position.variant.to_play(roll)
    rules = position.variant.step_rules(position, roll, relax)
    return rules, search(rules, roll)
