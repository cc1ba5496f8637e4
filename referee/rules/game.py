"""Game flow on top of positions: the opening throw, turns, the doubling cube, the end and its
score (RULES.md §2, §3 scoring, §5 scoring and cube).

A `Game` is a small state machine. Each action (`opening_throw`, `roll`, `play`, `offer_double`,
`take`, `drop`, `beaver`, `resign`) checks that it is allowed now, raises GameFlowError when it
is not, and otherwise returns the events it recorded (also kept in `Game.events`), so a live
session or a match record can journal them. A `Match` (in `referee.rules.match`) strings games
together.

Decisions on points the seeds leave open, each with its reason:

- Long-nardy **koks** (option `koks`): the loser still has a checker in its first quarter, its
  own points 19..24 (the head's quarter), as RULES.md words it ("has not even brought all
  checkers out of its first quarter"). The seeds give no sharper definition. Such a loser cannot
  have borne off anything, so a koks is always also a mars.
- **Khachapuri's stake** (option `checker_stake`, on by default; 003: "traditionally played
  for a stake per checker not borne off"): the winner scores a point per checker the loser has
  not borne off (times the cube, were there one), and nothing more for a mars or koks: the
  count already grows with the loser's lag, a mars scoring 15. A resignation concedes the
  loser's checkers still on the board. With the option off, khachapuri scores as classic.
- Long-nardy **last roll** (option `last_roll_draw`, 002 §4.3): only when the side that moved
  first in the game finishes first does the other get one last roll; bearing off all its
  checkers with it is a draw. Otherwise the first finisher wins and mars/koks are judged on the
  board after the last roll (the game ends there). A draw scores 0 points here (002 leaves ½-½
  or 1-1 to the tournament).
- Short-nardy **home mars** (StakeRules.home_mars, 000 names it, ×4, without defining it): read
  as a gammon in which a loser's checker is still on the bar, the deepest case of a koks
  (backgammon). Off by default.
- **What follows a play** is the variant's `after_play` (`referee.rules.turns`): the opponent
  throws, or the same player throws again (gulbar), or plays owed moves without throwing (a
  doubles ladder's next double; moves the other side could not play). An accepted illegal play
  is followed as its steps say, like a legal one ("it stands as played"); one given only as a
  board, whose steps are unknown, ends the turn: the opponent throws.
- The long-nardy **last roll** is one throw played once: the game ends after it, even where
  a ladder, a second throw or passed moves would otherwise follow.
- Cube conventions (beaver, Jacoby, automatic doubles) and home mars are stake rules of a
  session, kept in `StakeRules` rather than as variant options, because they only change how a
  finished game is paid, never which plays are legal. Beaver, Jacoby and automatic doubles are
  money-play conventions (004) and are refused in match play.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.rules.errors import (
    GameFlowError,
    IllegalPlayError,
    InvalidOptionError,
    InvalidPlayError,
    InvalidPositionError,
)
from referee.rules.ids import GameState, MatchState
from referee.rules.judge import judge
from referee.rules.long_variants import Khachapuri
from referee.rules.model import CHECKERS_PER_SIDE, Play, Position, Roll, Side
from referee.rules.turns import Continuation, Next
from referee.rules.variants import LongNardy, ShortNardy, Variant

CUBE_FACES = (2, 4, 8, 16, 32, 64)
FIRST_QUARTER = slice(18, 24)  # own points 19..24: a side's first quarter, the winner's home


class Phase(enum.StrEnum):
    """Where a game stands: what the next action must be."""

    OPENING = "opening"
    """Each player throws one die to decide who starts."""
    AWAITING_ROLL = "awaiting_roll"
    """The side on roll may double (short nardy) or roll."""
    AWAITING_PLAY = "awaiting_play"
    """The dice are thrown, or moves are owed without a throw (`Game.dice` is then an
    `OwedMoves`); the side on roll must play them."""
    AWAITING_CUBE_RESPONSE = "awaiting_cube_response"
    """A double (or a beaver) is on offer and must be taken or dropped."""
    FINISHED = "finished"


class ResultKind(enum.StrEnum):
    """What a game was won by. The long-nardy and short-nardy names are kept apart because
    players use them so: an oin is not called a single game at a long-nardy table."""

    OIN = "oin"
    MARS = "mars"
    KOKS = "koks"
    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    HOME_MARS = "home_mars"
    CHECKERS = "checkers"
    """Khachapuri's stake (option `checker_stake`): a point per checker the loser has not
    borne off."""
    DRAW = "draw"

    @property
    def multiplier(self) -> int:
        """Points per unit of stake (for CHECKERS, per checker not borne off)."""
        return _MULTIPLIERS[self]


_MULTIPLIERS = {
    ResultKind.OIN: 1,
    ResultKind.MARS: 2,
    ResultKind.KOKS: 3,
    ResultKind.SINGLE: 1,
    ResultKind.GAMMON: 2,
    ResultKind.BACKGAMMON: 3,
    ResultKind.HOME_MARS: 4,
    ResultKind.CHECKERS: 1,
    ResultKind.DRAW: 0,
}
SHORT_KINDS = (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON, ResultKind.HOME_MARS)


class Ending(enum.StrEnum):
    """How a game ended."""

    BORNE_OFF = "borne_off"
    DROPPED = "dropped"
    RESIGNED = "resigned"


@dataclass(frozen=True)
class StakeRules:
    """How a short-nardy game is staked: the doubling cube and its conventions (RULES.md §5).

    Long nardy has no cube; its games score by their result alone.
    """

    cube: bool = True
    """Play with the doubling cube at all."""
    max_cube: int = 64
    """The highest face the cube may be turned to (a cube's faces are 2 to 64)."""
    beaver: bool = False
    """The doubled side may redouble at once, keeping the cube (money play)."""
    jacoby: bool = False
    """Gammons and backgammons count single until the cube has been turned (money play)."""
    automatic_doubles: int = 0
    """How many times equal opening dice may double the stake (the cube stays in the middle);
    0 turns automatic doubles off (money play)."""
    home_mars: bool = False
    """A gammon with a loser's checker still on the bar scores ×4 (see the module's notes)."""

    def __post_init__(self) -> None:
        for name in ("cube", "beaver", "jacoby", "home_mars"):
            if type(getattr(self, name)) is not bool:
                raise InvalidOptionError(f"stake rules: {name} must be true or false")
        if self.max_cube not in CUBE_FACES:
            faces = ", ".join(map(str, CUBE_FACES))
            raise InvalidOptionError(f"stake rules: max_cube is a cube face ({faces})")
        if type(self.automatic_doubles) is not int or self.automatic_doubles < 0:
            raise InvalidOptionError("stake rules: automatic_doubles is a count, 0 or more")

    @property
    def money_only(self) -> tuple[str, ...]:
        """The money-play conventions these rules switch on."""
        names = ("beaver", "jacoby", "automatic_doubles")
        return tuple(name for name in names if getattr(self, name))


@dataclass(frozen=True)
class GameResult:
    """How a finished game came out. `winner` is None for a draw."""

    winner: Side | None
    kind: ResultKind
    """The scored kind: under the Jacoby rule an unturned cube scores a gammon as SINGLE."""
    points: int
    """Points won: the kind's multiplier times the cube value (see `result_points`)."""
    cube_value: int
    ending: Ending

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": None if self.winner is None else self.winner.label,
            "kind": str(self.kind),
            "points": self.points,
            "cube_value": self.cube_value,
            "ending": str(self.ending),
        }


