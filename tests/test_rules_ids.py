"""GNU Backgammon Position and Match IDs and XGIDs: golden values, agreement with gnubg, round
trips and refusals."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import InvalidPositionError, LongNardy, Position, Roll, ShortNardy, Side
from referee.rules.errors import InvalidIdError
from referee.rules.ids import (
    GameState,
    MatchState,
    Resignation,
    from_gnubg_id,
    from_xgid,
    position_from_gnubg_id,
    position_to_gnubg_id,
    to_gnubg_id,
    to_xgid,
)
from referee.rules.sampling import random_positions
from tests.gnubg_reference import gnubg_board
from tests.rules_helpers import board

START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"

# What GNU Backgammon 1.07 (`/usr/games/gnubg -t`) printed after `set xgid X` (followed by
# `swap players` when X has the top player on roll, to undo the swap gnubg then makes):
# XGID, then gnubg's Position ID and Match ID.
GNUBG_1_07 = [
    ("XGID=aCaA-aB-Ab--eD-----baAbAAA:6:-1:1:00:2:0:0:7:10", "TAM+hkgnJniAVA:RgngAAAAEAAE"),
    ("XGID=-a--DcF-aa--cC----Ae---aA-:3:1:1:41:2:1:3:0:10", "wgccxSF4fsBBIA:UwkGABAAEAAA"),
    ("XGID=-bAHB-dA--A-a---A-a-aaadA-:1:-1:-1:42:13:9:0:0:10", "+jciECBeJRB4MA:AQEKAJAAaAAE"),
    ("XGID=---a--EaDA-A-a---bA-B-dccA:1:1:-1:41:18:18:0:0:10", "4PMSkEF3D4ZACA:EQEGACABkAAE"),
    ("XGID=-DDa--A--------baa-BaCedA-:0:0:1:41:3:4:1:5:10", "3idqAAjvIQCYIw:8AmmAEAAGAAE"),
    ("XGID=--EB----aBa---A-A---C-Aeh-:0:0:1:51:0:2:1:3:10", "/z4ASAC+gUHCCQ:8IlmACAAAAAE"),
    ("XGID=-HCA-------------------bj-:3:-1:-1:00:1:0:0:3:10", "/y4AAOB/AwAAAA:AwFgAAAACAAE"),
    ("XGID=-AcaBA-B---abA--AbACBbdA--:6:1:-1:53:9:1:1:0:10", "sQxEuhG8YbAAHQ:FoEOABAASAAA"),
    ("XGID=-cBDA-Ca---A--a--AAb--aBg-:1:-1:1:53:11:14:3:0:10", "f2IQEDj2chAoGA:QYkOAOAAWAAA"),
    ("XGID=-Ba--AC-BAa-cD-aaa-ea-AaA-:1:1:-1:51:0:0:0:7:10", "Q2fhASSiT8UJEA:EYHmAAAAAAAE"),
    ("XGID=-BAF----A----A-a----bCegA-:0:0:-1:54:2:1:1:3:10", "6wdBgCP+PoMAAA:sIFyABAAEAAE"),
    ("XGID=-aC--AB------C-A---B--Cfh-:1:-1:-1:00:6:6:0:7:10", "jgacMA7/fgAAIA:AQHgAGAAMAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:3:1:-1:00:16:6:0:0:10", "4HPwATDgc/ABMA:EwEAAGAAgAAE"),
    ("XGID=aDAC-b--D-AA-----bacA---f-:3:-1:-1:00:14:12:3:0:10", "r4OnAAI/uAaAQQ:AwEAAMAAcAAA"),
    (START_XGID, "4HPwATDgc/ABMA:cAkAAAAAAAAE"),
]


# --- golden values --------------------------------------------------------------------------------


def test_start_position_id() -> None:
    start = ShortNardy().starting_position()
    assert position_to_gnubg_id(start) == START_ID
    assert position_from_gnubg_id(START_ID, turn=Side.BLACK) == start.with_turn(Side.BLACK)


def test_facts_match_id_money_game_player_1_on_roll() -> None:
    state = MatchState.from_match_id("cAkAAAAAAAAA")
    assert state == MatchState(
        cube_value=1,
        cube_owner=None,
        dice_owner=Side.BLACK,  # gnubg's player 1
        turn=Side.BLACK,
        game_state=GameState.PLAYING,
        match_length=0,
        jacoby=True,  # a 66-bit ID of gnubg before 1.07 reads as Jacoby on, as in gnubg
    )
    assert state.to_match_id() == "cAkAAAAAAAAA"


def test_facts_xgid_start() -> None:
    position, state = from_xgid(START_XGID)
    assert position == ShortNardy().starting_position(Side.BLACK)
    assert state == MatchState(dice_owner=Side.BLACK, turn=Side.BLACK)
    assert to_xgid(position, state) == START_XGID
    assert from_xgid(START_XGID.removeprefix("XGID=")) == (position, state)


@pytest.mark.parametrize(("xgid", "gnubg_id"), GNUBG_1_07)
def test_xgid_and_gnubg_ids_as_gnubg_1_07_converts_them(xgid: str, gnubg_id: str) -> None:
    position, state = from_xgid(xgid)
    assert to_gnubg_id(position, state) == gnubg_id
    back_position, back_state = from_gnubg_id(gnubg_id)
    assert back_position == position
    # The Match ID has no room for XG's beaver flag or cube limit.
    assert back_state == MatchState(**{**state.__dict__, "beaver": False, "max_cube": 1024})


def test_match_id_fields_one_by_one() -> None:
    state = MatchState(
        cube_value=8,
        cube_owner=Side.WHITE,
        dice_owner=Side.WHITE,
        crawford=True,
        turn=Side.BLACK,
        double_offered=True,
        match_length=7,
        scores=(6, 3),
    )
    key = int.from_bytes(base64.b64decode(state.to_match_id()), "little")
    assert key & 0xF == 3  # log2 of the cube
    assert key >> 4 & 3 == 0  # player 0 owns it
    assert key >> 6 & 1 == 0  # player 0 doubled (dice owner)
    assert key >> 7 & 1 == 1  # Crawford game
    assert key >> 8 & 7 == 1  # playing
    assert key >> 11 & 1 == 1  # player 1 must answer
    assert key >> 12 & 1 == 1  # double offered
    assert key >> 21 & 0x7FFF == 7
    assert key >> 36 & 0x7FFF == 6
    assert key >> 51 & 0x7FFF == 3
    assert key >> 66 & 1 == 1  # no Jacoby (gnubg 1.07's 67th bit)


def test_dice_are_written_higher_first_as_gnubg_does() -> None:
    low_first = MatchState(dice=Roll(2, 5))
    assert MatchState.from_match_id(low_first.to_match_id()).dice == Roll(5, 2)
    position = ShortNardy().starting_position()
    assert to_xgid(position, low_first).split(":")[4] == "52"


def test_double_offered_in_xgid() -> None:
    position = ShortNardy().starting_position(Side.WHITE)
    state = MatchState(cube_value=2, cube_owner=Side.WHITE, dice_owner=Side.WHITE, turn=Side.BLACK)
    offered = MatchState(**{**state.__dict__, "double_offered": True})
    xgid = to_xgid(position, offered)
    assert xgid.split(":")[1:5] == ["1", "-1", "-1", "D"]
    assert from_xgid(xgid) == (position, offered)


# --- agreement with gnubg-nn ---------------------------------------------------------------------


def test_position_ids_agree_with_gnubg_on_game_positions() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn is part of the test extra")
    seen_bar = seen_off = 0
    for position, _ in random_positions(ShortNardy(), 400, seed=31):
        ours = position_to_gnubg_id(position)
        assert ours == gnubg_nn.position_id(gnubg_board(position))
        assert gnubg_nn.board_from_position_id(ours) == gnubg_board(position)
        assert position_from_gnubg_id(ours, turn=position.turn) == position
        seen_bar += any(position.bar)
        seen_off += any(position.off)
    assert seen_bar > 20
    assert seen_off > 20


# --- round trips (hypothesis) ---------------------------------------------------------------------


@st.composite
def short_positions(draw: st.DrawFn) -> Position:
    """Any short-nardy board: each side's 15 checkers spread over off, points and bar, never two
    colours on one point (gnubg's one further refusal is filtered out)."""
    white = [0] * 26  # off, points 1..24, bar
    for slot in draw(st.lists(st.integers(0, 25), min_size=15, max_size=15)):
        white[slot] += 1
    free = [0, 25, *(p for p in range(1, 25) if not white[25 - p])]
    black = [0] * 26
    for slot in draw(st.lists(st.sampled_from(free), min_size=15, max_size=15)):
        black[slot] += 1
    position = Position(
        ShortNardy(),
        draw(st.sampled_from(Side)),
        (tuple(white[1:25]), tuple(black[1:25])),
        (white[25], black[25]),
        (white[0], black[0]),
    )
    stuck = all(position.bar[side] and min(position.points[side.other][:6]) >= 2 for side in Side)
    if not position.is_valid() or stuck:
        draw(st.nothing())
    return position


@settings(max_examples=150, deadline=None)
@given(short_positions())
def test_position_id_and_xgid_round_trip(position: Position) -> None:
    pid = position_to_gnubg_id(position)
    assert position_from_gnubg_id(pid, turn=position.turn) == position
    state = MatchState(dice_owner=position.turn, turn=position.turn)
    assert from_xgid(to_xgid(position, state)) == (position, state)
    gnubg_nn = pytest.importorskip("gnubg_nn")
    assert pid == gnubg_nn.position_id(gnubg_board(position))


dice = st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)).map(
    lambda d: Roll(max(d), min(d))
)
powers = st.integers(0, 15).map(lambda n: 1 << n)


