"""Whole games through the live session's state machine, from scripted observations."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from referee.record import Journal, MatchHeader
from referee.rules import LongNardy, Play, Reason, Roll, ShortNardy, Side, Variant
from referee.rules.game import Played
from referee.session import (
    BoardObservation,
    Count,
    EventKind,
    Phase,
    PointObservation,
    Session,
    SessionEvent,
    TableScript,
    ThrowFault,
)
from referee.session.script import Degrade
from referee.signals import Decision, Indication, Kind

WHITE, BLACK = Side.WHITE, Side.BLACK


class Lamps:
    """Records what the table was shown."""

    def __init__(self) -> None:
        self.shown: list[Indication] = []

    def show(self, indication: Indication) -> None:
        self.shown.append(indication)

    @property
    def last(self) -> Indication:
        return self.shown[-1]


class Table:
    """A scripted table and the session watching it."""

    def __init__(
        self, variant: Variant, *, length: int = 0, journal: Path | None = None, teach: bool = False
    ) -> None:
        self.variant = variant
        self.lamps = Lamps()
        header = MatchHeader(length=length, variant=variant.name)
        self.journal = None if journal is None else Journal.create(journal, header)
        self.session = Session.new(header, journal=self.journal, signals=self.lamps, teach=teach)
        self.script = TableScript(variant)
        self.events: list[SessionEvent] = []

    def run(self) -> list[SessionEvent]:
        """Feed what the script recorded since the last run; the events it caused."""
        events: list[SessionEvent] = []
        for observation in self.script.take_observations():
            events.extend(self.session.observe(observation))
        self.events.extend(events)
        return events

    def press(self, decision: Decision) -> list[SessionEvent]:
        events = self.session.decide(decision)
        self.events.extend(events)
        return events

    def play_legally(self, rng: random.Random) -> list[SessionEvent]:
        """The side on roll throws and makes a random legal play."""
        side = self.session.position.turn
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        play = rng.choice(self.session.position.legal_plays(roll))
        self.script.throw(side, roll.die1, roll.die2).play(play).pick_up()
        return self.run()


def kinds(events: list[SessionEvent]) -> list[EventKind]:
    return [event.kind for event in events if event.kind is not EventKind.NOTICE]


def test_a_whole_long_nardy_game(tmp_path: Path) -> None:
    table = Table(LongNardy(), journal=tmp_path / "match.jsonl")
    session, script, lamps = table.session, table.script, table.lamps
    assert session.phase is Phase.OPENING

    # Opening: a tie is thrown again, then White wins with 6-3 and plays both numbers.
    script.opening(4, 4)
    assert kinds(table.run()) == [EventKind.OPENING_THROW]
    assert lamps.last.kind is Kind.RETHROW and session.phase is Phase.OPENING
    script.pick_up().opening(6, 3)
    assert kinds(table.run()) == [EventKind.OPENING_THROW]
    assert session.phase is Phase.MOVING and session.roll == Roll(6, 3)
    script.play("24/18 18/15").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert lamps.last.kind is Kind.LEGAL

    # Black's cocked die: a void throw, re-thrown.
    script.throw(BLACK, 5, 2, fault=ThrowFault.COCKED)
    events = table.run()
    assert kinds(events) == [EventKind.THROW_VOID]
    assert lamps.last.kind is Kind.RETHROW and "cocked" in lamps.last.message
    assert events[0].journaled[0].to_dict()["reason"] == "cocked"
    script.pick_up().throw(BLACK, 5, 2)
    assert kinds(table.run()) == [EventKind.THROW]
    assert session.phase is Phase.MOVING

    # Black takes two checkers off the head: caught, the correction demanded and made.
    before = session.position
    script.play("24/19 24/22").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ILLEGAL]
    verdict = events[0].interpretation
    assert verdict is not None and verdict.verdict is not None
    assert Reason.HEAD_RULE in verdict.verdict.reasons
    assert lamps.last.kind is Kind.ILLEGAL and 12 in lamps.last.points  # black's head
    assert session.phase is Phase.DISPUTE
    assert kinds(table.press(Decision.DEMAND)) == [EventKind.CORRECTION_DEMANDED]
    assert session.phase is Phase.CORRECTION
    script.set_board(before.play(Play.from_str("24/19 19/17"))).still()
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_LEGAL]
    assert "corrected" in events[0].message
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is WHITE

    # White leaves a die unplayed; Black throws at once: the move counts as accepted.
    script.throw(WHITE, 4, 1).play("15/11").pick_up()
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_ILLEGAL]
    accepted_board = session.position.play(Play.from_str("15/11"))
    script.throw(BLACK, 6, 6)
    assert kinds(table.run()) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert session.roll == Roll(6, 6) and session.position.same_board(accepted_board)

    # White throws before Black picked up the dice: flagged, it does not count.
    play = session.position.legal_plays(Roll(6, 6))[0]
    script.play(play).early_throw(WHITE, 2, 1)
    events = table.run()
    assert kinds(events) == [EventKind.EARLY_THROW]
    assert lamps.last.kind is Kind.RETHROW and "does not count" in lamps.last.message
    script.pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert session.position.turn is WHITE and session.phase is Phase.AWAIT_THROW

    # The rest of the game, played legally at random, to the end and the score.
    rng = random.Random(7)
    for _ in range(600):
        if session.phase is not Phase.AWAIT_THROW:
            break
        events = table.play_legally(rng)
        assert kinds(events)[:2] == [EventKind.THROW, EventKind.MOVE_LEGAL], events
    assert session.phase is Phase.GAME_OVER
    over = table.events[-1]
    assert over.kind is EventKind.GAME_OVER
    assert lamps.last.kind is Kind.GAME_OVER
    winner = over.side
    assert winner is not None
    assert sum(session.scores) in (1, 2) and session.scores[winner] > 0
    final = session.position

    # Setting the checkers up again starts the next game; its winner starts it.
    script.set_board(LongNardy().starting_position())
    assert kinds(table.run()) == [EventKind.GAME_STARTED]
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is winner

    # The journal holds a match the record package can replay, with the same score.
    assert table.journal is not None
    table.journal.close()
    state = Journal.replay(tmp_path / "match.jsonl")
    assert state.replayed.score == session.scores
    assert state.replayed.games[0].final.same_board(final)
    assert len(state.replayed.games) == 2


def test_short_nardy_match_with_the_cube_and_a_second_game() -> None:
    table = Table(ShortNardy(), length=7)
    session, script = table.session, table.script
    script.opening(3, 1)
    table.run()
    script.play("8/5 6/5").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    # Black turns the cube to 2 before throwing; White takes it to its side.
    script.offer_double(2)
    assert kinds(table.run()) == [EventKind.DOUBLE_OFFERED]
    assert session.phase is Phase.CUBE_OFFERED
    script.take(WHITE, 2)
    assert kinds(table.run()) == [EventKind.DOUBLE_TAKEN]
    assert session.game.cube_value == 2 and session.game.cube_owner is WHITE
    rng = random.Random(11)
    for _ in range(600):
        if session.phase is not Phase.AWAIT_THROW:
            break
        table.play_legally(rng)
    assert session.phase is Phase.GAME_OVER
    result = session.game.result()
    assert result is not None and result.points in (2, 4, 6)
    assert max(session.scores) == result.points

    # Next game: the winner starts without an opening throw; its first double is dropped.
    assert kinds(table.press(Decision.NEW_GAME)) == [EventKind.GAME_STARTED]
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is result.winner
    script.set_board(ShortNardy().starting_position())
    script.offer_double(2)
    assert kinds(table.run()) == [EventKind.DOUBLE_OFFERED]
    events = table.press(Decision.DEMAND)
    assert kinds(events) == [EventKind.DOUBLE_DROPPED, EventKind.GAME_OVER]
    assert sum(session.scores) == result.points + 1


def shadow_on_17(board: BoardObservation) -> BoardObservation:
    """A hand's shadow over point 17: the reader thinks it empty, fairly but not quite sure."""
    return board.with_point(17, PointObservation(None, Count.exactly(0), 0.8))


