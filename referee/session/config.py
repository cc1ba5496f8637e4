"""Every threshold of the live session, in one frozen dataclass read from the `[session]` table
of the referee's TOML file (the `[signals]` tables there belong to `referee.signals`)."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.session.errors import SessionConfigError


@dataclass(frozen=True)
class SessionConfig:
    """Thresholds of the session and of reading the board through the rules.

    - `verdict_confidence`: a move is called legal or illegal only when that hypothesis has at
      least this probability; below it the referee is unsure and asks the players.
    - `illegal_prior`: the prior odds of an illegal play against any one legal play. Small,
      because players mostly play legally: an accusation needs confident evidence.
    - `dice_confidence`: a die face read with less confidence than this is "unreadable".
    - `settle_frames`: during a dispute, how many settled frames in a row must show the same
      board before it is judged again (checkers are being put right between them).
    - `reopen_s`: seconds between attempts to reopen a camera that stopped giving frames.
    - `shown_alternatives`: how many closest legal plays a verdict names.
    - `opponent_throw_odds`: after a move whose dice were never read (the referee asked for
      them to be set down again), the prior odds that the next throw is the opponent's rather
      than the mover's dice set down as asked. Above one, because a throw after the mover
      picked up the dice is how the game goes on; taking the opponent's throw for the
      mover's would put the referee out of step with the game.
    """

    verdict_confidence: float = 0.9
    illegal_prior: float = 0.05
    dice_confidence: float = 0.6
    settle_frames: int = 2
    reopen_s: float = 1.0
    shown_alternatives: int = 3
    opponent_throw_odds: float = 3.0

    def __post_init__(self) -> None:
        for name, low, high in (
            ("verdict_confidence", 0.5, 1.0),
            ("illegal_prior", 1e-6, 1.0),
            ("dice_confidence", 0.0, 1.0),
            ("reopen_s", 0.0, 3600.0),
            ("opponent_throw_odds", 1e-3, 1e3),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SessionConfigError(f"session.{name}: expected a number, got {value!r}")
            if not low <= value <= high:
                raise SessionConfigError(f"session.{name}: must be in {low}..{high}, got {value}")
            object.__setattr__(self, name, float(value))
        for name in ("settle_frames", "shown_alternatives"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise SessionConfigError(f"session.{name}: expected a whole number >= 1")

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> SessionConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise SessionConfigError(
                f"session.{unknown[0]}: unknown key; known: {', '.join(sorted(known))}"
            )
        return cls(**table)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_session_config(path: str | os.PathLike[str]) -> SessionConfig:
    """The `[session]` table of the TOML file at `path` (none: the defaults)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SessionConfigError(f"{os.fspath(path)}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SessionConfigError(f"{os.fspath(path)}: not valid TOML: {exc}") from None
    table = data.get("session", {})
    if not isinstance(table, dict):
        raise SessionConfigError("session: must be a table ([session])")
    return SessionConfig.from_dict(table)


__all__ = ["SessionConfig", "load_session_config"]
