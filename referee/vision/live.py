"""The camera pipeline as the live session sees it: frames in, `Observation`s out.

`create_vision(variant, profile)` is what `referee watch` loads (`VISION_FACTORY`). Each frame
goes through the scene gate; while it moves the session is told so (`moving`, no board); once
it is still the frame is read once by `VisionPipeline` and that reading answers every still
frame that follows until the picture moves again (a still scene does not change, and reading
costs ~100-200 ms a frame). Without a profile the board is found in the first frame (then
again at each settling until it is found); its seat is checked once, on the first reading,
against the variant's starting position (the tray that tells the seat is missing from most long
nardy boards: the board read turned round may be the one that shows the start). At each
settling without hands the bump watch (`bump.py`) aligns the ring round the board with the
picture it had when the profile last fitted: a knocked camera or board moves the profile with
it (said in `calibration` and logged), and when the pictures cannot be aligned for a few
settlings the board is found again, its seat kept. Each reading
is told the previous still scene (`EarlierScene`): a die must have appeared since then, or
have lain there then, so that a spot of the board the dice model mistakes for a die in one
scene does not become a throw.
The first still scene is compared with itself: dice lying on the table when the referee starts
are not reported until they are thrown (a match starts with the opening throw; after
`--resume` the session knows the roll already). A still frame with a hand resting over the
board (`hands.py`) is not read: the session is told `hands`, as while the picture moves.

The reading is translated into the session's observation model here and nowhere else:

- points (White's numbering in both) keep their colour and count; the checker reader's
  confidence is the share of the likelihood its count carries, kept as is;
- bar and borne-off counts come without a confidence from the reader: `AGGREGATE_CONFIDENCE`;
- dice keep value, flat, on_checker, on_board and half. The pipeline's halves are already from
  White's seat (the observation's convention); only `referee read --json` and the scene labels
  use the roller's, converted by `Half.seen_by`. A face's confidence is the crop classifier's
  share for it (below the session's `dice_confidence` the players are asked), or
  `DIE_CONFIDENCE` where the pip counter read it;
- no die read: `no_dice` (the dice were picked up), else `still`.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from referee.rules import Position, Side, Variant
from referee.session.errors import NoVisionError
from referee.session.interpret import PLACES, misfits
from referee.session.observation import (
    BoardObservation,
    Count,
    CountObservation,
    DieObservation,
    Observation,
    PointObservation,
    SceneState,
)
from referee.session.sources import Frame
from referee.vision.board_finder import find_board
from referee.vision.bump import BoardAnchor, BoardMove
from referee.vision.calibration import (
    BoardProfile,
    CalibrationError,
    load_profile,
    load_profile_picture,
)
from referee.vision.config import VisionConfig
from referee.vision.gate import SceneGate
from referee.vision.hands import Arm, arm_over_board, arm_stands
from referee.vision.markers import MarkerError, locate_board, marker_profile
from referee.vision.pipeline import Color, EarlierScene, VisionPipeline, VisionResult
from referee.vision.quality import PictureFault

logger = logging.getLogger(__name__)

AGGREGATE_CONFIDENCE = 0.9
"""Confidence given to bar and borne-off counts, which the checker reader does not score."""
SEAT_MAX_MISFITS = 2
"""Places (points, bar, borne off) a found board turned round may misread and still be taken
for the starting position, which tells that white sits at the other long side."""
DIE_CONFIDENCE = 0.9
"""Confidence given to a die's face where the reader gives none (the pip counter, without the
crop classifier); the classifier's own share for the face is used where it ran."""