# --- events ---------------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if isinstance(value, Side):
        return value.label
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Roll):
        return value.to_list()
    if isinstance(value, Play):
        return str(value)
    if isinstance(value, Position | GameResult | Continuation):
        return value.to_dict()
    return value


@dataclass(frozen=True)
class GameEvent:
    """One state change of a game; `to_dict()` gives its JSON form, named by `event`."""

    event: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        data = {"event": self.event}
        for f in dataclasses.fields(self):
            data[f.name] = _jsonable(getattr(self, f.name))
        return data


@dataclass(frozen=True)
class GameStarted(GameEvent):
    """A new game; `starter` is None when an opening throw will decide who starts."""

    event: ClassVar[str] = "game_started"
    starter: Side | None
    crawford: bool
    match_length: int


@dataclass(frozen=True)
class OpeningThrow(GameEvent):
    """One die each; `winner` is None on a tie, which is thrown again."""

    event: ClassVar[str] = "opening_throw"
    white_die: int
    black_die: int
    winner: Side | None


@dataclass(frozen=True)
class AutomaticDouble(GameEvent):
    """Equal opening dice doubled the stake; the cube stays in the middle."""

    event: ClassVar[str] = "automatic_double"
    cube_value: int


@dataclass(frozen=True)
class Rolled(GameEvent):
    event: ClassVar[str] = "rolled"
    side: Side
    roll: Roll


