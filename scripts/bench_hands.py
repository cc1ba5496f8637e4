"""The hands check (`referee.vision.hands`) on generated scenes: each scene with an arm is
painted with it and without it (the same light, camera and sensor noise), so the arm is the
only difference and the picture without it is the earlier scene.

    .venv/bin/python scripts/bench_hands.py --n 200 --seed 71 [--jobs 2]

Per scene, three pictures are judged against the one without the arm:

- the arm: caught as `Arm.SEEN`, or as `Arm.ACROSS_FRAME` or `Arm.ON_SURFACE` (arms the live
  check takes where the bump watch finds the board in place), or missed; by how much of the
  playing surface the arm changes (any colour channel by `HandConfig.min_change`; an arm that
  changes nothing there cannot be seen, and a reading under it is no worse for it);
- a move without the arm: one checker lifted from the board and the dice taken away (anything
  but `Arm.NONE` is a false arm);
- a knocked camera: the picture warped as a knock warps it (`bench_bump.knock`).

Then what the bump watch says of each arm and knock, what the live check makes of the two
together (`arm_stands`), and the check's median time.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
import time
from collections import Counter
from multiprocessing import Pool

import cv2
import numpy as np
from bench_bump import camera_knocked, knock

from referee.scenes.config import SceneConfig
from referee.scenes.render import Frame, Painted, paint
from referee.scenes.scene import sample_scene
from referee.scenes.truth import scene_truth
from referee.vision.bump import BoardAnchor, BoardMove
from referee.vision.checker_truth import label_profile
from referee.vision.config import BumpConfig, HandConfig
from referee.vision.hands import Arm, arm_over_board, arm_stands

# Shares of the playing surface the arm changes, as the buckets the arms are counted in.
COVER_BUCKETS = tuple(itertools.pairwise((0.0, 0.01, 0.03, 0.10, 1.0)))


def bucket_name(low: float, high: float) -> str:
    return f"{low:.0%}-{high:.0%}"


def bucket(share: float) -> str:
    """The name of the bucket `share` falls in (the last takes all above it)."""
    low, high = next(((lo, hi) for lo, hi in COVER_BUCKETS if share < hi), COVER_BUCKETS[-1])
    return bucket_name(low, high)


@dataclasses.dataclass(frozen=True)
class Judged:
    """One scene: the bucket of its arm; what the check said of the arm, the move and the
    knock (`Arm` values); what the bump watch said of the arm and the knock, and whether the
    live check then takes each for an arm (`arm_stands`); the check's time on the arm."""

    bucket: str
    arm: str
    arm_look: str
    arm_stands: bool
    move: str
    knock: str
    knock_look: str
    knock_stands: bool
    ms: float


def one(job: tuple[int, int, tuple[int, int]]) -> Judged | None:
    seed, index, size = job
    config = dataclasses.replace(SceneConfig(), hand_probability=1.0)
    scene = sample_scene(np.random.default_rng((seed, index)), config, size, seed)
    if not scene.frame.hands:
        return None

    def painted(frame: Frame) -> Painted:
        # The same sensor noise in every picture of the scene.
        return paint(scene.look, frame, np.random.default_rng((seed, index, 1)))

    with_arm = painted(scene.frame)
    without = painted(dataclasses.replace(scene.frame, hands=())).photo
    label = scene_truth(
        "", scene.look, scene.frame, scene.position, scene.roller, scene.zone, with_arm, 0.5
    )
    profile = label_profile(label)
    hands = HandConfig()
    model = profile.model
    surface = profile.region_mask((0.0, 0.0, model.width_mm, model.depth_mm), without.shape[:2])
    change = cv2.absdiff(with_arm.photo, without).max(axis=2) >= hands.min_change
    share = float(np.count_nonzero(change & surface)) / max(1, int(np.count_nonzero(surface)))
    on_board = [c for c in scene.frame.checkers if isinstance(c.place, int)]
    lifted = [c for c in scene.frame.checkers if not on_board or c is not on_board[-1]]
    moved = painted(
        dataclasses.replace(scene.frame, hands=(), checkers=tuple(lifted), dice=())
    ).photo
    rng = np.random.default_rng((seed, index, 2))
    knocked = camera_knocked(without, knock(size, profile.board_width_px(), rng))
    start = time.perf_counter()
    arm = arm_over_board(with_arm.photo, without, profile, hands)
    took = (time.perf_counter() - start) * 1e3
    knock_arm = arm_over_board(knocked, without, profile, hands)
    anchor = BoardAnchor(without, profile, BumpConfig())
    arm_look, knock_look = anchor.follow(with_arm.photo), anchor.follow(knocked)
    return Judged(
        bucket=bucket(share),
        arm=arm.value,
        arm_look=_look_name(arm_look),
        arm_stands=arm_stands(arm, arm_look),
        move=arm_over_board(moved, without, profile, hands).value,
        knock=knock_arm.value,
        knock_look=_look_name(knock_look),
        knock_stands=arm_stands(knock_arm, knock_look),
        ms=took,
    )


