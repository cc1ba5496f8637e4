"""`referee demo`: the live referee end to end on a rendered game video, no camera needed.

    referee demo [--out out/demo] [--truth] [--video FILE.avi] [--seed N]
    referee demo --rules-only

It renders a short scripted game of long nardy (`render_demo_video`: White throws and moves;
Black's die comes to rest cocked and Black throws again, then moves illegally; White throws,
which accepts Black's move, and moves), finds the board in the first frame (or, if that fails,
takes the corners the renderer knows, and says so), runs the live session on the video's
frames through the real vision pipeline (`referee.vision.live`), prints every throw's and
move's verdict beside the script's, journals the match and exports it as a `.nardy` record.
Exit status 0 only when every verdict is the script's, 1 otherwise (saying where), 2 for a
usage error.

The video starts after the opening throw: that White won it 6-1 is told to the referee as
observations of a table (printed as such), not read from the video.

`--truth` replaces the vision pipeline by `TruthVision`, the video's ground truth, to show the
session, journal and record apart from the camera side (which reads the built-in seed's video
as scripted, not yet every seed's). `--rules-only` is
the older demo: scripted moves judged by the rules core alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from referee.record import Journal, MatchHeader, RecordError, read_record, write_record
from referee.rules import LongNardy, Play, Position, Roll, ShortNardy, Variant, judge

DEMO_SEED = 7
DEMO_SIZE = (1920, 1080)
DEMO_FPS = 15.0
DEMO_SCENE: dict[str, Any] = {
    # A club table with the camera on a lamp arm right above the board: nearly straight down
    # (up to 3°), a corrected lens (no distortion), the board filling most of the picture,
    # even light without glare, 19 mm dice (large club dice; 16-19 mm are usual), no clutter.
    "camera": {
        "tilt_deg": [0.0, 3.0],
        "roll_deg": [-1.0, 1.0],
        "from_black_side": 0.0,
        "fill": [0.9, 0.94],
        "k1": [0.0, 0.0],
        "k2": [0.0, 0.0],
        "tangential": [0.0, 0.0],
    },
    "light": {"glare_probability": 0.0, "shadow_strength": [0.3, 0.4]},
    "imaging": {
        "noise_sigma": [0.5, 1.0],
        "blur_probability": 0.0,
        "vignette": [0.0, 0.05],
        "jpeg_quality": [95.0, 95.0],
    },
    "dice": {"size_mm": [19.0, 19.0]},
    "clutter_count": [0, 0],
}
OPENING = (6, 1)
"""The opening throw (White's die, Black's) before the video starts: White plays first."""


def demo_script(look: Any, config: Any, variant: str, rng: np.random.Generator, fps: float) -> Any:
    """The demo game (see the module text): the scenes video's script, then White again."""
    from referee.scenes.video import direct, random_roll

    director = direct(look, config, variant, rng, fps)
    roll = random_roll(rng)
    director.throw("white", (roll.die1, roll.die2), "valid")
    director.rest(1.2)
    plays = director.position.legal_plays(roll)
    director.move("white", plays[int(rng.integers(0, len(plays)))], roll)
    director.pickup("white")
    director.rest(1.0)
    return director


def render_demo_video(
    out: Path,
    seed: int = DEMO_SEED,
    size: tuple[int, int] = DEMO_SIZE,
    fps: float = DEMO_FPS,
) -> dict[str, Any]:
    """Render the demo video to `out` (MJPG AVI; the script beside it as JSON)."""
    from referee.scenes.config import config_from_dict
    from referee.scenes.video import make_video

    out.parent.mkdir(parents=True, exist_ok=True)
    config = config_from_dict(DEMO_SCENE)
    return make_video(out, seed, config, size=size, fps=fps, variant="long", script=demo_script)


@dataclass(frozen=True)
class Verdict:
    """One throw's or move's verdict, as the script owes it or the referee gave it.

    `what` is `throw` (a valid throw of `dice`), `void` (`detail` the fault), `unsure throw`
    (the dice could not be read for sure: the players are asked), `early throw`, `legal`,
    `illegal`, or `unsure` (a move the referee asked the players about); `frame` is where it
    happened (the script) or where the referee said it.
    """

    what: str
    side: str
    dice: tuple[int, ...] = ()
    detail: str = ""
    frame: int = 0

    def key(self) -> tuple[str, str, tuple[int, ...], str]:
        """What two verdicts must share to agree (frames and wording aside)."""
        return (self.what, self.side, self.dice, self.detail)

    def same(self, other: Verdict) -> bool:
        """Whether two verdicts agree (frames and wording aside)."""
        return self.key() == other.key()

    def __str__(self) -> str:
        dice = "-".join(map(str, self.dice))
        text = {
            "throw": f"throw {dice}",
            "void": f"void throw ({self.detail})",
            "early throw": "throw before the mover picked up the dice",
            "unsure throw": "throw not read for sure (the players are asked)",
        }.get(self.what, f"{self.what} move")
        return f"{self.side} {text}"