def to_observation(result: VisionResult, time_s: float = 0.0, frame: int = 0) -> Observation:
    """The settled observation of one pipeline reading of a board (`result.corners` set)."""
    points = tuple(
        PointObservation(
            None if p.count == 0 or p.color is None else Side.from_label(p.color),
            Count.exactly(p.count),
            min(1.0, max(0.0, p.confidence)),
        )
        for p in sorted(result.points, key=lambda p: p.point)
    )

    def pair(counts: Mapping[Color, int] | None) -> tuple[CountObservation, CountObservation]:
        got = counts or {}
        return (
            CountObservation(Count.exactly(got.get("white", 0)), AGGREGATE_CONFIDENCE),
            CountObservation(Count.exactly(got.get("black", 0)), AGGREGATE_CONFIDENCE),
        )

    board = BoardObservation(points, pair(result.bar), pair(result.off))
    dice = [
        DieObservation(
            d.value,
            d.flat,
            d.on_checker,
            d.on_board,
            d.half,
            confidence=DIE_CONFIDENCE if d.confidence is None else d.confidence,
            faces=d.faces,
        )
        for d in result.dice
    ]
    return Observation.settled(board, dice, time=time_s, frame=frame)


@dataclass
class VisionTimes:
    """Milliseconds spent per frame, by what the frame needed: the gate alone, a reading, or
    a calibration (each list in frame order)."""

    gate: list[float] = field(default_factory=list)
    read: list[float] = field(default_factory=list)
    calibrate: list[float] = field(default_factory=list)