def white_plays_the_opening(table: Table, degrade: Degrade | None = None) -> None:
    """White wins the opening 5-2 (judged) and plays it, 24/19 19/17, the board read through
    `degrade`; the play is left for the test to run."""
    table.script.opening(5, 2)
    table.run()
    table.script.play("24/19 19/17").pick_up(degrade=degrade)


def blacks_turn(table: Table) -> None:
    """White wins the opening 5-2 and plays it (24/19 19/17): Black is to throw."""
    white_plays_the_opening(table)
    table.run()


def test_a_move_read_with_low_confidence_asks_the_players() -> None:
    table = Table(LongNardy())
    session, lamps = table.session, table.lamps
    white_plays_the_opening(table, shadow_on_17)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_UNSURE]
    assert lamps.last.kind is Kind.UNSURE and lamps.last.confidence is not None
    assert 17 in lamps.last.points
    assert session.phase is Phase.UNSURE
    # The players look and confirm: the likeliest legal play stands.
    events = table.press(Decision.ACCEPT)
    assert kinds(events) == [EventKind.MOVE_ACCEPTED]
    assert "24/19 19/17" in events[0].message
    assert session.phase is Phase.AWAIT_THROW
    assert session.position.points[WHITE][16] == 1


def test_an_unsure_reading_is_settled_by_a_clear_look() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    white_plays_the_opening(table, shadow_on_17)
    assert kinds(table.run()) == [EventKind.MOVE_UNSURE]
    script.still().still()  # the shadow is gone: two clear frames
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert session.phase is Phase.AWAIT_THROW


