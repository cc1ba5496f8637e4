"""The live session in the long-nardy variants whose turns do not simply alternate (RULES.md
§4): a doubles ladder played with the dice set by hand, moves passed to the opponent, a second
throw, and what a dispute means there; journaled so that the record and a resume follow."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from referee.record import Continued, Journal, MatchHeader, PlayMade, format_text, read_mat
from referee.rules import Gulbar, Mad, MadGulbar, Next, OwedMoves, Roll, Side, Variant
from referee.rules.long_variants import LONG_VARIANTS
from referee.rules.sampling import random_roll
from referee.session import EventKind, Observation, Phase, Session, SessionEvent
from referee.signals import Decision, Kind
from tests.test_session_game import Table, kinds
from tests.test_session_resume import reference, snapshot

WHITE, BLACK = Side.WHITE, Side.BLACK


def whites_second_throw(table: Table) -> None:
    """White opens 4-3 (24/20 20/17), Black plays 6-5 (24/18 18/13): White is to throw."""
    script = table.script
    script.opening(4, 3)
    table.run()
    script.play("24/20 20/17").pick_up()
    table.run()
    script.throw(BLACK, 6, 5).play("24/18 18/13").pick_up()
    table.run()


def test_a_mad_ladder_is_played_with_the_dice_set_by_hand(tmp_path: Path) -> None:
    table = Table(Mad(), journal=tmp_path / "match.jsonl", teach=True)
    session, script, lamps = table.session, table.script, table.lamps
    whites_second_throw(table)
    # White's 4-4: once the dice are picked up, the ladder's 5-5 is owed, without a throw.
    script.throw(WHITE, 4, 4).play("24/20 17/13 13/9 9/5").pick_up()
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.CONTINUED]
    assert session.phase is Phase.OWED and session.position.turn is WHITE
    assert session.roll == OwedMoves.ladder(5)
    assert lamps.last.kind is Kind.WAITING and "the ladder's 5-5" in lamps.last.message
    assert "set the dice to 5-5" in lamps.last.message
    assert lamps.last.destinations  # teaching mode shows where the fives can go
    # Dice showing another number are no throw: the ladder's 5-5 is still owed.
    script.set_dice(WHITE, 6, 5)
    assert kinds(table.run()) == [EventKind.THROW_VOID]
    assert lamps.last.kind is Kind.RETHROW and session.phase is Phase.OWED
    script.set_dice(WHITE, 5, 5)
    assert kinds(table.run()) == [EventKind.THROW]
    assert session.phase is Phase.MOVING
    script.play("24/19 19/14 14/9 9/4").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL, EventKind.CONTINUED]
    assert session.roll == OwedMoves.ladder(6)
    script.set_dice(WHITE, 6, 6).play("24/18 20/14 14/8 8/2").pick_up()
    # After 6-6 the ladder is over: Black throws, and nothing more is said.
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_LEGAL]
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is BLACK
    assert table.journal is not None
    table.journal.close()

    state = Journal.replay(tmp_path / "match.jsonl")
    ladders = [e.event for e in state.entries if isinstance(e.event, Continued)]
    assert ladders == [Continued(0, Next.LADDER, (5,) * 4), Continued(0, Next.LADDER, (6,) * 4)]
    moves = state.match.games[0].actions
    assert [move.owed for move in moves[-3:]] == [None, Next.LADDER, Next.LADDER]  # type: ignore[union-attr]
    text = format_text(state.match)
    assert "\n  3) ladder 55: 24/19 19/14 14/9 9/4 \n  4) ladder 66: " in text
    assert read_mat(text).match.games == state.match.games


def gulbar_to_the_pass(table: Table) -> None:
    """White opens 6-5; Black's 6-6 moves only two checkers off its head (its next sixes would
    stop on White's head), so the other two sixes pass to White."""
    table.script.opening(6, 5)
    table.run()
    table.script.play("24/18 18/13").pick_up()
    table.run()
    table.script.throw(BLACK, 6, 6).play("24/18 24/18").pick_up()