def scripted_verdicts(script: Mapping[str, Any]) -> list[Verdict]:
    """The verdicts the video's script owes: every throw and every move, in order."""
    owed: list[Verdict] = []
    for event in script.get("events", []):
        if event["type"] == "throw":
            if event["valid"]:
                values = tuple(sorted(event["values"]))
                owed.append(Verdict("throw", event["roller"], values, frame=event["rest_frame"]))
            else:
                owed.append(
                    Verdict(
                        "void", event["roller"], detail=event["reason"], frame=event["rest_frame"]
                    )
                )
        elif event["type"] == "move":
            what = "legal" if event["legal"] else "illegal"
            owed.append(Verdict(what, event["roller"], frame=event["end_frame"]))
    return owed


@dataclass
class DemoRun:
    """What one run of the demo saw and decided."""

    given: list[Verdict] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    frames: int = 0
    step_ms: list[float] = field(default_factory=list)
    """Wall time per frame: decoding, vision and the session."""
    verdict_frames: list[int] = field(default_factory=list)
    """For each move verdict given, the frame whose processing gave it."""
    calibration: str = ""


def _verdict_of(event: Any, frame: int = -1) -> Verdict | None:
    """The verdict a session event gives (None for other events), said at `frame`."""
    from referee.session import EventKind

    side = "" if event.side is None else event.side.label
    if event.kind is EventKind.THROW and event.roll is not None:
        return Verdict("throw", side, tuple(sorted(event.roll.to_list())), frame=frame)
    if event.kind is EventKind.THROW_VOID:
        faults = event.throw.faults if event.throw is not None else ()
        detail = str(faults[0]) if faults else "rolling"
        return Verdict("void", side, detail=detail, frame=frame)
    kinds = {
        EventKind.THROW_UNSURE: "unsure throw",
        EventKind.MOVE_LEGAL: "legal",
        EventKind.MOVE_ILLEGAL: "illegal",
        EventKind.MOVE_UNSURE: "unsure",
        EventKind.EARLY_THROW: "early throw",
    }
    if event.kind in kinds:
        return Verdict(kinds[event.kind], side, frame=frame)
    return None


def _live_vision(video: Path, script: Mapping[str, Any]) -> tuple[Any, str]:
    """The real pipeline, calibrated on the video's first frame: automatically, or from the
    corners the renderer knows when that fails. Returns it and how it was calibrated."""
    from referee.session import Frame, VideoFile
    from referee.vision.calibration import CalibrationError, profile_from_corners
    from referee.vision.live import LiveVision

    vision = LiveVision()
    source = VideoFile(video)
    try:
        first = source.read()
    finally:
        source.close()
    if not isinstance(first, Frame):
        raise RecordError(f"{video}: no first frame")
    if vision.calibrate(first):
        corners = np.array(script["board"]["corners"], dtype=np.float64)
        found = np.array(vision.pipeline.profile.corners, dtype=np.float64)  # type: ignore[union-attr]
        error = float(np.max(np.min(np.linalg.norm(found[:, None] - corners[None], axis=2), 1)))
        return vision, f"board found automatically in frame 0 (corners within {error:.1f} px)"
    note = vision.calibration
    try:
        size = (int(script["width"]), int(script["height"]))
        vision.pipeline.profile = profile_from_corners(np.array(script["board"]["corners"]), size)
    except (CalibrationError, KeyError) as exc:
        raise RecordError(f"cannot calibrate: {note}; known corners refused: {exc}") from None
    return vision, f"{note}; calibrated from the corners the renderer knows"


