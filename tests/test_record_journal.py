"""The journal: each event is on disk (fsync'd) when `append` returns, replay rebuilds the match,
a power cut's torn last line is reported and survived, and any other damage is a clear error
that leaves the file exactly as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.record import (
    DisputeDecided,
    DoubleOffered,
    DoubleTaken,
    End,
    GameStarted,
    GameWon,
    Journal,
    JournalError,
    JournalVersionError,
    MatchHeader,
    MatchOver,
    Move,
    OpeningThrow,
    PlayMade,
    RollCorrected,
    RollThrown,
    format_mat,
    read_mat,
    read_record,
)
from referee.rules import Play, Roll, ShortNardy, judge
from tests.record_helpers import random_moves

HEADER = MatchHeader(players=("Ann", "Бекзод"), length=3, crawford=True)


def play_events(moves: list[Move]) -> list[PlayMade]:
    return [PlayMade(m.player, m.dice, m.play) for m in moves]


def write_game(path: Path, seed: int = 1) -> tuple[Journal, list[Move]]:
    moves, _ = random_moves(ShortNardy(), seed)
    journal = Journal.create(path, HEADER)
    journal.append(GameStarted(1, (0, 0)))
    journal.append(OpeningThrow((3, 3)))  # a tie, thrown again
    journal.append(OpeningThrow((5, 2)))
    for event in play_events(moves[:4]):
        journal.append(RollThrown(event.player, event.dice))
        journal.append(event)
    return journal, moves


def test_every_append_is_synced_and_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    path = tmp_path / "match.jsonl"
    journal = Journal.create(path, HEADER)
    files_synced = len(synced)
    assert files_synced >= 2  # the folder (the new name) and the first line
    entry = journal.append(GameStarted(1, (0, 0)))
    assert len(synced) == files_synced + 1
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and b'"kind":"game_started"' in lines[-2]
    assert entry.line == 2 and entry.seq == 2
    journal.close()


def test_replay_rebuilds_the_match_and_exports_it(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    moves, final = random_moves(ShortNardy(), 2)
    winner = final.winner()
    assert winner is not None
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        for index, event in enumerate(play_events(moves)):
            if index == 2:
                journal.append(DoubleOffered(event.player, 2))
                journal.append(DoubleTaken(1 - event.player))
            journal.append(event)
        result = Journal.replay(path).replayed.games[0].game.result
        assert result is not None and result.winner == int(winner)
        journal.append(GameWon(result.winner, result.points, End.BEAR_OFF))
        journal.append(MatchOver(result.winner, (result.points, 0)))
    state = Journal.replay(path)
    assert state.finished and state.pending is None and state.torn_line is None
    game = state.match.games[0]
    played = [a for a in game.actions if isinstance(a, Move)]
    assert [(a.player, a.dice, str(a.play)) for a in played] == [
        (m.player, m.dice, str(m.play)) for m in moves
    ]
    assert game.result == result and result.points == 2 * (result.points // 2)  # cube 2
    assert state.position is not None and state.position.winner() == winner
    # The rebuilt match exports as .mat and reads back the same.
    again = read_mat(format_mat(state.match)).match
    assert again.games == state.match.games
    assert read_record(path).match == state.match


def test_pending_roll_and_illegal_play_disputes(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    start = ShortNardy().starting_position()
    roll = Roll(3, 1)
    illegal = Play.from_str("24/21")  # the 1 is left unplayed
    verdict = judge(start, roll, start.play(illegal))
    assert not verdict.legal
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        journal.append(OpeningThrow((3, 1)))
        journal.append(PlayMade.judged(0, roll, illegal, verdict))
        assert Journal.replay(path).pending is not None  # waits for the opponent's decision
        journal.append(DisputeDecided(1, accepted=False))
        state = Journal.replay(path)
        assert isinstance(state.pending.event, RollThrown)  # type: ignore[union-attr]
        assert state.match.games[0].actions == ()
        journal.append(PlayMade.judged(0, roll, illegal, verdict))
        journal.append(DisputeDecided(1, accepted=True))
        journal.append(RollThrown(1, (6, 5)))
    state = Journal.replay(path)
    (done,) = state.replayed.games[0].actions
    assert not done.legal and str(done.action.play) == "24/21"  # type: ignore[union-attr]
    assert isinstance(state.pending.event, RollThrown)  # type: ignore[union-attr]
    assert state.position is not None and state.position.turn.value == 1


def test_a_roll_corrected_before_its_play_is_the_roll_played(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        journal.append(OpeningThrow((5, 2)))
        journal.append(RollThrown(0, (3, 2)))
        journal.append(RollCorrected(0, (3, 1), read=(3, 2)))  # the move showed a 3-1
        state = Journal.replay(path)
        assert state.pending is not None and isinstance(state.pending.event, RollCorrected)
        journal.append(PlayMade(0, (3, 1), Play.from_str("8/5 6/5")))
    state = Journal.replay(path)
    (done,) = state.replayed.games[0].actions
    assert done.legal and done.action.dice == (3, 1)  # type: ignore[union-attr]
    assert state.pending is None
    # A correction with no throw waiting for its play is refused, naming its line (the 8th:
    # resuming wrote a `resumed` line).
    journal, _ = Journal.resume(path)
    with journal:
        journal.append(RollCorrected(1, (6, 5), read=(6, 4)))
    with pytest.raises(JournalError, match=r":8: a roll corrected with no throw waiting"):
        Journal.replay(path)


def test_a_roll_corrected_after_the_opening_throw_is_the_first_move_played(
    tmp_path: Path,
) -> None:
    path = tmp_path / "match.jsonl"
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        journal.append(OpeningThrow((5, 2)))
        journal.append(RollCorrected(0, (5, 3), read=(5, 2)))  # the first move showed a 5-3
        journal.append(PlayMade(0, (5, 3), Play.from_str("13/8 24/21")))
    (done,) = Journal.replay(path).replayed.games[0].actions
    assert done.legal and done.action.dice == (5, 3)  # type: ignore[union-attr]
    # After a tie nobody plays the opening dice: there is nothing to correct.
    path = tmp_path / "tie.jsonl"
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        journal.append(OpeningThrow((4, 4)))
        journal.append(RollCorrected(0, (5, 4), read=(4, 4)))
    with pytest.raises(JournalError, match=r":4: a roll corrected with no throw waiting"):
        Journal.replay(path)


def test_a_torn_last_line_is_reported_and_resuming_carries_on(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    journal, moves = write_game(path)
    journal.close()
    complete = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"seq":14,"at":"2025-01-01T00:00:00.000Z","kind":"pl')  # power cut
    torn = path.read_bytes()
    state = Journal.replay(path)
    assert state.torn_line == complete.count(b"\n") + 1
    assert len(state.match.games[0].actions) == 4
    assert path.read_bytes() == torn  # reading changes nothing
    journal, state = Journal.resume(path)
    assert path.read_bytes().startswith(torn + b"\n")  # ended, never cut or rewritten
    journal.append(RollThrown(moves[4].player, moves[4].dice))
    journal.append(play_events(moves)[4])
    journal.close()
    state = Journal.replay(path)
    assert state.torn_line is None and len(state.match.games[0].actions) == 5
    assert [e.seq for e in state.entries] == list(range(1, len(state.entries) + 1))


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    journal, _ = write_game(path)
    journal.close()
    path.write_bytes(path.read_bytes()[:-1])
    state = Journal.replay(path)
    assert state.unterminated and state.torn_line is None
    assert len(state.match.games[0].actions) == 4
    journal, _ = Journal.resume(path)
    journal.close()
    assert Journal.replay(path).entries[-1].event.kind == "resumed"


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda lines: lines.insert(3, b"\x00\x00garbage"), "not "),
        (lambda lines: lines.__setitem__(3, lines[3][:-5]), "not a JSON event"),
        (lambda lines: lines.__setitem__(3, lines[3].replace(b'"v":1', b'"v":2')), "version 2"),
        (lambda lines: lines.pop(3), "event number 5 where 4 was due"),
        (lambda lines: lines.__setitem__(3, b'{"v":1,"seq":4,"at":"x","kind":"nap"}'), "kind"),
        (
            lambda lines: lines.__setitem__(
                3,
                b'{"v":1,"seq":4,"at":"x","kind":"roll_corrected","player":0,"dice":[3,1],'
                b'"read":[7,1]}',
            ),
            "a die shows 1 to 6, not [7, 1]",
        ),
        (lambda lines: lines.insert(1, lines[0]), "event number 1 where 2 was due"),
    ],
)
def test_damage_in_the_middle_names_the_line_and_changes_nothing(
    tmp_path: Path,
    damage,  # type: ignore[no-untyped-def]
    words: str,
) -> None:
    path = tmp_path / "match.jsonl"
    journal, _ = write_game(path)
    journal.close()
    lines = path.read_bytes().split(b"\n")
    damage(lines)
    path.write_bytes(b"\n".join(lines))
    before = path.read_bytes()
    with pytest.raises(JournalError) as caught:
        Journal.replay(path)
    assert str(caught.value).startswith(f"{path}:") and words in str(caught.value)
    with pytest.raises(JournalError):
        Journal.resume(path)
    assert path.read_bytes() == before


def test_version_and_existing_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    path.write_text('{"v":9,"seq":1,"at":"x","kind":"match_started","header":{}}\n')
    with pytest.raises(JournalVersionError, match=r":1: journal format version 9"):
        Journal.replay(path)
    before = path.read_bytes()
    with pytest.raises(JournalError, match="already exists"):
        Journal.create(path, HEADER)
    assert path.read_bytes() == before
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(JournalError, match="empty"):
        Journal.replay(empty)
    first = tmp_path / "first.jsonl"
    first.write_text('{"v":1,"seq":1,"at":"x","kind":"game_started","number":1,"score":[0,0]}\n')
    with pytest.raises(JournalError, match=r":1: the journal must begin with a match_started"):
        Journal.replay(first)


def test_an_inconsistent_event_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    with Journal.create(path, HEADER) as journal:
        journal.append(GameStarted(1, (0, 0)))
        journal.append(PlayMade(0, (3, 1), Play.from_str("8/5 6/5")))
        journal.append(PlayMade(0, (6, 5), Play.from_str("24/13")))  # the same player again
    with pytest.raises(
        JournalError, match=r":4: game 1, move 2 \(65: 24/13\).*other player's turn"
    ):
        Journal.replay(path)