def test_gulbar_moves_pass_to_the_opponent_who_then_throws(tmp_path: Path) -> None:
    table = Table(Gulbar(), journal=tmp_path / "match.jsonl")
    session, script, lamps = table.session, table.script, table.lamps
    gulbar_to_the_pass(table)
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.CONTINUED]
    assert session.phase is Phase.OWED and session.position.turn is WHITE
    assert session.roll == OwedMoves.passed_over(6, 2, 6)
    assert "(black could not play them)" in lamps.last.message
    assert "6-6 ×2 passed over" in lamps.last.message
    script.set_dice(WHITE, 6, 6).play("24/18 13/7").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.CONTINUED]
    assert "white throws for its own turn" in events[-1].message
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is WHITE
    # White's own 1-1, played in full: gulbar's second throw.
    script.throw(WHITE, 1, 1).play("24/23/22/21/20").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.CONTINUED]
    assert "throw again" in events[-1].message
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is WHITE
    script.throw(WHITE, 2, 1).play("24/22 22/21").pick_up()
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_LEGAL]
    assert session.position.turn is BLACK
    assert table.journal is not None
    table.journal.close()

    # The journal rebuilds the same game, resumes where it stood, and reads as a record.
    state = Journal.replay(tmp_path / "match.jsonl")
    players = [(a.player, a.owed) for a in state.match.games[0].actions]  # type: ignore[union-attr]
    assert players == [(0, None), (1, None), (0, Next.PASSED), (0, None), (0, None)]
    resumed = Session.resume(state)
    assert resumed.phase is Phase.AWAIT_THROW and resumed.position.turn is BLACK
    assert resumed.position.same_board(session.position)
    assert read_mat(format_text(state.match)).match.games == state.match.games


def test_a_journal_cut_while_moves_are_owed_resumes_owing_them(tmp_path: Path) -> None:
    table = Table(Gulbar(), journal=tmp_path / "match.jsonl")
    gulbar_to_the_pass(table)
    table.run()
    assert table.journal is not None
    table.journal.close()
    journal, state = Journal.resume(tmp_path / "match.jsonl")
    with journal:
        assert state.pending is not None and isinstance(state.pending.event, Continued)
        session = Session.resume(state, journal=journal)
        assert session.phase is Phase.OWED and session.roll == OwedMoves.passed_over(6, 2, 6)
        assert "white to play 6-6 ×2 passed over" in session.status()


def test_an_illegal_double_in_a_ladder_waits_for_the_opponent() -> None:
    table = Table(Mad())
    session, script = table.session, table.script
    whites_second_throw(table)
    # White plays only three of its fours: illegal, and a ladder would follow it.
    script.throw(WHITE, 4, 4).play("17/13 13/9 9/5").pick_up()
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_ILLEGAL]
    assert session.phase is Phase.DISPUTE
    # White sets the dice for the ladder: no acceptance, only Black may decide.
    script.set_dice(WHITE, 5, 5)
    events = table.run()
    assert [event.kind for event in events] == [EventKind.NOTICE]
    assert "not settled" in events[0].message and session.phase is Phase.DISPUTE
    events = table.press(Decision.ACCEPT)
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.CONTINUED]
    assert session.phase is Phase.OWED and session.roll == OwedMoves.ladder(5)
    # The dice already show 5-5: the next look starts the ladder's play.
    script.still()
    assert kinds(table.run()) == [EventKind.THROW]
    assert session.phase is Phase.MOVING


def test_a_double_asked_about_as_misread_lets_the_opponents_throw_accept_the_move() -> None:
    table = Table(Mad())
    session, script = table.session, table.script
    whites_second_throw(table)
    # White's 4-3, the 3 read as a 4 for sure (0.65, the 3 at 0.25); White plays the 4-3.
    # A 4-3 holds 0.88 against a foul of 4-4: the players are asked to check the dice.
    script.throw(WHITE, 4, 3, faces=((), (0.025, 0.025, 0.25, 0.65, 0.025, 0.025)))
    events = table.run()
    assert kinds(events) == [EventKind.THROW] and events[0].roll == Roll(4, 4)
    script.play("24/20 17/14").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_UNSURE] and session.phase is Phase.UNSURE
    # Black throws. Read 4-4, the move would leave a ladder to White and only Black's button
    # could accept it; played as the 4-3 it is, the throw is Black's next one and accepts it.
    script.throw(BLACK, 6, 5)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "read 4-4, were misread" in events[0].message
    assert session.position.turn is BLACK and session.roll == Roll(6, 5)


