"""The referee's own story in the journal: its verdicts (void, early, illegal, unsure) and the
incidents (camera lost and back, frames skipped) are written as they happen, and replaying,
resuming and the record commands read past them to the same match."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.record import (
    DisputeDecided,
    Event,
    IncidentNoted,
    IncidentType,
    Journal,
    JournalError,
    JournalState,
    MatchHeader,
    PlayMade,
    RollThrown,
    VerdictGiven,
    VerdictType,
)
from referee.record.cli import register
from referee.rules import LongNardy, Play, Roll, Side
from referee.session import (
    BoardObservation,
    CorruptFrame,
    Count,
    EndOfSource,
    Frame,
    Observation,
    Phase,
    PointObservation,
    Runner,
    ScriptedVision,
    Session,
    TableScript,
    ThrowFault,
    Unavailable,
)
from referee.session.sources import SourceItem
from referee.signals import Decision
from tests.session_helpers import Clock

WHITE, BLACK = Side.WHITE, Side.BLACK
IMAGE = np.zeros((4, 6, 3), dtype=np.uint8)
IDLE_S = 0.5
"""How long the loop waits after a read that gave no frame (the clock advances so)."""


class PlannedSource:
    """A camera that gives one frame per scripted observation, and between them whatever the
    plan says: `Unavailable` (unplugged) or `CorruptFrame`s."""

    def __init__(self, plan: list[SourceItem]) -> None:
        self._plan = iter(plan)

    @property
    def name(self) -> str:
        return "planned camera"

    def read(self) -> SourceItem:
        return next(self._plan, EndOfSource())

    def close(self) -> None:
        pass


def frames(observations: list[Observation]) -> list[SourceItem]:
    return [Frame(IMAGE, o.frame, o.time) for o in observations]


def shadow_on_20(board: BoardObservation) -> BoardObservation:
    """A hand's shadow over point 20: the reader thinks it empty, fairly but not quite sure."""
    return board.with_point(20, PointObservation(None, Count.exactly(0), 0.8))


def story(tmp_path: Path) -> tuple[Path, Session]:
    """A long-nardy game watched through the live loop: Black's cocked throw, three broken
    frames and the camera unplugged for five seconds, Black's illegal move (two checkers off the
    head), accepted by White's throw; Black throws before White picked up the dice; White's move
    read unsure, and confirmed. The journal's path and the session."""
    script = TableScript(LongNardy())
    script.opening(6, 5).play("24/18 18/13").pick_up()
    script.throw(BLACK, 4, 2, fault=ThrowFault.COCKED).pick_up().throw(BLACK, 4, 2)
    before_trouble = script.take_observations()
    script.play("24/20 24/22").pick_up()
    script.throw(WHITE, 3, 1).play("24/21 21/20").early_throw(BLACK, 2, 1)
    script.pick_up(degrade=shadow_on_20)
    after_trouble = script.take_observations()
    broken = [CorruptFrame(0, "an image of 0×0 pixels")] * 3
    unplugged = [Unavailable("camera 0 stopped giving frames")] * 10
    plan = frames(before_trouble) + broken + unplugged + frames(after_trouble)

    path = tmp_path / "match.jsonl"
    header = MatchHeader(variant="long")
    clock = Clock()
    journal = Journal.create(path, header)
    session = Session.new(header, journal=journal, clock=clock)
    vision = ScriptedVision([*before_trouble, *after_trouble])
    Runner(PlannedSource(plan), vision, session, idle_s=IDLE_S, sleep=clock.sleep).run()
    assert session.phase is Phase.UNSURE
    session.decide(Decision.ACCEPT)
    journal.close()
    return path, session


def told(state: JournalState, kind: type[Event]) -> list[Any]:
    return [entry.event for entry in state.entries if isinstance(entry.event, kind)]


