"""`referee watch`: referee a game live from a camera, a video, a folder of images or a script.

    referee watch --camera 0 --variant long [--teach]
    referee watch --video game.mp4 --variant short --match 5
    referee watch --script game.jsonl --variant long        # recorded observations, no vision
    referee watch --camera 0 --resume out/journals/referee-20250101-200000.jsonl

Every event is shown on the signals configured in `--config` (console, GPIO lamps and buzzer,
serial LEDs) and journaled, fsync'd, to `--journal` (or the journal being resumed). Exit status:
0 when the source ended or the match finished, 1 when the referee cannot start (no vision
model, no such file, a damaged journal, a bad config), 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from pathlib import Path

from referee.record import Journal, JournalError, MatchHeader, RecordError
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
from referee.signals import SignalsConfig, SignalsError, load_config, signals_from_config

JOURNAL_FOLDER = Path("out/journals")


def _source_and_vision(
    args: argparse.Namespace, variant_name: str, config: SessionConfig
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
        vision = load_vision(variant_from_name(variant_name), args.profile, args.vision)
    except SessionError:
        source.close()
        raise
    return source, vision


def _default_journal() -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return JOURNAL_FOLDER / f"referee-{stamp}.jsonl"


def run(args: argparse.Namespace) -> int:
    if args.resume is None and args.variant is None:
        print(
            "referee watch: --variant long|short is needed (or --resume JOURNAL)", file=sys.stderr
        )
        return 2
    try:
        signals_config = SignalsConfig() if args.config is None else load_config(args.config)
        config = SessionConfig() if args.config is None else load_session_config(args.config)
        if args.teach:
            signals_config = dataclasses.replace(signals_config, teaching=True)
        state = None if args.resume is None else Journal.replay(args.resume)
        variant_name = args.variant if state is None else state.match.header.variant
        if state is not None and args.variant is not None:
            resumed = variant_from_name(variant_name).name
            if variant_from_name(args.variant).name != resumed:
                print(
                    f"referee watch: the journal is of {resumed} nardy, not {args.variant}",
                    file=sys.stderr,
                )
                return 2
        source, vision = _source_and_vision(args, variant_name, config)
    except (SessionError, SignalsError, RecordError, RulesError) as exc:
        print(f"referee watch: {exc}", file=sys.stderr)
        return 1
    hub = signals_from_config(signals_config)
    try:
        if args.resume is not None:
            journal, state = Journal.resume(args.resume)
            session = Session.resume(
                state, config=config, journal=journal, signals=hub, teach=args.teach
            )
        else:
            path = args.journal or _default_journal()
            path.parent.mkdir(parents=True, exist_ok=True)
            header = MatchHeader(length=args.match, variant=args.variant)
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
    parser.add_argument("--variant", choices=("long", "short"), help="the game played")
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
        "--vision",
        default=VISION_FACTORY,
        metavar="MODULE:FACTORY",
        help=f"the camera pipeline to load (default {VISION_FACTORY})",
    )
    parser.set_defaults(func=run)


__all__ = ["register", "run"]
