"""Power cuts: a session resumed from its journal carries on where the game stood."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from referee.record import Journal, MatchHeader
from referee.rules import LongNardy, Play, Roll, ShortNardy, Side, Variant
from referee.session import (
    EventKind,
    Observation,
    Phase,
    Session,
    TableScript,
    ThrowFault,
)
from referee.signals import Decision, Indication, Kind

WHITE, BLACK = Side.WHITE, Side.BLACK


class _Sink:
    def __init__(self, shown: list[Indication]) -> None:
        self.shown = shown

    def show(self, indication: Indication) -> None:
        self.shown.append(indication)


def game_script(variant: Variant, seed: int, turns: int) -> list[Observation]:
    """A game with a void throw, an illegal move accepted by the opponent's throw, and random
    legal play."""
    rng = random.Random(seed)
    script = TableScript(variant)
    script.opening(5, 3)
    position = variant.starting_position(WHITE)
    roll = Roll(5, 3)
    for turn in range(turns):
        side = position.turn
        if turn:
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            if turn == 1:
                script.throw(side, roll.die1, roll.die2, fault=ThrowFault.COCKED).pick_up()
            script.throw(side, roll.die1, roll.die2)
        play, after = rng.choice(variant.legal_moves(position, roll))
        if turn == 2 and len(play.steps) > 1:
            # A die left unplayed: illegal, and accepted when the opponent throws.
            play = Play(play.steps[:1])
            after = position.play(play)
        script.play(play).pick_up()
        position = after
    return script.observations


def snapshot(session: Session) -> dict[str, Any]:
    """The state a journal must reproduce (an unsure reading is only perceived: a resumed session
    reads the board again, from the move in progress)."""
    phase = Phase.MOVING if session.phase is Phase.UNSURE else session.phase
    game = session.match.current_game
    return {
        "phase": phase,
        "games": len(session.match.games),
        "board": None if game is None else session.position.board_key(),
        "turn": None if game is None else session.position.turn,
        "roll": None if game is None else session.roll,
        "scores": session.scores,
        "cube": None if game is None else (game.cube_value, game.cube_owner),
        "pending": session.pending_play,
    }


def reference(variant: Variant, observations: list[Observation], path: Path) -> list[int]:
    """Run the whole script with a journal at `path`; the journal's line count after each
    observation."""
    header = MatchHeader(variant=variant.name)
    journal = Journal.create(path, header)
    session = Session.new(header, journal=journal)
    lines = []
    for observation in observations:
        session.observe(observation)
        lines.append(len(path.read_bytes().splitlines()))
    journal.close()
    return lines


def test_resume_after_a_power_cut_at_every_journal_line(tmp_path: Path) -> None:
    variant = LongNardy()
    observations = game_script(variant, seed=5, turns=8)
    full = tmp_path / "full.jsonl"
    lines_after = reference(variant, observations, full)
    lines = full.read_bytes().splitlines(keepends=True)
    assert len(lines) > 15
    assert b'"kind":"dispute"' in full.read_bytes()  # the illegal move was accepted

    # The uninterrupted session's state after each observation.
    header = MatchHeader(variant=variant.name)
    straight = Session.new(header)
    expected = []
    for observation in observations:
        straight.observe(observation)
        expected.append(snapshot(straight))

    checked = 0
    for kept in range(2, len(lines)):
        # The power fails while line `kept + 1` is being written: half of it reaches the disk.
        cut = tmp_path / f"cut{kept}.jsonl"
        cut.write_bytes(b"".join(lines[:kept]) + lines[kept][: len(lines[kept]) // 2])
        journal, state = Journal.resume(cut)
        assert state.torn_line == kept + 1
        session = Session.resume(state, journal=journal)
        # The state is the one the uninterrupted session had when that line was complete
        # (when one frame wrote several lines, the cut may fall between them).
        last = max(i for i, n in enumerate(lines_after) if n <= kept)
        if lines_after[last] == kept:
            assert snapshot(session) == expected[last], f"cut after line {kept}"
            checked += 1
        # The table is looked at again (the frame whose event was lost), and play goes on.
        for observation in observations[last + 1 :]:
            session.observe(observation)
        journal.close()
        assert snapshot(session) == expected[-1], f"carrying on after a cut at line {kept}"
        Journal.replay(cut)  # what was appended after the cut is a valid journal too
    assert checked >= len(lines) // 2


def test_resume_keeps_an_illegal_move_waiting_for_the_opponent(tmp_path: Path) -> None:
    path = tmp_path / "dispute.jsonl"
    header = MatchHeader(variant="short")
    journal = Journal.create(path, header)
    session = Session.new(header, journal=journal)
    script = TableScript(ShortNardy())
    script.opening(3, 1).play("8/5").pick_up()  # a die left unplayed
    for observation in script.take_observations():
        session.observe(observation)
    assert session.phase is Phase.DISPUTE
    journal.close()

    journal, state = Journal.resume(path)
    shown: list[Indication] = []
    resumed = Session.resume(state, journal=journal, on_event=None, signals=_Sink(shown))
    assert resumed.phase is Phase.DISPUTE
    assert str(resumed.pending_play) == "8/5"
    assert shown[-1].kind is Kind.ILLEGAL  # the table shows the dispute again
    events = resumed.decide(Decision.ACCEPT)
    assert [e.kind for e in events] == [EventKind.MOVE_ACCEPTED]
    assert resumed.phase is Phase.AWAIT_THROW and resumed.position.turn is BLACK
    journal.close()
    assert Journal.replay(path).replayed.games[0].actions[-1].legal is False