def assert_resumes_alike(table: Table, path: Path) -> None:
    """The table's journal, closed and resumed, gives its session's position, awaiting a
    throw."""
    assert table.journal is not None
    table.journal.close()
    journal, state = Journal.resume(path)
    resumed = Session.resume(state, journal=journal)
    journal.close()
    assert resumed.position == table.session.position and resumed.phase is Phase.AWAIT_THROW


def test_an_unsure_throw_is_read_from_the_move_played(tmp_path: Path) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session, script = table.session, table.script
    blacks_turn(table)
    # Black's 1 is read, but not for sure: the players are asked...
    script.throw(BLACK, 2, 1, second_read=(1, 0.5))
    assert kinds(table.run()) == [EventKind.THROW_UNSURE]
    assert session.phase is Phase.AWAIT_THROW
    # ...and play on: only a 2-1 leaves this board, so the roll was 2-1 and the move stands.
    script.play("24/22 22/21").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_LEGAL]
    assert "2-1 (read from the move played)" in events[0].message
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is WHITE
    assert_resumes_alike(table, tmp_path / "game.jsonl")


def assert_black_asked_to_set_the_dice_down_again(table: Table) -> None:
    """Black's move, just played after an unsure throw, is not judged: the players are asked
    to set the dice down again."""
    events = table.run()
    assert kinds(events) == []
    assert any("does not show the roll" in event.message for event in events)
    assert table.session.position.turn is BLACK


def test_a_move_that_needs_an_unlikely_roll_is_not_taken_for_it() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    blacks_turn(table)
    # The 1 is read as a 4, at 0.55: a 2-1 move is likelier an illegal play of 4-2 than a
    # legal 2-1 (0.09 against 0.55 x illegal_prior): the referee keeps asking.
    script.throw(BLACK, 2, 1, second_read=(4, 0.55))
    assert kinds(table.run()) == [EventKind.THROW_UNSURE]
    script.play("24/22 22/21").pick_up()
    events = table.run()
    assert kinds(events) == []
    assert any("does not show the roll" in event.message for event in events)
    assert session.phase is Phase.AWAIT_THROW and session.position.turn is BLACK