def act(table: Table, rng: random.Random) -> None:
    """The players do what the session waits for, with a random legal play."""
    session, script = table.session, table.script
    side = session.position.turn
    if session.phase is Phase.OPENING:
        white, black = rng.sample(range(1, 7), 2)
        script.opening(white, black)
    elif session.phase is Phase.AWAIT_THROW:
        roll = random_roll(rng)
        script.throw(side, roll.die1, roll.die2)
    elif session.phase is Phase.OWED:
        owed = session.roll
        assert owed is not None
        script.set_dice(side, owed.die1, owed.die2)
    table.run()
    if session.phase is Phase.AWAIT_THROW:
        return  # the opening throw decided only who starts
    assert session.phase is Phase.MOVING, session.status()
    script.play(rng.choice(session.game.legal_plays())).pick_up()
    table.run()


@pytest.mark.parametrize("variant", [cls() for cls in LONG_VARIANTS], ids=lambda v: v.name)
def test_whole_games_of_every_variant_through_the_session(variant: Variant, tmp_path: Path) -> None:
    table = Table(variant, journal=tmp_path / "match.jsonl")
    rng = random.Random(3)
    while table.session.phase is not Phase.GAME_OVER:
        act(table, rng)
    assert table.journal is not None
    table.journal.close()
    state = Journal.replay(tmp_path / "match.jsonl")
    (game,) = state.replayed.games
    assert game.game.result is not None
    assert state.position is not None and state.position.same_board(table.session.position)
    continued = [event for event in table.events if event.kind is EventKind.CONTINUED]
    if variant.name not in ("nardgammon", "fevga"):
        assert continued, "a whole game of this variant has plays that do not alternate"
    text = format_text(state.match)
    assert read_mat(text).match.games == state.match.games


def test_owed_moves_nobody_can_play_are_lost_at_once() -> None:
    # A random game of mad gulbar, driven until owed moves (passed over, or a ladder's
    # double) cannot be played at all: the referee records them lost without waiting.
    table = Table(MadGulbar())
    rng = random.Random(1)
    while table.session.phase is not Phase.GAME_OVER:
        act(table, rng)
        lost = [e for e in table.events if e.kind is EventKind.CONTINUED and "lost" in e.message]
        if lost:
            break
    assert lost, "no owed moves were lost in this game"
    plays = [event for event in lost[0].journaled if isinstance(event, PlayMade)]
    assert len(plays) == 1 and not plays[0].play.steps and plays[0].legal


class RecordedTable(Table):
    """A table that keeps every observation it fed the session."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        self.fed: list[Observation] = []

    def run(self) -> list[SessionEvent]:
        taken = self.script.take_observations()
        self.fed.extend(taken)
        self.script.observations = taken
        return super().run()


def test_resume_after_a_power_cut_at_every_journal_line_of_a_ladder_game(tmp_path: Path) -> None:
    variant = MadGulbar()
    table = RecordedTable(variant)
    rng = random.Random(1)
    while not any("lost" in event.message for event in table.events):
        act(table, rng)
    observations = table.fed
    full = tmp_path / "full.jsonl"
    lines_after = reference(variant, observations, full)
    lines = full.read_bytes().splitlines(keepends=True)
    straight = Session.new(MatchHeader(variant=variant.name))
    expected = []
    for observation in observations:
        straight.observe(observation)
        expected.append(snapshot(straight))
    for kept in range(2, len(lines)):
        cut = tmp_path / f"cut{kept}.jsonl"
        cut.write_bytes(b"".join(lines[:kept]) + lines[kept][: len(lines[kept]) // 2])
        journal, state = Journal.resume(cut)
        session = Session.resume(state, journal=journal)
        last = max(i for i, n in enumerate(lines_after) if n <= kept)
        for observation in observations[last + 1 :]:
            session.observe(observation)
        journal.close()
        assert snapshot(session) == expected[-1], f"carrying on after a cut at line {kept}"
        Journal.replay(cut)
