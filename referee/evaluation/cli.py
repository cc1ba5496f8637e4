"""`referee eval`: score a board reader against a folder of labelled images."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
import time
from pathlib import Path
from typing import TextIO

from referee.evaluation.config import EvalConfig
from referee.evaluation.dataset import FORMATS, DataFormat, detect_format, discover
from referee.evaluation.readers import ReaderError, create_reader, reader_names
from referee.evaluation.report import format_summary, write_image_csv, write_summary_json
from referee.evaluation.runner import evaluate

DEFAULT_READER = "vision"
DEFAULT_OUT = Path("out/eval")
SUMMARY_FILE = "summary.json"
IMAGES_FILE = "per_image.csv"

EXIT_OK = 0
EXIT_NOTHING_SCORED = 1
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `eval` sub-command."""
    parser = subparsers.add_parser(
        "eval",
        help="score a board reader against labelled images",
        description=(
            "Score a board reader against labelled images: checker counts, dice values, throw "
            "verdicts, board corners and time per stage. Writes a per-image CSV and a summary "
            "JSON, and prints the summary."
        ),
    )
    parser.add_argument(
        "--data", type=Path, required=True, metavar="DIR", help="folder of labelled images"
    )
    parser.add_argument(
        "--reader",
        default=DEFAULT_READER,
        metavar="NAME",
        help=f"registered reader ({', '.join(reader_names())}) or module:factory "
        f"(default: {DEFAULT_READER})",
    )
    parser.add_argument(
        "--reader-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="option for the reader, repeatable (e.g. perturbed: wrong_counts=2, seed=7)",
    )
    parser.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="label layout: scene JSON or YOLO dice boxes (default: guess from the files)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where {IMAGES_FILE} and {SUMMARY_FILE} go (default: {DEFAULT_OUT})",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="score only the first N images")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Carry out `referee eval`; returns the exit status."""
    data: Path = args.data
    if not data.is_dir():
        print(f"referee eval: {data} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    options: dict[str, str] = {}
    for item in args.reader_option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"referee eval: --reader-option {item!r} is not KEY=VALUE", file=sys.stderr)
            return EXIT_USAGE
        options[key.strip()] = value.strip()
    fmt: DataFormat | None = detect_format(data) if args.format == "auto" else args.format
    if fmt is None:
        print(
            f"referee eval: no image in {data} has a label beside it (.json or .txt); "
            "use --format to say which layout is meant",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        reader = create_reader(args.reader, options)
    except ReaderError as exc:
        print(f"referee eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a reader's own set-up failure (missing model file, ...)
        print(f"referee eval: reader {args.reader!r} failed to start: {exc}", file=sys.stderr)
        return EXIT_USAGE

    config = EvalConfig()
    dataset = discover(data, fmt)
    started = datetime.datetime.now(datetime.UTC)
    start = time.perf_counter()
    progress = None if args.quiet else ProgressLine(sys.stderr)
    result = evaluate(dataset, reader, config, progress=progress, limit=args.limit)
    if progress is not None:
        progress.finish()
    wall_s = time.perf_counter() - start

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    run_info = {
        "data": str(data),
        "format": fmt,
        "reader": reader.name,
        "reader_options": options,
        "config": dataclasses.asdict(config),
        "images_found": len(dataset.samples),
        "limit": args.limit,
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 3),
    }
    write_summary_json(out / SUMMARY_FILE, result, run_info)
    write_image_csv(out / IMAGES_FILE, result)
    title = f"referee eval: reader '{reader.name}' on {data} ({fmt}), {wall_s:.1f} s"
    print(format_summary(result, title))
    print(f"Wrote {out / IMAGES_FILE} and {out / SUMMARY_FILE}")
    return EXIT_OK if result.scores else EXIT_NOTHING_SCORED


class ProgressLine:
    """Progress on stderr: one line rewritten in place on a terminal, else a line per tenth."""

    def __init__(self, stream: TextIO, min_interval_s: float = 0.25) -> None:
        self.stream = stream
        self.min_interval_s = min_interval_s
        self.interactive = stream.isatty()
        self.last = 0.0
        self.last_tenth = 0
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        text = f"scoring: {done}/{total} images, {now - self.start:.1f} s"
        if self.interactive:
            if now - self.last >= self.min_interval_s or done == total:
                self.stream.write("\r" + text)
                self.stream.flush()
                self.last = now
        elif total and (tenth := 10 * done // total) > self.last_tenth:
            self.stream.write(text + "\n")
            self.last_tenth = tenth

    def finish(self) -> None:
        """End the rewritten line so the next output starts on a fresh one."""
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()
