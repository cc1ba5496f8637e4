"""`referee scenes make` (a labelled image set) and `referee scenes video` (a scripted game)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from referee.scenes.config import load_config


def _size(args: argparse.Namespace) -> tuple[int, int] | None:
    if (args.width is None) != (args.height is None):
        raise SystemExit("give both --width and --height, or neither")
    if args.width is None:
        return None
    if args.width < 64 or args.height < 64:
        raise SystemExit("images must be at least 64 x 64 pixels")
    return int(args.width), int(args.height)


def _make(args: argparse.Namespace) -> int:
    from referee.scenes.dataset import make_dataset

    if args.n < 0:
        raise SystemExit("--n must not be negative")
    make_dataset(
        Path(args.out),
        args.n,
        args.seed,
        load_config(args.config),
        size=_size(args),
        yolo=args.yolo,
        jobs=args.jobs,
        progress=not args.quiet,
    )
    return 0


def _video(args: argparse.Namespace) -> int:
    from referee.scenes.video import make_video

    out = Path(args.out)
    if out.suffix.lower() != ".avi":
        raise SystemExit("the video is an MJPG AVI: give --out FILE.avi")
    out.parent.mkdir(parents=True, exist_ok=True)
    script = make_video(
        out,
        args.seed,
        load_config(args.config),
        size=_size(args) or (1280, 720),
        fps=args.fps,
        variant=args.variant,
    )
    summary = f"{script['frame_count']} frames, {len(script['stills'])} stills"
    print(f"{out}: {summary}; script {out.with_suffix('.json')}", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add the `scenes` command and its `make` and `video` sub-commands."""
    scenes = subparsers.add_parser("scenes", help="synthetic labelled board photos and videos")
    commands = scenes.add_subparsers(dest="scenes_command", required=True, metavar="SUBCOMMAND")

    make = commands.add_parser("make", help="render a labelled image set (datasets/FORMAT.md)")
    make.add_argument("--n", type=int, required=True, help="number of images")
    make.add_argument("--seed", type=int, required=True, help="same seed, same bytes")
    make.add_argument("--out", required=True, help="output folder")
    make.add_argument("--width", type=int, help="image width (default: drawn from the config)")
    make.add_argument("--height", type=int, help="image height")
    make.add_argument("--config", help="JSON config, e.g. datasets/default.json")
    make.add_argument("--yolo", action="store_true", help="also write YOLO label files")
    make.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    make.add_argument("--quiet", action="store_true", help="no progress bar")
    make.set_defaults(func=_make)

    video = commands.add_parser("video", help="render the scripted play video and its script")
    video.add_argument("--seed", type=int, required=True)
    video.add_argument("--out", required=True, help="FILE.avi; the script goes to FILE.json")
    video.add_argument("--width", type=int, help="frame width (default 1280)")
    video.add_argument("--height", type=int, help="frame height (default 720)")
    video.add_argument("--fps", type=float, default=15.0)
    video.add_argument("--variant", choices=("long", "short"), default="long")
    video.add_argument("--config", help="JSON config for styles, camera and lighting")
    video.set_defaults(func=_video)
