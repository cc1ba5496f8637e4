"""The rules core: positions, dice, plays, variants and verdicts. Pure Python, no I/O.

>>> from referee.rules import LongNardy, Roll
>>> start = LongNardy().starting_position()
>>> sorted(str(play) for play in start.legal_plays(Roll(6, 6)))
['24/18 24/18']
"""

from referee.rules.errors import (
    GameFlowError,
    IllegalPlayError,
    InvalidIdError,
    InvalidOptionError,
    InvalidPlayError,
    InvalidPositionError,
    InvalidRollError,
    RulesError,
    UnknownVariantError,
)
from referee.rules.game import (
    Ending,
    Game,
    GameEvent,
    GameResult,
    Phase,
    ResultKind,
    StakeRules,
)
from referee.rules.ids import (
    MatchState,
    from_gnubg_id,
    from_xgid,
    position_from_gnubg_id,
    position_to_gnubg_id,
    to_gnubg_id,
    to_xgid,
)
from referee.rules.judge import LegalOption, Reason, Verdict, checkers_out_of_place, judge
from referee.rules.long_variants import (
    Fevga,
    FevgaRabid,
    Gulbar,
    Khachapuri,
    Mad,
    MadGulbar,
    Nardgammon,
)
from referee.rules.match import Match
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
from referee.rules.turns import Continuation, Next, OwedMoves
from referee.rules.variants import VARIANTS, LongNardy, ShortNardy, Variant, variant_from_name

__all__ = [
    "BAR",
    "CHECKERS_PER_SIDE",
    "OFF",
    "VARIANTS",
    "Continuation",
    "Ending",
    "Fevga",
    "FevgaRabid",
    "Game",
    "GameEvent",
    "GameFlowError",
    "GameResult",
    "Gulbar",
    "IllegalPlayError",
    "InvalidIdError",
    "InvalidOptionError",
    "InvalidPlayError",
    "InvalidPositionError",
    "InvalidRollError",
    "Khachapuri",
    "LegalOption",
    "LongNardy",
    "Mad",
    "MadGulbar",
    "Match",
    "MatchState",
    "Nardgammon",
    "Next",
    "OwedMoves",
    "Phase",
    "Play",
    "Position",
    "Reason",
    "ResultKind",
    "Roll",
    "RulesError",
    "ShortNardy",
    "Side",
    "StakeRules",
    "Status",
    "Step",
    "UnknownVariantError",
    "Variant",
    "Verdict",
    "checkers_out_of_place",
    "describe_status",
    "from_gnubg_id",
    "from_xgid",
    "judge",
    "position_from_gnubg_id",
    "position_to_gnubg_id",
    "to_gnubg_id",
    "to_xgid",
    "variant_from_name",
]
