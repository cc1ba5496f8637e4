"""`referee record convert` and `referee record check`: match records on the command line.

Errors in a record (a bad line, an illegal play, a wrong score) are reported as one message
naming the file, line, game and move, with exit status 1; files that cannot be opened give 2.
Nothing is ever written over an existing file without `--force`.
"""

from __future__ import annotations

import argparse
import sys

from referee.record.errors import RecordError, RecordReplayError
from referee.record.formats import FORMATS, WRITERS, format_of, read_record, write_record
from referee.record.journal import Journal
from referee.record.model import End
from referee.record.replay import ReplayedMatch, action_text

ENDS = {
    End.BEAR_OFF: "bore off",
    End.DROP: "double dropped",
    End.RESIGN: "resigned",
    End.DRAW: "draw",
}


def _points(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


def summary(replayed: ReplayedMatch, *, moves: bool = False) -> list[str]:
    """Lines describing a replayed match: header, one line per game, the final score."""
    match = replayed.match
    header = match.header
    players = header.players
    length = f"{header.length}-point match" if header.length else "money session"
    lines = [
        f"{length}, {header.rules_variant().title}: {players[0]} vs {players[1]}, "
        f"{len(match.games)} games, {replayed.moves} moves"
    ]
    for game in replayed.games:
        result = game.game.result
        score = f"{game.game.score[0]}-{game.game.score[1]}"
        rolls = sum(1 for a in game.actions if a.action.kind == "move")
        if result is None:
            outcome = "in progress"
        elif result.winner is None:
            outcome = "draw"
        else:
            how = ENDS[result.end] if result.end is not None else "won"
            outcome = f"{players[result.winner]} wins {_points(result.points)} ({how})"
        crawford = ", Crawford game" if game.crawford else ""
        lines.append(f"  game {game.number} at {score}{crawford}: {rolls} moves, {outcome}")
        if moves:
            for done in game.actions:
                who = players[done.action.player]
                flag = "" if done.legal else "   <- illegal, accepted"
                text = action_text(done.action).strip()
                lines.append(f"    {done.move:3d}. {who}: {text}{flag}")
    final = replayed.score
    lines.append(f"score {final[0]}-{final[1]}")
    winner = replayed.winner
    if winner is not None:
        lines.append(f"{players[winner]} wins the match")
    return lines


def _report_failure(error: RecordError | OSError, path: str) -> int:
    """Say on stderr why a record could not be read or written; the exit status for it:
    1 for a record that is inconsistent or malformed, 2 for a file that cannot be used."""
    if isinstance(error, RecordReplayError):
        sys.stderr.write(f"inconsistent: {error}\n")
        return 1
    if isinstance(error, RecordError):
        sys.stderr.write(f"error: {error}\n")
        return 1
    sys.stderr.write(f"error: {path}: {error.strerror or error}\n")
    return 2


def run_check(args: argparse.Namespace) -> int:
    out = sys.stdout
    try:
        replayed = read_record(args.file, args.source_format)
    except (RecordError, OSError) as error:
        return _report_failure(error, args.file)
    out.write(f"{args.file}: ok\n")
    if format_of(args.file, args.source_format) == "journal":
        torn = Journal.replay(args.file).torn_line
        if torn is not None:
            out.write(f"note: line {torn} is an unfinished last line (power cut), ignored\n")
    for line in summary(replayed, moves=args.moves):
        out.write(line + "\n")
    return 0


def run_convert(args: argparse.Namespace) -> int:
    try:
        replayed = read_record(args.input, args.source_format)
        write_record(replayed.match, args.output, args.target_format, overwrite=args.force)
    except RecordError as error:
        return _report_failure(error, "")
    except OSError as error:
        return _report_failure(error, error.filename or "")
    sys.stdout.write(f"{args.output}: {len(replayed.match.games)} games written\n")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    record = subparsers.add_parser(
        "record",
        help="check and convert match records (.mat, .sgf, long-nardy text, journals)",
        description="Match records: GNU Backgammon / Jellyfish .mat, SGF (GM[6]), the "
        "long-nardy text format (.nardy) and the referee's journal (.jsonl, read only).",
    )
    commands = record.add_subparsers(dest="record_command", required=True, metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="read a record and replay it through the rules",
        description="Reads FILE, replays every move through the rules and prints the games and "
        "the result, or the first inconsistency (exit status 1).",
    )
    check.add_argument("file", help="the record (.mat, .sgf, .nardy or .jsonl)")
    check.add_argument("--from", dest="source_format", choices=FORMATS, help="format of FILE")
    check.add_argument("--moves", action="store_true", help="list every move")
    check.set_defaults(func=run_check)

    convert = commands.add_parser(
        "convert",
        help="convert a record to another format",
        description="Reads IN (replaying it through the rules) and writes OUT in the format "
        "its extension or --to names.",
    )
    convert.add_argument("input", metavar="IN")
    convert.add_argument("output", metavar="OUT")
    convert.add_argument("--from", dest="source_format", choices=FORMATS, help="format of IN")
    convert.add_argument("--to", dest="target_format", choices=list(WRITERS), help="format of OUT")
    convert.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    convert.set_defaults(func=run_convert)
