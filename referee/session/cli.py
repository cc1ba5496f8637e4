"""`referee watch`: referee a game live from a camera, a video, a folder of images or a script.

    referee watch --camera 0 --variant long [--teach]
    referee watch --video game.mp4 --variant short --match 5
    referee watch --script game.jsonl --variant long        # recorded observations, no vision
    referee watch --camera 0 --variant "mad gulbar" --option ladder_moves_per_step=2
    referee watch --camera 0 --resume out/journals/referee-20250101-200000.jsonl

`--variant` takes any variant name or alias the rules core knows (`long`, `short`, `mad`,
`gulbar`, `бешеные`, ...: README, "Long-nardy variants"), `--option NAME=VALUE` its options.
Every event is shown on the signals configured in `--config` (console, GPIO lamps and buzzer,
serial LEDs, the web page, which `--web` turns on) and journaled, fsync'd, to `--journal` (or
the journal being resumed). Exit status: 0 when the source ended or the match finished, 1
when the referee cannot start (no vision model, no such file, a damaged journal, a bad
config), 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from pathlib import Path
from typing import Any

from referee.record import Journal, JournalError, MatchHeader, RecordError
from referee.record.model import parse_option, variant_option_keys
from referee.rules import RulesError, variant_from_name
from referee.session.config import SessionConfig, load_session_config
from referee.session.errors import SessionError
from referee.session.machine import Phase, Session
from referee.session.runner import Runner
from referee.session.sources import FrameSource, ImageFolder, OpenCvCamera, PiCamera, VideoFile
from referee.session.vision import (
    VISION_FACTORY,
    ScriptedVision,
    ScriptSource,
    Vision,
    load_script,
    load_vision,
)
from referee.signals import (
    SignalsConfig,
    SignalsError,
    WebSignals,
    load_config,
    signals_from_config,
)

JOURNAL_FOLDER = Path("out/journals")


def _source_and_vision(
    args: argparse.Namespace, header: MatchHeader, config: SessionConfig
) -> tuple[FrameSource, Vision]:
    if args.script is not None:
        observations = load_script(args.script)
        return ScriptSource(len(observations)), ScriptedVision(observations)
    source: FrameSource
    if args.video is not None:
        source = VideoFile(args.video)
    elif args.images is not None:
        source = ImageFolder(args.images)
    elif args.picamera:
        source = PiCamera(reopen_s=config.reopen_s)
    else:
        source = OpenCvCamera(0 if args.camera is None else args.camera, reopen_s=config.reopen_s)
    try:
        vision = load_vision(header.rules_variant(), args.profile, args.vision)
    except SessionError:
        source.close()
        raise
    return source, vision


def _header(args: argparse.Namespace) -> MatchHeader:
    """The new match's header: the variant named, by its own name, and its options."""
    name = variant_from_name(args.variant).name
    kinds = dict(variant_option_keys(name).values())
    options: dict[str, Any] = {}
    for item in args.option:
        key, equals, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not equals or key not in kinds:
            known = ", ".join(kinds)
            raise RecordError(f"--option {item!r}: expected NAME=VALUE, NAME one of {known}")
        try:
            options[key] = parse_option(kinds[key], text.strip())
        except RecordError as error:
            raise RecordError(f"--option {key}: {error.message}") from None
    header = MatchHeader(length=args.match, variant=name, options=options)
    header.rules_variant()  # refuses an option the variant replaces with its own rule
    return header


def _default_journal() -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return JOURNAL_FOLDER / f"referee-{stamp}.jsonl"


