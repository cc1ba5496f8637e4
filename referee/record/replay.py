"""Replaying a match record through the rules core: every play must be a legal play of its roll
from the position reached, cube actions must follow the doubling rules, and each game's result
and the next game's score must agree with the board and the cube.

Replaying also completes the record: hit marks (`*`) are set from the board, not trusted from
the text; a play of moves owed without a throw (RULES.md §4: a ladder's next double, moves
passed over) is marked `ladder` or `passed` where the record leaves it unmarked (a mark the
record gives must be right); and a result whose kind the record does not state (a .mat "Wins"
line) learns whether the game was borne off, dropped or resigned.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from referee.record.errors import RecordReplayError
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
    move_numbers,
    other,
)
from referee.rules import Continuation, Next, Play, Position, Roll, Side, Step, Variant, judge
from referee.rules.errors import RulesError
from referee.rules.game import SHORT_KINDS, ResultKind, StakeRules, result_kind, result_points
from referee.rules.variants import LongNardy


@dataclass(frozen=True)
class ReplayedAction:
    """One action with the positions around it and the cube after it."""

    game: int
    move: int
    action: Action
    before: Position
    after: Position
    cube: int
    cube_owner: int | None
    legal: bool = True
    roll: Roll | None = None
    """The dice a move played: the roll thrown, or the moves owed (`OwedMoves`); None for a
    cube action."""


@dataclass(frozen=True)
class ReplayedGame:
    """A replayed game: the completed record, each action in context, the final position."""

    number: int
    game: Game
    actions: tuple[ReplayedAction, ...]
    final: Position
    cube: int
    cube_owner: int | None
    crawford: bool

    @property
    def finished(self) -> bool:
        return self.game.result is not None


@dataclass(frozen=True)
class ReplayedMatch:
    """A replayed match: the completed record and its games."""

    match: Match
    games: tuple[ReplayedGame, ...]

    @property
    def score(self) -> tuple[int, int]:
        """The score after the last finished game."""
        if not self.games:
            return (0, 0)
        last = self.games[-1]
        return _score_after(last.game) if last.finished else last.game.score

    @property
    def winner(self) -> int | None:
        """The match winner, once a player has reached the match length (None in money play)."""
        length = self.match.header.length
        score = self.score
        for player in (0, 1):
            if length and score[player] >= length:
                return player
        return None

    @property
    def moves(self) -> int:
        return sum(1 for g in self.games for a in g.actions if isinstance(a.action, Move))


def play_text(play: Play) -> str:
    """A play as a .mat file writes it: each step `from/to`, `*` on a hitting step, a space
    after each of the first three steps (GNU Backgammon's layout, trailing space included)."""
    return "".join(
        f"{step.start}/{step.end}{'*' if step.hit else ''}{' ' if index < 3 else ''}"
        for index, step in enumerate(play.steps)
    )


def action_text(action: Action) -> str:
    """An action as the cell of a .mat row writes it (without padding); owed moves (long-nardy
    text format only) are marked `ladder` or `passed` before their dice."""
    if isinstance(action, Move):
        owed = "" if action.owed is None else f"{action.owed} "
        return f"{owed}{action.dice[0]}{action.dice[1]}: {play_text(action.play)}"
    if isinstance(action, Double):
        return f" Doubles => {action.cube}"
    if isinstance(action, Beaver):
        return f" Beavers => {action.cube}"
    if isinstance(action, Take):
        return " Takes"
    return " Drops"


def bear_off_points(
    final: Position,
    winner: Side,
    cube: int,
    *,
    jacoby: bool = False,
    home_mars: bool = False,
) -> int:
    """Points for bearing off all checkers, scored by the rules core's `result_kind` and
    `result_points` (times the cube). With `jacoby` (money play, cube not turned) a gammon
    counts as a single game."""
    kind = result_kind(final, winner, StakeRules(home_mars=home_mars))
    if jacoby and kind in SHORT_KINDS:
        kind = ResultKind.SINGLE
    return result_points(final, winner, kind, cube)


def replay_match(match: Match, *, strict: bool = True, source: str | None = None) -> ReplayedMatch:
    """Replay every game of `match`; the first inconsistency raises RecordReplayError.

    With `strict` False an illegal play that can still be carried out on the board (one the
    opponent accepted at the table) is kept and marked `legal=False` instead of refused.
    """
    header = match.header
    variant = header.rules_variant()
    games: list[ReplayedGame] = []
    expected_score: tuple[int, int] | None = None
    crawford_games = crawford_flags(match)
    for number, game in enumerate(match.games, start=1):
        if games and not games[-1].finished:
            raise RecordReplayError(
                "the previous game has no result, so no game may follow it",
                game=number,
                source=source,
            )
        if expected_score is not None and game.score != expected_score:
            raise RecordReplayError(
                f"the score line says {game.score[0]}-{game.score[1]}, but the results so far "
                f"give {expected_score[0]}-{expected_score[1]}",
                game=number,
                source=source,
            )
        if header.length and max(game.score) >= header.length:
            raise RecordReplayError(
                f"the match to {header.length} was already over at {game.score[0]}-{game.score[1]}",
                game=number,
                source=source,
            )
        crawford = crawford_games[number - 1]
        replayed = _GameReplay(header, variant, number, game, crawford, strict, source).run()
        games.append(replayed)
        if replayed.game.result is not None:
            expected_score = _score_after(replayed.game)
    completed = dataclasses.replace(match, games=tuple(g.game for g in games))
    return ReplayedMatch(completed, tuple(games))


def crawford_flags(match: Match) -> list[bool]:
    """Whether each game is the Crawford game: as the record says (SGF), otherwise the first
    game in which a player needs one point to win, when the Crawford rule applies."""
    header = match.header
    flags = []
    seen = False
    for game in match.games:
        crawford = game.crawford
        if crawford is None:
            crawford = header.crawford_rule and not seen and max(game.score) == header.length - 1
        seen = seen or crawford
        flags.append(crawford)
    return flags


def _score_after(game: Game) -> tuple[int, int]:
    result = game.result
    if result is None or result.winner is None:
        return game.score
    score = list(game.score)
    score[result.winner] += result.points
    return (score[0], score[1])


@dataclass(frozen=True)
class _Offer:
    """A double on offer: who doubled and the value offered; after a beaver, the beaver's value,
    and the doubler answers."""

    doubler: int
    value: int
    beavered: bool = False

    @property
    def responder(self) -> int:
        return self.doubler if self.beavered else other(self.doubler)


class _GameReplay:
    """The state of one game while its actions are replayed."""

    def __init__(
        self,
        header: MatchHeader,
        variant: Variant,
        number: int,
        game: Game,
        crawford: bool,
        strict: bool,
        source: str | None,
    ) -> None:
        self.header = header
        self.variant = variant
        self.number = number
        self.game = game
        self.crawford = crawford
        self.strict = strict
        self.source = source
        self.cube = 1
        self.owner: int | None = None
        self.offer: _Offer | None = None  # a double waiting for take or drop
        self.on_turn: int | None = None  # who acts next; None before the first roll
        self.owed: Continuation | None = None  # moves `on_turn` owes, to play without a throw
        self.starter: int | None = None
        self.last_roll_for: int | None = None  # long nardy `last_roll_draw`: who has it
        self.outcome: Result | None = None  # set once the board or a drop ends the game
        self.position = variant.starting_position()
        self.move = 0
        self.text = ""

    def fail(self, reason: str) -> RecordReplayError:
        return RecordReplayError(
            reason, game=self.number, move=self.move or None, text=self.text, source=self.source
        )

    def run(self) -> ReplayedGame:
        done: list[ReplayedAction] = []
        actions: list[Action] = []
        numbers = move_numbers(self.game.actions)
        for action, (move, _) in zip(self.game.actions, numbers, strict=True):
            self.move, self.text = move, action_text(action)
            if self.outcome is not None:
                raise self.fail("an action after the game was over")
            if isinstance(action, Move) and self.on_turn is None and self.offer is None:
                # The opening roll: its player moves first, from the starting position.
                self.starter = action.player
                self.position = self.variant.starting_position(Side(action.player))
                self.on_turn = action.player
            before = self.position
            legal = True
            roll = None
            if isinstance(action, Move):
                action, roll, legal = self.roll_and_play(action)
            else:
                self.cube_action(action)
            actions.append(action)
            done.append(
                ReplayedAction(
                    self.number,
                    move,
                    action,
                    before,
                    self.position,
                    self.cube,
                    self.owner,
                    legal,
                    roll,
                )
            )
        self.move, self.text = 0, ""
        result = self.check_result()
        game = dataclasses.replace(self.game, actions=tuple(actions), result=result)
        return ReplayedGame(
            self.number, game, tuple(done), self.position, self.cube, self.owner, self.crawford
        )

    # --- actions --------------------------------------------------------------------------------

    def roll_and_play(self, action: Move) -> tuple[Move, Roll, bool]:
        player = action.player
        if self.offer is not None:
            raise self.fail("a roll while a double waits for take or drop")
        roll = self.dice_of(action)
        if player != self.on_turn:
            raise self.fail("it is the other player's turn")
        try:
            after = self.position.play(action.play)
        except RulesError as error:
            raise self.fail(f"cannot be played: {error}") from None
        legal = any(after.same_board(q) for q in self.position.legal_positions(roll))
        if not legal and (self.strict or not after.is_valid()):
            raise self.fail(judge(self.position, roll, after).message)
        owed = self.owed.kind if self.owed is not None else None
        action = dataclasses.replace(action, play=self.with_hits(action.play), owed=owed)
        then = self.variant.after_play(self.position, roll, action.play)
        self.position = after
        self.follow(player, then)
        return action, roll, legal

    def dice_of(self, action: Move) -> Roll:
        """The dice `action` plays: the moves owed, if any are (`action` shows their number,
        marked as owed or not), else the roll it threw."""
        owed = self.owed
        if owed is None:
            if action.owed is not None:
                raise self.fail(f"no {action.owed} moves are owed here: the dice are thrown")
            try:
                return action.roll
            except RulesError as error:
                raise self.fail(f"cannot be played: {error}") from None
        assert owed.owed is not None
        marked = action.owed in (None, owed.kind)
        if not marked or action.roll != Roll(owed.owed.die1, owed.owed.die2):
            what = "the ladder's" if owed.kind is Next.LADDER else "the passed moves'"
            raise self.fail(f"{what} {owed.owed.die1}{owed.owed.die2} must be played first")
        return owed.owed

    def with_hits(self, play: Play) -> Play:
        """`play` with each step's hit mark set from the board (a blot sent to the bar)."""
        position = self.position
        mover = position.turn
        steps = []
        for step in play.steps:
            after = self.variant.apply_steps(position, [step]).with_turn(mover)
            steps.append(
                Step(step.start, step.end, after.bar[mover.other] > position.bar[mover.other])
            )
            position = after
        return Play(tuple(steps))

    def follow(self, player: int, then: Continuation) -> None:
        """Hand the dice on as `then`, what follows `player`'s play, says; or end the game."""
        if self.last_roll_for == player:
            # The last roll allowed by `last_roll_draw` has been played, and it is the last
            # play whatever would follow it: a draw if it bore off the rest, otherwise the
            # first to finish wins.
            if then.kind is Next.GAME_OVER:
                self.outcome = Result(None, 0, End.DRAW)
            else:
                self.outcome = self.bear_off_result(other(player))
            return
        if then.kind is not Next.GAME_OVER:
            self.on_turn = int(then.player)
            self.owed = then if then.owed is not None else None
            self.position = self.position.with_turn(then.player)
            return
        if (
            isinstance(self.variant, LongNardy)
            and self.variant.last_roll_draw
            and player == self.starter
        ):
            self.last_roll_for = self.on_turn = other(player)
            return
        self.outcome = self.bear_off_result(player)

    def bear_off_result(self, winner: int) -> Result:
        header = self.header
        jacoby = header.length == 0 and bool(header.jacoby) and self.cube == 1
        points = bear_off_points(
            self.position,
            Side(winner),
            self.cube,
            jacoby=jacoby,
            home_mars=bool(header.home_mars),
        )
        return Result(winner, points, End.BEAR_OFF)

    def cube_action(self, action: Double | Take | Drop | Beaver) -> None:
        player = action.player
        if self.last_roll_for is not None:
            raise self.fail("no cube action during the last roll")
        if self.owed is not None:
            raise self.fail("no cube action while moves are owed without a throw")
        if isinstance(action, Double):
            if self.on_turn is None:
                raise self.fail("a double before the opening roll")
            if self.offer is not None:
                raise self.fail("a double while another waits for an answer")
            if player != self.on_turn:
                raise self.fail("only the player about to roll may double")
            if self.owner not in (None, player):
                raise self.fail("the cube belongs to the opponent")
            if self.crawford:
                raise self.fail("no doubling in the Crawford game")
            self.check_cube(action.cube, self.cube * 2)
            self.offer = _Offer(player, action.cube)
            return
        offer = self.offer
        if offer is None or player != offer.responder:
            raise self.fail(f"a {action.kind} without a double for this player to answer")
        if isinstance(action, Beaver):
            if offer.beavered:
                raise self.fail("a beaver cannot be beavered again")
            if self.header.length != 0 or self.header.beaver is False:
                raise self.fail("beavers are allowed only in money play with the beaver rule")
            self.check_cube(action.cube, offer.value * 2)
            # The doubled player redoubles keeping the cube; the doubler must answer.
            self.offer = _Offer(offer.doubler, action.cube, beavered=True)
            return
        self.offer = None
        if isinstance(action, Take):
            self.cube = offer.value
            self.owner = other(offer.doubler)
        else:
            self.outcome = Result(other(player), offer.value // 2, End.DROP)

    def check_cube(self, value: int, wanted: int) -> None:
        if value != wanted:
            raise self.fail(f"the cube goes to {wanted} here, not {value}")
        limit = self.header.cube_limit
        if limit is not None and value > limit:
            raise self.fail(f"the cube limit is {limit}")

    # --- the end --------------------------------------------------------------------------------

    def check_result(self) -> Result | None:
        recorded = self.game.result
        outcome = self.outcome
        if recorded is None:
            # Still being played, or a finished board completing a record without a result.
            return outcome
        if outcome is not None:
            if recorded.end not in (None, outcome.end):
                raise self.fail(
                    f"the record says the game ended by {recorded.end}, but it "
                    f"ended by {outcome.end}"
                )
            if (recorded.winner, recorded.points) != (outcome.winner, outcome.points):
                said = _describe(recorded, self.header.players)
                board = _describe(outcome, self.header.players)
                raise self.fail(f"the record says {said}, but the board and cube give {board}")
            return outcome
        # The board did not finish and nobody dropped: the loser resigned.
        if recorded.end not in (None, End.RESIGN) or recorded.winner is None:
            said = _describe(recorded, self.header.players)
            raise self.fail(f"the record says {said}, but the game is not over on the board")
        winner = Side(recorded.winner)
        if result_kind(self.position, winner) is ResultKind.CHECKERS:
            # Khachapuri's stake: the loser's checkers still on the board.
            owed = result_points(self.position, winner, ResultKind.CHECKERS, self.cube)
            if recorded.points != owed:
                raise self.fail(
                    f"a resignation is worth a point per checker not borne off ({owed}), "
                    f"not {recorded.points} points"
                )
            return Result(recorded.winner, recorded.points, End.RESIGN)
        most = 4 if self.header.home_mars else 3
        if recorded.points not in [k * self.cube for k in range(1, most + 1)]:
            raise self.fail(
                f"a resignation is worth 1 to {most} times the cube ({self.cube}), "
                f"not {recorded.points} points"
            )
        return Result(recorded.winner, recorded.points, End.RESIGN)


def _describe(result: Result, players: tuple[str, str]) -> str:
    if result.winner is None:
        return "a draw"
    points = f"{result.points} point{'s' if result.points != 1 else ''}"
    return f"{players[result.winner]} wins {points}"
