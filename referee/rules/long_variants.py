"""The long-nardy variants of RULES.md §4, each classic long nardy with the changes listed there.

Each class overrides only the rules in which it differs: its starting position, its step rules
(what a single move may do), the six-block rule, and `continuation`, the turn structure (what
follows a play: the doubles ladder, a second throw, moves passed to the opponent; see
`referee.rules.turns`). Where the seeds leave a point open, the class docstring says what is
decided and why, and an option offers the other reading; README.md collects these decisions
under "Long-nardy variants and rule options".
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import ClassVar, Literal

from referee.rules.model import CHECKERS_PER_SIDE, OFF, Play, Position, Roll, Side
from referee.rules.movegen import RawStep
from referee.rules.turns import Continuation, Next, OwedMoves
from referee.rules.variants import (
    BOARD_MASK,
    HEAD_USED,
    Board,
    LongNardy,
    LongStepRules,
    Relax,
)

HEAD = LongNardy.HEAD
STATE_BYTES = HEAD_USED + 1


def all_home(position: Position, side: Side) -> bool:
    """True when none of `side`'s checkers stands outside its home (points 7..24)."""
    return not any(position.points[side][6:])


# --------------------------------------------------------------------------------------------
# Nardgammon


@dataclass(frozen=True)
class Nardgammon(LongNardy):
    """Nardgammon (RULES.md §4; 003): a six-block that classic long nardy forbids at the end of a
    turn may not exist even for a moment during it, so no run ("прогон": a block formed and
    broken within one turn, which classic allows, 002 Fig. 2).

    Decision: "a six-block may never exist" means the block the six-block rule forbids (003: "a
    dead block"); a block with an opponent checker ahead stays allowed, as in classic, and the
    `six_block` option keeps its meaning.
    """

    name: ClassVar[str] = "nardgammon"
    title: ClassVar[str] = "nardgammon"
    aliases: ClassVar[tuple[str, ...]] = ("nard gammon", "nard-gammon", "нардгаммон")

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> LongStepRules:
        return NoRunStepRules(self, position, roll, relax)

    def clause(self, reason: str) -> str | None:
        if reason == Relax.SIX_BLOCK:
            return "it forms a forbidden block of six points, which may not stand even for a moment"
        return None


class NoRunStepRules(LongStepRules):
    """Classic step rules, less every step that leaves a forbidden six-block standing."""

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        found = super().steps(state, die)
        if Relax.SIX_BLOCK in self.relax:
            return found
        return [(step, reached) for step, reached in found if self.illegal_block(reached) is None]


# --------------------------------------------------------------------------------------------
# The doubles ladder: mad, mad gulbar, fevga rabid


@dataclass(frozen=True)
class DoublesLadder(LongNardy):
    """Base of the variants with the doubles ladder (not a variant itself): after playing a
    double d-d, the same player plays (d+1)-(d+1) without throwing, and so on through 6-6.

    Decisions, for every ladder variant: each double of the ladder is a play of its own, so the
    head rule allows one checker off the head per double (mad says so) and the first-turn
    exception applies to a double only while all fifteen are still on the head. A double none
    of whose moves can be played ends the ladder (mad: "a double that cannot be started is
    lost"), but one that was started and not finished does not: the ladder continues. The
    ladder also ends once all the player's checkers are home (`ladder_stops`).
    """

    @property
    def moves_per_step(self) -> int:
        """How many moves each double of the ladder gives."""
        return 4

    def ladder_stops(self, position: Position, play: Play) -> bool:
        """Whether the ladder ends after `play` of a double from `position`: once all the
        player's checkers are home."""
        return all_home(position.play(play), position.turn)

    def continuation(self, position: Position, roll: Roll, play: Play) -> Continuation:
        mover = position.turn
        if not roll.is_double:
            return Continuation(mover.other, Next.THROW)
        passed = self.passed_on(position, roll, play)
        if passed is not None:
            return passed
        die = roll.die1
        if not play.steps or die == 6 or self.ladder_stops(position, play):
            return Continuation(mover.other, Next.THROW)
        return Continuation(mover, Next.LADDER, OwedMoves.ladder(die + 1, self.moves_per_step))

    def passed_on(self, position: Position, roll: Roll, play: Play) -> Continuation | None:
        """What follows when moves pass to the opponent after `play`; None when nothing passes
        (mad: unplayable moves are simply lost)."""
        return None