def unread_move(table: Table, play: str, degrade: Degrade | None = None) -> None:
    """Black's throw of 2-1 is read unsure (the 1 as a 4, at 0.55) and Black plays `play`
    (the board read through `degrade`), which no likely roll explains: the referee asks for
    the dice to be set down again."""
    blacks_turn(table)
    table.script.throw(BLACK, 2, 1, second_read=(4, 0.55))
    assert kinds(table.run()) == [EventKind.THROW_UNSURE]
    table.script.play(play).pick_up(degrade=degrade)
    assert_black_asked_to_set_the_dice_down_again(table)


def test_the_opponents_throw_after_an_unread_move_lets_the_move_stand(tmp_path: Path) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session, script = table.session, table.script
    unread_move(table, "24/22 22/21")
    # Nobody sets the dice down again: White throws 6-3, which the unsure reading makes no
    # likelier than any fresh throw. Black's move stands as played (a legal 2-1, the likeliest
    # roll that explains it) and the throw is White's.
    script.throw(WHITE, 6, 3)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "not read (recorded as 2-1)" in events[0].message
    assert events[1].side is WHITE and events[1].roll == Roll(6, 3)
    assert session.phase is Phase.MOVING and session.position.turn is WHITE
    assert session.position.points[BLACK][20] == 1
    # White plays on, judged as White's.
    script.play("24/18 18/15").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert_resumes_alike(table, tmp_path / "game.jsonl")


def test_a_move_illegal_whatever_an_unsure_throw_shows_is_judged_at_once() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    blacks_turn(table)
    # Black's 2 is read for sure, the second die (a 1) only as "4, at 0.55": the roll is 2-x.
    script.throw(BLACK, 2, 1, second_read=(4, 0.55))
    assert kinds(table.run()) == [EventKind.THROW_UNSURE]
    # 9 pips with one checker is no play of any 2-x: the buzzer does not wait on the dice.
    script.play("24/15").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_ILLEGAL]
    assert "4-2 or another roll the dice may show (not read for sure)" in events[0].message
    assert events[0].roll == Roll(4, 2) and session.phase is Phase.DISPUTE
    # Nobody puts it right: White throws, which accepts it (RULES.md §2).
    script.throw(WHITE, 5, 3)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    played = session.game.events[-2]
    assert isinstance(played, Played) and played.side is BLACK and not played.legal
    assert played.position.points[BLACK][14] == 1  # the checker stands where it was put
    assert session.position.turn is WHITE and session.roll == Roll(5, 3)


def head_checker_misread(side: Side, head: int, left: int) -> Degrade:
    """One of `side`'s checkers on its head (White's point `head`, `left` checkers staying)
    read, surely, on White's point 3."""

    def misread(board: BoardObservation) -> BoardObservation:
        sure = 0.99
        board = board.with_point(head, PointObservation(side, Count.exactly(left), sure))
        return board.with_point(3, PointObservation(side, Count.exactly(1), sure))

    return misread


def glint_on_6(board: BoardObservation) -> BoardObservation:
    """A glint on White's empty point 6, read, surely, as a Black checker."""
    return board.with_point(6, PointObservation(BLACK, Count.exactly(1), 0.95))


def test_a_steady_misread_of_a_place_no_move_touches_is_read_through() -> None:
    table = Table(LongNardy())
    table.script = script = TableScript(LongNardy(), misreads=glint_on_6)
    # Every board is read with the glint, the throw's too: the moves that leave point 6 alone
    # are judged as if it were not there.
    script.opening(5, 2)
    table.run()
    script.play("24/19 19/17").pick_up()
    script.throw(BLACK, 3, 1).play("24/21 21/20").pick_up()
    script.throw(WHITE, 6, 5).play("24/18 18/13").pick_up()
    legal = [EventKind.MOVE_LEGAL, EventKind.THROW, EventKind.MOVE_LEGAL, EventKind.THROW]
    events = table.run()
    assert kinds(events) == [*legal, EventKind.MOVE_LEGAL]
    # Someone is told, once, to look at the light there.
    notices = [event.message for event in events if event.kind is EventKind.NOTICE]
    assert len(notices) == 1 and "keeps reading point 6" in notices[0]
    # A foul is still a foul, and the glint is not blamed for it: Black's 4-2 played 24/19.
    script.throw(BLACK, 4, 2).play("24/19").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_ILLEGAL]
    assert "no play of this roll leads to this position" in events[-1].message
    verdict = events[-1].interpretation
    assert verdict is not None and verdict.observed is not None
    assert verdict.observed.points[BLACK].count(0) == 21  # its head, 20 and 19: no glint