@dataclass(frozen=True)
class RollCorrected(GameEvent):
    """The dice thrown were misread: `side` is to play `roll`, not `read` (nothing played yet)."""

    event: ClassVar[str] = "roll_corrected"
    side: Side
    roll: Roll
    read: Roll


@dataclass(frozen=True)
class Played(GameEvent):
    """A finished turn. `play` is None for an illegal result the opponent accepted as played
    (RULES.md §2), whose steps are unknown."""

    event: ClassVar[str] = "played"
    side: Side
    roll: Roll
    play: Play | None
    position: Position
    legal: bool


@dataclass(frozen=True)
class Continued(GameEvent):
    """What follows a play when it is not the opponent's throw (RULES.md §4): the same side
    throws again or plays a ladder's next double, or a side plays moves owed to it."""

    event: ClassVar[str] = "continued"
    continuation: Continuation


@dataclass(frozen=True)
class LastRollGranted(GameEvent):
    """Long nardy with `last_roll_draw`: the first player finished, the other rolls once more."""

    event: ClassVar[str] = "last_roll_granted"
    side: Side


@dataclass(frozen=True)
class DoubleOffered(GameEvent):
    event: ClassVar[str] = "double_offered"
    side: Side
    value: int


@dataclass(frozen=True)
class Beavered(GameEvent):
    """The doubled side redoubled at once, keeping the cube; the doubler must now answer."""

    event: ClassVar[str] = "beavered"
    side: Side
    value: int


@dataclass(frozen=True)
class DoubleTaken(GameEvent):
    event: ClassVar[str] = "double_taken"
    side: Side
    value: int


@dataclass(frozen=True)
class DoubleDropped(GameEvent):
    event: ClassVar[str] = "double_dropped"
    side: Side
    value: int


@dataclass(frozen=True)
class Resigned(GameEvent):
    event: ClassVar[str] = "resigned"
    side: Side
    kind: ResultKind


@dataclass(frozen=True)
class GameOver(GameEvent):
    event: ClassVar[str] = "game_over"
    result: GameResult


# --- scoring --------------------------------------------------------------------------------------


def result_kind(position: Position, winner: Side, stakes: StakeRules | None = None) -> ResultKind:
    """What `winner` wins by on the final board, before the cube and the Jacoby rule."""
    loser = winner.other
    variant = position.variant
    if isinstance(variant, Khachapuri) and variant.checker_stake:
        return ResultKind.CHECKERS
    if position.off[loser]:
        return ResultKind.SINGLE if isinstance(variant, ShortNardy) else ResultKind.OIN
    in_first_quarter = any(position.points[loser][FIRST_QUARTER])
    if isinstance(variant, ShortNardy):
        if stakes is not None and stakes.home_mars and position.bar[loser]:
            return ResultKind.HOME_MARS
        if position.bar[loser] or in_first_quarter:
            return ResultKind.BACKGAMMON
        return ResultKind.GAMMON
    if isinstance(variant, LongNardy) and variant.koks and in_first_quarter:
        return ResultKind.KOKS
    return ResultKind.MARS