@dataclass(frozen=True)
class PassingLadder(DoublesLadder):
    """Base of the ladder variants in which unplayable moves pass to the opponent (mad gulbar,
    fevga rabid); not a variant itself.

    When the player cannot play all the moves of a double of the ladder, it plays what it can
    and the rest of that double passes to the opponent, who plays it at once, without throwing
    (000, 003: "the opponent makes the unplayed moves").

    Decisions: with `passed_moves` = `rest_of_ladder` (default; 003: "the opponent takes all the
    unplayed moves") the opponent then also plays each higher double of the ladder in turn
    through 6-6, unless the ladder would have stopped after this double; `rest_of_double` passes
    only the rest of the double in play. Passed moves never pass back: what the opponent cannot
    play of them is lost. Afterwards the opponent throws for its own turn.
    """

    thrown_unstartable_passes: ClassVar[bool] = True
    """Whether a thrown double none of whose moves can be played passes to the opponent."""

    passed_moves: Literal["rest_of_ladder", "rest_of_double"] = "rest_of_ladder"

    def passed_on(self, position: Position, roll: Roll, play: Play) -> Continuation | None:
        mover, die = position.turn, roll.die1
        if isinstance(roll, OwedMoves) and roll.passed:
            if die < roll.through:
                owed = OwedMoves.passed_over(die + 1, self.moves_per_step, roll.through)
                return Continuation(mover, Next.PASSED, owed)
            return Continuation(mover, Next.THROW)
        unplayed = len(self.to_play(roll).moves) - len(play.steps)
        thrown = not isinstance(roll, OwedMoves)
        if not unplayed or (thrown and not play.steps and not self.thrown_unstartable_passes):
            return None
        ladder_goes_on = die < 6 and not self.ladder_stops(position, play)
        through = 6 if self.passed_moves == "rest_of_ladder" and ladder_goes_on else die
        return Continuation(mover.other, Next.PASSED, OwedMoves.passed_over(die, unplayed, through))


class HomeBearOffStepRules(LongStepRules):
    """Step rules for once all fifteen are home in mad and mad gulbar: no moves inside home,
    only bearing off; in mad, only from the point whose number the die shows."""

    def __init__(
        self,
        variant: LongNardy,
        position: Position,
        roll: Roll,
        relax: frozenset[str],
        *,
        exact: bool,
    ) -> None:
        super().__init__(variant, position, roll, relax)
        self.home_moves = Relax.MOVED_INSIDE_HOME in relax
        self.exact = exact and Relax.BORE_OFF_INEXACT not in relax

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        found = super().steps(state, die)
        assert isinstance(state, int)
        if any(state.to_bytes(STATE_BYTES, "little")[7:25]):
            return found  # a checker is still outside home: classic rules
        return [
            (step, reached)
            for step, reached in found
            if (step[1] != OFF and self.home_moves)
            or (step[1] == OFF and (step[0] == die or not self.exact))
        ]


@dataclass(frozen=True)
class Mad(DoublesLadder):
    """Mad nardy, бешеные (RULES.md §4; 003): the doubles ladder (see `DoublesLadder`). A thrown
    double that cannot be started is lost, and nothing passes to the opponent. Once all fifteen
    are home, a checker may only be borne off, and only from the point matching the die: no
    moves inside home, no bearing off a lower point with a higher die.

    Decision: "no moves inside home" is read with the bearing-off rule it stands beside in 003,
    for once all fifteen are home; before that a checker inside home moves as in classic.
    """

    name: ClassVar[str] = "mad"
    title: ClassVar[str] = "mad nardy"
    aliases: ClassVar[tuple[str, ...]] = (
        "mad nardy",
        "crazy nardy",
        "crazy",
        "бешеные",
        "бешеные нарды",
    )
    relaxations: ClassVar[tuple[str, ...]] = (
        *LongNardy.relaxations,
        Relax.BORE_OFF_INEXACT,
        Relax.MOVED_INSIDE_HOME,
    )

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> LongStepRules:
        return HomeBearOffStepRules(self, position, roll, relax, exact=True)

    def clause(self, reason: str) -> str | None:
        if reason == Relax.BORE_OFF_INEXACT:
            return "a checker was borne off from a point other than the die's number"
        return None


