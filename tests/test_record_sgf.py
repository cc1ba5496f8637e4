"""SGF (GM[6]): the real match's .sgf and .mat give the same moves and positions; points,
colours and cube nodes are read the right way round; export round-trips."""

from __future__ import annotations

import dataclasses

import pytest

from referee.record import (
    Match,
    Move,
    RecordReplayError,
    RecordSyntaxError,
    UnsupportedRecordError,
    format_mat,
    format_sgf,
    parse_sgf,
    read_mat,
    read_sgf,
)
from referee.record.sgf import letter_point, point_letter
from referee.rules import ShortNardy
from tests.record_helpers import REAL_MAT, REAL_SGF, REAL_SGF_2, random_match, real


def test_letters_are_whites_points_and_blacks_the_other_way() -> None:
    assert [point_letter(0, p) for p in (1, 24, 25, 0)] == ["a", "x", "y", "z"]
    assert [point_letter(1, p) for p in (24, 1, 25, 0)] == ["a", "x", "y", "z"]
    assert all(
        letter_point(player, point_letter(player, p)) == p for player in (0, 1) for p in range(26)
    )


def test_a_move_node_reads_in_the_movers_numbering() -> None:
    text = "(;FF[4]GM[6]PW[w]PB[b]\n;B[41lpab]\n;W[31fehe]\n;B[double]\n;W[take])"
    game = parse_sgf(text).games[0]
    assert [str(a.play) for a in game.actions if isinstance(a, Move)] == ["13/9 24/23", "6/5 8/5"]
    assert [a.kind for a in game.actions] == ["move", "move", "double", "take"]
    assert game.actions[2].player == 1 and game.actions[3].player == 0


def test_the_sgf_and_the_mat_of_one_match_agree() -> None:
    from_mat = read_mat(real(REAL_MAT).read_text(encoding="utf-8"))
    from_sgf = read_sgf(real(REAL_SGF).read_text(encoding="utf-8"))
    assert from_sgf.match.header.players == from_mat.match.header.players
    assert from_sgf.match.header.length == 7
    assert from_sgf.match.header.event_date == from_mat.match.header.event_date
    assert len(from_sgf.games) == len(from_mat.games) == 4
    for sgf_game, mat_game in zip(from_sgf.games, from_mat.games, strict=True):
        assert sgf_game.game.score == mat_game.game.score
        assert sgf_game.game.actions == mat_game.game.actions  # hit marks included
        assert sgf_game.game.result == mat_game.game.result  # R in RE = resigned, as replayed
        assert sgf_game.crawford == mat_game.crawford
        for a, b in zip(sgf_game.actions, mat_game.actions, strict=True):
            assert a.before.board_key() == b.before.board_key()
            assert a.after.board_key() == b.after.board_key()
            assert a.after.turn == b.after.turn
    # The .sgf written as .mat is the real .mat, apart from the header lines it adds.
    mat_text = real(REAL_MAT).read_text(encoding="utf-8")
    body = mat_text[mat_text.index(" 7 point match") :]
    written = format_mat(from_sgf.match)
    assert written[written.index(" 7 point match") :] == body


def test_the_second_real_match_replays_and_round_trips() -> None:
    replayed = read_sgf(real(REAL_SGF_2).read_text(encoding="utf-8"))
    assert [g.game.result.points for g in replayed.games if g.game.result] == [4, 2, 2, 1, 4]
    assert replayed.score == (8, 5) and replayed.winner == 0
    as_mat = read_mat(format_mat(replayed.match)).match
    # .mat does not say which game is the Crawford game; SGF does.
    assert as_mat.games == tuple(dataclasses.replace(g.game, crawford=None) for g in replayed.games)
    again = read_sgf(format_sgf(replayed.match)).match
    assert again.games == replayed.match.games
    assert again.header == replayed.match.header


def test_export_round_trips_made_up_matches() -> None:
    match = random_match(ShortNardy(), [3, 4, 5], length=0)
    again = read_sgf(format_sgf(match)).match
    assert again.games == read_sgf(format_sgf(again)).match.games
    assert [g.actions for g in again.games] == [g.actions for g in match.games]
    assert again.header.players == ("Алиса", "Bob")


def test_damaged_or_unsupported_sgf_is_refused_clearly() -> None:
    with pytest.raises(RecordSyntaxError, match=r"^x.sgf:2: .*cut short"):
        parse_sgf("(;FF[4]GM[6]\n;B[41lp", source="x.sgf")
    with pytest.raises(UnsupportedRecordError, match="GM"):
        parse_sgf("(;FF[4]GM[1])")
    with pytest.raises(UnsupportedRecordError, match="edits the board"):
        parse_sgf("(;GM[6]\n;AE[a:z])")
    with pytest.raises(RecordSyntaxError, match=r":3: cannot read the move '41lpa'"):
        parse_sgf("(;GM[6]\n;B[41lpab]\n;W[41lpa])", source="x.sgf")
    with pytest.raises(RecordReplayError, match=r"game 1, move 2 .*Illegal"):
        read_sgf("(;GM[6]\n;B[41lpab]\n;W[41hdhc])")


def test_long_nardy_is_not_sgf() -> None:
    from referee.rules import LongNardy

    match: Match = random_match(LongNardy(), [2])
    with pytest.raises(UnsupportedRecordError):
        format_sgf(match)


def test_the_match_model_round_trips_through_json() -> None:
    import json

    match = read_sgf(real(REAL_SGF).read_text(encoding="utf-8")).match
    again = Match.from_dict(json.loads(json.dumps(match.to_dict())))
    assert again == match


def test_a_beaver_is_answered_by_the_doubler() -> None:
    text = "(;GM[6]PW[a]PB[b]\n;W[31fehe]\n;B[double]\n;W[beaver]\n;B[take]\n;B[41lpab])"
    game = read_sgf(text).games[0]
    assert (game.cube, game.cube_owner) == (4, 0)
    with pytest.raises(UnsupportedRecordError, match="twice in a row"):
        format_mat(read_sgf(text).match)
    dropped = read_sgf(text.replace("B[take]\n;B[41lpab]", "B[drop]")).games[0]
    assert dropped.game.result is not None and dropped.game.result.points == 2
    with pytest.raises(RecordReplayError, match="beavers are allowed only in money play"):
        read_sgf(text.replace("GM[6]", "GM[6]MI[length:5][game:0][ws:0][bs:0]"))
