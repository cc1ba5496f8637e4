"""Records of the long-nardy variants whose turns do not simply alternate (RULES.md §4): the
doubles ladder, gulbar's second throw and moves passed over, in the long-nardy text format,
the journal and replay; .mat and SGF stay backgammon only."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from referee.record import (
    Continued,
    End,
    Game,
    Journal,
    JournalError,
    Match,
    MatchHeader,
    Move,
    RecordError,
    RecordReplayError,
    RecordSyntaxError,
    Result,
    RollThrown,
    UnsupportedRecordError,
    bear_off_points,
    format_mat,
    format_sgf,
    format_text,
    parse_mat,
    read_mat,
)
from referee.record.live import GameRecorder
from referee.rules import Next, OwedMoves, Play, Position, Roll, Side, Variant, variant_from_name
from referee.rules.game import Game as RulesGame
from referee.rules.long_variants import (
    LONG_VARIANTS,
    DoublesLadder,
    Gulbar,
    Khachapuri,
    Mad,
    MadGulbar,
)
from tests.variant_helpers import random_turns

VARIANTS = [
    *(cls() for cls in LONG_VARIANTS),
    MadGulbar(ladder_moves_per_step=2, passed_moves="rest_of_double"),
    Khachapuri(home_stack=1),
]


def random_record_game(variant: Variant, seed: int) -> tuple[list[Move], Position]:
    """The moves of a random game that follows each play's continuation (White is player 0),
    owed moves marked, and the final board."""
    moves = []
    final = None
    for position, dice, play, then in random_turns(variant, random.Random(seed), 5000):
        owed = None
        if isinstance(dice, OwedMoves):
            owed = Next.PASSED if dice.passed else Next.LADDER
        moves.append(Move(int(position.turn), (dice.die1, dice.die2), play, owed))
        final = position.play(play)
        if then.kind is Next.GAME_OVER:
            return moves, final
    raise AssertionError("the game did not end")


def random_variant_match(variant: Variant, seeds: list[int]) -> Match:
    games = []
    score = [0, 0]
    for seed in seeds:
        moves, final = random_record_game(variant, seed)
        winner = final.winner()
        assert winner is not None
        points = bear_off_points(final, winner, 1)
        games.append(Game((score[0], score[1]), tuple(moves), Result(int(winner), points)))
        score[int(winner)] += points
    header = MatchHeader(
        players=("Алиса", "Bob"), variant=variant.name, options=variant.non_default_options()
    )
    return Match(header, tuple(games))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.name}{v.non_default_options()}")
def test_random_games_of_every_variant_round_trip(variant: Variant) -> None:
    match = random_variant_match(variant, [1, 2])
    text = format_text(match)
    replayed = read_mat(text)
    back = replayed.match
    assert [game.actions for game in back.games] == [game.actions for game in match.games]
    assert back.header.rules_variant() == variant
    assert format_text(back) == text
    again = Match.from_dict(json.loads(json.dumps(back.to_dict())))  # the JSON form
    assert again.games == back.games and again.header.rules_variant() == variant
    if isinstance(variant, DoublesLadder):
        owed = {move.owed for game in match.games for move in game.actions}  # type: ignore[union-attr]
        assert Next.LADDER in owed
    for game in replayed.games:
        assert game.game.result is not None and game.game.result.end is End.BEAR_OFF
        for done in game.actions:
            assert done.roll is not None and done.legal
            assert isinstance(done.roll, OwedMoves) == (done.action.owed is not None)  # type: ignore[union-attr]
    with pytest.raises(UnsupportedRecordError, match="long-nardy text format"):
        format_mat(match)
    with pytest.raises(UnsupportedRecordError, match="backgammon"):
        format_sgf(match)


def test_the_header_names_the_variant_and_every_option() -> None:
    variant = MadGulbar(ladder_moves_per_step=2)
    text = format_text(random_variant_match(variant, [3]))
    assert '; [Variation "mad_gulbar"]\n' in text
    assert '; [LadderMovesPerStep "2"]\n' in text and '; [PassedMoves "rest_of_ladder"]\n' in text
    assert read_mat(text).match.header.rules_variant() == variant


MAD_TEXT = """\
; [Variation "mad"]

 0 point match

 Game 1
 W : 0                          B : 0
  1) 44: 24/20 24/20 20/16 20/16
  2) ladder 55: 24/19 19/14 14/9 9/4
  3) ladder 66: 24/18 18/12 12/6 6/off 31: 24/21 21/20