def test_a_steady_misread_is_read_through_though_a_die_hid_it_at_the_throw() -> None:
    table = Table(LongNardy())
    table.script = script = TableScript(LongNardy(), misreads=glint_on_6)
    script.opening(5, 2)
    table.run()
    script.play("24/19 19/17").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    # Black's die comes to rest over the glint: the throw's board reads point 6 empty. The
    # board White's move was judged on, with no dice on it, is the one to compare with.
    script.throw(BLACK, 3, 1)
    thrown = script.observations[-1]
    assert thrown.board is not None
    empty = PointObservation(None, Count.exactly(0), 0.95)
    script.observations[-1] = dataclasses.replace(thrown, board=thrown.board.with_point(6, empty))
    script.play("24/21 21/20").pick_up()
    assert kinds(table.run()) == [EventKind.THROW, EventKind.MOVE_LEGAL]


def both_heads_one_short(board: BoardObservation) -> BoardObservation:
    """White's head (13 after the opening) and Black's (15) each read one short."""
    board = board.with_point(24, PointObservation(WHITE, Count.exactly(12), 0.9))
    return board.with_point(12, PointObservation(BLACK, Count.exactly(14), 0.9))


def test_a_move_accepted_where_checkers_read_missing_stands_as_its_likeliest_play() -> None:
    table = Table(LongNardy())
    session = table.session
    # Both heads read one short after White's legal opening move: two checkers gone, which
    # no play does; likelier misread than not, though less likely than an illegal board.
    white_plays_the_opening(table, both_heads_one_short)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_UNSURE]
    reading = events[0].interpretation
    assert reading is not None and reading.best.probability < reading.illegal_probability
    # Black, asked, accepts: the likeliest legal play stands (no board as read could).
    events = table.press(Decision.ACCEPT)
    assert kinds(events) == [EventKind.MOVE_ACCEPTED]
    assert "stands as 24/19 19/17" in events[0].message
    assert session.position.turn is BLACK and session.phase is Phase.AWAIT_THROW


def test_no_buzzer_after_an_unsure_throw_where_the_opponents_checkers_read_moved() -> None:
    # 24/15 is no play of any 2-x, but a White checker reads moved too: with the dice unread
    # as well, a misread board is as likely as a foul, so the players are asked.
    unread_move(Table(LongNardy()), "24/15", head_checker_misread(WHITE, 24, 13))


def test_a_legal_play_of_a_roll_read_all_but_ruled_out_holds_the_buzzer_back() -> None:
    table = Table(LongNardy())
    script = table.script
    blacks_turn(table)
    # The 6 is read as a 2 (0.96) or a 6 (0.04): 6-4 is less likely than an illegal play of
    # 4-2 (0.022 against 0.53 x illegal_prior), yet its legal play keeps the move from being
    # called illegal.
    script.throw(BLACK, 6, 4, second_read=(4, 0.55), faces=((0, 0.96, 0, 0, 0, 0.04), ()))
    assert kinds(table.run()) == [EventKind.THROW_UNSURE]
    script.play("24/14").pick_up()
    assert_black_asked_to_set_the_dice_down_again(table)


@pytest.mark.parametrize("dice", [(4, 2), (2, 4)])
def test_the_movers_dice_set_down_again_judge_the_move(dice: tuple[int, int]) -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    # A legal 5-2, a roll the unsure reading gives 0.09: too unlikely to take, not ruled out.
    unread_move(table, "24/22 22/17")
    # Black sets the dice down as thrown (in either order), now read for sure: 4-2, whose
    # play this is not.
    script.throw(BLACK, *dice)
    events = table.run()
    assert kinds(events) == [EventKind.THROW]
    assert events[0].side is BLACK and events[0].roll == Roll(*dice)
    script.pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_ILLEGAL]
    assert session.phase is Phase.DISPUTE