def test_verdicts_and_incidents_are_journaled_as_they_happen(tmp_path: Path) -> None:
    path, _ = story(tmp_path)
    state = Journal.replay(path)

    void, illegal, early, unsure = told(state, VerdictGiven)
    assert void.verdict is VerdictType.THROW_VOID and void.player == 1
    assert void.dice == (4, 2) and void.reasons == ("cocked",) and "cocked" in void.message

    assert illegal.verdict is VerdictType.MOVE_ILLEGAL and illegal.player == 1
    assert illegal.dice == (4, 2) and "head_rule" in illegal.reasons
    assert str(illegal.play) == "24/22 24/20"  # as play_between pairs the steps
    assert illegal.closest and "more than one checker left the head" in illegal.message
    assert illegal.confidence >= 0.9 and 12 in illegal.points  # black's head

    assert early.verdict is VerdictType.EARLY_THROW and early.player == 1
    assert sorted(early.dice) == [1, 1, 2, 3] and "does not count" in early.message

    assert unsure.verdict is VerdictType.MOVE_UNSURE and unsure.player == 0
    assert unsure.dice == (3, 1) and str(unsure.play) == "24/21 21/20"
    assert 0.5 < unsure.probability < 0.9 and unsure.confidence == unsure.probability
    assert 20 in unsure.points and "Likeliest: 24/21 21/20" in unsure.message

    # A verdict follows the game event it is about, if any: the record is as it always was.
    events = [entry.event for entry in state.entries]
    assert events[events.index(void) - 1] == RollThrown(1, (4, 2), False, "cocked")
    played = events[events.index(illegal) - 1]
    assert isinstance(played, PlayMade) and not played.legal and played.play == illegal.play
    assert events[events.index(early) - 1] == RollThrown(1, None, False, "early_throw")

    skipped, more_skipped, lost, back = told(state, IncidentNoted)
    assert (skipped.incident, skipped.frames, skipped.total) == (IncidentType.FRAMES_SKIPPED, 1, 1)
    # The rest of the burst is counted when the camera goes, not a line per frame.
    assert (more_skipped.frames, more_skipped.total) == (2, 3)
    assert "0×0" in more_skipped.message
    assert lost.incident is IncidentType.SOURCE_LOST
    assert lost.message == "camera 0 stopped giving frames"
    assert back.incident is IncidentType.SOURCE_BACK and back.seconds == 10 * IDLE_S


def without_story(path: Path, to: Path) -> Path:
    """The journal at `path` as a referee that did not journal verdicts and incidents wrote it:
    those lines left out, the events numbered again."""
    lines: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        if record["kind"] in ("verdict", "incident"):
            continue
        record["seq"] = len(lines) + 1
        lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    to.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return to


def pending(state: JournalState) -> Event | None:
    return None if state.pending is None else state.pending.event


def snapshot(session: Session) -> dict[str, Any]:
    """What a journal must give back to a resumed session."""
    return {
        "phase": session.phase,
        "games": len(session.match.games),
        "board": session.position.board_key(),
        "turn": session.position.turn,
        "roll": session.roll,
        "scores": session.scores,
        "cube": (session.game.cube_value, session.game.cube_owner),
        "pending": session.pending_play,
    }


def test_replay_and_resume_read_past_them_to_the_same_game(tmp_path: Path) -> None:
    path, live = story(tmp_path)
    old = without_story(path, tmp_path / "old.jsonl")
    told_lines = len(path.read_bytes().splitlines()) - len(old.read_bytes().splitlines())
    assert told_lines == 8  # four verdicts, four incidents

    full, plain = Journal.replay(path), Journal.replay(old)
    assert full.match == plain.match and full.finished == plain.finished
    assert full.position is not None and plain.position is not None
    assert full.position.board_key() == plain.position.board_key()
    assert pending(full) == pending(plain)

    # White's move stood after Black's illegal one was accepted: Black is to throw.
    assert live.phase is Phase.AWAIT_THROW and live.position.turn is BLACK
    for journal_path in (path, old):  # with the story, and as an older referee wrote it
        journal, state = Journal.resume(journal_path)
        resumed = Session.resume(state, journal=journal)
        journal.close()
        assert snapshot(resumed) == snapshot(live), journal_path.name
    accepted = told(Journal.replay(path), DisputeDecided)
    assert [d.accepted for d in accepted] == [True]


def run_record(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="referee")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["record", *argv])
    status: int = args.func(args)
    return status, capsys.readouterr().out


def test_record_check_and_convert_read_past_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = story(tmp_path)
    old = without_story(path, tmp_path / "old.jsonl")
    status, out = run_record(capsys, "check", "--moves", str(path))
    assert status == 0 and "24/22 24/20   <- illegal, accepted" in out
    status, old_out = run_record(capsys, "check", "--moves", str(old))
    assert status == 0 and out.replace(str(path), "") == old_out.replace(str(old), "")
    for source, target in ((path, "full.nardy"), (old, "old.nardy")):
        assert run_record(capsys, "convert", str(source), str(tmp_path / target))[0] == 0
    assert (tmp_path / "full.nardy").read_bytes() == (tmp_path / "old.nardy").read_bytes()


