"""Exceptions of the rules core: each names one kind of bad input."""

from __future__ import annotations


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