@dataclass(frozen=True)
class MadGulbar(PassingLadder):
    """Mad gulbar, бешеный гюльбар (RULES.md §4; 000, 002, 003): the doubles ladder, with the
    moves a player cannot play passed to the opponent (see `PassingLadder`). Moves inside home
    are allowed until the last checker enters home; after that checkers are only borne off.

    `ladder_moves_per_step`: 4 (003, default: 4-4 gives four 4s, four 5s, four 6s) or 2 (000:
    4,4,5,5,6,6); with 2 the thrown double itself is played twice too, as 000 counts it.

    The ladder stops, 003 says, once all checkers are home, but a double still follows the one
    in which the last checker came home (on its fourth move, 003's example: home on the last
    move of 2-2, then four checkers off from point 3 with 3-3, and no 4-4). Decision: the
    ladder goes on after a double exactly when some checker was outside home as that double
    began, which gives 003's example and does not depend on the order of the moves inside the
    double; 003 does not say what happens when the last checker comes home earlier in a double.
    """

    name: ClassVar[str] = "mad_gulbar"
    title: ClassVar[str] = "mad gulbar"
    aliases: ClassVar[tuple[str, ...]] = (
        "mad gulbar",
        "mad-gulbar",
        "mad gyulbar",
        "бешеный гюльбар",
        "бешеный гульбар",
    )
    relaxations: ClassVar[tuple[str, ...]] = (*LongNardy.relaxations, Relax.MOVED_INSIDE_HOME)

    ladder_moves_per_step: Literal[2, 4] = 4

    @property
    def moves_per_step(self) -> int:
        return self.ladder_moves_per_step

    def to_play(self, roll: Roll) -> Roll:
        if roll.is_double and not isinstance(roll, OwedMoves):
            return OwedMoves.ladder(roll.die1, self.ladder_moves_per_step)
        return roll

    def ladder_stops(self, position: Position, play: Play) -> bool:
        return all_home(position, position.turn)

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> LongStepRules:
        return HomeBearOffStepRules(self, position, roll, relax, exact=False)


# --------------------------------------------------------------------------------------------
# Gulbar and khachapuri


@dataclass(frozen=True)
class Gulbar(LongNardy):
    """Gulbar, гюльбар (RULES.md §4; 000, 003): after a double of which all four moves were
    played, the player throws again; the moves of a double it cannot play pass to the opponent,
    who plays them at once without throwing and then throws for its own turn.

    Decisions: only the moves of a double pass, as RULES.md and 003 word it (000's sentence
    could be read of any roll). Passed moves played in full give no second throw (that is for
    a double thrown), and what the opponent cannot play of them is lost, never passed back.
    Each throw is a play of its own for the head rule.
    """

    name: ClassVar[str] = "gulbar"
    title: ClassVar[str] = "gulbar"
    aliases: ClassVar[tuple[str, ...]] = ("gyulbar", "gul bar", "гюльбар", "гульбар", "гюль-бар")

    def continuation(self, position: Position, roll: Roll, play: Play) -> Continuation:
        mover = position.turn
        if isinstance(roll, OwedMoves):
            return Continuation(mover, Next.THROW)
        if not roll.is_double:
            return Continuation(mover.other, Next.THROW)
        unplayed = len(roll.moves) - len(play.steps)
        if not unplayed:
            return Continuation(mover, Next.THROW_AGAIN)
        owed = OwedMoves.passed_over(roll.die1, unplayed, roll.die1)
        return Continuation(mover.other, Next.PASSED, owed)


@dataclass(frozen=True)
class Khachapuri(Gulbar):
    """Khachapuri or Tbilisi nardy, хачапури (RULES.md §4; 003): gulbar from a different start,
    each side with 11 checkers on a point of its home and 4 on its head, and any number of
    checkers may leave the head in a turn.

    Decisions on what 003 leaves open: "the sixth hole of the house" is the home point 6 (the
    first home point a checker reaches, where pips are counted); option `home_stack` = 1 reads
    it as the sixth home point reached. Everything 003 does not change stays gulbar: the
    six-block rule, bearing off once all fifteen are home. 003 adds that the stake is
    traditionally counted per checker not borne off: option `checker_stake` (on by default),
    scored by the game flow (`referee.rules.game`); off, khachapuri scores oin and mars as
    classic.
    """

    name: ClassVar[str] = "khachapuri"
    title: ClassVar[str] = "khachapuri"
    aliases: ClassVar[tuple[str, ...]] = (
        "tbilisi",
        "tbilisi nardy",
        "хачапури",
        "тбилиси",
        "тбилисские нарды",
    )
    relaxations: ClassVar[tuple[str, ...]] = tuple(
        code for code in LongNardy.relaxations if code != Relax.HEAD_RULE
    )
    unused_options: ClassVar[tuple[str, ...]] = ("first_turn_head_exception",)

    home_stack: Literal[6, 1] = 6
    checker_stake: bool = True

    HOME_STACK_CHECKERS: ClassVar[int] = 11

    def starting_position(self, turn: Side = Side.WHITE) -> Position:
        counts = [0] * 24
        counts[self.home_stack - 1] = self.HOME_STACK_CHECKERS
        counts[HEAD - 1] = CHECKERS_PER_SIDE - self.HOME_STACK_CHECKERS
        side = tuple(counts)
        return Position(self, turn, (side, side))

    def head_limit(self, position: Position, roll: Roll, blocked: tuple[bool, ...]) -> int:
        return CHECKERS_PER_SIDE


