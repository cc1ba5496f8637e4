"""Ground-truth and reading parsers: the numbers they produce, and the errors they name."""

from __future__ import annotations

import copy

import pytest

from referee.evaluation.basics import RollVerdict, SideCounts
from referee.evaluation.reading import (
    DieReading,
    PointReading,
    Reading,
    ReadingFormatError,
    reading_from_json,
    reading_to_json,
)
from referee.evaluation.truth import Box, TruthError, parse_scene_truth, parse_yolo_dice
from tests.evaluation_fixtures import scene_label


def counts_by_point(label: dict[str, object]) -> dict[int, tuple[str | None, int]]:
    board = parse_scene_truth(label).board
    assert board is not None
    return {p.point: (p.color, p.count) for p in board.points}


def test_short_nardy_black_points_are_mirrored() -> None:
    # Short nardy: black's own point p is white's 25 - p.
    white, black = [0] * 24, [0] * 24
    white[0], white[5] = 4, 11
    black[0], black[12], black[5] = 3, 2, 10
    got = counts_by_point(scene_label(variant="short", white=white, black=black))
    assert got[1] == ("white", 4) and got[6] == ("white", 11)
    assert got[24] == ("black", 3) and got[12] == ("black", 2) and got[19] == ("black", 10)
    assert sum(c for _, c in got.values()) == 30


def test_long_nardy_heads_are_diagonally_opposite() -> None:
    # Long nardy: black's point p is white's ((p + 11) mod 24) + 1, so black's head (24) is
    # white's 12, black's 1 is white's 13 and black's 2 white's 14.
    white, black = [0] * 24, [0] * 24
    white[23], white[22] = 14, 1
    black[23], black[0], black[1] = 13, 1, 1
    got = counts_by_point(scene_label(variant="long", white=white, black=black))
    assert got[24] == ("white", 14) and got[23] == ("white", 1)
    assert got[12] == ("black", 13) and got[13] == ("black", 1) and got[14] == ("black", 1)
    assert sum(c for _, c in got.values()) == 30


def test_impossible_positions_are_bad_labels() -> None:
    white, black = [0] * 24, [0] * 24
    white[0], black[23] = 15, 15  # short: black's 24 is white's 1
    with pytest.raises(TruthError, match="share a point"):
        parse_scene_truth(scene_label(variant="short", white=white, black=black))
    white[0] = 14
    with pytest.raises(TruthError, match="white has fewer than 15"):
        parse_scene_truth(scene_label(variant="short", white=white, black=black))


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("board", "width_px"), None, "board.width_px"),
        (("position", "white"), [0] * 23, "'white' must be a list of 24"),
        (("position", "variant"), "chess", "unknown variant 'chess'"),
        (("roll", "reason"), "sneezed", "roll.reason"),
        (("dice", 0, "value"), 7, r"dice\[0\].value"),
        (("dice", 1, "box"), [1, 2, 3], r"dice\[1\].box"),
        (("board", "points", 3, "base"), "x", r"board.points\[3\].base"),
        (("hand",), 1, "hand: expected true or false"),
        (("hand",), None, "hand: expected true or false"),
    ],
)
def test_bad_fields_are_named(path: tuple[object, ...], value: object, message: str) -> None:
    label = copy.deepcopy(scene_label())
    node: object = label
    for key in path[:-1]:
        node = node[key]  # type: ignore[index]
    node[path[-1]] = value  # type: ignore[index]
    with pytest.raises(TruthError, match=message):
        parse_scene_truth(label)


def test_duplicate_point_numbers_are_a_bad_label() -> None:
    label = scene_label()
    label["board"]["points"][1]["point"] = 1
    with pytest.raises(TruthError, match="exactly once"):
        parse_scene_truth(label)


def test_scene_roll_and_dice() -> None:
    truth = parse_scene_truth(scene_label(valid=False, reason="cocked"))
    assert truth.roll == RollVerdict(False, "cocked")
    assert (truth.roller, truth.roll_zone, truth.variant) == ("white", "right_half", "short")
    assert [d.value for d in truth.dice] == [3, 5]
    assert truth.dice[0].box == Box(550.0, 290.0, 570.0, 310.0)


def test_hand_over_the_board() -> None:
    assert parse_scene_truth(scene_label(hand=True)).hand is True
    assert parse_scene_truth(scene_label(hand=False)).hand is False
    label = scene_label(hand=True)
    del label["hand"]
    assert parse_scene_truth(label).hand is False


def test_yolo_boxes_in_pixels() -> None:
    truth = parse_yolo_dice("2 0.5 0.5 0.1 0.2\n\n5 0.25 0.75 0.05 0.05\n", 640, 480)
    assert truth.board is None and truth.roll is None and truth.hand is False
    assert [d.value for d in truth.dice] == [3, 6]
    assert truth.dice[0].center == (320.0, 240.0)
    assert truth.dice[0].box == Box(288.0, 192.0, 352.0, 288.0)
    assert truth.dice[0].flat is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2 0.5 0.5 0.1", "expected 'class cx cy w h'"),
        ("6 0.5 0.5 0.1 0.1", "class 6 is no die face"),
        ("-1 0.5 0.5 0.1 0.1", "class -1 is no die face"),
        ("a 0.5 0.5 0.1 0.1", "not numbers"),
        ("1 1.5 0.5 0.1 0.1", "not normalised"),
        ("1 0.5 0.5 0 0.1", "not normalised"),
    ],
)
def test_bad_yolo_lines(text: str, message: str) -> None:
    with pytest.raises(TruthError, match=message):
        parse_yolo_dice("0 0.5 0.5 0.1 0.1\n" + text, 640, 640)


def test_reading_json_round_trip() -> None:
    reading = Reading(
        corners=((1.0, 2.0), (3.0, 4.0), (5.0, 6.0), (7.0, 8.0)),
        points=(
            PointReading((1.0, 1.0), (1.0, 9.0), "black", 3, 0.5, point=13),
            PointReading((2.0, 1.0), (2.0, 9.0), None, 0),
        ),
        bar=SideCounts(1, 0),
        off=SideCounts(0, 2),
        dice=(DieReading((5.0, 5.0), None, flat=False, on_checker=True, half="left"),),
        roll=RollVerdict(False, "cocked"),
        timings_ms={"detect": 1.5},
    )
    assert reading_from_json(reading_to_json(reading)) == reading
    assert reading_from_json({}) == Reading()


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([], "reading: missing or not an object"),
        ({"corners": [[0, 0]] * 3}, "corners: expected 4 corners"),
        ({"points": [{"base": [0, 0], "tip": [0, 1], "color": "red", "count": 1}]}, "color"),
        ({"points": [{"base": [0, 0], "tip": [0, 1], "color": None, "count": 1.5}]}, "count"),
        (
            {"points": [{"base": [0, 0], "tip": [0, 1], "color": None, "count": 0, "point": "1"}]},
            r"points\[0\].point",
        ),
        ({"dice": [{"center": [0, 0], "value": 2, "half": "middle"}]}, r"dice\[0\].half"),
        ({"dice": [{"center": [0, True], "value": 2}]}, r"dice\[0\].center\[1\]"),
        ({"roll": {"valid": "yes"}}, "roll.valid"),
        ({"timings_ms": {"x": "fast"}}, "timings_ms.x"),
    ],
)
def test_bad_readings_are_named(obj: object, message: str) -> None:
    with pytest.raises(ReadingFormatError, match=message):
        reading_from_json(obj)
