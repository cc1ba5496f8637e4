"""The live session: a state machine that follows a real game from what the camera sees.

It is fed settled observations (`observe`), the players' buttons (`decide`) and the camera's
troubles (`source_lost`, `source_back`, `frame_skipped`), and answers each with the
`SessionEvent`s that happened. Every event is shown on the signal sink the moment it happens,
and journaled first: what the match record needs, and beside it every verdict that is more
than a throw or a play standing (void, unreadable or early throws, illegal or unsure moves) and
every incident (the camera lost and back, skipped frames counted), so the journal tells the
whole story (RULES.md §2 as the table lives it):

1. Opening: each player throws one die into their right-hand half; the higher starts, a tie
   is thrown again. With `opening_roll_is_first_move` the winner plays both numbers.
2. A throw is judged as soon as the dice rest: valid, or void and why (throw again).
3. The move is made (hands over the board are waited out); it is finished when the roller
   picks up the dice. A throw before that does not count and is flagged.
4. The finished move is read through the rules (`interpret`): legal (green), illegal (red,
   with reasons and the closest legal plays) or unsure (amber: the players are asked).
5. An illegal move waits for the opponent: ACCEPT keeps it as played, DEMAND asks for a
   correct move; the opponent's next throw (or double) accepts it too. An unsure move stands
   as the likeliest legal play once confirmed (ACCEPT or the next throw), or is read again.
6. The game ends when a side has borne off; the score follows the game module (cube, mars,
   match score, Crawford), and the next game starts with NEW GAME or when the board is set up.
7. In the long-nardy variants of RULES.md §4 a move that stands may be followed by more than
   the opponent's throw, as the variant's `after_play` says (the game module follows it): the
   mover throws again (gulbar), or moves are owed without a throw, a doubles ladder's next
   double or moves the other side could not play. Owed moves are played like a throw, with
   the dice set down by hand to show them (no throw rules apply; journaled like a throw) and
   picked up at the end;
   owed moves nobody can play are lost at once. The referee says what is owed, and in
   teaching mode where the owed moves can go. New dice after a disputed or unsure move accept
   it only when the opponent is the next to act.

The persistent state (the match, the game, whose turn, the roll in play, an illegal play
awaiting the opponent) changes only through journal events applied by `apply`, so replaying a
journal rebuilds it exactly (`Session.resume`). What the session only perceives (which dice
lie on the board, readings awaiting confirmation) starts afresh after a resume: the board is
simply looked at again.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from referee.record import (
    Continued,
    DiceSet,
    DisputeDecided,
    DoubleDropped,
    DoubleOffered,
    DoubleTaken,
    End,
    GameStarted,
    GameWon,
    IncidentNoted,
    IncidentType,
    JournalState,
    MatchHeader,
    MatchOver,
    MatchStarted,
    OpeningThrow,
    PlayMade,
    RollCorrected,
    RollThrown,
    VerdictGiven,
    VerdictType,
)
from referee.record import Event as JournalEvent
from referee.rules import (
    Continuation,
    Ending,
    Game,
    GameResult,
    LongNardy,
    Match,
    Next,
    OwedMoves,
    Play,
    Position,
    Roll,
    Side,
    StakeRules,
    Variant,
    judge,
)
from referee.rules import Phase as GamePhase
from referee.rules.game import Continued as GameContinued
from referee.session.config import SessionConfig
from referee.session.events import EventKind, SessionEvent
from referee.session.interpret import (
    Interpretation,
    Outcome,
    Place,
    interpret,
    misfits,
    play_between,
    play_text,
)
from referee.session.observation import BoardObservation, Observation, SceneState
from referee.session.throws import (
    FAULT_TEXT,
    ThrowFault,
    ThrowReading,
    ranked,
    read_opening_throw,
    read_placed_dice,
    read_throw,
)
from referee.signals import Decision, Indication, Kind, physical_point

logger = logging.getLogger(__name__)

EARLY_THROW = "early_throw"
"""The reason a journal gives for a throw made before the mover picked up the dice."""

NOT_OWED_DICE = "not_owed_dice"
"""The reason a journal gives for dice set down that do not show the moves owed."""

SKIPPED_FRAMES_EVERY_S = 60.0
"""While frames keep being skipped, their count is journaled at most this often (seconds)."""


class Phase(enum.StrEnum):
    """Where the session stands: what it waits for."""

    OPENING = "opening"
    """The opening throw: one die each."""
    AWAIT_THROW = "await_throw"
    """The side on roll throws (or, in short nardy, may double first)."""
    MOVING = "moving"
    """The roll is being played; ends when the dice are picked up."""
    OWED = "owed"
    """Moves are owed without a throw (a ladder's next double, moves passed over); their player
    sets two dice to show them, and then plays them as in MOVING."""
    UNSURE = "unsure"
    """The finished move could not be read with confidence; the players are asked."""
    DISPUTE = "dispute"
    """An illegal move is reported; the opponent accepts it or demands a correct one."""
    CORRECTION = "correction"
    """A correct move is due (demanded, or the mover is putting it right)."""
    CUBE_OFFERED = "cube_offered"
    """A double waits for take (ACCEPT, or the cube taken) or drop (DEMAND)."""
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"


POST_MOVE = (Phase.UNSURE, Phase.DISPUTE, Phase.CORRECTION)
"""Phases after the dice were picked up, before the move stands."""


class JournalSink(Protocol):
    """Where journal events go (`referee.record.Journal`), synced before `append` returns."""

    def append(self, event: JournalEvent) -> object: ...


class IndicationSink(Protocol):
    """Where indications go (`referee.signals.SignalHub`)."""

    def show(self, indication: Indication) -> None: ...


END_OF = {
    Ending.BORNE_OFF: End.BEAR_OFF,
    Ending.DROPPED: End.DROP,
    Ending.RESIGNED: End.RESIGN,
}


def stakes_of(header: MatchHeader) -> StakeRules:
    """The cube conventions a match header states (defaults where it is silent)."""
    return StakeRules(
        beaver=bool(header.beaver),
        jacoby=bool(header.jacoby),
        home_mars=bool(header.home_mars),
        max_cube=header.cube_limit or 64,
    )


class Session:
    """Follows one match at the table. Build it with `Session.new` or `Session.resume`.

    Players are numbered as the match record numbers them: player 0 plays White, player 1
    Black (under `next_game_starter = "previous_black"` the colours still map to players so).
    """

    def __init__(
        self,
        header: MatchHeader,
        *,
        config: SessionConfig | None = None,
        journal: JournalSink | None = None,
        signals: IndicationSink | None = None,
        teach: bool = False,
        on_event: Callable[[SessionEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.header = header
        self.variant: Variant = header.rules_variant()
        self.config = SessionConfig() if config is None else config
        self.journal = journal
        self.signals = signals
        self.teach = teach
        self.on_event = on_event
        self.clock = clock
        """Seconds, for how long the camera was lost and how often skipped frames are counted."""
        self.match = Match(
            self.variant, header.length, stakes=stakes_of(header), crawford=header.crawford_rule
        )
        self.phase = Phase.GAME_OVER
        self.pending_play: Play | None = None
        """The illegal play awaiting the opponent's decision (DISPUTE)."""
        self.frames_skipped = 0
        self.source_ok = True
        self._lost_at = 0.0  # when frames stopped (the clock's time)
        self._skipped_unjournaled = 0  # frames skipped since the last frames_skipped line
        self._skipped_journaled_at: float | None = None
        self._skip_reason = ""  # why the latest frame was skipped
        self.shown: Indication | None = None
        """What the table shows now (the last indication sent to the signals)."""
        # What is only perceived, never journaled:
        self._lying: tuple[Any, ...] | None = None  # the dice that lie on the board, judged
        self._saw_rolling = False
        self._early_flagged = False
        # The rolls an unsure throw lying on the board may show (`ThrowReading.rolls`): the
        # move played, once the dice are picked up, may tell which it was.
        self._unsure_rolls: tuple[tuple[Roll, float], ...] = ()
        # Or the roll of a throw called void (its fault here), in case the players overrule
        # the call and play it: the move played tells that too.
        self._void_fault = ""
        # Those rolls again once the move played showed none of them: the next throw tells
        # whether the mover set the dice down again or the opponent threw.
        self._unexplained: tuple[tuple[Roll, float], ...] = ()
        # The rolls a throw read for sure may show, until its move stands: a move that is no
        # legal play of the roll read may show a die misread (`_misread_roll`).
        self._throw_rolls: tuple[tuple[Roll, float], ...] = ()
        # While the players are asked whether the dice were misread (`_current` then reads the
        # move as a legal play of another roll, which accepting it takes): the move read as a
        # play of the roll read, which a demand for a correct play of that roll keeps.
        self._misread: Interpretation | None = None
        self._current: Interpretation | None = None  # the latest reading of a finished move
        # The board as read when the position last stood (the move judged legal on it, else
        # the first throw after it): `interpret`'s `as_before`, so that a place misread the
        # same way before and after a move is no sign that the move changed it. None until
        # then (a new game, a resumed one).
        self._as_before: BoardObservation | None = None
        self._steady_told: tuple[Place, ...] = ()  # the steady misreads last told of
        self._judged_key: tuple[Any, ...] | None = None
        self._candidate_key: tuple[Any, ...] | None = None
        self._settled = 0
        self._time = 0.0
        self._out: list[SessionEvent] = []
        self._journaled: list[JournalEvent] = []
        self._last_game_indication: Indication | None = None

    # --- construction ----------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        header: MatchHeader,
        *,
        config: SessionConfig | None = None,
        journal: JournalSink | None = None,
        signals: IndicationSink | None = None,
        teach: bool = False,
        on_event: Callable[[SessionEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> Session:
        """A session for a new match; the journal, if any, already holds its `match_started`
        (as `Journal.create` writes it). The first game starts at once."""
        session = cls(
            header,
            config=config,
            journal=journal,
            signals=signals,
            teach=teach,
            on_event=on_event,
            clock=clock,
        )
        session.apply(MatchStarted(header))
        session._start_game()
        session._flush()
        return session

    @classmethod
    def resume(
        cls,
        state: JournalState,
        *,
        config: SessionConfig | None = None,
        journal: JournalSink | None = None,
        signals: IndicationSink | None = None,
        teach: bool = False,
        on_event: Callable[[SessionEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> Session:
        """Carry on from a journal (`Journal.resume` gives the state and the open journal):
        its events are applied in order, then the table is shown where the game stands."""
        session = cls(
            state.match.header,
            config=config,
            journal=journal,
            signals=signals,
            teach=teach,
            on_event=on_event,
            clock=clock,
        )
        for entry in state.entries:
            session.apply(entry.event)
        if session._owed_unplayable():
            # The power failed before the referee recorded these moves lost.
            session._lose_owed()
        message = f"resumed from the journal ({len(state.entries)} events): {session.status()}"
        session._emit(EventKind.RESUMED, message, indication=session.status_indication())
        session._flush()
        return session

    # --- what stands -----------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        game = self.match.current_game
        assert game is not None, "no game has started"
        return game

    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def roll(self) -> Roll | None:
        """The roll being played, if any."""
        return self.game.dice

    @property
    def scores(self) -> tuple[int, int]:
        """Points of player 0 (White) and player 1 (Black) in finished games."""
        return self.match.scores

    def status(self) -> str:
        """One sentence saying what the session waits for."""
        phase = self.phase
        if phase is Phase.OPENING:
            return "opening throw: one die each, into your right-hand half"
        if phase is Phase.MATCH_OVER:
            return f"the match is over, {self._score_text()}"
        if phase is Phase.GAME_OVER:
            return f"game over, {self._score_text()}: press NEW GAME or set up the board"
        side = self.position.turn.label
        roll = self.roll
        if phase is Phase.OWED:
            assert isinstance(roll, OwedMoves)
            number = f"{roll.die1}-{roll.die1}"
            return f"{side} to play {_owed_text(roll)}, without throwing: set the dice to {number}"
        if phase is Phase.UNSURE and self._misread is not None and self._current is not None:
            played = self._current.roll
            return f"please check {side}'s dice: {roll} as read, or {played} as played"
        return {
            Phase.AWAIT_THROW: f"{side} to throw",
            Phase.MOVING: f"{side} to play {roll}",
            Phase.UNSURE: f"please check {side}'s move of {roll}",
            Phase.DISPUTE: f"{side}'s move of {roll} is illegal: accept it or demand a correction",
            Phase.CORRECTION: f"{side} to correct the move of {roll}",
            Phase.CUBE_OFFERED: "a double is offered: take or drop",
        }[phase]

    def status_indication(self) -> Indication:
        """What the table shows for the state alone (after a resume, or the camera's return)."""
        kind = {
            Phase.DISPUTE: Kind.ILLEGAL,
            Phase.CORRECTION: Kind.ILLEGAL,
            Phase.UNSURE: Kind.UNSURE,
            Phase.GAME_OVER: Kind.GAME_OVER,
            Phase.MATCH_OVER: Kind.GAME_OVER,
        }.get(self.phase, Kind.WAITING)
        return Indication(kind, self.status())

    # --- the journal's events: the only way the persistent state changes -------------------------

    def apply(self, event: JournalEvent) -> None:
        """Change the state as `event` says; replaying a journal through this rebuilds it."""
        if isinstance(event, MatchStarted):
            self.phase = Phase.GAME_OVER
        elif isinstance(event, GameStarted):
            game = self.match.new_game()
            self.phase = Phase.OPENING if game.phase is GamePhase.OPENING else Phase.AWAIT_THROW
        elif isinstance(event, OpeningThrow):
            white, black = event.dice
            self.game.opening_throw(white, black)
            self.phase = {
                GamePhase.OPENING: Phase.OPENING,
                GamePhase.AWAITING_PLAY: Phase.MOVING,
            }.get(self.game.phase, Phase.AWAIT_THROW)
        elif isinstance(event, RollThrown):
            if event.valid and event.dice is not None:
                self.game.roll(Roll(*event.dice))
                self.phase = Phase.MOVING
        elif isinstance(event, RollCorrected):
            self.game.correct_roll(Roll(*event.dice))
        elif isinstance(event, DiceSet):
            self.phase = Phase.MOVING  # the owed moves are the game's dice already
        elif isinstance(event, PlayMade):
            if event.legal:
                self.game.play(event.play)
                self._after_play()
            else:
                self.pending_play = event.play
                self.phase = Phase.DISPUTE
        elif isinstance(event, DisputeDecided):
            play, self.pending_play = self.pending_play, None
            if event.accepted:
                assert play is not None, "an accepted dispute without an illegal play"
                # As played, steps and all: what follows it depends on them (RULES.md §4).
                self.game.play(play, accept_illegal=True)
                self._after_play()
            else:
                self.phase = Phase.CORRECTION
        elif isinstance(event, DoubleOffered):
            self.game.offer_double()
            self.phase = Phase.CUBE_OFFERED
        elif isinstance(event, DoubleTaken):
            self.game.take()
            self.phase = Phase.AWAIT_THROW
        elif isinstance(event, DoubleDropped):
            self.game.drop()
            self.phase = Phase.GAME_OVER
        elif isinstance(event, GameWon):
            self.phase = Phase.GAME_OVER
        elif isinstance(event, MatchOver):
            self.phase = Phase.MATCH_OVER
        # Continued (the game derived it from the play already), Resumed, the referee's
        # verdicts and incidents, and anything else, change nothing.

    def _after_play(self) -> None:
        if self.game.is_finished:
            self.phase = Phase.GAME_OVER
        elif self.game.phase is GamePhase.AWAITING_PLAY:
            self.phase = Phase.OWED
        else:
            self.phase = Phase.AWAIT_THROW

    # --- inputs ----------------------------------------------------------------------------------

    def observe(self, observation: Observation) -> list[SessionEvent]:
        """Take in what vision saw in one frame; the events it caused."""
        self._time = observation.time
        if not observation.is_settled:
            if observation.dice.rolling:
                self._saw_rolling = True
            return self._flush()
        board = observation.board
        assert board is not None  # a settled observation always carries the board
        if self.phase is Phase.OPENING:
            self._opening(observation)
        elif self.phase is Phase.AWAIT_THROW:
            self._await_throw(observation, board)
        elif self.phase is Phase.OWED:
            self._owed(observation)
        elif self.phase is Phase.MOVING:
            self._moving(observation, board)
        elif self.phase in POST_MOVE:
            self._post_move(observation, board)
        elif self.phase is Phase.CUBE_OFFERED:
            self._cube_offered(board)
        elif self.phase is Phase.GAME_OVER:
            self._game_over(observation, board)
        if observation.scene is SceneState.NO_DICE:
            self._lying = None
            self._saw_rolling = False
        return self._flush()

    def decide(self, decision: Decision, time: float | None = None) -> list[SessionEvent]:
        """Take in a player's button; the events it caused."""
        if time is not None:
            self._time = time
        if decision is Decision.ACCEPT:
            if self.phase in POST_MOVE:
                self._accept(how="accepted by the opponent")
            elif self.phase is Phase.CUBE_OFFERED:
                self._take()
            else:
                self._notice("ACCEPT means nothing now: " + self.status())
        elif decision is Decision.DEMAND:
            if self.phase is Phase.DISPUTE:
                self._journal(DisputeDecided(self._player(self.position.turn.other), False))
                self._emit_correction_demanded()
            elif self.phase is Phase.UNSURE:
                # A correct play of the roll as read is demanded, even where the players were
                # asked whether the dice were misread: the move stands as a play of that roll.
                self.phase = Phase.CORRECTION
                if self._misread is not None:
                    self._current = self._misread
                self._throw_rolls, self._misread = (), None
                self._emit_correction_demanded()
            elif self.phase is Phase.CUBE_OFFERED:
                self._drop()
            else:
                self._notice("DEMAND means nothing now: " + self.status())
        elif decision is Decision.NEW_GAME:
            if self.phase is Phase.GAME_OVER:
                self._start_game()
            else:
                self._notice("a game is in progress: " + self.status())
        return self._flush()

    def source_lost(self, reason: str, time: float | None = None) -> list[SessionEvent]:
        """The camera gives no frames: wait, say so, lose nothing."""
        if time is not None:
            self._time = time
        if self.source_ok:
            self.source_ok = False
            self._lost_at = self.clock()
            logger.warning("frames stopped: %s", reason)
            self._journal_skipped_frames()  # the count so far, before the story moves on
            self._journal(IncidentNoted(IncidentType.SOURCE_LOST, reason))
            self._emit(
                EventKind.SOURCE_LOST,
                f"{reason}; waiting for the camera (nothing is lost)",
                indication=Indication(Kind.WAITING, f"camera: {reason}; waiting"),
            )
        return self._flush()

    def source_back(self, time: float | None = None) -> list[SessionEvent]:
        """Frames come again: carry on where the game stood."""
        if time is not None:
            self._time = time
        if not self.source_ok:
            self.source_ok = True
            lost_s = round(self.clock() - self._lost_at, 1)
            logger.info("frames are back after %.1f s", lost_s)
            message = f"camera back after {lost_s:.1f} s: {self.status()}"
            self._journal(IncidentNoted(IncidentType.SOURCE_BACK, message, seconds=lost_s))
            self._emit(
                EventKind.SOURCE_BACK,
                message,
                indication=self._last_game_indication or self.status_indication(),
            )
        return self._flush()

    def frame_skipped(self, reason: str, time: float | None = None) -> list[SessionEvent]:
        """A frame that could not be used: skipped and counted (journaled as a count now and
        then, see `_journal_skipped_frames`)."""
        if time is not None:
            self._time = time
        self.frames_skipped += 1
        self._skipped_unjournaled += 1
        self._skip_reason = reason
        logger.info("frame skipped (%d so far): %s", self.frames_skipped, reason)
        last = self._skipped_journaled_at
        if last is None or self.clock() - last >= SKIPPED_FRAMES_EVERY_S:
            self._journal_skipped_frames()
        self._emit(EventKind.FRAME_SKIPPED, f"frame skipped ({self.frames_skipped}): {reason}")
        return self._flush()

    def finish(self) -> None:
        """The watch ends (the video is over, the program is stopped): whatever is only
        counted so far (frames skipped since the last count) is journaled now."""
        self._journal_skipped_frames()

    def _journal_skipped_frames(self) -> None:
        """Journal how many frames were skipped since the last count, if any were. Called at
        a skipped frame at most once a minute (and when frames stop), so a flaky camera costs
        the journal a line a minute, not one a frame."""
        if not self._skipped_unjournaled:
            return
        self._journal(
            IncidentNoted(
                IncidentType.FRAMES_SKIPPED,
                self._skip_reason,
                frames=self._skipped_unjournaled,
                total=self.frames_skipped,
            )
        )
        self._skipped_unjournaled = 0
        self._skipped_journaled_at = self.clock()

    # --- phases ----------------------------------------------------------------------------------

    def _opening(self, observation: Observation) -> None:
        if observation.scene is SceneState.NO_DICE:
            self._caught_rolling(None)
            return
        dice = observation.dice
        key = dice.key()
        if key == self._lying or (len(dice) < 2 and all(d.on_board for d in dice.dice)):
            return  # already judged, or the second player has not thrown yet
        self._lying = key
        self._saw_rolling = False
        self._saw_standing(observation.board)
        reading = read_opening_throw(dice, self.config)
        if reading.unsure:
            self._throw_unsure(None, reading)
        elif reading.faults:
            reasons = [str(fault) for fault in reading.faults]
            self._throw_void(None, reading.message, reasons, reading.dice, reading)
        else:
            white, black = reading.dice
            self._journal(OpeningThrow((white, black)))
            if white == black:
                message = f"opening throw {white}-{black}: a tie, throw again"
                indication = Indication(Kind.RETHROW, message)
            else:
                winner = Side.WHITE if white > black else Side.BLACK
                message = f"opening throw: white {white}, black {black}: {winner.label} starts"
                if self.phase is Phase.MOVING:
                    message += f" and plays {self.roll}"
                    self._throw_rolls = reading.rolls  # as for any throw read for sure
                indication = self._waiting(message)
            self._emit(EventKind.OPENING_THROW, message, throw=reading, indication=indication)

    def _await_throw(self, observation: Observation, board: BoardObservation) -> None:
        side = self.position.turn
        if self._double_seen(board):
            return
        if observation.scene is SceneState.NO_DICE:
            if self._unsure_rolls and misfits(board, self.position, self._as_before):
                self._roll_from_move(board)
            else:
                self._caught_rolling(side)
            return
        key = observation.dice.key()
        if key == self._lying:
            return
        self._lying = key
        self._saw_rolling = False
        reading = read_throw(observation.dice, side, self.variant, self.config)
        if self._opponent_took_over(reading, board):
            # The throw is the opponent's (or the mover's next, where the variant says so):
            # judged afresh as such.
            self._lying = None
            self._dice_for_next(observation, board)
            return
        self._saw_standing(board)
        self._unexplained, self._throw_rolls = (), ()
        self._unsure_rolls, self._void_fault = (reading.rolls if reading.unsure else ()), ""
        player = self._player(side)
        if reading.unsure:
            self._throw_unsure(side, reading)
        elif reading.faults:
            dice = reading.dice if len(reading.dice) == 2 else None
            reasons = [str(fault) for fault in reading.faults]
            self._journal(RollThrown(player, _pair(dice), False, ",".join(reasons)))
            if dice is not None:
                self._unsure_rolls, self._void_fault = ((Roll(*dice), 1.0),), reasons[0]
            message = f"{side.label}: {reading.message}"
            self._throw_void(side, message, reasons, reading.dice, reading)
        else:
            roll = reading.roll
            self._throw_rolls = reading.rolls
            self._play_begins(
                side,
                RollThrown(player, (roll.die1, roll.die2)),
                roll,
                f"{side.label} threw {roll}: play it",
                reading.confidence,
                reading,
            )

    def _dice_for_next(self, observation: Observation, board: BoardObservation) -> bool:
        """Once a move stood, the dice lying are judged for whoever acts next: a throw, or
        owed moves set down. False when nobody is to throw or set dice down now."""
        if self.phase is Phase.AWAIT_THROW:
            self._await_throw(observation, board)
        elif self.phase is Phase.OWED:
            self._owed(observation)
        else:
            return False
        return True

    def _roll_from_move(self, board: BoardObservation) -> None:
        """After a throw read unsure, the dice were picked up and checkers moved: the roll is
        the one whose legal play explains the board, when that is sure enough. After a throw
        called void, likewise with its roll alone: the players overruled the call (a camera
        can see a flat die cocked) and played it, and the referee follows the game.

        Each possible roll `r` (with the reader's probability `p(r)`) is weighed by `p(r)`
        where the board is clearly a legal play of `r` (`interpret` says LEGAL), against an
        illegal play of the likeliest roll at `p(r) * illegal_prior`; a roll with at least
        `verdict_confidence` of that weight is taken and its move judged. Else, after an
        unsure throw, a move that is clearly illegal whatever the dice show is judged so at
        once (`_judged_illegal_whatever_the_roll`): the buzzer does not wait on the dice.
        Otherwise the players are still asked: the referee does not judge a move of a roll it
        cannot read.
        """
        rolls, self._unsure_rolls = self._unsure_rolls, ()
        side = self.position.turn
        void = self._void_fault
        illegal = rolls[0][1] * self.config.illegal_prior
        # A roll less likely than the illegal hypothesis can never reach verdict_confidence
        # (which is at least one half): such rolls are not worth a reading.
        readings = {roll: self._interpret(roll, board) for roll, prior in rolls if prior >= illegal}
        explained = [
            (prior, roll)
            for roll, prior in rolls
            if roll in readings and readings[roll].outcome is Outcome.LEGAL
        ]
        total = sum(prior for prior, _ in explained) + illegal
        prior, roll = max(explained, key=lambda item: item[0], default=(0.0, None))
        if roll is None or prior < self.config.verdict_confidence * total:
            if not void and self._judged_illegal_whatever_the_roll(
                side, rolls, illegal, readings, board
            ):
                return
            self._unexplained = rolls
            if void:
                self._notice(
                    f"{side.label} moved after a throw called void ({void}), and the move is "
                    f"no play of it: {self.status()}"
                )
            else:
                self._notice(
                    f"{side.label} moved, but the dice were not read and the move does not "
                    "show the roll: please set the dice down again as thrown"
                )
            return
        how = f"played though called void ({void})" if void else "read from the move played"
        self._play_begins(
            side,
            RollThrown(self._player(side), (roll.die1, roll.die2)),
            roll,
            f"{side.label} threw {roll} ({how})",
            prior / total,
        )
        self._judge_move(board)

    def _judged_illegal_whatever_the_roll(
        self,
        side: Side,
        rolls: tuple[tuple[Roll, float], ...],
        illegal: float,
        readings: dict[Roll, Interpretation],
        board: BoardObservation,
    ) -> bool:
        """After an unsure throw that no likely roll's legal play explains: judge the move
        illegal, as a play of the likeliest roll, when that is sure enough over every roll the
        dice may show (`rolls`, likeliest first; `readings`, the interpretations made so far).

        As in `_roll_from_move`, the illegal hypothesis weighs `illegal` (`p(r0) *
        illegal_prior`); against it weighs every roll the board is not clearly an illegal play
        of (LEGAL or UNSURE), at its probability, however unlikely: so a legal play of a roll
        the reader all but ruled out still holds the buzzer back. A board that cannot stand as
        played (the opponent's checkers read moved too) is not judged so: with the dice unread
        as well, a misread board is as likely as a foul.
        """
        roll = rolls[0][0]
        if _recordable(self.position, readings[roll].observed) is None:
            return False
        doubt = 0.0
        for other, prior in rolls:
            reading = readings.get(other) or self._interpret(other, board)
            if reading.outcome is not Outcome.ILLEGAL:
                doubt += prior
                # The doubt only grows: once it holds the buzzer back, no other roll matters.
                if illegal < self.config.verdict_confidence * (illegal + doubt):
                    return False
        confidence = illegal / (illegal + doubt)
        # The likeliest roll outweighs the doubt, so the board is clearly an illegal play of it.
        self._play_begins(
            side,
            RollThrown(self._player(side), (roll.die1, roll.die2)),
            roll,
            f"{side.label} threw {roll} or another roll the dice may show (not read for "
            "sure); the move is no legal play of any of them",
            confidence,
        )
        self._judge_move(board)
        return True

    def _saw_standing(self, board: BoardObservation | None) -> None:
        """`board` shows the position: a move judged legal on it, or dice thrown (or set down)
        on it. The first such board since the position stood is kept as `as_before` until
        the next move stands; later ones may show that move already made (the mover's dice
        set down again after an unread move)."""
        if self._as_before is None:
            self._as_before = board

    def _tell_steady_misreads(self, places: tuple[Place, ...]) -> None:
        """A move stood though the camera read `places` otherwise than the game has them, the
        same way as before the move (`as_before`): told once per set of places, so that
        someone looks at the light or the camera there."""
        if places and places != self._steady_told:
            names = ", ".join(str(place) for place in places)
            self._notice(
                f"the camera keeps reading {names} otherwise than the game has it; the referee "
                "reads around it, but check the light and the camera there"
            )
            self._steady_told = places

    def _interpret(self, roll: Roll | OwedMoves, board: BoardObservation) -> Interpretation:
        """Which play of `roll` from the position `board` shows (`interpret`)."""
        return interpret(self.position, roll, board, self.config, self._as_before)

    def _opponent_took_over(self, reading: ThrowReading, board: BoardObservation) -> bool:
        """Whether the dice just read, after a move whose dice were never read, are the
        opponent's throw, the move then standing as played (`_unread_move_stands`)."""
        if not self._unexplained or len(reading.dice) != 2:
            return False
        if not misfits(board, self.position, self._as_before):
            return False
        return self._opponent_threw(Roll(*reading.dice), board) and self._unread_move_stands(board)

    def _opponent_threw(self, roll: Roll, board: BoardObservation) -> bool:
        """Whether a throw of `roll`, made after a move whose dice were never read, is the
        opponent's rather than the mover's dice set down again as asked.

        The mover's dice show a roll the unsure reading found likely, or one whose legal play
        the board shows; the opponent's are a fair throw (1/36 for a double, 2/36 otherwise).
        A roll the board is clearly a legal play of is the mover's; so is one the reading makes
        likelier than a fair throw by more than `opponent_throw_odds`. Any other roll is the
        opponent's (the board is an illegal play of every likely roll, so it weighs alike for
        both).
        """
        fair = (1 if roll.is_double else 2) / 36
        if dict(self._unexplained).get(ranked(roll), 0.0) >= fair * self.config.opponent_throw_odds:
            return False
        return self._interpret(roll, board).outcome is not Outcome.LEGAL

    def _unread_move_stands(self, board: BoardObservation) -> bool:
        """The opponent threw after a move whose dice were never read (or whose throw was
        called void): the move stands as played (RULES.md §2: the opponent's throw accepts
        it). The record needs a roll, so it holds the likeliest roll the throw may have shown
        that the board is a legal play of, or else the likeliest roll with the play as read
        (an illegal play, accepted); the play's message says why it went unjudged. False when
        the board cannot stand as any play (the players are asked to put it right)."""
        rolls, self._unexplained = self._unexplained, ()
        side = self.position.turn
        player = self._player(side)
        floor = rolls[0][1] * self.config.illegal_prior
        readings = [self._interpret(roll, board) for roll, prior in rolls if prior >= floor]
        explained = [reading for reading in readings if reading.outcome is Outcome.LEGAL]
        legal = bool(explained)
        reading = explained[0] if legal else readings[0]
        play = reading.best.play if legal else _recordable(self.position, reading.observed)
        if play is None:
            self._notice(
                f"{side.label}'s move cannot stand as played: please put it right, "
                f"then {self.status()}"
            )
            return False
        roll = reading.roll
        assert isinstance(roll, Roll)
        how = "accepted: the opponent threw"
        unread = "its dice were not read"
        if self._void_fault:
            unread = f"its throw was called void ({self._void_fault})"
        message = (
            f"{side.label}'s move stands as {play_text(play)}, unjudged: {unread} (recorded "
            f"as {roll}); {how}"
        )
        self._journal(RollThrown(player, (roll.die1, roll.die2)))
        self._journal_standing(side, roll, play, legal, reading, message)
        self._stood(side, roll, message)
        return True

    def _owed(self, observation: Observation) -> None:
        """Dice set down to show the owed moves start their play; other faces are refused."""
        if observation.scene is SceneState.NO_DICE:
            return
        key = observation.dice.key()
        if key == self._lying:
            return
        self._lying = key
        self._saw_rolling = False
        self._saw_standing(observation.board)
        roll = self.roll
        assert isinstance(roll, OwedMoves)
        side = self.position.turn
        reading = read_placed_dice(observation.dice, self.config)
        if reading.unsure:
            self._throw_unsure(side, reading)
        elif sorted(reading.dice) != sorted(_dice(roll)):
            message = f"{side.label}: no throw now; {self.status()}"
            self._throw_void(side, message, [NOT_OWED_DICE], reading.dice, reading)
        else:
            self._play_begins(
                side,
                DiceSet(self._player(side), _dice(roll)),
                roll,
                f"{side.label} plays {_owed_text(roll)}",
                reading.confidence,
                reading,
            )

    def _play_begins(
        self,
        side: Side,
        event: RollThrown | DiceSet,
        roll: Roll | OwedMoves,
        message: str,
        confidence: float,
        throw: ThrowReading | None = None,
    ) -> None:
        """`side` is to play `roll`, thrown or set down (`event`, journaled): told to the table
        with how sure the dice were read."""
        self._journal(event)
        self._early_flagged = False
        self._emit(
            EventKind.THROW,
            message,
            side=side,
            roll=roll,
            throw=throw,
            indication=self._waiting(message, confidence=confidence),
        )

    def _moving(self, observation: Observation, board: BoardObservation) -> None:
        if observation.scene is SceneState.NO_DICE:
            self._early_flagged = False
            self._judge_move(board)
            return
        values = tuple(sorted((d.value for d in observation.dice.dice), key=lambda v: v or 0))
        roll = self.roll
        assert roll is not None
        if values == tuple(sorted(_dice(roll))) or self._early_flagged:
            return  # the roll's own dice, still lying while the move is made
        if len(values) < 2:
            return  # a die hidden by the mover's hand, or being picked up: no throw
        self._early_flagged = True
        thrower = self.position.turn.other
        dice = tuple(v for v in values if v is not None)
        self._journal(RollThrown(self._player(thrower), _pair(dice), False, EARLY_THROW))
        message = (
            f"{thrower.label}'s throw does not count: {self.position.turn.label} has not picked "
            "up the dice yet"
        )
        self._verdict_on_throw(VerdictType.EARLY_THROW, thrower, dice, message)
        self._emit(
            EventKind.EARLY_THROW,
            message,
            side=thrower,
            indication=Indication(Kind.RETHROW, message),
        )

    def _post_move(self, observation: Observation, board: BoardObservation) -> None:
        thrown = observation.scene is SceneState.STILL and observation.dice.key() != self._lying
        offered = self._double_on_board(board, self.position.turn.other)
        if (thrown or offered) and not self._mover_goes_on():
            # The opponent throws (or doubles): the move counts as accepted (RULES.md §2).
            accepted = self._accept(how="accepted: the opponent threw")
            if not (accepted and self._dice_for_next(observation, board)) and thrown:
                self._lying = observation.dice.key()
            return
        if thrown:
            # The mover would go on (a ladder, a second throw): only the opponent accepts.
            self._lying = observation.dice.key()
            self._notice(f"the move is not settled yet: {self.status()}")
            return
        if observation.scene is not SceneState.NO_DICE:
            return
        key = board.reading_key()
        if key == self._judged_key:
            self._candidate_key, self._settled = None, 0
            return
        if key != self._candidate_key:
            self._candidate_key, self._settled = key, 0
        self._settled += 1
        if self._settled >= self.config.settle_frames:
            self._judge_move(board)

    def _cube_offered(self, board: BoardObservation) -> None:
        cube = board.cube
        offer = self.game.offer
        if (
            cube is not None
            and offer is not None
            and not cube.offered
            and cube.owner is offer.responder
            and cube.value == offer.value
        ):
            self._take()

    def _game_over(self, observation: Observation, board: BoardObservation) -> None:
        # The checkers set up for a new game, and no dice: the next game begins.
        setup = self.variant.starting_position()
        if observation.scene is SceneState.NO_DICE and not misfits(board, setup):
            self._start_game()

    # --- moves -----------------------------------------------------------------------------------

    def _judge_move(self, board: BoardObservation) -> None:
        roll = self.roll
        assert roll is not None
        before = self.position
        side = before.turn
        reading = self._interpret(roll, board)
        self._judged_key = board.reading_key()
        self._candidate_key, self._settled = None, 0
        was = self.phase
        self._misread = None
        if (
            reading.outcome is Outcome.ILLEGAL
            and self._throw_rolls
            and was in (Phase.MOVING, Phase.UNSURE)
        ):
            misread = self._misread_roll(reading, board)
            if misread is not None:
                if misread.outcome is Outcome.LEGAL:
                    roll = self._correct_roll(misread.roll)
                else:
                    self._misread = reading
                reading = misread
        self._current = reading
        if reading.outcome is Outcome.LEGAL:
            if was is Phase.DISPUTE:
                # The mover put the board right before the opponent decided.
                self._journal(DisputeDecided(self._player(side.other), False))
            best = reading.best
            self._journal(
                PlayMade(self._player(side), _dice(roll), best.play, True, (), reading.message)
            )
            corrected = " (corrected)" if was in (Phase.DISPUTE, Phase.CORRECTION) else ""
            self._emit(
                EventKind.MOVE_LEGAL,
                reading.message + corrected,
                side=side,
                roll=roll,
                interpretation=reading,
                indication=Indication(
                    Kind.LEGAL, reading.message + corrected, confidence=reading.confidence
                ),
            )
            steady = tuple(p for p in misfits(board, best.position) if p not in best.misfits)
            self._move_stood()
            # The board just judged shows the position that now stands, and with no dice on it
            # to hide a checker, unlike the next throw's.
            self._saw_standing(board)
            self._tell_steady_misreads(steady)
            return
        if reading.outcome is Outcome.ILLEGAL:
            played = _recordable(before, reading.observed)
            if was is not Phase.DISPUTE or not self._pending_shows(reading.observed):
                if was is Phase.DISPUTE:
                    # The mover changed the board: the reported play is taken back.
                    self._journal(DisputeDecided(self._player(side.other), False))
                if played is None:
                    self.phase = Phase.CORRECTION  # nothing the opponent could accept
                else:
                    verdict = reading.verdict
                    reasons = () if verdict is None else tuple(str(r) for r in verdict.reasons)
                    self._journal(
                        PlayMade(
                            self._player(side), _dice(roll), played, False, reasons, reading.message
                        )
                    )
            message = reading.message
            if played is None:
                message += " This board cannot stand as played: please put it right."
            self._verdict_on_move(VerdictType.MOVE_ILLEGAL, reading, message, played)
            self._emit(
                EventKind.MOVE_ILLEGAL,
                message,
                side=side,
                roll=roll,
                interpretation=reading,
                indication=Indication(
                    Kind.ILLEGAL, message, points=reading.lights, confidence=reading.confidence
                ),
            )
            return
        if was is Phase.DISPUTE:
            self._journal(DisputeDecided(self._player(side.other), False))
        if was is Phase.MOVING:
            self.phase = Phase.UNSURE
        self._verdict_on_move(VerdictType.MOVE_UNSURE, reading, reading.message, reading.best.play)
        self._emit(
            EventKind.MOVE_UNSURE,
            reading.message,
            side=side,
            roll=roll,
            interpretation=reading,
            indication=Indication(
                Kind.UNSURE, reading.message, points=reading.lights, confidence=reading.confidence
            ),
        )

    def _misread_roll(
        self, reading: Interpretation, board: BoardObservation
    ) -> Interpretation | None:
        """A move judged illegal (`reading`) after a throw read for sure: whether the dice
        were likelier misread than the move is a foul.

        As in `_roll_from_move`, the foul weighs `p(r0) * illegal_prior` (r0 the roll read, its
        probability `p` from the reader's faces, `ThrowReading.rolls`) and each other roll `r`
        weighs `p(r)` where the board is clearly a legal play of it. When the foul outweighs
        them together the roll stands as read: None, and the move is illegal. Else the
        likeliest such roll's reading: LEGAL when it holds `verdict_confidence` of the total
        (the dice were misread: the roll is corrected), UNSURE otherwise (the players are asked
        to check the dice), its confidence its share either way.

        The bar is the foul being the likelier, not `verdict_confidence`, because the reader's
        small face probabilities are no measure of how often a die is misread: against them a
        legal play of some other roll would excuse most fouls (the usual foul takes a die's
        pips one or two off, which some other roll gives). A misread die shows a roll the reader
        gave a fair chance.
        """
        read = ranked(reading.roll)
        rolls = self._throw_rolls
        chance = dict(rolls)[read]
        foul = chance * self.config.illegal_prior
        unread = 1.0 - chance  # the probability of the rolls not interpreted yet
        legal = 0.0
        explained: list[tuple[float, Interpretation]] = []
        for roll, prior in rolls:
            if legal + unread <= foul:
                return None  # not even every roll left could outweigh the foul
            if roll == read:
                continue
            unread -= prior
            other = self._interpret(roll, board)
            if other.outcome is Outcome.LEGAL:
                legal += prior
                explained.append((prior, other))
        if legal <= foul:
            return None
        prior, likeliest = explained[0]
        share = prior / (foul + legal)
        if share >= self.config.verdict_confidence:
            message = f"{likeliest.message} (the dice were read {reading.roll}: misread)"
            return dataclasses.replace(likeliest, confidence=share, message=message)
        best = likeliest.best
        message = (
            f"Check the dice: the move is no legal play of {reading.roll} as they were read, "
            f"but a legal {likeliest.roll} ({play_text(best.play)}), which the opponent's "
            "throw accepts."
        )
        return dataclasses.replace(
            likeliest,
            outcome=Outcome.UNSURE,
            confidence=share,
            illegal_probability=foul / (foul + legal),
            lights=reading.lights,
            message=message,
        )

    def _correct_roll(self, roll: Roll) -> Roll:
        """The dice thrown were misread: `roll` is to be played (journaled); returned."""
        read = self.roll
        assert isinstance(read, Roll)
        self._journal(RollCorrected(self._player(self.position.turn), _dice(roll), _dice(read)))
        self._throw_rolls, self._misread = (), None
        return roll

    def _verdict_on_move(
        self, verdict: VerdictType, reading: Interpretation, message: str, play: Play | None
    ) -> None:
        """Journal the verdict on a finished move that did not simply stand: an illegal one
        with `play` as read (None when the board cannot stand as any play), the rules core's
        reasons and the closest legal plays; an unsure one with the likeliest play, `play`, and
        its probability."""
        rules = reading.verdict
        probability: float | None = None
        if verdict is VerdictType.MOVE_UNSURE:
            probability = round(reading.best.probability, 4)
            reasons: tuple[str, ...] = ()
            closest: tuple[Play, ...] = ()
        else:
            reasons = () if rules is None else tuple(str(reason) for reason in rules.reasons)
            closest = () if rules is None else tuple(option.play for option in rules.closest)
        self._journal(
            VerdictGiven(
                verdict,
                self._player(self.position.turn),
                _dice(reading.roll),
                reasons,
                message,
                round(reading.confidence, 4),
                reading.lights,
                play,
                probability,
                closest,
            )
        )

    def _pending_shows(self, observed: Position | None) -> bool:
        """Whether `observed` is the board of the illegal play already awaiting a decision."""
        if self.pending_play is None or observed is None:
            return False
        return self.position.play(self.pending_play).same_board(observed)

    def _standing_play(self) -> tuple[Play, bool, bool] | None:
        """The play that would stand if the finished move were accepted now, whether it is
        legal, and whether the opponent's checkers are kept where they stood: the illegal play
        reported, the likeliest reading of an unsure move, or the board as read (an unsure
        move's likeliest legal play where that could stand as no play); None when nothing read
        could stand."""
        if self.phase is Phase.DISPUTE:
            return None if self.pending_play is None else (self.pending_play, False, False)
        reading = self._current
        if reading is None:
            return None
        best = reading.best
        if reading.outcome is Outcome.UNSURE and best.probability >= reading.illegal_probability:
            return best.play, True, False
        played = _recordable(self.position, reading.observed)
        if played is not None:
            return played, False, False
        if reading.observed is None:
            return None
        # The players let stand a board the referee reads with the opponent's checkers moved,
        # which no play does: a checker misread (or knocked and left). The mover's checkers
        # stand as read, the opponent's where they stood; that may well be a legal play.
        kept = _theirs_as_before(self.position, reading.observed)
        played = _recordable(self.position, kept)
        if played is None:
            # A board that no play, legal or not, leaves (checkers missing or added) is a
            # misread one: asked about it, the players say the move is right, so its likeliest
            # legal play stands. Called illegal, it is to be put right.
            return (best.play, True, False) if reading.outcome is Outcome.UNSURE else None
        dice = self.game.dice
        assert dice is not None
        verdict = judge(self.position, dice, kept)
        return (verdict.closest[0].play, True, True) if verdict.legal else (played, False, True)

    def _mover_goes_on(self) -> bool:
        """Whether the finished move, once it stood, would leave its mover to act again (a
        ladder's next double, a second throw, a throw after passed moves): then the opponent's
        button decides it, and dice set down or thrown meanwhile accept nothing."""
        standing = self._standing_play()
        roll = self.roll
        if standing is None or roll is None:
            return False
        if self._misread is not None and self._current is not None and standing[1]:
            roll = self._current.roll  # the legal play stands as the roll it is a play of
        then = self.variant.after_play(self.position, roll, standing[0])
        return then.player is self.position.turn and then.kind is not Next.GAME_OVER

    def _accept(self, how: str) -> bool:
        """Let the finished move stand as the opponent accepted it; False when it cannot."""
        side = self.position.turn
        roll = self.roll
        assert roll is not None
        if self.phase is Phase.DISPUTE:
            self._journal(DisputeDecided(self._player(side.other), True))
            message = f"{side.label}'s illegal move stands, {how}"
        else:
            reading = self._current
            if reading is None:
                # Resumed while the move was being corrected: nothing has been read since.
                self._notice("the board has not been read yet: " + self.status())
                return False
            standing = self._standing_play()
            if standing is None:
                refused = "this board cannot stand as played: please put it right"
                self._verdict_on_move(VerdictType.MOVE_ILLEGAL, reading, refused, None)
                self._emit(
                    EventKind.MOVE_ILLEGAL,
                    refused,
                    side=side,
                    roll=roll,
                    indication=Indication(Kind.ILLEGAL, refused, points=reading.lights),
                )
                return False
            play, legal, theirs_kept = standing
            if self._misread is not None and legal:
                read, roll = roll, self._correct_roll(reading.roll)
                how += f" (a {roll}: the dice, read {read}, were misread)"
            kept = ""
            if theirs_kept:
                kept = (
                    f"; {side.other.label}'s checkers are kept where they stood, though the "
                    "camera reads them otherwise"
                )
            said = how if legal else reading.message  # the play's message in the journal
            self._journal_standing(side, roll, play, legal, reading, said)
            if legal:
                message = f"{side.label}'s move stands as {play_text(play)}, {how}{kept}"
            else:
                message = f"{side.label}'s illegal move stands, {how}"
                if kept:
                    message += f": {play_text(play)}{kept}"
        self._stood(side, roll, message)
        return True

    def _journal_standing(
        self,
        side: Side,
        roll: Roll | OwedMoves,
        play: Play,
        legal: bool,
        reading: Interpretation,
        message: str,
    ) -> None:
        """Journal `side`'s play of `roll` as it stands: a legal one, or an illegal one with
        the rules core's reasons (from `reading`), accepted by the opponent."""
        player = self._player(side)
        if legal:
            self._journal(PlayMade(player, _dice(roll), play, True, (), message))
            return
        verdict = reading.verdict
        reasons = () if verdict is None else tuple(str(r) for r in verdict.reasons)
        self._journal(PlayMade(player, _dice(roll), play, False, reasons, message))
        self._journal(DisputeDecided(self._player(side.other), True))

    def _stood(self, side: Side, roll: Roll | OwedMoves, message: str) -> None:
        """`side`'s finished move of `roll` stands (journaled): told, and what follows it."""
        self._current = None
        self._emit(
            EventKind.MOVE_ACCEPTED,
            message,
            side=side,
            roll=roll,
            indication=None if self.game.is_finished else self._waiting(message),
        )
        self._move_stood()

    def _emit_correction_demanded(self) -> None:
        side = self.position.turn
        lights = () if self._current is None else self._current.lights
        message = f"correction demanded: {side.label}, play {self.roll} correctly"
        self._emit(
            EventKind.CORRECTION_DEMANDED,
            message,
            side=side,
            roll=self.roll,
            indication=Indication(
                Kind.ILLEGAL, message, points=lights, destinations=self._destinations()
            ),
        )

    def _move_stood(self) -> None:
        """After a move stands: the end of the game, or what follows the move when it is not
        simply the opponent's throw, journaled and said."""
        self._throw_rolls, self._misread, self._as_before = (), None, None
        last = self.game.events[-1]
        if not isinstance(last, GameContinued):
            self._game_end()
            return
        then = last.continuation
        owed = then.owed
        moves = () if owed is None else owed.moves
        self._journal(Continued(self._player(then.player), then.kind, moves))
        if self._owed_unplayable():
            self._lose_owed()
            return
        if owed is not None:
            # Dice already set down to show them (while a decision was awaited) count.
            self._lying = None
        message = _continued_text(then, self.status())
        self._emit(
            EventKind.CONTINUED,
            message,
            side=then.player,
            roll=owed,
            indication=self._waiting(message),
        )

    def _owed_unplayable(self) -> bool:
        """Whether moves are owed of which not one can be played."""
        return self.phase is Phase.OWED and not any(p.steps for p in self.game.legal_plays())

    def _lose_owed(self) -> None:
        """Owed moves nobody can play are lost at once, without waiting for the dice: recorded
        as a play with no step, then what follows it is said."""
        owed = self.roll
        assert isinstance(owed, OwedMoves)
        side = self.position.turn
        self._journal(PlayMade(self._player(side), _dice(owed), Play(), True))
        message = f"{side.label} cannot play {_owed_text(owed)}: it is lost; {self.status()}"
        self._emit(
            EventKind.CONTINUED,
            message,
            side=side,
            roll=owed,
            indication=self._waiting(message),
        )
        self._move_stood()

    def _game_end(self) -> None:
        if not self.game.is_finished:
            return
        result = self.game.result()
        assert result is not None
        winner = None if result.winner is None else self._player(result.winner)
        self._journal(GameWon(winner, result.points, END_OF.get(result.ending, End.DRAW)))
        message = f"{_result_text(result, self.variant)}; {self._score_text()}"
        self._emit(
            EventKind.GAME_OVER,
            message,
            side=result.winner,
            indication=Indication(Kind.GAME_OVER, message),
        )
        if self.match.is_over():
            match_winner = self.match.winner()
            self._journal(MatchOver(match_winner, self.scores))
            self._emit(EventKind.MATCH_OVER, f"match over: {self._score_text()}")

    # --- cube ------------------------------------------------------------------------------------

    def _double_seen(self, board: BoardObservation) -> bool:
        """Whether the side on roll has just offered a double (the cube turned, in the middle)."""
        if not self._double_on_board(board, self.position.turn) or not self.game.may_double():
            return False
        doubler = self.position.turn
        value = self.game.cube_value * 2
        self._journal(DoubleOffered(self._player(doubler), value))
        message = f"{doubler.label} doubles to {value}: {doubler.other.label}, take or drop"
        self._emit(
            EventKind.DOUBLE_OFFERED,
            message,
            side=doubler,
            indication=Indication(Kind.WAITING, message),
        )
        return True

    def _double_on_board(self, board: BoardObservation, doubler: Side) -> bool:
        cube = board.cube
        return (
            cube is not None
            and cube.offered
            and cube.value == self.game.cube_value * 2
            and self.game.cube_owner in (None, doubler)
        )

    def _take(self) -> None:
        offer = self.game.offer
        assert offer is not None
        self._journal(DoubleTaken(self._player(offer.responder)))
        message = f"{offer.responder.label} takes: the cube is at {offer.value}"
        self._emit(
            EventKind.DOUBLE_TAKEN,
            message,
            side=offer.responder,
            indication=self._waiting(f"{message}; {self.position.turn.label} to throw"),
        )

    def _drop(self) -> None:
        offer = self.game.offer
        assert offer is not None
        self._journal(DoubleDropped(self._player(offer.responder)))
        self._emit(EventKind.DOUBLE_DROPPED, f"{offer.responder.label} drops", side=offer.responder)
        self._game_end()

    # --- games -----------------------------------------------------------------------------------

    def _start_game(self) -> None:
        if self.match.is_over():
            self._notice(f"the match is over, {self._score_text()}")
            return
        number = len(self.match.games) + 1
        self._journal(GameStarted(number, self.scores))
        self._lying = None
        self._current = self._as_before = None
        self._emit(
            EventKind.GAME_STARTED,
            f"game {number}: {self.status()}",
            indication=Indication(Kind.WAITING, f"game {number}: {self.status()}"),
        )

    def _caught_rolling(self, side: Side | None) -> None:
        """Dice seen rolling that were picked up before they came to rest: a void throw."""
        if not self._saw_rolling:
            return
        self._saw_rolling = False
        if side is not None:
            self._journal(RollThrown(self._player(side), None, False, str(ThrowFault.ROLLING)))
        who = "" if side is None else f"{side.label}: "
        message = f"{who}throw again: {FAULT_TEXT[ThrowFault.ROLLING]}"
        self._throw_void(side, message, [str(ThrowFault.ROLLING)], (), None)

    def _throw_unsure(self, side: Side | None, reading: ThrowReading) -> None:
        """The dice could not be read for sure: journaled, and the players are asked (amber)."""
        self._verdict_on_throw(
            VerdictType.THROW_UNSURE,
            side,
            reading.dice,
            reading.message,
            confidence=reading.confidence,
        )
        self._emit(
            EventKind.THROW_UNSURE,
            reading.message,
            side=side,
            throw=reading,
            indication=Indication(Kind.UNSURE, reading.message, confidence=reading.confidence),
        )

    def _throw_void(
        self,
        side: Side | None,
        message: str,
        reasons: list[str],
        dice: Iterable[int],
        reading: ThrowReading | None,
    ) -> None:
        """A throw that does not stand (`reasons` its fault codes): journaled, and thrown again."""
        self._verdict_on_throw(VerdictType.THROW_VOID, side, dice, message, reasons=reasons)
        self._emit(
            EventKind.THROW_VOID,
            message,
            side=side,
            throw=reading,
            indication=Indication(Kind.RETHROW, message),
        )

    def _verdict_on_throw(
        self,
        verdict: VerdictType,
        side: Side | None,
        dice: Iterable[int],
        message: str,
        *,
        reasons: Iterable[str] = (),
        confidence: float | None = None,
    ) -> None:
        """Journal the verdict on a throw that did not stand: `side` threw (None for the
        opening throw), `dice` as read."""
        self._journal(
            VerdictGiven(
                verdict,
                None if side is None else self._player(side),
                tuple(dice),
                tuple(reasons),
                message,
                None if confidence is None else round(confidence, 4),
            )
        )

    # --- output ----------------------------------------------------------------------------------

    def _journal(self, event: JournalEvent) -> None:
        """Write `event` to the journal (synced) first, then change the state by it."""
        if self.journal is not None:
            self.journal.append(event)
        self.apply(event)
        self._journaled.append(event)

    def _emit(
        self,
        kind: EventKind,
        message: str,
        *,
        side: Side | None = None,
        roll: Roll | None = None,
        throw: ThrowReading | None = None,
        interpretation: Interpretation | None = None,
        indication: Indication | None = None,
    ) -> None:
        journaled, self._journaled = tuple(self._journaled), []
        event = SessionEvent(
            kind, self._time, message, side, roll, throw, interpretation, indication, journaled
        )
        logger.info("%s: %s", kind.value, message)
        if indication is not None:
            self.shown = indication
            if kind is not EventKind.SOURCE_LOST:
                self._last_game_indication = indication
            if self.signals is not None:
                self.signals.show(indication)
        if self.on_event is not None:
            self.on_event(event)
        self._out.append(event)

    def _notice(self, message: str) -> None:
        self._emit(EventKind.NOTICE, message)

    def _flush(self) -> list[SessionEvent]:
        events, self._out = self._out, []
        return events

    def _waiting(self, message: str, confidence: float | None = None) -> Indication:
        """A WAITING indication, with the roll's legal destinations in teaching mode."""
        return Indication(
            Kind.WAITING, message, destinations=self._destinations(), confidence=confidence
        )

    def _destinations(self) -> tuple[int, ...]:
        """The points where a legal play of the roll in play can leave a checker it moved
        (teaching mode only), in the table's physical numbering; 0 is bearing off."""
        roll = self.roll
        if (
            not self.teach
            or roll is None
            or self.phase not in (Phase.MOVING, Phase.OWED, *POST_MOVE)
        ):
            return ()
        before = self.position
        mover = before.turn
        was = (before.off[mover], *before.points[mover])
        ends: set[int] = set()
        for result in before.legal_positions(roll):
            now = (result.off[mover], *result.points[mover])
            ends.update(slot for slot, (a, b) in enumerate(zip(was, now, strict=True)) if b > a)
        long_nardy = isinstance(self.variant, LongNardy)
        return tuple(
            sorted(
                physical_point(end, black=mover is Side.BLACK, long_nardy=long_nardy)
                for end in ends
            )
        )

    def _player(self, side: Side) -> int:
        return int(side)

    def _score_text(self) -> str:
        white, black = self.scores
        return f"score white {white}, black {black}"


def _recordable(before: Position, observed: Position | None) -> Play | None:
    """The play that leaves `observed`, when it is a board that can stand (and be recorded)."""
    if observed is None or not observed.is_valid():
        return None
    return play_between(before, observed)


def _theirs_as_before(before: Position, observed: Position) -> Position:
    """`observed` with the checkers of the side not moving in `before` where they stood in
    `before`: on the points, on the bar and borne off."""
    theirs = before.turn.other

    def kept(now: tuple[Any, Any], then: tuple[Any, Any]) -> tuple[Any, Any]:
        pair = list(now)
        pair[theirs] = then[theirs]
        return (pair[0], pair[1])

    return dataclasses.replace(
        observed,
        points=kept(observed.points, before.points),
        bar=kept(observed.bar, before.bar),
        off=kept(observed.off, before.off),
    )


def _dice(roll: Roll) -> tuple[int, int]:
    return (roll.die1, roll.die2)


def _owed_text(owed: OwedMoves) -> str:
    """Moves owed as players say them: `the ladder's 5-5`, `4-4 ×2 passed over`."""
    times = "" if owed.count == 4 else f" ×{owed.count}"
    number = f"{owed.die1}-{owed.die1}{times}"
    return f"{number} passed over" if owed.passed else f"the ladder's {number}"


def _continued_text(then: Continuation, status: str) -> str:
    """What the table is told after a move when more than the opponent's throw follows."""
    side = then.player.label
    if then.kind is Next.THROW_AGAIN:
        return f"{side} played the whole double: throw again"
    if then.kind is Next.THROW:
        return f"{side} throws for its own turn now"
    if then.kind is Next.PASSED:
        return f"{status} ({then.player.other.label} could not play them)"
    return status


def _pair(values: Iterable[int] | None) -> tuple[int, int] | None:
    dice = None if values is None else tuple(values)
    return (dice[0], dice[1]) if dice is not None and len(dice) == 2 else None


def _result_text(result: GameResult, variant: Variant) -> str:
    if result.winner is None:
        return "the game is drawn"
    kind = str(result.kind).replace("_", " ")
    points = "1 point" if result.points == 1 else f"{result.points} points"
    return f"{result.winner.label} wins ({kind}): {points}"


__all__ = ["EARLY_THROW", "POST_MOVE", "IndicationSink", "JournalSink", "Phase", "Session"]
