"""The rules core: positions, dice, plays, variants and verdicts. Pure Python, no I/O.

>>> from referee.rules import LongNardy, Roll
>>> start = LongNardy().starting_position()
>>> sorted(str(play) for play in start.legal_plays(Roll(6, 6)))
['24/18 24/18']
"""

from referee.rules.errors import (
    GameFlowError,
    InvalidOptionError,
    InvalidPlayError,
    InvalidPositionError,
    InvalidRollError,
    RulesError,
    UnknownVariantError,
)
from referee.rules.judge import LegalOption, Reason, Verdict, checkers_out_of_place, judge
from referee.rules.model import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    Play,
    Position,
    Roll,
    Side,
    Status,
    Step,
    describe_status,
)
from referee.rules.variants import VARIANTS, LongNardy, ShortNardy, Variant, variant_from_name

__all__ = [
    "BAR",
    "CHECKERS_PER_SIDE",
    "OFF",
    "VARIANTS",
    "GameFlowError",
    "InvalidOptionError",
    "InvalidPlayError",
    "InvalidPositionError",
    "InvalidRollError",
    "LegalOption",
    "LongNardy",
    "Play",
    "Position",
    "Reason",
    "Roll",
    "RulesError",
    "ShortNardy",
    "Side",
    "Status",
    "Step",
    "UnknownVariantError",
    "Variant",
    "Verdict",
    "checkers_out_of_place",
    "describe_status",
    "judge",
    "variant_from_name",
]