# --------------------------------------------------------------------------------------------
# Fevga and fevga rabid


@dataclass(frozen=True)
class Fevga(LongNardy):
    """Fevga, φεύγα (RULES.md §4; 003): long nardy with its own head and block rules.

    Head: until one checker has passed the opponent's head (stands on the mover's point 11 or
    lower, or has been borne off), no second checker may leave the head; after that any number
    may, in any turn. No first-turn exception (with 6-6, 4-4 or 3-3 first, one checker leaves).
    Block: six or more consecutive points may stand with no opponent checker ahead, except a
    block covering the whole starting quarter (the mover's points 19..24) and a block right in
    front of a point holding all fifteen opponent checkers; such a block may not be built and,
    when the opponent gathers there, must be broken (a turn may not end with it).

    Decisions: the runner may pass the opponent's head and another checker leave the head in
    the same turn; the block rules are judged where a turn ends, like classic's; a block that
    must be broken but that no play of the roll can break does not stop the roll, which is
    played as usual (rather than not at all).
    """

    name: ClassVar[str] = "fevga"
    title: ClassVar[str] = "fevga"
    aliases: ClassVar[tuple[str, ...]] = ("feuga", "февга", "φεύγα")
    unused_options: ClassVar[tuple[str, ...]] = ("first_turn_head_exception", "six_block")

    def head_limit(self, position: Position, roll: Roll, blocked: tuple[bool, ...]) -> int:
        # No limit per turn: fevga's own rule depends on the board, so its step rules apply it.
        return CHECKERS_PER_SIDE

    def step_rules(
        self, position: Position, roll: Roll, relax: frozenset[str] = frozenset()
    ) -> LongStepRules:
        return FevgaStepRules(self, position, roll, relax)

    def block_objection(
        self, opponent_lowest: int, opponent_board: Board, low: int, high: int
    ) -> str | None:
        quarter = sorted(self.opponent_point(point) for point in (19, 24))
        if low <= quarter[0] and high >= quarter[1]:
            return "covers the whole starting quarter"
        if high < 24 and opponent_board[high + 1] == CHECKERS_PER_SIDE:
            return "stands right in front of all fifteen opponent checkers"
        return None

    def clause(self, reason: str) -> str | None:
        if reason == Relax.HEAD_RULE:
            return "a second checker left the head before the first had passed the opponent's head"
        if reason == Relax.SIX_BLOCK:
            return "it leaves a block of six points that fevga forbids"
        return None


class FevgaStepRules(LongStepRules):
    """Fevga's head rule on top of the classic step rules. The head-used count of the classic
    state is not needed, so it is dropped to keep equal boards one state."""

    def __init__(
        self, variant: LongNardy, position: Position, roll: Roll, relax: frozenset[str]
    ) -> None:
        super().__init__(variant, position, roll, relax)
        self.head_free = Relax.HEAD_RULE in relax
        # Points below the opponent's head (the mover's 12): a checker there has passed it.
        self.passed = slice(1, variant.opponent_point(HEAD))

    def steps(self, state: Hashable, die: int) -> list[tuple[RawStep, Hashable]]:
        assert isinstance(state, int)
        board = state.to_bytes(STATE_BYTES, "little")
        head_open = (
            self.head_free
            or board[HEAD] == CHECKERS_PER_SIDE
            or board[OFF] > 0
            or any(board[self.passed])
        )
        found: list[tuple[RawStep, Hashable]] = []
        for step, reached in super().steps(state, die):
            assert isinstance(reached, int)
            if head_open or step[0] != HEAD:
                found.append((step, reached & BOARD_MASK))
        return found


@dataclass(frozen=True)
class FevgaRabid(Fevga, PassingLadder):
    """Fevga rabid, or giul (RULES.md §4; 003): fevga with the doubles ladder of mad, the
    moves a player cannot play passed to the opponent (see `PassingLadder`). The ladder stops
    once all the player's checkers are home; moves inside home are allowed, and bearing off is
    classic.

    003: a thrown double that cannot be started at all is lost and does not pass; a double of
    the ladder that cannot be started passes like any unplayed moves.
    """

    name: ClassVar[str] = "fevga_rabid"
    title: ClassVar[str] = "fevga rabid"
    aliases: ClassVar[tuple[str, ...]] = (
        "fevga rabid",
        "rabid fevga",
        "giul",
        "gioul",
        "гюль",
        "бешеная февга",
    )
    thrown_unstartable_passes: ClassVar[bool] = False


LONG_VARIANTS: tuple[type[LongNardy], ...] = (
    Nardgammon,
    Mad,
    Gulbar,
    MadGulbar,
    Khachapuri,
    Fevga,
    FevgaRabid,
)
