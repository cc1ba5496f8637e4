"""The throw verdict from dice facts (RULES.md §2), free of pixels: every reason, its order of
precedence, the two roll zones, and halves as the roller sees them."""

from __future__ import annotations

import pytest

from referee.vision.verdict import DieFacts, ThrowVerdict, judge_throw, roller_half

RIGHT = DieFacts(value=3, half="right")
LEFT = DieFacts(value=5, half="left")


def test_two_flat_dice_in_one_half_stand() -> None:
    assert judge_throw([RIGHT, DieFacts(6, half="right")]) == ThrowVerdict(True, None)
    assert judge_throw([LEFT, DieFacts(1, half="left")]) == ThrowVerdict(True, None)


@pytest.mark.parametrize(
    ("dice", "reason"),
    [
        ([RIGHT, DieFacts(2, on_board=False, half=None)], "off_board"),
        ([RIGHT], "off_board"),  # a die not seen is not on the board
        ([RIGHT, DieFacts(2, flat=False, half="right")], "cocked"),
        ([RIGHT, DieFacts(2, on_checker=True, half="right")], "on_checker"),
        ([RIGHT, LEFT], "split_halves"),
        ([RIGHT, DieFacts(None, moving=True, half="right")], "rolling"),
    ],
)
def test_each_defect_voids_the_throw(dice: list[DieFacts], reason: str) -> None:
    assert judge_throw(dice) == ThrowVerdict(False, reason)


def test_precedence_follows_the_scene_labels() -> None:
    cocked_left = DieFacts(2, flat=False, half="left")
    assert judge_throw([RIGHT, cocked_left]).reason == "cocked"  # before split_halves
    off = DieFacts(4, on_board=False, half=None)
    assert judge_throw([off, cocked_left]).reason == "off_board"  # before cocked
    on_checker = DieFacts(4, on_checker=True, half="left")
    assert judge_throw([on_checker, cocked_left]).reason == "cocked"
    rolling = DieFacts(None, moving=True)
    assert judge_throw([rolling, off]).reason == "rolling"


def test_right_half_zone() -> None:
    assert judge_throw([RIGHT, DieFacts(1, half="right")], "right_half").valid
    left_pair = [LEFT, DieFacts(1, half="left")]
    assert judge_throw(left_pair, "same_half").valid
    assert judge_throw(left_pair, "right_half") == ThrowVerdict(False, "wrong_half")
    assert judge_throw([RIGHT, LEFT], "right_half").reason == "split_halves"
    with pytest.raises(ValueError):
        judge_throw([RIGHT, RIGHT], "anywhere")  # type: ignore[arg-type]


def test_halves_turn_round_for_black() -> None:
    assert roller_half("right", "white") == "right"
    assert roller_half("right", "black") == "left"
    assert roller_half("left", "black") == "right"