@st.composite
def match_states(draw: st.DrawFn) -> MatchState:
    length = draw(st.sampled_from([0, 1, 3, 5, 7, 25, 32767]))
    limit = length or 32767
    return MatchState(
        cube_value=draw(powers),
        cube_owner=draw(st.none() | st.sampled_from(Side)),
        dice_owner=draw(st.sampled_from(Side)),
        crawford=bool(length) and draw(st.booleans()),
        game_state=draw(st.sampled_from(GameState)),
        turn=draw(st.sampled_from(Side)),
        double_offered=draw(st.booleans()),
        resignation=draw(st.sampled_from(Resignation)),
        dice=draw(dice),
        match_length=length,
        scores=(draw(st.integers(0, limit)), draw(st.integers(0, limit))),
        jacoby=draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(match_states())
def test_match_id_round_trip(state: MatchState) -> None:
    text = state.to_match_id()
    assert len(text) == 12
    assert MatchState.from_match_id(text) == state


@settings(max_examples=200, deadline=None)
@given(match_states(), st.booleans(), st.booleans(), powers)
def test_xgid_round_trip(state: MatchState, doubled: bool, beaver: bool, limit: int) -> None:
    # What an XGID holds: a game in play, no resignation, the answering side implied by `D`.
    money = not state.match_length
    state = MatchState(
        **{
            **state.__dict__,
            "game_state": GameState.PLAYING,
            "resignation": Resignation.NONE,
            "double_offered": doubled,
            "dice": None if doubled else state.dice,
            "turn": state.dice_owner.other if doubled else state.dice_owner,
            "jacoby": money and state.jacoby,
            "beaver": money and beaver,
            "max_cube": limit,
        }
    )
    position = ShortNardy().starting_position(state.dice_owner)
    assert from_xgid(to_xgid(position, state)) == (position, state)


def _key_id(key: int) -> str:
    """The Position ID spelling of an 80-bit key."""
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def _with_bits(match_id: str, offset: int, value: int) -> str:
    """`match_id` with `value` or-ed into its key at bit `offset`."""
    key = int.from_bytes(base64.b64decode(match_id), "little") | value << offset
    return base64.b64encode(key.to_bytes(9, "little")).decode()


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("4HPwATDgc/ABM", "14 characters, not 13"),
        ("4HPwATDgc/ABMA=", "14 characters, not 15"),
        ("4HPwATDgc/AB!A", "outside base64: !"),
        ("4HPwATDgc/ABMB", "stray bits"),
        (_key_id(0b111111 << 50), "checkers after the last point"),
        (_key_id((1 << 16) - 1), "the side not on roll 16 checkers"),
        (_key_id(((1 << 16) - 1) << 25), "the side on roll 16 checkers"),
    ],
)
def test_bad_position_ids(text: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match=problem):
        position_from_gnubg_id(text)


