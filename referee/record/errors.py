"""Exceptions of the record package: each says which file, where, and what is wrong."""

from __future__ import annotations


class RecordError(ValueError):
    """A match record or journal that cannot be read, written or replayed as it stands.

    `source` names the file (or None for in-memory text), `line` the 1-based line number where
    the problem was found (None when it is not about one line).
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{where}: {self.message}" if where else self.message


class RecordSyntaxError(RecordError):
    """Text that is not in the record format it claims to be (garbage, a torn line, ...)."""


class UnsupportedRecordError(RecordError):
    """Well-formed input that this package does not handle (SGF board edits, Nackgammon, a
    long-nardy match written as .mat, ...)."""


class RecordReplayError(RecordError):
    """A recorded game that the rules refuse: an illegal play, a take without a double, a
    result that does not match the final position, a wrong score line...

    `game` is the 1-based game number, `move` the move number as a .mat file numbers its rows
    (None for problems of the game as a whole), `text` the action as a .mat file writes it.
    """

    def __init__(
        self,
        reason: str,
        *,
        game: int,
        move: int | None = None,
        text: str | None = None,
        source: str | None = None,
        line: int | None = None,
    ):
        self.reason = reason
        self.game = game
        self.move = move
        self.text = text
        where = f"game {game}" + (f", move {move}" if move is not None else "")
        what = f" ({text.strip()})" if text and text.strip() else ""
        super().__init__(f"{where}{what}: {reason}", source=source, line=line)


class JournalError(RecordError):
    """A journal that cannot be replayed: garbage or a torn line in the middle, a line that is
    not an event, events out of order, or a file that already exists when creating one."""


class JournalVersionError(JournalError):
    """A journal written by a version of the referee this one cannot read."""