def run(args: argparse.Namespace) -> int:
    if args.resume is None and args.variant is None:
        print(
            "referee watch: --variant NAME is needed (long, short or a long-nardy variant; or "
            "--resume JOURNAL)",
            file=sys.stderr,
        )
        return 2
    header: MatchHeader | None = None
    if args.resume is None:
        try:
            header = _header(args)
        except (RecordError, RulesError) as exc:
            print(f"referee watch: {exc}", file=sys.stderr)
            return 2
    try:
        signals_config = SignalsConfig() if args.config is None else load_config(args.config)
        config = SessionConfig() if args.config is None else load_session_config(args.config)
        if args.teach:
            signals_config = dataclasses.replace(signals_config, teaching=True)
        if args.web:
            web = dataclasses.replace(signals_config.web, enabled=True)
            signals_config = dataclasses.replace(signals_config, web=web)
        state = None if args.resume is None else Journal.replay(args.resume)
        if state is not None:
            header = state.match.header
            resumed = header.rules_variant()
            if args.variant is not None and variant_from_name(args.variant).name != resumed.name:
                print(
                    f"referee watch: the journal is of {resumed.title}, not {args.variant}",
                    file=sys.stderr,
                )
                return 2
        assert header is not None  # a new match's, or the resumed journal's
        source, vision = _source_and_vision(args, header, config)
    except (SessionError, SignalsError, RecordError, RulesError) as exc:
        print(f"referee watch: {exc}", file=sys.stderr)
        return 1
    hub = signals_from_config(signals_config)
    for sink in hub.sinks:
        if isinstance(sink, WebSignals):
            print(f"web page: {sink.url}", file=sys.stderr)
    try:
        if args.resume is not None:
            journal, state = Journal.resume(args.resume)
            session = Session.resume(
                state, config=config, journal=journal, signals=hub, teach=args.teach
            )
        else:
            path = args.journal or _default_journal()
            path.parent.mkdir(parents=True, exist_ok=True)
            journal = Journal.create(path, header)
            print(f"journal: {path}", file=sys.stderr)
            session = Session.new(
                header, config=config, journal=journal, signals=hub, teach=args.teach
            )
        runner = Runner(source, vision, session, decisions=hub.next_decision)
        with journal:
            try:
                while runner.step():
                    if session.phase is Phase.MATCH_OVER:
                        break
            except KeyboardInterrupt:
                return 130
            finally:
                session.finish()
        stats = runner.stats
        print(
            f"frames {stats.frames}, observations {stats.observations}, skipped {stats.corrupt}",
            file=sys.stderr,
        )
        return 0
    except (JournalError, OSError) as exc:
        print(f"referee watch: {exc}", file=sys.stderr)
        return 1
    finally:
        source.close()
        hub.close()


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="referee a game live from a camera, video, image folder or observation script",
        description="Referee a game live: judge every throw and move, signal the verdicts, "
        "journal the match.",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--camera", type=int, metavar="N", help="OpenCV camera number (default 0)")
    where.add_argument("--picamera", action="store_true", help="the Raspberry Pi camera")
    where.add_argument("--video", type=Path, metavar="FILE", help="a video file")
    where.add_argument("--images", type=Path, metavar="DIR", help="a folder of images, in order")
    where.add_argument(
        "--script",
        type=Path,
        metavar="FILE",
        help="recorded observations (JSON lines) instead of frames and vision",
    )
    parser.add_argument(
        "--variant",
        metavar="NAME",
        help="the game played: long, short, or a long-nardy variant (nardgammon, mad, gulbar, "
        "mad_gulbar, khachapuri, fevga, fevga_rabid), by name or alias",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variant option (e.g. ladder_moves_per_step=2); repeatable",
    )
    parser.add_argument("--match", type=int, default=0, metavar="N", help="match length (0: money)")
    parser.add_argument("--profile", type=Path, metavar="FILE", help="the camera/board profile")
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="TOML with [signals] and [session] tables"
    )
    parser.add_argument("--resume", type=Path, metavar="JOURNAL", help="carry on from a journal")
    parser.add_argument(
        "--journal", type=Path, metavar="FILE", help="where to journal (default out/journals/...)"
    )
    parser.add_argument(
        "--teach", action="store_true", help="show the legal destination points of each throw"
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve the live page ([signals.web] host and port; default http://127.0.0.1:8080/)",
    )
    parser.add_argument(
        "--vision",
        default=VISION_FACTORY,
        metavar="MODULE:FACTORY",
        help=f"the camera pipeline to load (default {VISION_FACTORY})",
    )
    parser.set_defaults(func=run)


__all__ = ["register", "run"]
