"""What the live session reports: one `SessionEvent` per thing that happened at the table.

Each event carries the indication the table was shown for it (None when the lamps stay as they
are) and the journal events it wrote (`referee.record`'s vocabulary: what the match record
needs, and the referee's `verdict`s and `incident`s beside it; skipped frames are journaled as
a count now and then, not one line each).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from referee.record import Event as JournalEvent
from referee.rules import Roll, Side
from referee.session.interpret import Interpretation
from referee.session.throws import ThrowReading
from referee.signals import Indication


class EventKind(enum.StrEnum):
    """What happened."""

    GAME_STARTED = "game_started"
    OPENING_THROW = "opening_throw"
    """A valid opening throw (a tie is one too: it is thrown again)."""
    THROW = "throw"
    """A valid throw: the roll to play; or the dice set down to show moves owed without a
    throw (a ladder's next double, moves passed over)."""
    THROW_VOID = "throw_void"
    """A void throw (RULES.md §2): throw again."""
    THROW_UNSURE = "throw_unsure"
    """The dice could not be read: the players are asked to look."""
    EARLY_THROW = "early_throw"
    """A throw before the mover picked up the dice: it does not count."""
    MOVE_LEGAL = "move_legal"
    MOVE_ILLEGAL = "move_illegal"
    MOVE_UNSURE = "move_unsure"
    MOVE_ACCEPTED = "move_accepted"
    """An illegal or unsure move stands: accepted with the button, or by the opponent's throw."""
    CORRECTION_DEMANDED = "correction_demanded"
    CONTINUED = "continued"
    """A move stood and the dice do not simply pass to the opponent (RULES.md §4): the mover
    throws again or plays a ladder's next double, or moves pass over (or owed moves nobody can
    play are lost)."""
    DOUBLE_OFFERED = "double_offered"
    DOUBLE_TAKEN = "double_taken"
    DOUBLE_DROPPED = "double_dropped"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"
    SOURCE_LOST = "source_lost"
    SOURCE_BACK = "source_back"
    FRAME_SKIPPED = "frame_skipped"
    RESUMED = "resumed"
    NOTICE = "notice"
    """Something the players should know that changes nothing (a button with no meaning now)."""


@dataclass(frozen=True)
class SessionEvent:
    """One thing that happened, at `time` (the frame's time, seconds on the source's clock)."""

    kind: EventKind
    time: float
    message: str
    side: Side | None = None
    roll: Roll | None = None
    throw: ThrowReading | None = None
    interpretation: Interpretation | None = None
    indication: Indication | None = None
    journaled: tuple[JournalEvent, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON form for logs and tools."""
        return {
            "kind": str(self.kind),
            "time": self.time,
            "message": self.message,
            "side": None if self.side is None else self.side.label,
            "roll": None if self.roll is None else self.roll.to_list(),
            "throw": None if self.throw is None else self.throw.to_dict(),
            "interpretation": None
            if self.interpretation is None
            else self.interpretation.to_dict(),
            "indication": None
            if self.indication is None
            else {
                "kind": self.indication.kind.value,
                "message": self.indication.message,
                "points": list(self.indication.points),
                "destinations": list(self.indication.destinations),
                "confidence": self.indication.confidence,
            },
            "journaled": [event.to_dict() for event in self.journaled],
        }


__all__ = ["EventKind", "SessionEvent"]