def result_points(position: Position, winner: Side, kind: ResultKind, cube_value: int) -> int:
    """Points `winner` scores by `kind` with the board at `position`: the kind's multiplier
    times the cube, and for khachapuri's CHECKERS times the loser's checkers not borne off."""
    units = CHECKERS_PER_SIDE - position.off[winner.other] if kind is ResultKind.CHECKERS else 1
    return kind.multiplier * cube_value * units


@dataclass(frozen=True)
class _Offer:
    """A double on offer: who doubled, the value offered, and whether it was beavered (then
    `value` is the beaver's value and the doubler must answer)."""

    doubler: Side
    value: int
    beavered: bool = False

    @property
    def responder(self) -> Side:
        return self.doubler if self.beavered else self.doubler.other


class Game:
    """One game of any variant, from the opening throw to its result.

    `starter` skips the opening throw (a later game of a match: RULES.md §2 `next_game_starter`).
    `position` starts the game from a set-up board instead, its side to move on roll (a position
    read from an XGID, a test); `starter` then names the side that moved first, by default the
    one on roll. `match_length` 0 is money play; `crawford` marks the Crawford game of a match
    (no doubling). `position.turn` is always the side on roll; `turn` is the side that must act.
    """

    def __init__(
        self,
        variant: Variant,
        *,
        stakes: StakeRules | None = None,
        match_length: int = 0,
        crawford: bool = False,
        starter: Side | None = None,
        position: Position | None = None,
    ) -> None:
        self.variant = variant
        self.stakes = StakeRules() if stakes is None else stakes
        if type(match_length) is not int or match_length < 0:
            raise InvalidOptionError(f"a match is played to 1 point or more, not {match_length}")
        if match_length and self.stakes.money_only:
            names = ", ".join(self.stakes.money_only)
            raise InvalidOptionError(f"{names}: money-play conventions, not for match play")
        if crawford and not match_length:
            raise InvalidOptionError("money play has no Crawford game")
        self.match_length = match_length
        self.crawford = crawford
        if position is not None:
            if position.variant != variant:
                raise InvalidOptionError("the position is of another variant than the game")
            position.validate()
            starter = position.turn if starter is None else starter
        elif starter is not None:
            position = variant.starting_position(starter)
        self.starter = starter
        self.position = variant.starting_position() if position is None else position
        self.phase = Phase.OPENING if starter is None else Phase.AWAITING_ROLL
        self.dice: Roll | None = None
        self.cube_value = 1
        self.cube_owner: Side | None = None
        self.offer: _Offer | None = None
        self.automatic_doubles = 0
        self.last_roll = False
        """True while the long-nardy last roll (`last_roll_draw`) is being thrown and played."""
        self.events: list[GameEvent] = []
        self._result: GameResult | None = None
        self._record(GameStarted(starter, crawford, match_length))

    # --- what stands ------------------------------------------------------------------------------

    @property
    def turn(self) -> Side | None:
        """The side that must act now; None during the opening throw and once finished."""
        if self.phase in (Phase.OPENING, Phase.FINISHED):
            return None
        if self.offer is not None:
            return self.offer.responder
        return self.position.turn

    @property
    def is_finished(self) -> bool:
        return self.phase is Phase.FINISHED

    def result(self) -> GameResult | None:
        """The result once the game is finished, else None."""
        return self._result

    def legal_plays(self) -> list[Play]:
        """The legal plays of the dice to play (one per distinct result)."""
        self._expect(Phase.AWAITING_PLAY, "list plays")
        assert self.dice is not None
        return self.position.legal_plays(self.dice)

    def may_double(self) -> bool:
        """Whether the side on roll may offer a double now."""
        return self._double_refusal() is None

    # --- actions ----------------------------------------------------------------------------------

    def opening_throw(self, white_die: int, black_die: int) -> tuple[GameEvent, ...]:
        """One die each: the higher starts; a tie is thrown again (RULES.md §2).

        With `opening_roll_is_first_move` the winner plays both dice as its first roll,
        otherwise it rolls afresh. Under automatic doubles a tie doubles the stake.
        """
        self._expect(Phase.OPENING, "throw for the first move")
        throw = Roll(white_die, black_die)  # checks both dice
        if white_die == black_die:
            events: list[GameEvent] = [self._record(OpeningThrow(white_die, black_die, None))]
            if (
                isinstance(self.variant, ShortNardy)
                and self.stakes.cube
                and self.automatic_doubles < self.stakes.automatic_doubles
                and self.cube_value * 2 <= self.stakes.max_cube
            ):
                self.automatic_doubles += 1
                self.cube_value *= 2
                events.append(self._record(AutomaticDouble(self.cube_value)))
            return tuple(events)
        winner = Side.WHITE if white_die > black_die else Side.BLACK
        self.starter = winner
        self.position = self.position.with_turn(winner)
        thrown = self._record(OpeningThrow(white_die, black_die, winner))
        if not self.variant.opening_roll_is_first_move:
            self.phase = Phase.AWAITING_ROLL
            return (thrown,)
        self.dice = throw if winner is Side.WHITE else Roll(black_die, white_die)
        self.phase = Phase.AWAITING_PLAY
        return (thrown, self._record(Rolled(winner, self.dice)))

    def roll(self, roll: Roll) -> tuple[GameEvent, ...]:
        """The side on roll threw `roll` (a double on offer must be answered first)."""
        self._expect(Phase.AWAITING_ROLL, "roll")
        self.dice = roll
        self.phase = Phase.AWAITING_PLAY
        return (self._record(Rolled(self.position.turn, roll)),)

    def correct_roll(self, roll: Roll) -> tuple[GameEvent, ...]:
        """The dice thrown were misread (a referee reading them by camera): `roll` is what
        they showed. Only a thrown roll not yet played is corrected: moves owed without a
        throw (RULES.md §4) are the rules' to say."""
        self._expect(Phase.AWAITING_PLAY, "correct the roll")
        read = self.dice
        if not isinstance(read, Roll) or not isinstance(self.events[-1], Rolled | RollCorrected):
            raise GameFlowError("only dice just thrown, not yet played, can be corrected")
        self.dice = roll
        return (self._record(RollCorrected(self.position.turn, roll, read)),)

    def play(self, move: Play | Position, *, accept_illegal: bool = False) -> tuple[GameEvent, ...]:
        """The side on roll played the dice: `move` is the play or the board it left.

        An illegal play raises IllegalPlayError carrying the judge's verdict, unless
        `accept_illegal`: the opponent accepted it as played (RULES.md §2), and then it stands
        if the board is a possible one. A roll with no legal move is played as `Play()` or the
        unchanged board. The dice (thrown, or moves owed) then go on as the variant's
        `after_play` says: to the opponent's throw, or a `Continued` event says what follows.
        """
        self._expect(Phase.AWAITING_PLAY, "play")
        assert self.dice is not None
        before, roll, side = self.position, self.dice, self.position.turn
        if isinstance(move, Play):
            try:
                after = before.play(move)
            except InvalidPlayError as error:
                raise IllegalPlayError(f"{move} cannot be played here: {error}") from None
        else:
            after = move.with_turn(side.other)
        verdict = judge(before, roll, after)
        if verdict.legal:
            play: Play | None = move if isinstance(move, Play) else verdict.closest[0].play
        elif accept_illegal:
            try:
                after.validate()
            except InvalidPositionError as error:
                raise IllegalPlayError(f"{error}; it cannot stand even if accepted") from None
            play = move if isinstance(move, Play) else None
        else:
            raise IllegalPlayError(verdict.message, verdict)
        if play is not None:
            then = self.variant.after_play(before, roll, play)
        elif after.off[side] == CHECKERS_PER_SIDE:
            then = Continuation(side, Next.GAME_OVER)
        else:
            then = Continuation(side.other, Next.THROW)  # steps unknown: see the module notes
        self.position = after
        self.dice = None
        events = [self._record(Played(side, roll, play, after, verdict.legal))]
        events.extend(self._after_turn(side, then))
        return tuple(events)

    def offer_double(self) -> tuple[GameEvent, ...]:
        """The side on roll doubles, before rolling (short nardy with the cube only)."""
        refusal = self._double_refusal()
        if refusal is not None:
            raise GameFlowError(refusal)
        self.offer = _Offer(self.position.turn, self.cube_value * 2)
        self.phase = Phase.AWAITING_CUBE_RESPONSE
        return (self._record(DoubleOffered(self.position.turn, self.offer.value)),)

    def take(self) -> tuple[GameEvent, ...]:
        """The answering side takes: the cube goes to the doubled side at the offered value (after
        a beaver the beaverer keeps it at the beaver's value); the doubler then rolls."""
        offer = self._expect_offer("take")
        self.cube_value = offer.value
        self.cube_owner = offer.doubler.other
        self.offer = None
        self.phase = Phase.AWAITING_ROLL
        return (self._record(DoubleTaken(offer.responder, offer.value)),)

    def drop(self) -> tuple[GameEvent, ...]:
        """The answering side passes and loses the stake standing before the (re)double."""
        offer = self._expect_offer("drop")
        stake = offer.value // 2
        self.offer = None
        dropped = self._record(DoubleDropped(offer.responder, offer.value))
        result = GameResult(offer.responder.other, ResultKind.SINGLE, stake, stake, Ending.DROPPED)
        return (dropped, self._finish(result))

    def beaver(self) -> tuple[GameEvent, ...]:
        """The doubled side redoubles at once and keeps the cube (stake rule `beaver`)."""
        offer = self._expect_offer("beaver")
        if not self.stakes.beaver:
            raise GameFlowError("beavers are not played in this game")
        if offer.beavered:
            raise GameFlowError("a beaver cannot be beavered again (raccoons are not played)")
        if offer.value * 2 > self.stakes.max_cube:
            raise GameFlowError(f"the cube goes no higher than {self.stakes.max_cube}")
        self.offer = _Offer(offer.doubler, offer.value * 2, beavered=True)
        return (self._record(Beavered(offer.doubler.other, self.offer.value)),)

    def resign(self, side: Side, kind: ResultKind | None = None) -> tuple[GameEvent, ...]:
        """`side` gives up the game, agreed by the opponent, conceding `kind` (single or oin by
        default) times the cube; the Jacoby rule applies as at the end of a game."""
        if self.phase in (Phase.OPENING, Phase.FINISHED):
            raise GameFlowError("only a game in progress can be resigned")
        allowed = self._kinds()
        kind = allowed[0] if kind is None else kind
        if kind not in allowed:
            raise GameFlowError(f"this game cannot be resigned as {kind}")
        self.offer = None
        resigned = self._record(Resigned(side, kind))
        return (resigned, self._finish(self._scored(side.other, kind, Ending.RESIGNED)))

    # --- the state for identifiers ----------------------------------------------------------------

    def match_state(self, scores: tuple[int, int] = (0, 0)) -> MatchState:
        """The game as a Match ID / XGID state, with `scores` (by Side) before this game."""
        state = {
            Phase.OPENING: GameState.NO_GAME,
            Phase.FINISHED: GameState.OVER,
        }.get(self.phase, GameState.PLAYING)
        if self._result is not None and self._result.ending is Ending.DROPPED:
            state = GameState.DROPPED
        elif self._result is not None and self._result.ending is Ending.RESIGNED:
            state = GameState.RESIGNED
        offer = self.offer
        return MatchState(
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            dice_owner=self.position.turn if offer is None else offer.doubler,
            crawford=self.crawford,
            game_state=state,
            turn=self.position.turn if self.turn is None else self.turn,
            double_offered=offer is not None,
            dice=self.dice,
            match_length=self.match_length,
            scores=scores,
            jacoby=self.stakes.jacoby,
            beaver=self.stakes.beaver,
            max_cube=self.stakes.max_cube,
        )

    # --- inner workings ---------------------------------------------------------------------------

    def _record(self, event: GameEvent) -> GameEvent:
        self.events.append(event)
        return event

    def _expect(self, phase: Phase, action: str) -> None:
        if self.phase is not phase:
            raise GameFlowError(f"cannot {action} now: the game is at {self.phase}, not {phase}")

    def _expect_offer(self, action: str) -> _Offer:
        self._expect(Phase.AWAITING_CUBE_RESPONSE, action)
        assert self.offer is not None
        return self.offer

    def _double_refusal(self) -> str | None:
        """Why the side on roll may not double now, or None when it may."""
        if not isinstance(self.variant, ShortNardy):
            return f"{self.variant.title} is played without a doubling cube"
        if not self.stakes.cube:
            return "this game is played without the doubling cube"
        if self.phase is not Phase.AWAITING_ROLL:
            return f"a double is offered before rolling, and the game is at {self.phase}"
        if self.crawford:
            return "no doubling in the Crawford game"
        mover = self.position.turn
        if self.cube_owner is not None and self.cube_owner is not mover:
            return f"only the cube's owner ({self.cube_owner.label}) may redouble"
        if self.cube_value * 2 > self.stakes.max_cube:
            return f"the cube goes no higher than {self.stakes.max_cube}"
        return None

    def _after_turn(self, side: Side, then: Continuation) -> list[GameEvent]:
        """End the game, or hand the dice on as `then` (what follows `side`'s play) says."""
        finished = then.kind is Next.GAME_OVER
        if self.last_roll:
            # The last roll was thrown by the second player after the first finished.
            if finished:
                return [self._finish(GameResult(None, ResultKind.DRAW, 0, 1, Ending.BORNE_OFF))]
            return [self._finish(self._scored(side.other, None, Ending.BORNE_OFF))]
        if not finished:
            self.position = self.position.with_turn(then.player)
            self.dice = then.owed
            self.phase = Phase.AWAITING_ROLL if then.owed is None else Phase.AWAITING_PLAY
            if then == Continuation(side.other, Next.THROW):
                return []
            return [self._record(Continued(then))]
        if (
            isinstance(self.variant, LongNardy)
            and self.variant.last_roll_draw
            and side is self.starter
        ):
            self.last_roll = True
            self.phase = Phase.AWAITING_ROLL
            return [self._record(LastRollGranted(side.other))]
        return [self._finish(self._scored(side, None, Ending.BORNE_OFF))]

    def _kinds(self) -> tuple[ResultKind, ...]:
        """The kinds a game of this variant and these stakes can be won by, least first."""
        if isinstance(self.variant, ShortNardy):
            home_mars = (ResultKind.HOME_MARS,) if self.stakes.home_mars else ()
            return (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON, *home_mars)
        if isinstance(self.variant, Khachapuri) and self.variant.checker_stake:
            return (ResultKind.CHECKERS,)
        koks = isinstance(self.variant, LongNardy) and self.variant.koks
        return (ResultKind.OIN, ResultKind.MARS, *((ResultKind.KOKS,) if koks else ()))

    def _scored(self, winner: Side, kind: ResultKind | None, ending: Ending) -> GameResult:
        """The result for `winner`: `kind` as conceded, or read from the board."""
        if kind is None:
            kind = result_kind(self.position, winner, self.stakes)
        jacoby = self.stakes.jacoby and not self.match_length and self.cube_owner is None
        if jacoby and kind in SHORT_KINDS:
            kind = ResultKind.SINGLE
        points = result_points(self.position, winner, kind, self.cube_value)
        return GameResult(winner, kind, points, self.cube_value, ending)

    def _finish(self, result: GameResult) -> GameEvent:
        self._result = result
        self.phase = Phase.FINISHED
        self.dice = None
        self.last_roll = False
        return self._record(GameOver(result))


__all__ = [
    "AutomaticDouble",
    "Beavered",
    "Continued",
    "DoubleDropped",
    "DoubleOffered",
    "DoubleTaken",
    "Ending",
    "Game",
    "GameEvent",
    "GameOver",
    "GameResult",
    "GameStarted",
    "LastRollGranted",
    "OpeningThrow",
    "Phase",
    "Played",
    "Resigned",
    "ResultKind",
    "RollCorrected",
    "Rolled",
    "StakeRules",
    "result_kind",
    "result_points",
]