def _look_name(look: BoardMove) -> str:
    return "moved" if look.moved else "in place" if look.in_place else "not aligned"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="scenes (default 200)")
    parser.add_argument("--seed", type=int, default=71, help="scene seed (default 71)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    jobs = [(args.seed, i, (1280, 720)) for i in range(args.n)]
    with Pool(args.jobs) as pool:
        rows = [r for r in pool.map(one, jobs, chunksize=4) if r is not None]
    print(f"{len(rows)} scenes with an arm (seed {args.seed}), 1280x720")
    print(
        "arms, by the share of the playing surface they change:"
        " seen / across the frame / on the surface alone / missed"
    )
    by_bucket: dict[str, Counter[str]] = {}
    for row in rows:
        by_bucket.setdefault(row.bucket, Counter())[row.arm] += 1
    for low, high in COVER_BUCKETS:
        name = bucket_name(low, high)
        got = by_bucket.get(name, Counter())
        total = sum(got.values())
        columns = (Arm.SEEN, Arm.ACROSS_FRAME, Arm.ON_SURFACE, Arm.NONE)
        told = " / ".join(str(got[arm.value]) for arm in columns)
        print(f"  {name:>8}: {told} of {total}")
    moves = Counter(r.move for r in rows)
    knocks = Counter(r.knock for r in rows)
    print(
        f"a checker lifted and the dice taken away: called an arm {len(rows) - moves['none']}"
        f" of {len(rows)}"
    )
    print(
        f"a knocked camera: called an arm {knocks[Arm.SEEN.value]} of {len(rows)}; across the"
        f" frame {knocks[Arm.ACROSS_FRAME.value]}, on the surface {knocks[Arm.ON_SURFACE.value]}"
    )
    # The live check asks the bump watch where an arm is doubtful (`LiveVision._hands`).
    for name in ("arm", "knock"):
        looks = Counter((getattr(r, name), getattr(r, f"{name}_look")) for r in rows)
        told = ", ".join(f"{arm} and {look} {n}" for (arm, look), n in sorted(looks.items()))
        print(f"the check and the bump watch on the {name}s: {told}")
    big = [r for r in rows if r.bucket in {bucket_name(*b) for b in COVER_BUCKETS[2:]}]
    print(
        f"the live check (the bump watch asked; the scene before the earlier one aside): arms"
        f" changing {COVER_BUCKETS[2][0]:.0%} of the surface or more caught"
        f" {sum(r.arm_stands for r in big)} of {len(big)}, all arms"
        f" {sum(r.arm_stands for r in rows)} of {len(rows)}; knocks taken for an arm"
        f" {sum(r.knock_stands for r in rows)} of {len(rows)}"
    )
    print(f"the check's median time {statistics.median(r.ms for r in rows):.1f} ms")


if __name__ == "__main__":
    main()
