"""A sink that writes each indication as one human-readable line to a text stream."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from referee.signals.indication import Indication, Kind, point_name

LABELS: dict[Kind, str] = {
    Kind.LEGAL: "LEGAL",
    Kind.ILLEGAL: "ILLEGAL",
    Kind.RETHROW: "RE-THROW",
    Kind.WAITING: "WAITING",
    Kind.UNSURE: "CHECK",
    Kind.GAME_OVER: "GAME OVER",
    Kind.IDLE: "IDLE",
}

_WIDTH = max(len(label) for label in LABELS.values())

# ANSI SGR codes: bold red for what needs attention, yellow for amber states, dim for idle.
_COLOURS: dict[Kind, str] = {
    Kind.LEGAL: "32",
    Kind.ILLEGAL: "1;31",
    Kind.RETHROW: "33",
    Kind.WAITING: "33",
    Kind.UNSURE: "1;33",
    Kind.GAME_OVER: "1;32",
    Kind.IDLE: "2",
}


def format_indication(indication: Indication, *, teaching: bool = False) -> str:
    """The plain line shown for `indication`, e.g. ``ILLEGAL   point 5: closed point [93%]``."""
    where = ""
    if indication.points:
        noun = "point" if len(indication.points) == 1 else "points"
        where = f"{noun} {', '.join(map(point_name, indication.points))}"
    parts = [
        LABELS[indication.kind].ljust(_WIDTH),
        ": ".join(filter(None, [where, indication.message])),
    ]
    if teaching and indication.destinations:
        parts.append(f"(legal: {', '.join(map(point_name, indication.destinations))})")
    if indication.confidence is not None:
        parts.append(f"[{indication.confidence:.0%}]")
    return " ".join(filter(None, parts)).rstrip()


class ConsoleSignals:
    """Writes one line per indication to `stream` (standard output by default).

    `colour` None means: colour when the stream is a terminal and NO_COLOR is not set.
    `teaching` adds the throw's legal destinations to the line.
    """

    def __init__(
        self, stream: TextIO | None = None, *, colour: bool | None = None, teaching: bool = False
    ) -> None:
        self.stream = stream if stream is not None else sys.stdout
        if colour is None:
            colour = self.stream.isatty() and "NO_COLOR" not in os.environ
        self.colour = colour
        self.teaching = teaching

    def show(self, indication: Indication) -> None:
        """Writes the indication's line and flushes, so it appears at once."""
        line = format_indication(indication, teaching=self.teaching)
        if self.colour:
            line = f"\x1b[{_COLOURS[indication.kind]}m{line}\x1b[0m"
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Flushes the stream; it belongs to the caller, so it stays open."""
        self.stream.flush()
