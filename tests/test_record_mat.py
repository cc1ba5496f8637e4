"""The .mat format: the real GNU Backgammon match re-exports byte for byte, every play replays
legally through the rules, and a damaged file gives one clear error naming file, line or move."""

from __future__ import annotations

import pytest

from referee.record import (
    Double,
    Drop,
    End,
    Match,
    Move,
    RecordReplayError,
    RecordSyntaxError,
    Take,
    UnsupportedRecordError,
    format_mat,
    parse_mat,
    read_mat,
)
from referee.rules import LongNardy, Roll
from tests.record_helpers import REAL_MAT, random_match, real


def real_text() -> str:
    return real(REAL_MAT).read_bytes().decode("utf-8")


def test_reexport_is_byte_for_byte() -> None:
    data = real(REAL_MAT).read_bytes()
    match = read_mat(data.decode("utf-8"), source=str(REAL_MAT)).match
    assert format_mat(match).encode("utf-8") == data


def test_real_match_replays_legally_through_the_rules() -> None:
    replayed = read_mat(real_text())
    header = replayed.match.header
    assert header.players == ("charlot1", "charlot2")
    assert header.length == 7
    assert str(header.event_date) == "2025-11-08"
    moves = 0
    for game in replayed.games:
        for done in game.actions:
            if isinstance(done.action, Move):
                moves += 1
                roll = Roll(*done.action.dice)
                assert done.legal
                assert any(done.after.same_board(q) for q in done.before.legal_positions(roll))
    assert moves == sum(1 for g in replayed.match.games for a in g.actions if a.kind == "move")
    results = [(g.result.winner, g.result.points, g.result.end) for g in replayed.match.games]
    assert results == [
        (1, 2, End.RESIGN),  # charlot1 resigned a single game at cube 2
        (0, 2, End.DROP),
        (0, 4, End.BEAR_OFF),  # a gammon at cube 2
        (0, 3, End.RESIGN),  # a backgammon resigned
    ]
    assert [g.game.score for g in replayed.games] == [(0, 0), (0, 2), (2, 2), (6, 2)]
    assert replayed.score == (9, 2) and replayed.winner == 0
    assert [g.crawford for g in replayed.games] == [False, False, False, True]


def test_who_starts_and_cube_actions_are_read_by_column() -> None:
    games = parse_mat(real_text()).games
    assert games[0].actions[0].player == 1  # row 1's left cell is empty: charlot2 opened
    assert games[2].actions[0].player == 0
    assert games[0].actions[18:20] == (Double(1, 2), Take(0))
    assert games[1].actions[-2:] == (Double(0, 4), Drop(1))
    first = games[0].actions[0]
    assert isinstance(first, Move) and str(first.play) == "13/9 24/23"


def test_hit_marks_come_from_the_board() -> None:
    replayed = read_mat(real_text().replace("6/4* 18/17*", "6/4 18/17"))
    fourth = replayed.match.games[0].actions[6]
    assert isinstance(fourth, Move) and str(fourth.play) == "6/4* 18/17*"


def corrupted(old: str, new: str, count: int = 1) -> str:
    text = real_text()
    assert old in text
    return text.replace(old, new, count)


@pytest.mark.parametrize(
    ("old", "new", "game", "move", "words"),
    [
        ("  3) 31: 24/21 6/5", "  3) 31: 24/20 6/5", 1, 3, "closest legal play is 24/21 6/5"),
        ("31: 6/5 8/5 ", "31: 6/5 8/4 ", 1, 2, "Illegal"),
        ("Doubles => 2", "Doubles => 4", 1, 10, "cube goes to 2"),
        ("  3) 31: 24/21 6/5", "  3) 31: 2/1 6/5", 1, 3, "moves no checker"),
        (" 11)  Takes", " 11)  Drops", 1, 11, "action after the game was over"),
    ],
)
def test_an_inconsistent_move_names_game_move_and_text(
    old: str, new: str, game: int, move: int, words: str
) -> None:
    with pytest.raises(RecordReplayError) as caught:
        read_mat(corrupted(old, new), source="x.mat")
    error = caught.value
    assert (error.game, error.move) == (game, move)
    assert words in str(error) and str(error).startswith("x.mat: game")


def test_a_wrong_result_or_score_is_refused() -> None:
    wins = "                                  Wins 2 points\n\n Game 2"
    with pytest.raises(RecordReplayError, match=r"game 1: .*resignation is worth"):
        read_mat(corrupted(wins, wins.replace("2 points", "3 points")))
    score_line = " charlot1 : 0                   charlot2 : 2"
    with pytest.raises(RecordReplayError, match="game 2: the score line says 0-3"):
        read_mat(corrupted(score_line, score_line.replace(": 2", ": 3")))
    bear_off = "      Wins 4 points"
    with pytest.raises(RecordReplayError, match=r"game 3: .*board and cube give charlot1 wins 4"):
        read_mat(corrupted(bear_off, "      Wins 2 points"))


@pytest.mark.parametrize(
    ("damage", "line", "words"),
    [
        (lambda t: t.replace("  5) 21:", "  5) 2x:", 1), 11, "cannot read"),
        (lambda t: t.replace(" Game 2\n", " Game 3\n"), 33, "expected game 2"),
        (lambda t: t[: t.index("24/21 6/5") + 3], 9, "cannot read '24/'"),
        (lambda t: "garbage\n" + t, 1, "expected a header line"),
        (lambda t: t.replace("  4) 41", "  5) 41", 1), 10, "expected move 4, left cell"),
        (lambda t: t.replace(" charlot1 : 0   ", " charlot3 : 0   ", 1), 34, "between charlot3"),
    ],
)
def test_a_damaged_file_names_its_line(damage, line: int, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RecordSyntaxError) as caught:
        parse_mat(damage(real_text()), source="x.mat")
    assert caught.value.line == line
    assert words in str(caught.value) and str(caught.value).startswith(f"x.mat:{line}: ")


def test_an_unknown_variation_is_unsupported() -> None:
    with pytest.raises(UnsupportedRecordError, match="NackGammon"):
        parse_mat('; [Variation "NackGammon"]\n\n 1 point match\n')


def test_a_match_with_headers_comments_and_a_left_drop_round_trips() -> None:
    text = (
        '; [Site "Tbilisi"]\n; [Player 1 "A"]\n; [Player 2 "B"]\n; [EventDate "2024.01.02"]\n'
        '; [Crawford "On"]\n; [CubeLimit "64"]\n\n; a note\n\n 3 point match\n\n'
        " Game 1\n A : 0                          B : 0\n"
        "  1) 31: 8/5 6/5                  Doubles => 2\n"
        "  2)  Drops                       Wins 1 point \n\n"
    )
    match = read_mat(text).match
    header = match.header
    assert header.extra == (("Site", "Tbilisi"),) and header.comments == ("a note",)
    assert header.crawford is True and header.cube_limit == 64
    assert match.games[0].result is not None and match.games[0].result.winner == 1
    assert format_mat(match) == text


def test_long_nardy_is_not_written_as_mat() -> None:
    match: Match = random_match(LongNardy(), [1])
    with pytest.raises(UnsupportedRecordError, match="long"):
        format_mat(match)


def test_names_pad_by_bytes_as_gnubg_does() -> None:
    text = (
        "\n 1 point match\n\n Game 1\n Алиса : 0" + " " * (31 - 14) + "Bob : 0\n"
        f"  1) {'31: 8/5 6/5 ':<27} \n"  # an unfinished game
    )
    match = read_mat(text).match
    assert match.header.players == ("Алиса", "Bob")
    assert format_mat(match) == text
