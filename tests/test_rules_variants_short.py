"""Short-nardy options of RULES.md §5 about a checker that hits inside its own home, worked by
hand from 000 and 004. Black's point q is White's 25 - q."""

from __future__ import annotations

import pytest

from referee.rules import Roll, ShortNardy, judge, variant_from_name
from tests.rules_helpers import after, board
from tests.variant_helpers import outcomes, reached

# White all home; a black blot on White's 4 (Black's 21), the rest of Black on White's 12.
BEARING_OFF = ({6: 3, 5: 4, 3: 4, 2: 4}, {21: 1, 13: 14})
# White not yet home; the same black blot; White holds its 1.
HOME_HIT = ({13: 8, 6: 5, 1: 2}, {21: 1, 13: 14})


def test_no_bearoff_after_home_hit_keeps_the_hitter_on_the_board() -> None:
    plain = board(ShortNardy(), *BEARING_OFF)
    strict = board(ShortNardy(no_bearoff_after_home_hit=True), *BEARING_OFF)
    hit_and_off = "6/4* 4/off"
    assert reached(plain, hit_and_off) <= outcomes(plain, Roll(4, 2))
    assert not reached(strict, hit_and_off) & outcomes(strict, Roll(4, 2))
    verdict = judge(strict, Roll(4, 2), after(strict, hit_and_off))
    assert verdict.reasons == ("bore_off_after_hit",)
    # Another checker may still bear off after the hit.
    assert judge(strict, Roll(4, 2), after(strict, "6/4* 6/2")).legal
    # Nothing else changes: every other result of the roll is the same.
    assert outcomes(strict, Roll(4, 2)) == outcomes(plain, Roll(4, 2)) - reached(plain, hit_and_off)


def test_no_hit_then_join_forbids_the_hitter_moving_on_to_an_own_point() -> None:
    plain = board(ShortNardy(), *HOME_HIT)
    strict = board(ShortNardy(no_hit_then_join=True), *HOME_HIT)
    assert judge(plain, Roll(3, 2), after(plain, "6/4* 4/1")).legal
    verdict = judge(strict, Roll(3, 2), after(strict, "6/4* 4/1"))
    assert verdict.reasons == ("hit_then_join",)
    assert "moved on onto a point of its own side" in verdict.message
    # Moving on to an empty point, covering with another checker, or moving another checker
    # stay legal.
    assert judge(strict, Roll(2, 2), after(strict, "6/4* 4/2 13/11 13/11")).legal
    assert judge(strict, Roll(2, 2), after(strict, "6/4* 6/4 13/11 13/11")).legal
    assert judge(strict, Roll(3, 2), after(strict, "6/4* 6/3")).legal


@pytest.mark.parametrize("option", ["no_bearoff_after_home_hit", "no_hit_then_join"])
def test_hit_options_change_nothing_without_a_hit_in_home(option: str) -> None:
    start = variant_from_name("short", **{option: True}).starting_position()
    classic = ShortNardy().starting_position()
    for dice in (Roll(6, 5), Roll(3, 1), Roll(4, 4)):
        assert outcomes(start, dice) == outcomes(classic, dice)