"""


def test_a_ladder_is_written_in_the_players_column_row_after_row() -> None:
    match = parse_mat(MAD_TEXT)
    moves = match.games[0].actions
    assert [(m.player, m.owed) for m in moves] == [  # type: ignore[union-attr]
        (0, None),
        (0, Next.LADDER),
        (0, Next.LADDER),
        (1, None),
    ]
    # 6/off is no move of this position: replaying names it, with the ladder's marking.
    refused = r"move 3 \(ladder 66: 24/18 18/12 12/6 6/0\): Illegal 6-6"
    with pytest.raises(RecordReplayError, match=refused):
        read_mat(MAD_TEXT)


GULBAR_GAME = """\
 Game 1
 W : 0                          B : 0
  1) 11: 24/23 23/22 22/21 21/20
  2) 65: 24/18 18/13             66: 24/18 24/18
  3) passed 66: 20/14 14/8
  4) 21: 24/22 8/7               43: 24/20 20/17
"""


def test_gulbar_second_throw_and_passed_moves_in_the_text() -> None:
    # White plays 1-1 in full and throws again; Black's 6-6 can move only two checkers off
    # its head (its next sixes would stop on White's head), so White plays the other two,
    # then throws for its own turn.
    header = MatchHeader(players=("W", "B"), variant="gulbar")
    text = format_text(Match(header)) + GULBAR_GAME
    replayed = read_mat(text)
    game = replayed.games[0]
    kinds = [(done.action.player, done.action.owed) for done in game.actions]  # type: ignore[union-attr]
    assert kinds == [(0, None), (0, None), (1, None), (0, Next.PASSED), (0, None), (1, None)]
    assert game.actions[3].roll == OwedMoves.passed_over(6, 2, 6)
    written = format_text(replayed.match)
    assert "\n".join(line.rstrip() for line in written.splitlines()) + "\n" == text
    # Like a hit mark, an owed play's mark is completed by replaying where the text omits it.
    unmarked = read_mat(text.replace("passed 66:", "66:       "))
    assert unmarked.match == replayed.match


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        # The ladder's 5-5 marked as passed moves, or as another number.
        (lambda t: t.replace("ladder 55:", "passed 55:"), "the ladder's 55 must be played first"),
        (lambda t: t.replace("ladder 55:", "ladder 44:"), "the ladder's 55 must be played first"),
        # A ladder where none is owed.
        (lambda t: t.replace("  1) 44:", "  1) ladder 44:"), "no ladder moves are owed here"),
        # Black throws while White still owes the ladder's 6-6.
        (
            lambda t: t.replace("  3) ladder 66: 24/18 18/12 12/6 6/off", "  3)" + " " * 29),
            "the ladder's 66 must be played first",
        ),
    ],
)
def test_owed_moves_out_of_place_are_refused(damage, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RecordReplayError, match=words):
        read_mat(damage(MAD_TEXT))


def test_a_cell_may_be_empty_only_where_a_player_acts_again() -> None:
    skipped = MAD_TEXT.replace("  2) ladder", "  3) ladder").replace(
        "  3) ladder 66", "  4) ladder 66"
    )
    with pytest.raises(
        RecordSyntaxError, match="expected move 1, right cell, or move 2; found move 3, left cell"
    ):
        parse_mat(skipped)
    with pytest.raises(RecordSyntaxError, match="cannot read 'ladderr'"):
        parse_mat(MAD_TEXT.replace("ladder 55", "ladderr 55"))


def journal_game(variant: Variant, seed: int, path: Path) -> RulesGame:
    """A random game through the rules core's `Game`, journaled as a live session would."""
    rng = random.Random(seed)
    journal = Journal.create(path, MatchHeader(variant=variant.name))
    recorder = GameRecorder(journal)
    recorder.start_game(1, (0, 0))
    game = RulesGame(variant)
    while game.phase.value == "opening":
        recorder.record(game.opening_throw(rng.randint(1, 6), rng.randint(1, 6)))
    while not game.is_finished:
        if game.dice is None:
            recorder.record(game.roll(Roll(rng.randint(1, 6), rng.randint(1, 6))))
        recorder.record(game.play(rng.choice(game.legal_plays())))
    journal.close()
    return game