def test_a_foul_explained_only_by_a_die_read_unlikely_is_called_illegal() -> None:
    table = Table(LongNardy())
    script = table.script
    blacks_turn(table)
    # Black's 3-1 is read 3-2, the 2 at 0.9 (each other face 0.02): read for sure.
    script.throw(BLACK, 3, 1, second_read=(2, 0.9))
    events = table.run()
    assert kinds(events) == [EventKind.THROW] and events[0].roll == Roll(3, 2)
    # 24/21 21/20 is a legal 3-1, but a foul of 3-2 is likelier (0.9 x illegal_prior against
    # 0.02): the buzzer.
    script.play("24/21 21/20").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_ILLEGAL]
    assert table.session.phase is Phase.DISPUTE


def misread_three_one(table: Table, faces: tuple[float, ...]) -> list[SessionEvent]:
    """Black throws 3-1, the 1 read as a 2 (its `faces`) but for sure, and plays the 3-1
    24/21 21/20, which is no legal 3-2: the events of the move."""
    blacks_turn(table)
    table.script.throw(BLACK, 3, 1, faces=((), faces))
    events = table.run()
    assert kinds(events) == [EventKind.THROW] and events[0].roll == Roll(3, 2)
    table.script.play("24/21 21/20").pick_up()
    return table.run()


def test_a_move_that_shows_a_die_misread_asks_to_check_the_dice(tmp_path: Path) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session, script = table.session, table.script
    # The 1 read as a 2 at 0.7, a 1 at 0.2: the legal 3-1 (0.2) is likelier than a foul of
    # 3-2 (0.7 x illegal_prior), yet not sure: amber, not the buzzer.
    events = misread_three_one(table, (0.2, 0.7, 0.025, 0.025, 0.025, 0.025))
    assert kinds(events) == [EventKind.MOVE_UNSURE]
    assert "Check the dice" in events[0].message and "legal 3-1" in events[0].message
    assert table.lamps.last.kind is Kind.UNSURE and session.phase is Phase.UNSURE
    assert session.status() == "please check black's dice: 3-2 as read, or 3-1 as played"
    # White throws: the move stands as the legal 3-1, the roll corrected in the record.
    script.throw(WHITE, 6, 5)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "24/21 21/20" in events[0].message and "read 3-2, were misread" in events[0].message
    played = session.game.events[-2]
    assert isinstance(played, Played) and played.legal and played.roll == Roll(3, 1)
    # The journal: the roll read, the question (about the 3-1 play), the correction, the play.
    lines = [json.loads(raw) for raw in (tmp_path / "game.jsonl").read_text().splitlines()]
    tail = [line for line in lines if line["kind"] != "continuation"][-5:]
    assert [line["kind"] for line in tail] == ["roll", "verdict", "roll_corrected", "play", "roll"]
    assert tail[0]["dice"] == [3, 2] and tail[1]["verdict"] == "move_unsure"
    assert tail[1]["dice"] == [3, 1] and tail[1]["play"] == "24/21 21/20"
    assert (tail[2]["dice"], tail[2]["read"], tail[3]["dice"]) == ([3, 1], [3, 2], [3, 1])
    script.play("24/18 18/13").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert_resumes_alike(table, tmp_path / "game.jsonl")


def test_a_move_asked_about_as_a_misread_die_can_be_demanded_right() -> None:
    table = Table(LongNardy())
    session = table.session
    events = misread_three_one(table, (0.2, 0.7, 0.025, 0.025, 0.025, 0.025))
    assert kinds(events) == [EventKind.MOVE_UNSURE] and session.phase is Phase.UNSURE
    # White says the dice showed 3-2: a correct play of 3-2 is due, and judged as such.
    events = table.press(Decision.DEMAND)
    assert kinds(events) == [EventKind.CORRECTION_DEMANDED] and "play 3-2" in events[0].message
    table.script.set_board(session.position.play(Play.from_str("24/21 21/19"))).still()
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_LEGAL] and "Legal 3-2" in events[0].message
    assert session.position.turn is WHITE