def test_impossible_positions_in_ids_are_refused() -> None:
    # Both sides' fifteen checkers on the same physical point (each one's 1 is the other's 24).
    # 15 + 25 bits for the first side, then 23 empty points of the second before its 24.
    shared = _key_id((1 << 15) - 1 | ((1 << 15) - 1) << (40 + 23))
    with pytest.raises(InvalidIdError, match="impossible position: white and black checkers"):
        position_from_gnubg_id(shared)
    stuck = board(
        ShortNardy(),
        {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 2},
        {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 2},
        bar=(1, 1),
    )
    with pytest.raises(InvalidPositionError, match="both sides are on the bar"):
        position_to_gnubg_id(stuck)
    with pytest.raises(InvalidIdError, match="both sides are on the bar"):
        from_xgid("XGID=aBBBBBB-----bB-----bbbbbbA:0:0:1:00:0:0:0:0:10")


def test_long_nardy_has_no_gnubg_ids() -> None:
    with pytest.raises(InvalidIdError, match="short nardy"):
        position_to_gnubg_id(LongNardy().starting_position())
    with pytest.raises(InvalidIdError, match="short nardy"):
        position_from_gnubg_id(START_ID, variant=LongNardy())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("cAkAAAAAAAA", "12 characters, not 11"),
        ("cAkAAAAAAA#A", "outside base64"),
        ("YAkAAAAAAAAA", "cube owner bits 10"),
        ("cA4AAAAAAAAA", "unknown game state 6"),
        (_with_bits("cAkAAAAAAAAA", 15, 0o77), "a die shows 1 to 6"),
        (_with_bits("cAkAAAAAAAAA", 15, 0o03), "one die is missing"),
        ("8AkAAAAAAAAA", "money play has no Crawford game"),
        ("cAkgAEAAAAAA", "past the match length"),
        ("cAkAAAAAAAAI", "bits past the 67th"),
    ],
)
def test_bad_match_ids(text: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match=problem):
        MatchState.from_match_id(text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "9 fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters, not 25"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "'A' cannot stand at position 0"),
        ("XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10", "'z' cannot stand"),
        ("XGID=-b----P-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "'P' cannot stand"),
        ("XGID=-b----O-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "25 checkers"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "1 or -1, not 0"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "1, 0 or -1, not 2"),
        ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", "powers 0 to 15"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "beaver and raccoon"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:7:0:0:0:0:10", "two digits or D"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "two digits or D"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:30:0:0:0:0:10", "one die is missing"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:x:0:0:0:10", "not a whole number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:5:10", "rules flags 2"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:0:0:5:10", "past the match length"),
        ("XGID=--------------------------:0:0:1:00:0:0:0:0:10", "both sides have borne off"),
    ],
)
def test_bad_xgids(text: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match=problem):
        from_xgid(text)


def test_the_position_must_belong_to_the_dice_owner() -> None:
    position = ShortNardy().starting_position(Side.WHITE)
    state = MatchState(dice_owner=Side.BLACK, turn=Side.BLACK)
    with pytest.raises(InvalidIdError, match="white to move but the dice belong to black"):
        to_gnubg_id(position, state)
    with pytest.raises(InvalidIdError, match="white to move"):
        to_xgid(position, state)
    with pytest.raises(InvalidIdError, match="PositionID:MatchID"):
        from_gnubg_id(START_ID)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"cube_value": 3}, "power of two"),
        ({"cube_value": 1 << 16}, "power of two"),
        ({"max_cube": 0}, "cube limit"),
        ({"scores": (1, 2, 3)}, "two numbers"),
        ({"scores": (-1, 0)}, "two numbers"),
        ({"match_length": -1}, "match length"),
        ({"crawford": True}, "no Crawford game"),
        ({"dice": (3, 1)}, "a Roll or None"),
    ],
)
def test_bad_match_states(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(InvalidIdError, match=problem):
        MatchState(**fields)  # type: ignore[arg-type]
