"""Exceptions of the rules core: each names one kind of bad input."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.rules.judge import Verdict


class RulesError(ValueError):
    """Base of every rules-core error: the input cannot be a nardy object."""


class InvalidPositionError(RulesError):
    """A position that cannot occur on a board (16 checkers, two colours on one point, ...)."""


class InvalidRollError(RulesError):
    """A roll with a die outside 1..6."""


class InvalidPlayError(RulesError):
    """A play whose text notation cannot be read, or that does not fit the position."""


class UnknownVariantError(RulesError):
    """A variant name the rules core does not know."""


class InvalidOptionError(RulesError):
    """A variant option with a value the variant does not offer."""


class GameFlowError(RulesError):
    """An action that is not allowed at this point of the game (doubling after rolling, ...)."""


class InvalidIdError(RulesError):
    """Text that is not a valid GNU Backgammon Position ID, Match ID or XGID, or a game state
    those identifiers cannot hold (a long-nardy position, a cube of 3)."""


class IllegalPlayError(GameFlowError):
    """A play that the rules forbid, offered to a game; `verdict` says why, when it was judged."""

    def __init__(self, message: str, verdict: Verdict | None = None) -> None:
        super().__init__(message)
        self.verdict = verdict