@pytest.mark.parametrize("variant", [Mad(), Gulbar(), MadGulbar()], ids=lambda v: v.name)
def test_a_live_game_of_a_variant_journals_its_continuations(
    variant: Variant, tmp_path: Path
) -> None:
    path = tmp_path / "match.jsonl"
    game = journal_game(variant, 4, path)
    state = Journal.replay(path)
    continued = [entry.event for entry in state.entries if isinstance(entry.event, Continued)]
    assert continued, "a random game of a variant has extra plays"
    (replayed,) = state.replayed.games
    result = game.result()
    assert result is not None and replayed.game.result is not None
    assert replayed.game.result.winner == int(result.winner)  # type: ignore[arg-type]
    assert state.position is not None and state.position.same_board(game.position)
    owed = [a for a in replayed.game.actions if isinstance(a, Move) and a.owed is not None]
    owing = [c for c in continued if c.next in (Next.LADDER, Next.PASSED)]
    assert len(owed) == len(owing)
    assert read_mat(format_text(state.match)).match.games == state.match.games


def test_a_journal_waiting_for_owed_moves_says_so(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    journal = Journal.create(path, MatchHeader(variant="mad"))
    recorder = GameRecorder(journal)
    recorder.start_game(1, (0, 0))
    game = RulesGame(Mad(), starter=Side.WHITE)
    recorder.record(game.roll(Roll(4, 4)))
    recorder.record(game.play(Play.from_str("24/20 24/20 20/16 20/16")))
    journal.close()
    state = Journal.replay(path)
    assert state.pending is not None and state.pending.event == Continued(0, Next.LADDER, (5,) * 4)
    # A throw where the ladder's 5-5 is owed is refused, naming its line.
    again, _ = Journal.resume(path)
    with again:
        again.append(RollThrown(0, (2, 1)))
    with pytest.raises(JournalError, match=r":\d+: a throw while moves are owed"):
        Journal.replay(path)


def test_a_continuation_lists_its_owed_moves() -> None:
    with pytest.raises(RecordError, match="one to four moves of one number"):
        Continued(0, Next.LADDER, ())
    with pytest.raises(RecordError, match="nothing for throw_again"):
        Continued(0, Next.THROW_AGAIN, (6, 6))


def test_every_variant_name_is_a_variation() -> None:
    for cls in LONG_VARIANTS:
        for name in (cls.name, *cls.aliases):
            assert variant_from_name(name).name == cls.name


def test_a_khachapuri_resignation_is_worth_the_checkers_on_the_board() -> None:
    moves, _ = random_record_game(Khachapuri(), 5)
    header = MatchHeader(variant="khachapuri")
    start = Game((0, 0), tuple(moves[:2]), Result(0, 15, End.RESIGN))
    assert read_mat(format_text(Match(header, (start,)))).games[0].game.result == start.result
    wrong = dataclasses.replace(start, result=Result(0, 2, End.RESIGN))
    with pytest.raises(RecordReplayError, match=r"per checker not borne off \(15\), not 2"):
        read_mat(format_text(Match(header, (wrong,))))