def run_live(
    video: Path,
    script: Mapping[str, Any],
    journal_path: Path,
    *,
    truth: bool,
    show: bool = True,
    vision: Any = None,
) -> DemoRun:
    """Referee the video live (real vision, or its ground truth with `truth`, or `vision` when
    given), journaling to `journal_path`; print each verdict as it comes when `show`."""
    from referee.session import EventKind, Session, SessionConfig, TableScript, VideoFile
    from referee.session.runner import Runner
    from referee.session.truth import TruthVision

    run = DemoRun()
    name = "ground truth (--truth)" if truth else "the real pipeline"
    if vision is not None:
        name = type(vision).__name__
        run.calibration = "by the vision given"
    elif truth:
        vision = TruthVision(script)
        run.calibration = "none needed: the video's ground truth answers every frame"
    else:
        vision, run.calibration = _live_vision(video, script)
    if show:
        print(f"vision: {name}")
        print(f"calibration: {run.calibration}")
    # The video begins after the opening throw, which the session must have seen.
    variant = str(script.get("variant", "long"))
    header = MatchHeader(variant=variant, options={"opening_roll_is_first_move": False})
    journal_path.parent.mkdir(parents=True, exist_ok=True)
    journal_path.unlink(missing_ok=True)  # each run of the demo journals a new match
    with Journal.create(journal_path, header) as journal:
        session = Session.new(header, config=SessionConfig(), journal=journal)
        opening = TableScript(header.rules_variant()).opening(*OPENING).pick_up()
        for observation in opening.observations:
            for event in session.observe(observation):
                if show and _verdict_of(event) is None and event.message:
                    print(f"  (before the video, told to the referee) {event.message}")

        source = VideoFile(video)
        runner = Runner(source, vision, session)

        def seen(event: Any) -> None:
            frame = runner.stats.frames - 1  # the frame being observed
            verdict = _verdict_of(event, frame)
            if verdict is None:
                if show and event.kind is EventKind.MOVE_ACCEPTED:
                    print(f"      frame {frame:4d}  {event.message}")
                return
            run.given.append(verdict)
            run.messages.append(event.message)
            if verdict.what in ("legal", "illegal", "unsure"):
                run.verdict_frames.append(verdict.frame)
            if show:
                print(f"      frame {verdict.frame:4d}  {verdict}: {event.message}")

        session.on_event = seen
        try:
            while True:
                start = time.perf_counter()
                going = runner.step()
                if not going:
                    break
                run.step_ms.append((time.perf_counter() - start) * 1e3)
        finally:
            session.finish()
            source.close()
        run.frames = runner.stats.frames
    return run


def compare(owed: Sequence[Verdict], given: Sequence[Verdict]) -> list[str]:
    """Where the referee's verdicts differ from the script's (empty when they agree)."""
    problems: list[str] = []
    for k in range(max(len(owed), len(given))):
        want = owed[k] if k < len(owed) else None
        got = given[k] if k < len(given) else None
        if want is not None and got is not None and want.same(got):
            continue
        where = f"verdict {k + 1}"
        if want is None:
            problems.append(f"{where}: the script has no more; the referee said {got}")
        elif got is None:
            problems.append(f"{where}: the script's {want} (frame {want.frame}) got no verdict")
        else:
            problems.append(
                f"{where}: the script's {want} (frame {want.frame}); the referee said {got} "
                f"(frame {got.frame})"
            )
    return problems


def export_record(journal_path: Path, out: Path) -> Path:
    """The journaled match as a long-nardy text record (`.nardy`), checked by reading it back."""
    record = out / "match.nardy"
    replayed = read_record(journal_path, strict=False)
    write_record(replayed.match, record, overwrite=True)
    read_record(record, strict=False)
    return record