class LiveVision:
    """The session's `Vision` over `VisionPipeline` and the scene gate, for one fixed camera.

    `profile` None: the board is found automatically (`find_board`) in the first frame, and
    at each settling until found; `calibration` says how the profile was got. `picture`: the
    frame a given profile was made from (`load_profile_picture`), if kept.
    """

    def __init__(
        self,
        profile: BoardProfile | None = None,
        config: VisionConfig | None = None,
        start: Position | None = None,
        picture: NDArray[np.uint8] | None = None,
    ) -> None:
        self.config = config or VisionConfig()
        self.gate = SceneGate(self.config.gate)
        self.pipeline = VisionPipeline(self.config, profile)
        self.calibration = "profile given" if profile is not None else "not yet calibrated"
        self.times = VisionTimes()
        self.start = start
        self._reading: Observation | None = None
        self._earlier: EarlierScene | None = None
        # The still scene read before `_earlier`'s (see `_is_arm`).
        self._older: NDArray[np.uint8] | None = None
        self._hand_run = 0
        # The last settling that looked like hands: the run above counts only settlings that
        # look alike (see `_hands`).
        self._hand_image: NDArray[np.uint8] | None = None
        # A still scene read with a tilted die is read again from this frame on (see observe).
        self._look_again_at: int | None = None
        self._tried_first = False
        # What made the last still scene's picture unfit to read (`_tell_picture`).
        self._picture_faults: tuple[PictureFault, ...] = ()
        # A given profile's seat is the user's word; a found one is checked once against
        # `start` (the tray that tells the seat is missing from most long nardy boards).
        self._seat_checked = profile is not None
        # The frame the given profile was made from (`save_profile`), if it was kept: the first
        # settling is compared with it, so a board knocked since calibration is followed too.
        self._anchor: BoardAnchor | None = None
        if profile is not None and picture is not None:
            self._anchor = BoardAnchor(picture, profile, self.config.bump)
        self._unaligned = 0
        # The bump watch's last look and its frame's index (`_bump_look`).
        self._last_look: tuple[int, BoardMove] | None = None

    def _variant(self) -> Variant | None:
        """The game's variant, as `start` gives it (the pipeline reads positions it can reach)."""
        return self.start.variant if self.start is not None else None

    def calibrate(self, image: Frame) -> bool:
        """Find the board in `image`; whether a profile is now set."""
        start = time.perf_counter()
        try:
            profile = locate_board(image.image, self.config.calibration)
            self.pipeline.profile = profile
            marked = profile.method.startswith("aruco")
            # The markers fix the seat; a board found without them may be turned round.
            self._seat_checked = marked
            how = "by its corner markers" if marked else "automatically"
            self.calibration = f"found {how} in frame {image.index}"
        except CalibrationError as exc:
            self.calibration = f"board not found in frame {image.index}: {exc}"
        self.times.calibrate.append((time.perf_counter() - start) * 1e3)
        return self.pipeline.profile is not None

    def observe(self, frame: Frame) -> Observation | None:
        start = time.perf_counter()
        state = self.gate.update(frame.image)
        if self.pipeline.profile is None and (not self._tried_first or state.became_still):
            self._tried_first = True
            self.calibrate(frame)
        if not state.still or self.pipeline.profile is None:
            self._reading, self._look_again_at = None, None
            self.times.gate.append((time.perf_counter() - start) * 1e3)
            if self.pipeline.profile is None:
                return None
            return Observation(SceneState.MOVING, time=frame.time, frame=frame.index)
        if (
            self._reading is None
            and self._look_again_at is not None
            and frame.index < self._look_again_at
        ):
            self.times.gate.append((time.perf_counter() - start) * 1e3)
            return Observation(SceneState.MOVING, time=frame.time, frame=frame.index)
        if self._reading is None and self._hands(frame):
            self._reading = Observation(SceneState.HANDS, time=frame.time, frame=frame.index)
            self.times.gate.append((time.perf_counter() - start) * 1e3)
        elif self._reading is None:
            # The first still scene is its own earlier scene: dice already lying there when the
            # referee starts are not a throw it saw (they count once they are thrown again).
            earlier = self._earlier or EarlierScene(frame.image, ())
            first_look = self._look_again_at is None
            if first_look:
                self._watch_bumps(frame)
            result = self.pipeline.read(frame.image, earlier=earlier, variant=self._variant())
            self._tell_picture(result, frame.index)
            if not self._seat_checked:
                result = self._check_seat(frame, result, earlier)
            again = self.config.gate.tilted_look_again_frames
            if first_look and again > 0 and any(not die.flat for die in result.dice):
                # A die read tilted may be rocking to rest: too small a movement for the
                # gate's shrunk frames, and read mid-rock a flat die looks cocked. The
                # session hears nothing of this scene until a look a few frames on.
                self._look_again_at = frame.index + again
                self.times.read.append((time.perf_counter() - start) * 1e3)
                return Observation(SceneState.MOVING, time=frame.time, frame=frame.index)
            self._look_again_at = None
            self._older = None if self._earlier is None else self._earlier.image
            self._earlier = EarlierScene(frame.image, result.dice)
            self._reading = to_observation(result, frame.time, frame.index)
            self.times.read.append((time.perf_counter() - start) * 1e3)
        else:
            self.times.gate.append((time.perf_counter() - start) * 1e3)
        seen = self._reading
        return Observation(seen.scene, seen.board, seen.dice, frame.time, frame.index)

    def _tell_picture(self, result: VisionResult, index: int) -> None:
        """Say what makes the picture unfit to read (`quality.py`: the board too small, the
        picture blurred, too dark, overexposed) when it first shows or changes, not at every
        scene."""
        picture = result.picture
        faults = () if picture is None else picture.faults(self.config.quality)
        if faults and faults != self._picture_faults and result.note:
            self.calibration += f"; frame {index}: {result.note}"
            logger.warning("%s", result.note)
        self._picture_faults = faults

    def _check_seat(
        self, frame: Frame, result: VisionResult, earlier: EarlierScene
    ) -> VisionResult:
        """The first reading with a found profile, or the same frame read with the profile
        turned round when that shows `start` (within `SEAT_MAX_MISFITS` places) and the
        reading as found fits it worse: white sits at the other long side."""
        self._seat_checked = True
        profile = self.pipeline.profile
        if self.start is None or profile is None:
            return result
        turned_profile = profile.turned_round()
        turned = VisionPipeline(self.config, turned_profile).read(
            frame.image, earlier=earlier, variant=self._variant()
        )
        as_found, as_turned = (_start_misfits(r, self.start) for r in (result, turned))
        if as_turned <= SEAT_MAX_MISFITS and as_turned < as_found:
            self.pipeline.profile = turned_profile
            self.calibration += (
                f"; turned round in frame {frame.index}: the starting position shows with white"
                " at the other side"
            )
            return turned
        return result

    def _watch_bumps(self, frame: Frame) -> None:
        """Move the profile with the board when the camera or the board was knocked since the
        last settling the profile fitted (`BoardAnchor`); find the board again after
        `BumpConfig.max_unaligned` settlings in a row that cannot be aligned."""
        profile, config = self.pipeline.profile, self.config.bump
        if profile is None or not config.enabled:
            return
        if not profile.fits_image(frame.image):
            return
        if self._anchor is None or self._anchor.profile is not profile:
            self._anchor_on(frame, profile)
            return
        look = self._bump_look(frame)
        if look is None:
            return
        if look.moved:
            self._follow(
                frame,
                profile.with_corners(look.corners, "followed after a knock"),
                f"the board moved {look.move_frac:.1%} of its width in frame {frame.index}",
            )
            return
        if look.in_place:
            if look.changed or not look.aligned:
                # The ring changed, not where it lies: compare later looks with this picture.
                self._anchor_on(frame, profile)
            self._unaligned = 0
            return
        self._unaligned += 1
        if self._unaligned < config.max_unaligned:
            return
        start = time.perf_counter()
        try:
            found = self._find_again(frame.image, profile)
        except CalibrationError as exc:
            self._follow(
                frame, profile, f"the board could not be found again in frame {frame.index} "
                f"({exc}): the profile stands",
            )  # fmt: skip
            return
        finally:
            self.times.calibrate.append((time.perf_counter() - start) * 1e3)
        width = profile.board_width_px()
        shifts = np.linalg.norm(np.array(found.corners) - np.array(profile.corners), axis=1)
        if shifts.max() <= self.config.calibration.recheck_tolerance_frac * width:
            # Found where it was: what changed was the ring (checkers borne off into the tray).
            self._anchor_on(frame, profile)
            return
        self._follow(frame, found, f"the board was found again in frame {frame.index}")

    def _bump_look(self, frame: Frame) -> BoardMove | None:
        """The bump watch's look at `frame` (None without a picture to compare it with), taken
        once a frame: the hands check may need it before the watch does."""
        if self._anchor is None or not self.config.bump.enabled:
            return None
        if self._last_look is None or self._last_look[0] != frame.index:
            self._last_look = (frame.index, self._anchor.follow(frame.image))
        return self._last_look[1]

    def _anchor_on(self, frame: Frame, profile: BoardProfile) -> None:
        """Compare later looks with the ring as `frame` shows it, where `profile` puts it."""
        self._anchor = BoardAnchor(frame.image, profile, self.config.bump)
        self._last_look = None
        self._unaligned = 0

    def _follow(self, frame: Frame, profile: BoardProfile, note: str) -> None:
        """Take `profile` from `frame` on, the watch's picture from it, and say so."""
        self.pipeline.profile = profile
        self._anchor_on(frame, profile)
        self.calibration += f"; {note}"
        logger.warning("%s", note)

    def _find_again(self, image: np.ndarray, profile: BoardProfile) -> BoardProfile:
        """The board found in `image` with `profile`'s model, home and measured lens, and its
        seat: from its corner markers where three or more show (they fix the seat, however the
        profile was made or followed since), else by the board finder, the found corners or
        the same turned round, whichever lie nearer `profile`'s."""
        try:
            marked = marker_profile(
                image, self.config.calibration, profile.lens, profile.model, profile.home
            )
        except (MarkerError, CalibrationError):
            pass
        else:
            return dataclasses.replace(marked, method=f"{marked.method}, found again")
        measured = profile.lens if profile.lens.calibrated else None
        found = find_board(
            image, self.config.calibration, model=profile.model, home=profile.home,
            fit_distortion=measured is None, lens=measured,
        )  # fmt: skip
        if measured is not None:
            found = dataclasses.replace(found, lens=measured)
        # Markers not all in view still lie on the frame.
        found = dataclasses.replace(found, markers=profile.markers)
        before = np.array(profile.corners)
        nearer = min(
            (found, found.turned_round()),
            key=lambda p: float(np.linalg.norm(np.array(p.corners) - before, axis=1).sum()),
        )
        return found.with_corners(
            np.array(nearer.corners), f"{found.method}, found again, seat kept"
        )

    def _hands(self, frame: Frame) -> bool:
        """Whether a hand rests over the board in this newly still frame (`hands.py`).

        After `HandConfig.max_settlings` such settlings in a row that look alike (no arm-like
        change from one to the next) the frame is read regardless: then it is the earlier
        scene that had the arm. A hand that pauses at several places while it moves a
        checker gives settlings that differ by the arm, and each starts the count again
        (counting them all read a pause with the hand in view, and every still after it was
        taken for hands against that picture)."""
        profile, earlier = self.pipeline.profile, self._earlier
        if profile is None or earlier is None or self._hand_run >= self.config.hands.max_settlings:
            self._hand_run, self._hand_image = 0, None
            return False
        arm = arm_over_board(frame.image, earlier.image, profile, self.config.hands)
        if self._is_arm(frame, profile, arm):
            moved = (
                self._hand_image is not None
                and arm_over_board(frame.image, self._hand_image, profile, self.config.hands)
                is not Arm.NONE
            )
            self._hand_run = 1 if moved else self._hand_run + 1
            self._hand_image = frame.image
            return True
        self._hand_run, self._hand_image = 0, None
        return False

    def _is_arm(self, frame: Frame, profile: BoardProfile, arm: Arm) -> bool:
        """Whether the arm-like change `arm_over_board` saw (`arm`) is an arm: by the bump
        watch's look at the frame (`arm_stands`; `scripts/bench_hands.py`: on 200 generated
        scenes the watch found the board moved under none of the arms and under 197 of 200
        knocks, 43 of which the check took for an arm outright), and, for an arm seen only
        across the board's frame or on the surface alone, against the scene read before the
        earlier one too: a hand that rested at the board's edge unseen, in the earlier scene,
        leaves a change shaped like an arm when it goes."""
        look = None
        if self._anchor is not None and self._anchor.profile is profile:
            look = self._bump_look(frame)
        if not arm_stands(arm, look):
            return False
        older = self._older
        return (
            arm is Arm.SEEN
            or older is None
            or arm_over_board(frame.image, older, profile, self.config.hands) is not Arm.NONE
        )


