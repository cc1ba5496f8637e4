"""`referee calibrate` and `referee read`: the vision pipeline on the command line."""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.evaluation.reading import reading_to_json
from referee.rules import VARIANTS, variant_from_name
from referee.vision.board_finder import recheck
from referee.vision.bump import check_profile
from referee.vision.calibration import (
    SEATS,
    BoardProfile,
    CalibrationError,
    Seat,
    load_profile,
    load_profile_picture,
    parse_corners,
    profile_from_corners,
    save_profile,
)
from referee.vision.camera import LensModel
from referee.vision.config import VisionConfig, load_config
from referee.vision.markers import (
    CharucoPattern,
    Checkerboard,
    LensPattern,
    MarkerError,
    calibrate_lens,
    locate_board,
    marker_profile,
    write_sheets,
)
from referee.vision.pipeline import Color, RollZone, VisionPipeline, VisionResult
from referee.vision.quality import PictureQuality, measure_quality
from referee.vision.reader import to_reading

DEFAULT_PROFILE = Path("calibration/profile.json")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `calibrate` and `read` sub-commands."""
    cal = subparsers.add_parser(
        "calibrate",
        help="find the board in a camera image and save a board profile",
        description=(
            "Find the playing surface in IMAGE and save a board profile (JSON): from four "
            "corners given by hand, from the printed ArUco corner markers (three of the four "
            "are enough), or with no "
            "help (the default). Also: --check a saved profile "
            "against a new image, calibrate the lens from photos of a printed checkerboard or "
            "ChArUco board, or write the printable sheets."
        ),
    )
    cal.add_argument("image", nargs="?", type=Path, help="camera image of the board")
    how = cal.add_mutually_exclusive_group()
    how.add_argument(
        "--corners",
        metavar="X1,Y1,...,X4,Y4",
        help="playing surface corners as seen: top-left, top-right, bottom-right, bottom-left",
    )
    how.add_argument(
        "--markers",
        "--aruco",
        dest="markers",
        action="store_true",
        help="use the printed ArUco corner markers (three of the four are enough)",
    )
    how.add_argument(
        "--check",
        type=Path,
        metavar="PROFILE",
        help="re-check a saved profile: has the board or the camera moved since?",
    )
    how.add_argument(
        "--lens-images",
        nargs="+",
        metavar="GLOB",
        help="photos of the printed checkerboard (or, with --charuco, ChArUco board) for the lens",
    )
    how.add_argument("--sheets", type=Path, metavar="DIR", help="write printable sheets to DIR")
    cal.add_argument(
        "--white-seat",
        choices=SEATS,
        help="image edge white sits at (default: bottom for --corners; from the tray when auto)",
    )
    cal.add_argument(
        "--home",
        choices=("right", "left"),
        default="right",
        help="end of the board, as white sees it, with white's home and the tray (default right)",
    )
    cal.add_argument("--lens", type=Path, metavar="FILE", help="lens JSON from --lens-images")
    cal.add_argument(
        "--no-distortion", action="store_true", help="auto: do not estimate lens distortion"
    )
    cal.add_argument(
        "--pattern", default="9x6", help="checkerboard inner corners COLSxROWS (default 9x6)"
    )
    cal.add_argument(
        "--charuco",
        action="store_true",
        help="with --lens-images: the photos show the printed ChArUco board (9x6 squares), "
        "which may be partly out of the picture",
    )
    cal.add_argument(
        "--square-mm",
        type=float,
        help="the printed pattern's square as measured (default: checkerboard 25, ChArUco 30)",
    )
    cal.add_argument(
        "--update",
        action="store_true",
        help="with --check: move a profile the board moved away from with it",
    )
    cal.add_argument("--config", type=Path, metavar="FILE", help="vision thresholds (JSON)")
    cal.add_argument(
        "--out", type=Path, metavar="FILE", help=f"output file (default {DEFAULT_PROFILE})"
    )
    cal.set_defaults(func=run_calibrate)

    read = subparsers.add_parser(
        "read",
        help="read the checkers and dice in one camera image",
        description=(
            "Read the 24 points, bar, borne-off checkers and dice in IMAGE and judge the throw. "
            "Without --profile or --corners the board is found in the image itself."
        ),
    )
    read.add_argument("image", type=Path)
    where = read.add_mutually_exclusive_group()
    where.add_argument("--profile", type=Path, metavar="FILE", help="saved board profile")
    where.add_argument("--corners", metavar="X1,Y1,...,X4,Y4", help="playing surface corners")
    read.add_argument("--white-seat", choices=SEATS, default="bottom", help="with --corners")
    read.add_argument("--home", choices=("right", "left"), default="right", help="with --corners")
    read.add_argument("--roller", choices=("white", "black"), default="white")
    read.add_argument(
        "--zone",
        choices=("same_half", "right_half"),
        help="where both dice must lie (RULES.md §2): long nardy same_half, short right_half "
        "(default: the variant's, else same_half)",
    )
    read.add_argument(
        "--variant",
        metavar="NAME",
        help="the game played, by name or alias ("
        + ", ".join(cls.name for cls in VARIANTS)
        + "): only positions it can reach are read (long nardy: no bar, no checker borne off "
        "while one of that side is outside home), and its throws judged by its rule",
    )
    read.add_argument("--config", type=Path, metavar="FILE", help="vision thresholds (JSON)")
    read.add_argument("--json", action="store_true", help="print the reading as JSON")
    read.set_defaults(func=run_read)


def _load_image(path: Path) -> np.ndarray[Any, np.dtype[np.uint8]] | str:
    """The image at `path` (BGR), or why it cannot be had. Read as bytes and decoded, so that a
    missing file and a file that is not an image are told apart (`cv2.imread` answers None
    for both, with a warning of its own on stderr)."""
    try:
        data = np.frombuffer(path.read_bytes(), np.uint8)
    except OSError as error:
        return error.strerror or str(error)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        return "not an image OpenCV can decode"
    return np.asarray(image, dtype=np.uint8)


def _config(path: Path | None) -> VisionConfig:
    return load_config(path)


# What to do when the board is not found with no help: on a board unlike any the finder was
# tuned on (a frame of the field's colour, a cloth of the board's), the corners can still be
# given, or marked.
_NO_HELP_HINT = (
    "  the board was looked for with no help; with the whole playing surface in view and no "
    "hand over it, try again, or give its corners (--corners X1,Y1,...,X4,Y4: top-left, "
    "top-right, bottom-right, bottom-left as seen), or stick the printed markers on its frame "
    "(--markers; `referee calibrate --sheets DIR` prints them)"
)


def run_calibrate(args: argparse.Namespace) -> int:
    """Carry out `referee calibrate`; returns the exit status."""
    try:
        config = _config(args.config)
        if args.sheets is not None:
            for written in write_sheets(args.sheets):
                print(f"wrote {written}")
            return EXIT_OK
        if args.lens_images:
            return _calibrate_lens(args)
        if args.image is None:
            print("referee calibrate: an IMAGE is needed", file=sys.stderr)
            return EXIT_USAGE
        image = _load_image(args.image)
        if isinstance(image, str):
            print(f"referee calibrate: cannot read image {args.image}: {image}", file=sys.stderr)
            return EXIT_USAGE
        if args.check is not None:
            return _check(args, image, config)
        size = (image.shape[1], image.shape[0])
        lens = None
        if args.lens is not None:
            lens = LensModel.from_json(json.loads(args.lens.read_text(encoding="utf-8")))
        profile = _make_profile(args, image, size, lens, config)
        picture = measure_quality(image, profile, config.quality)
    except (CalibrationError, MarkerError, OSError, ValueError) as exc:
        print(f"referee calibrate: {exc}", file=sys.stderr)
        if isinstance(exc, CalibrationError) and not (args.corners or args.markers or args.check):
            print(_NO_HELP_HINT, file=sys.stderr)
        return EXIT_FAILED
    out: Path = args.out or DEFAULT_PROFILE
    try:
        save_profile(profile, out, image)
    except (CalibrationError, OSError) as exc:
        print(f"referee calibrate: {exc}", file=sys.stderr)
        return EXIT_FAILED
    corners = _corners_text(profile)
    print(f"board found ({profile.method}): corners (white's view FL, FR, NR, NL) {corners}")
    print(f"k1 = {profile.lens.dist[0]:.3f}; wrote {out}")
    # Said every time, so that a camera can be set (focused, lit) while the figures are watched.
    print(f"picture: {_picture_text(picture)}")
    for note in picture.notes(config.quality):
        print(f"warning: {note}")
    return EXIT_OK


def _check(
    args: argparse.Namespace, image: np.ndarray[Any, np.dtype[np.uint8]], config: VisionConfig
) -> int:
    """`referee calibrate IMAGE --check PROFILE [--update]`: compare IMAGE with the picture
    the profile was made from; with `--update`, a profile the board moved away from is moved
    with it (written to `--out`, or over PROFILE)."""
    profile = load_profile(args.check)
    picture = load_profile_picture(args.check, profile)
    if picture is None:
        result = recheck(image, profile, config.calibration)
        print(
            f"{result.message} (by the border alone: this profile was saved without its"
            " picture, and the border check is rough; calibrate again to save one)"
        )
        return EXIT_OK if result.still_there else EXIT_FAILED
    check = check_profile(image, profile, picture, config.bump)
    print(check.message)
    if check.fits:
        return EXIT_OK
    if check.profile is None or not args.update:
        if check.profile is not None:
            print("(--update moves the profile with the board)")
        return EXIT_FAILED
    out: Path = args.out or args.check
    save_profile(check.profile, out, image)
    print(f"profile moved with the board: corners {_corners_text(check.profile)}; wrote {out}")
    return EXIT_OK


def _picture_text(picture: PictureQuality) -> str:
    edges = "not measured" if picture.edge_px is None else f"{picture.edge_px:.2f} px wide"
    return (
        f"board {picture.board_px:.0f} px wide, edges {edges}, lightest grey "
        f"{picture.light:.0f}, {picture.clipped:.0%} clipped"
    )


def _corners_text(profile: BoardProfile) -> str:
    return ", ".join(f"({x:.1f}, {y:.1f})" for x, y in profile.corners)


def _make_profile(
    args: argparse.Namespace,
    image: np.ndarray[Any, np.dtype[np.uint8]],
    size: tuple[int, int],
    lens: LensModel | None,
    config: VisionConfig,
) -> BoardProfile:
    seat: Seat | None = args.white_seat
    if args.corners:
        return profile_from_corners(
            parse_corners(args.corners), size, seat or "bottom", lens, home=args.home
        )
    if args.markers:
        return marker_profile(image, config.calibration, lens, home=args.home)
    profile = locate_board(
        image, config.calibration, white_seat=seat, home=args.home,
        fit_distortion=lens is None and not args.no_distortion, lens=lens,
    )  # fmt: skip
    if lens is not None:
        profile = dataclasses.replace(profile, lens=lens)
    return profile


def _calibrate_lens(args: argparse.Namespace) -> int:
    if args.square_mm is not None and args.square_mm <= 0:
        print("referee calibrate: --square-mm must be positive", file=sys.stderr)
        return EXIT_USAGE
    pattern: LensPattern
    if args.charuco:
        pattern = CharucoPattern()
        if args.square_mm is not None:
            pattern = pattern.scaled(args.square_mm)
    else:
        try:
            cols, rows = (int(v) for v in args.pattern.lower().split("x"))
        except ValueError:
            print(
                f"referee calibrate: --pattern must be COLSxROWS, not {args.pattern}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        pattern = Checkerboard((cols, rows), args.square_mm or Checkerboard().square_mm)
    paths = sorted({p for wanted in args.lens_images for p in glob.glob(wanted)})
    images = []
    for path in paths:
        image = _load_image(Path(path))
        if isinstance(image, str):
            print(f"referee calibrate: skipped {path}: {image}", file=sys.stderr)
        else:
            images.append(image)
    lens, rms, used = calibrate_lens(images, pattern)
    out: Path = args.out or Path("calibration/lens.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(lens.to_json(), indent=2) + "\n", encoding="utf-8")
    print(f"lens from {used} of {len(paths)} photos, RMS reprojection error {rms:.3f} px")
    print(f"wrote {out}")
    return EXIT_OK


def result_to_json(result: VisionResult, roller: Color = "white") -> dict[str, object]:
    """The `referee read --json` object: the evaluation harness's reading format (dice halves
    as `roller` names them), with each point's number (white's numbering), each die's
    `confidence` in its value and `faces` (the probability of each face 1..6; both null / empty
    where the reader does not score them) and whether it was caught `rolling` added; the
    `picture` as measured (`quality.PictureQuality`) where a board was found, and a `note`
    when no board was found or the picture is unfit to read."""
    out = reading_to_json(to_reading(result, roller))
    points = out.get("points")
    if isinstance(points, list):
        for entry, point in zip(points, result.points, strict=True):
            entry["point"] = point.point
    dice = out.get("dice")
    if isinstance(dice, list):
        for entry, die in zip(dice, result.dice, strict=True):
            entry["confidence"] = die.confidence
            entry["faces"] = list(die.faces)
            entry["rolling"] = die.rolling
    if result.picture is not None:
        out["picture"] = dataclasses.asdict(result.picture)
    if result.note:
        out["note"] = result.note
    return out


def format_result(result: VisionResult) -> str:
    """A short human-readable reading."""
    lines = []
    if result.corners is None:
        lines.append(result.note or "no board found")
    else:
        occupied = [
            f"{p.point}:{p.count}{'W' if p.color == 'white' else 'B'}"
            for p in result.points
            if p.count
        ]
        lines.append("points (white's numbering): " + " ".join(occupied))
        lines.append(f"bar {result.bar}  off {result.off}")
    dice = ", ".join(
        f"{d.value if d.value is not None else '?'}"
        f"{' rolling' if d.rolling else '' if d.flat else ' cocked'}"
        f"{' on checker' if d.on_checker else ''}"
        f"{'' if d.on_board else ' off board'}{f' {d.half} half' if d.half else ''}"
        for d in result.dice
    )
    # With no board there are no halves to say.
    heading = "dice" if result.corners is None else "dice (halves from White's seat)"
    lines.append(f"{heading}: {dice or 'none seen'}")
    if result.corners is not None:
        verdict = "valid" if result.roll.valid else f"void ({result.roll.reason})"
        lines.append(f"throw: {verdict}")
        if result.note:
            lines.append(f"note: {result.note}")
    lines.append("ms: " + ", ".join(f"{name} {ms:.1f}" for name, ms in result.timings_ms.items()))
    return "\n".join(lines)


def run_read(args: argparse.Namespace) -> int:
    """Carry out `referee read`; returns the exit status."""
    image = _load_image(args.image)
    if isinstance(image, str):
        print(f"referee read: cannot read image {args.image}: {image}", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = _config(args.config)
        profile = None
        if args.profile is not None:
            profile = load_profile(args.profile)
        elif args.corners:
            size = (image.shape[1], image.shape[0])
            profile = profile_from_corners(
                parse_corners(args.corners), size, args.white_seat, home=args.home
            )
        variant = variant_from_name(args.variant) if args.variant else None
        # The session's rule (`session.throws`): a variant without `roll_zone` is same_half.
        variant_zone = getattr(variant, "roll_zone", "same_half")
        zone: RollZone = args.zone or (
            "right_half" if variant_zone == "right_half" else "same_half"
        )
        result = VisionPipeline(config, profile).read(image, args.roller, zone, variant=variant)
    except (CalibrationError, OSError, ValueError) as exc:
        print(f"referee read: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result_to_json(result, args.roller)))
    else:
        print(format_result(result))
    return EXIT_OK