def run_demo(args: argparse.Namespace) -> int:
    """`referee demo` on the rendered video: the exit status."""
    out: Path = args.out
    video: Path = args.video or out / "play.avi"
    if args.video is None:
        start = time.perf_counter()
        width, height = args.size
        print(
            f"rendering {video}: {width}x{height}, {DEMO_FPS:g} fps, seed {args.seed}, camera "
            "nearly overhead (≤ 3° tilt), no lens distortion, 19 mm dice ..."
        )
        render_demo_video(video, args.seed, (width, height), DEMO_FPS)
        print(f"rendered in {time.perf_counter() - start:.1f} s")
    try:
        script = json.loads(video.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"referee demo: cannot read the video's script: {exc}", file=sys.stderr)
        return 2
    owed = scripted_verdicts(script)
    print("the script:", "; ".join(f"{v} (frame {v.frame})" for v in owed))
    print(f"opening throw before the video: white {OPENING[0]}, black {OPENING[1]}")
    journal_path = out / "journal.jsonl"
    try:
        run = run_live(video, script, journal_path, truth=args.truth)
        record = export_record(journal_path, out)
    except (RecordError, OSError) as exc:
        print(f"referee demo: {exc}", file=sys.stderr)
        return 1
    print(f"journal: {journal_path}; match record: {record}")
    if run.step_ms:
        print(
            f"{run.frames} frames, per frame median {statistics.median(run.step_ms):.0f} ms, "
            f"max {max(run.step_ms):.0f} ms (decoding, vision, session)"
        )
    problems = compare(owed, run.given)
    if problems:
        print(f"{len(problems)} verdict(s) differ from the script:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"all {len(owed)} verdicts as scripted")
    return 0


# --- the rules-only demo ---------------------------------------------------------------------


@dataclass(frozen=True)
class ScriptedMove:
    """A move as a player makes it on the board, and the verdict the referee owes it."""

    dice: tuple[int, int]
    played: str
    legal: bool
    reason: str | None = None


LONG_SCRIPT = (
    ScriptedMove((6, 5), "24/18 18/13", legal=True),
    ScriptedMove((3, 3), "24/21 24/21 21/18 21/18", legal=True),  # first-turn head exception
    ScriptedMove((4, 2), "24/20 24/22", legal=False, reason="head_rule"),
    ScriptedMove((4, 2), "24/20 20/18", legal=True),  # the correction the opponent demanded
    ScriptedMove((6, 1), "18/12 24/23", legal=False, reason="landed_on_opponent"),
    ScriptedMove((6, 1), "24/18 18/17", legal=True),
    ScriptedMove((5, 4), "13/8", legal=False, reason="die_unplayed"),
    ScriptedMove((5, 4), "13/8 8/4", legal=True),
)

SHORT_SCRIPT = (
    ScriptedMove((3, 1), "8/5 6/5", legal=True),
    ScriptedMove((6, 4), "24/18 18/14", legal=True),
    ScriptedMove((5, 5), "24/19 24/19 13/8 13/8", legal=False, reason="landed_on_opponent"),
    ScriptedMove((5, 5), "13/8 13/8 13/8 13/8", legal=True),
)


def run_script(variant: Variant, script: tuple[ScriptedMove, ...]) -> int:
    """Judge each scripted move; a rejected move is taken back, as after a demanded correction.
    Returns how many verdicts differ from the script."""
    position: Position = variant.starting_position()
    mismatches = 0
    print(f"--- {variant.title}")
    for move in script:
        roll = Roll(*move.dice)
        after = position.play(Play.from_str(move.played))
        verdict = judge(position, roll, after)
        agrees = verdict.legal == move.legal and (
            move.reason is None or move.reason in verdict.reasons
        )
        mark = "ok " if agrees else "BAD"
        print(f"[{mark}] {position.turn.label:5} rolls {roll}, plays {move.played:24} -> ", end="")
        print(verdict.message)
        mismatches += not agrees
        if verdict.legal and move.legal:
            position = after
    return mismatches


def run_rules_only() -> int:
    """The rules-only demo: scripted moves of both games judged by the rules core."""
    mismatches = run_script(LongNardy(), LONG_SCRIPT) + run_script(ShortNardy(), SHORT_SCRIPT)
    print("all verdicts as scripted" if not mismatches else f"{mismatches} verdicts differ")
    return 1 if mismatches else 0


def run(args: argparse.Namespace) -> int:
    if args.rules_only:
        return run_rules_only()
    return run_demo(args)


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, not {text!r}") from None
    if min(size) < 64:
        raise argparse.ArgumentTypeError("frames must be at least 64 x 64 pixels")
    return size


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="render a scripted game video and referee it live, printing every verdict",
        description="Render a short scripted game video, referee it live through the camera "
        "pipeline, print each verdict, journal and export the match; exit 0 only when every "
        "verdict matches the script.",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("out/demo"), help="output folder (default out/demo)"
    )
    parser.add_argument(
        "--truth",
        action="store_true",
        help="read the frames from the video's ground truth instead of the vision pipeline",
    )
    parser.add_argument(
        "--video",
        type=Path,
        metavar="FILE",
        help="a demo video rendered before (its script beside it)",
    )
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help=f"default {DEMO_SEED}")
    parser.add_argument(
        "--size",
        type=_size,
        default=DEMO_SIZE,
        metavar="WxH",
        help=f"frame size (default {DEMO_SIZE[0]}x{DEMO_SIZE[1]})",
    )
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="the rules-only demo: scripted moves judged by the rules core, no video",
    )
    parser.set_defaults(func=run)


__all__ = [
    "DEMO_SCENE",
    "DemoRun",
    "Verdict",
    "compare",
    "demo_script",
    "export_record",
    "register",
    "render_demo_video",
    "run_live",
    "scripted_verdicts",
]