def _start_misfits(result: VisionResult, start: Position) -> int:
    """The places where `result`'s board does not fit `start` (all of them with no board)."""
    board = to_observation(result).board
    return len(PLACES) if board is None else len(misfits(board, start))


def create_vision(variant: Variant, profile: Path | None) -> LiveVision:
    """The live pipeline for `referee watch`: `profile` is a saved board profile (see `referee
    calibrate`), or None to find the board in the first frame; then the variant's starting
    position, if the board shows it, tells which side white sits at when the tray does not."""
    if profile is None:
        return LiveVision(start=variant.starting_position())
    try:
        board = load_profile(profile)
    except CalibrationError as exc:
        raise NoVisionError(f"the board profile cannot be used: {exc}") from None
    try:
        picture = load_profile_picture(profile, board)
    except CalibrationError as exc:
        # The profile still reads the board; only a knock since calibration goes unseen
        # until the watch's first picture, the first settling's.
        logger.warning("%s: the board is taken to be where the profile says", exc)
        picture = None
    return LiveVision(board, picture=picture)


__all__ = [
    "AGGREGATE_CONFIDENCE",
    "DIE_CONFIDENCE",
    "SEAT_MAX_MISFITS",
    "LiveVision",
    "VisionTimes",
    "create_vision",
    "to_observation",
]