def test_a_misread_question_demanded_but_not_put_right_stands_as_read() -> None:
    table = Table(LongNardy())
    session = table.session
    misread_three_one(table, (0.2, 0.7, 0.025, 0.025, 0.025, 0.025))
    assert kinds(table.press(Decision.DEMAND)) == [EventKind.CORRECTION_DEMANDED]
    # Black leaves the move as it is and White throws: it stands as played, an illegal 3-2.
    table.script.throw(WHITE, 6, 5)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    played = session.game.events[-2]
    assert isinstance(played, Played) and not played.legal and played.roll == Roll(3, 2)
    assert session.position.turn is WHITE and session.roll == Roll(6, 5)


def test_a_move_that_surely_shows_a_die_misread_corrects_the_roll(tmp_path: Path) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session = table.session
    # The 1 read as a 2 at 0.6, a 1 at 0.38: the legal 3-1 holds 0.93 against a foul of 3-2.
    events = misread_three_one(table, (0.38, 0.6, 0.005, 0.005, 0.005, 0.005))
    assert kinds(events) == [EventKind.MOVE_LEGAL]
    assert "Legal 3-1" in events[0].message and "read 3-2: misread" in events[0].message
    assert session.position.turn is WHITE and session.game.events[-1].roll == Roll(3, 1)
    assert_resumes_alike(table, tmp_path / "game.jsonl")


def misread_opening(table: Table, faces: tuple[float, ...]) -> list[SessionEvent]:
    """The opening throw, White 5 and Black 3, Black's die read as a 2 (its `faces`) for
    sure; White plays the 5-3 24/19 19/16, which is no legal 5-2: the events of the move."""
    table.script.opening(5, 3, faces=((), faces))
    events = table.run()
    assert kinds(events) == [EventKind.OPENING_THROW] and table.session.roll == Roll(5, 2)
    table.script.play("24/19 19/16").pick_up()
    return table.run()


def test_a_first_move_that_surely_shows_an_opening_die_misread_corrects_the_roll(
    tmp_path: Path,
) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session = table.session
    # The 3 read as a 2 at 0.6, a 3 at 0.38: the legal 5-3 holds 0.93 against a foul of 5-2.
    events = misread_opening(table, (0.005, 0.6, 0.38, 0.005, 0.005, 0.005))
    assert kinds(events) == [EventKind.MOVE_LEGAL]
    assert "Legal 5-3" in events[0].message and "read 5-2: misread" in events[0].message
    played = session.game.events[-1]
    assert isinstance(played, Played) and played.legal and played.roll == Roll(5, 3)
    assert_resumes_alike(table, tmp_path / "game.jsonl")
    first = Journal.replay(tmp_path / "game.jsonl").match.games[0].actions[0]
    assert first.dice == (5, 3)  # type: ignore[union-attr]


def test_a_first_move_asked_about_as_an_opening_die_misread_stands_when_black_throws(
    tmp_path: Path,
) -> None:
    table = Table(LongNardy(), journal=tmp_path / "game.jsonl")
    session = table.session
    # The 3 read as a 2 at 0.7, a 3 at 0.28: not sure enough to correct; the players are asked.
    events = misread_opening(table, (0.005, 0.7, 0.28, 0.005, 0.005, 0.005))
    assert kinds(events) == [EventKind.MOVE_UNSURE] and "Check the dice" in events[0].message
    table.script.throw(BLACK, 6, 5)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "read 5-2, were misread" in events[0].message
    played = session.game.events[-2]
    assert isinstance(played, Played) and played.legal and played.roll == Roll(5, 3)
    table.script.play("24/18 18/13").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]
    assert_resumes_alike(table, tmp_path / "game.jsonl")


