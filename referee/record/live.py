"""Journaling a live game: the rules core's `Game` events (`referee.rules.game`) as journal events.

    journal = Journal.create("match.jsonl", header)
    recorder = GameRecorder(journal)
    recorder.start_game(1, (0, 0))
    game = Game(variant, match_length=header.length)
    recorder.record(game.opening_throw(5, 2))
    recorder.record(game.play(play))            # each action's events, as they happen

The rules core speaks of sides (White, Black); the record of players (0, 1). `player_of` maps a
side to its player for the game being played (colours may change between games of a match:
`referee.rules.match.Match.player_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from referee.record import journal as events
from referee.record.errors import UnsupportedRecordError
from referee.record.journal import Journal, JournalEntry
from referee.record.model import End
from referee.rules import BAR, OFF, Play, Position, Side, Step
from referee.rules.game import (
    AutomaticDouble,
    Beavered,
    Continued,
    DoubleDropped,
    DoubleOffered,
    DoubleTaken,
    Ending,
    GameEvent,
    GameOver,
    OpeningThrow,
    Played,
    RollCorrected,
    Rolled,
)
from referee.rules.variants import encode_side

ENDINGS = {Ending.BORNE_OFF: End.BEAR_OFF, Ending.DROPPED: End.DROP, Ending.RESIGNED: End.RESIGN}


def play_between(before: Position, after: Position) -> Play | None:
    """Steps that turn `before` into `after` for the side to move, pairing the checkers that
    left points with those that arrived, highest with highest; None when no forward steps do
    (a checker moved backwards, checkers appeared). For an accepted illegal play given only as
    the board it left."""
    mover = before.turn
    old, new = encode_side(before, mover), encode_side(after, mover)
    left = [slot for slot in range(BAR, OFF - 1, -1) for _ in range(max(0, old[slot] - new[slot]))]
    came = [slot for slot in range(BAR, OFF - 1, -1) for _ in range(max(0, new[slot] - old[slot]))]
    if len(left) != len(came) or any(start <= end for start, end in zip(left, came, strict=True)):
        return None
    play = Play(tuple(Step(start, end) for start, end in zip(left, came, strict=True)))
    try:
        if before.play(play).same_board(after):
            return play
    except ValueError:
        pass
    return None


class GameRecorder:
    """Appends the journal events of a live game, one game at a time."""

    def __init__(self, journal: Journal, player_of: Callable[[Side], int] = int) -> None:
        self.journal = journal
        self.player_of = player_of
        self.position: Position | None = None

    def start_game(self, number: int, score: tuple[int, int]) -> JournalEntry:
        """Game `number` (1-based) begins at `score` (player 0's, player 1's)."""
        self.position = None
        return self.journal.append(events.GameStarted(number, score))

    def record(self, game_events: Iterable[GameEvent]) -> list[JournalEntry]:
        """Append the journal events for `game_events` (what a `Game` action returned)."""
        written = []
        for event in game_events:
            for journal_event in self.convert(event):
                written.append(self.journal.append(journal_event))
        return written

    def convert(self, event: GameEvent) -> list[events.Event]:
        """The journal events standing for one rules-core event (none for bookkeeping events:
        game started, last roll granted, resigned, which the game's result covers)."""
        player = self.player_of
        if isinstance(event, OpeningThrow):
            dice = {player(Side.WHITE): event.white_die, player(Side.BLACK): event.black_die}
            return [events.OpeningThrow((dice[0], dice[1]))]
        if isinstance(event, AutomaticDouble):
            raise UnsupportedRecordError("automatic doubles are not recorded yet")
        if isinstance(event, Rolled):
            return [events.RollThrown(player(event.side), (event.roll.die1, event.roll.die2))]
        if isinstance(event, RollCorrected):
            roll, read = event.roll, event.read
            return [
                events.RollCorrected(
                    player(event.side), (roll.die1, roll.die2), (read.die1, read.die2)
                )
            ]
        if isinstance(event, Played):
            return self.played(event)
        if isinstance(event, Continued):
            then = event.continuation
            owed = () if then.owed is None else then.owed.moves
            return [events.Continued(player(then.player), then.kind, owed)]
        if isinstance(event, DoubleOffered):
            return [events.DoubleOffered(player(event.side), event.value)]
        if isinstance(event, Beavered):
            return [events.Beavered(player(event.side), event.value)]
        if isinstance(event, DoubleTaken):
            return [events.DoubleTaken(player(event.side))]
        if isinstance(event, DoubleDropped):
            return [events.DoubleDropped(player(event.side))]
        if isinstance(event, GameOver):
            result = event.result
            if result.winner is None:
                return [events.GameWon(None, 0, End.DRAW)]
            return [events.GameWon(player(result.winner), result.points, ENDINGS[result.ending])]
        return []

    def played(self, event: Played) -> list[events.Event]:
        before = self.position or event.position.variant.starting_position(event.side)
        self.position = event.position
        play = event.play
        if play is None:
            play = play_between(before.with_turn(event.side), event.position)
            if play is None:
                raise UnsupportedRecordError(
                    "an accepted illegal play whose steps cannot be worked out from the board "
                    "cannot be recorded"
                )
        dice = (event.roll.die1, event.roll.die2)
        made = events.PlayMade(self.player_of(event.side), dice, play, event.legal)
        if event.legal:
            return [made]
        # The rules core only lets an illegal play stand once the opponent accepted it.
        return [made, events.DisputeDecided(self.player_of(event.side.other), accepted=True)]