def journaled_session(path: Path, clock: Clock) -> tuple[Journal, Session]:
    """A new long-nardy match journaled to `path`, its session on `clock`."""
    header = MatchHeader(variant="long")
    journal = Journal.create(path, header)
    return journal, Session.new(header, journal=journal, clock=clock)


def test_skipped_frames_are_counted_a_line_a_minute(tmp_path: Path) -> None:
    path = tmp_path / "flaky.jsonl"
    clock = Clock()
    journal, session = journaled_session(path, clock)
    for _ in range(600):  # 150 s of a camera sending only broken frames, four a second
        events = session.frame_skipped("an image of 0×0 pixels")
        assert len(events) == 1  # each skipped frame is still told to the log
        clock.sleep(0.25)
    session.source_lost("camera 0 stopped giving frames")
    journal.close()
    incidents = told(Journal.replay(path), IncidentNoted)
    counts = [(i.frames, i.total) for i in incidents if i.incident is IncidentType.FRAMES_SKIPPED]
    assert counts == [(1, 1), (240, 241), (240, 481), (119, 600)]
    assert incidents[-1].incident is IncidentType.SOURCE_LOST


def test_skipped_frames_still_uncounted_are_journaled_when_the_watch_ends(tmp_path: Path) -> None:
    path = tmp_path / "flaky.jsonl"
    clock = Clock()
    journal, session = journaled_session(path, clock)
    for _ in range(5):
        session.frame_skipped("an image of 0×0 pixels")
        clock.sleep(0.25)
    session.finish()
    session.finish()  # nothing new to count: no second line
    journal.close()
    incidents = told(Journal.replay(path), IncidentNoted)
    assert [(i.frames, i.total) for i in incidents] == [(1, 1), (4, 5)]


def test_the_events_read_back_as_written_and_bad_ones_name_their_line(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    verdict = VerdictGiven(
        VerdictType.MOVE_ILLEGAL,
        0,
        (4, 1),
        ("die_unplayed",),
        "Illegal 4-1: …",
        0.95,
        (11, 15),
        Play.from_str("15/11"),
        None,
        (Play.from_str("15/11 11/10"), Play.from_str("24/20 20/19")),
    )
    lost = IncidentNoted(IncidentType.SOURCE_LOST, "no camera 0: is it plugged in?")
    with Journal.create(path, MatchHeader(variant="long")) as journal:
        journal.append(lost)  # before any game: the camera may be missing from the start
        journal.append(verdict)
    assert [entry.event for entry in Journal.replay(path).entries[1:]] == [lost, verdict]
    # Another writer's whole number of seconds reads as seconds.
    back = {"v": 1, "seq": 4, "at": "x", "kind": "incident", "incident": "source_back"}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**back, "seconds": 3}) + "\n")
    assert Journal.replay(path).entries[-1].event == IncidentNoted(
        IncidentType.SOURCE_BACK, seconds=3.0
    )
    bad = {"v": 1, "seq": 5, "at": "x", "kind": "verdict", "verdict": "nap", "player": 0}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(bad) + "\n")
    with pytest.raises(JournalError, match=r":5: 'verdict'"):
        Journal.replay(path)


def test_a_journal_ending_in_an_incident_resumes(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    header = MatchHeader(variant="long")
    with Journal.create(path, header) as journal:
        session = Session.new(header, journal=journal)
        script = TableScript(LongNardy())
        script.opening(6, 5)
        for observation in script.take_observations():
            session.observe(observation)
        session.source_lost("camera 0 stopped giving frames")
    state = Journal.replay(path)
    assert isinstance(state.entries[-1].event, IncidentNoted)
    journal, state = Journal.resume(path)
    resumed = Session.resume(state, journal=journal)
    journal.close()
    assert resumed.phase is Phase.MOVING and resumed.roll == Roll(6, 5)


def test_a_void_opening_throw_is_journaled_without_a_player(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    header = MatchHeader(variant="long")
    with Journal.create(path, header) as journal:
        session = Session.new(header, journal=journal)
        script = TableScript(LongNardy())
        script.throw(WHITE, 5, 2)  # both dice in White's half: whose die is whose?
        for observation in script.take_observations():
            session.observe(observation)
    (verdict,) = told(Journal.replay(path), VerdictGiven)
    assert verdict.verdict is VerdictType.THROW_VOID and verdict.player is None
    assert verdict.reasons == ("wrong_half",) and sorted(verdict.dice) == [2, 5]