def test_a_throw_called_void_but_played_is_followed() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    blacks_turn(table)
    # The camera calls Black's 3-1 cocked; the players see it flat and play it.
    script.throw(BLACK, 3, 1, fault=ThrowFault.COCKED)
    assert kinds(table.run()) == [EventKind.THROW_VOID]
    script.play("24/21 21/20").pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW, EventKind.MOVE_LEGAL]
    assert "3-1 (played though called void (cocked))" in events[0].message
    assert session.position.turn is WHITE


def test_a_throw_called_void_then_an_unrelated_move_waits_for_the_next_throw() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    blacks_turn(table)
    script.throw(BLACK, 3, 1, fault=ThrowFault.COCKED)
    table.run()
    script.play("24/18").pick_up()  # no play of 3-1
    events = table.run()
    assert kinds(events) == []
    assert any("after a throw called void (cocked)" in event.message for event in events)
    # White throws: Black's move stands, unjudged, and the throw is White's.
    script.throw(WHITE, 6, 5)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "its throw was called void (cocked)" in events[0].message
    assert session.position.turn is WHITE and session.roll == Roll(6, 5)


black_checker_misread = head_checker_misread(BLACK, 12, 14)


def test_a_move_let_stand_keeps_the_opponents_misread_checkers_where_they_stood() -> None:
    table = Table(LongNardy())
    session, script = table.session, table.script
    # White plays 5-2 legally, but a Black checker is read moved: no play can do that.
    white_plays_the_opening(table, black_checker_misread)
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ILLEGAL]
    assert "cannot stand" in events[0].message and session.phase is Phase.CORRECTION
    # Nobody changes the board: Black throws, which accepts White's move (RULES.md §2).
    # White's checkers stand as read, Black's where they stood: White's legal 5-2.
    script.throw(BLACK, 3, 1)
    still = script.observations[-1]
    assert still.board is not None
    script.observations[-1] = dataclasses.replace(still, board=black_checker_misread(still.board))
    events = table.run()
    assert kinds(events) == [EventKind.MOVE_ACCEPTED, EventKind.THROW]
    assert "move stands as 24/19 19/17" in events[0].message
    assert "black's checkers are kept where they stood" in events[0].message
    played = session.game.events[-2]
    assert isinstance(played, Played) and played.legal
    assert session.position.points[BLACK][23] == 15
    assert session.position.turn is BLACK and session.roll == Roll(3, 1)


def test_a_die_hidden_during_the_move_is_no_early_throw() -> None:
    table = Table(LongNardy())
    script = table.script
    blacks_turn(table)
    script.throw(BLACK, 3, 1)
    table.run()
    both = script.dice
    script.dice = both[:1]  # the mover's hand rests over the other die
    script.still()
    assert kinds(table.run()) == []
    script.dice = both
    script.play("24/21 21/20").pick_up()
    assert kinds(table.run()) == [EventKind.MOVE_LEGAL]


def test_dice_caught_while_rolling_are_thrown_again() -> None:
    table = Table(LongNardy())
    blacks_turn(table)
    table.script.throw(BLACK, 3, 3, fault=ThrowFault.ROLLING).pick_up()
    events = table.run()
    assert kinds(events) == [EventKind.THROW_VOID]
    assert "before they came to rest" in events[0].message


def test_teaching_mode_shows_the_legal_destinations() -> None:
    table = Table(LongNardy(), teach=True)
    table.script.opening(6, 5)
    table.run()
    shown = table.lamps.last
    # White's 6-5 from the head: one checker leaves it (head rule) and ends on 13.
    assert shown.destinations == (13,)
    table.script.play("24/13").pick_up().throw(BLACK, 3, 3)
    table.run()
    # Black's first 3-3: two checkers may leave the head: to black's 18 and 15 or 21 and 15,
    # which are White's 6, 3 and 9.
    assert table.lamps.last.destinations == (3, 6, 9)


def test_buttons_without_meaning_are_noticed_and_change_nothing() -> None:
    table = Table(LongNardy())
    events = table.press(Decision.ACCEPT)
    assert [event.kind for event in events] == [EventKind.NOTICE]
    assert table.session.phase is Phase.OPENING
