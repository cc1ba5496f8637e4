"""One random scene of the data set: styles, camera, lamp, position, dice, hands and clutter."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.rules import LongNardy, ShortNardy
from referee.scenes.camera import Camera, sample_camera
from referee.scenes.config import HandConfig, SceneConfig
from referee.scenes.dice import DiePose, RollZone, die_half
from referee.scenes.hands import Hand, HandPose, make_hand
from referee.scenes.layout import BoardLayout, Color
from referee.scenes.lighting import Light, sample_light
from referee.scenes.placement import place_checkers
from referee.scenes.positions import sample_moment
from referee.scenes.render import CLUTTER_SIZE, Clutter, Frame, Imaging, Look, sticker_squares
from referee.scenes.styles import (
    BOARD_STYLES,
    CHECKER_SETS,
    DICE_SETS,
    SKIN_TONES,
    SLEEVES,
    TABLES,
    BoardStyle,
)
from referee.scenes.throws import Thrower, throw

FloatArray = NDArray[np.float64]
_CLUTTER_KINDS: tuple[Literal["cup", "phone", "notepad", "pen", "coin"], ...] = (
    "cup", "phone", "notepad", "pen", "coin",
)  # fmt: skip
_CLUTTER_COLOURS = ("#E8E4DA", "#2A2A2A", "#7A1E1E", "#1E3A6A", "#D8B040", "#3A6A3A")


@dataclasses.dataclass(frozen=True)
class Scene:
    """A sampled scene: how it looks, what stands where, and the throw's circumstances."""

    look: Look
    frame: Frame
    position: dict[str, Any]
    roller: Color
    zone: RollZone
    situation: str


def weighted(rng: np.random.Generator, weights: Mapping[str, float]) -> str:
    """A key of `weights` drawn with probability proportional to its weight."""
    names = [name for name, weight in weights.items() if weight > 0]
    p = np.array([weights[name] for name in names], dtype=np.float64)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _pick(rng: np.random.Generator, allowed: Sequence[str], catalogue: Mapping[str, Any]) -> str:
    """A name from `allowed` (all of `catalogue` when empty), checked to exist."""
    names = list(allowed) or list(catalogue)
    unknown = [name for name in names if name not in catalogue]
    if unknown:
        raise ValueError(f"unknown style names: {', '.join(unknown)}")
    return names[int(rng.integers(0, len(names)))]


def roll_zone(variant: str) -> RollZone:
    """Where a throw must land (RULES.md §2): the variant's default `roll_zone` option."""
    return LongNardy().roll_zone if variant == "long" else ShortNardy().roll_zone


def _board_hull(camera: Camera, layout: BoardLayout) -> NDArray[np.float32]:
    """The board's outline in the photo, as a convex polygon."""
    dims = layout.dims
    outline = np.concatenate([layout.outline(dims.rim_height), layout.outline(-dims.floor)])
    return np.asarray(cv2.convexHull(camera.project(outline).astype(np.float32)), np.float32)


def _table_spot(
    rng: np.random.Generator, layout: BoardLayout, clearance: float
) -> tuple[float, float]:
    """A point on the table `clearance` mm outside the board's outline, on a random side."""
    ox0, ox1, oy0, oy1 = layout.outer
    side = int(rng.integers(0, 4))
    if side == 0:
        return float(rng.uniform(ox0, ox1)), oy0 - clearance
    if side == 1:
        return float(rng.uniform(ox0, ox1)), oy1 + clearance
    if side == 2:
        return ox0 - clearance, float(rng.uniform(oy0, oy1))
    return ox1 + clearance, float(rng.uniform(oy0, oy1))


def _clutter(
    rng: np.random.Generator,
    config: SceneConfig,
    camera: Camera,
    layout: BoardLayout,
    taken: list[tuple[float, float, float]],
) -> tuple[Clutter, ...]:
    """Things on the table around the board, each at least partly in view and off the board."""
    count = int(rng.integers(config.clutter_count[0], config.clutter_count[1] + 1))
    board = _board_hull(camera, layout)
    items: list[Clutter] = []
    for _ in range(count):
        kind = _CLUTTER_KINDS[int(rng.integers(0, len(_CLUTTER_KINDS)))]
        length, width, _ = CLUTTER_SIZE[kind]
        radius = math.hypot(length, width) / 2
        for _ in range(20):
            gap = float(rng.uniform(*config.clutter_distance_mm))
            x, y = _table_spot(rng, layout, radius + gap)
            if any(math.hypot(x - tx, y - ty) < radius + tr for tx, ty, tr in taken):
                continue
            centre = np.array([[x, y, -layout.dims.floor]])
            image = camera.project(centre)[0]
            if not (0 <= image[0] < camera.width and 0 <= image[1] < camera.height):
                continue
            ring = centre + radius * np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]])
            hull = cv2.convexHull(camera.project(ring).astype(np.float32))
            if cv2.intersectConvexConvex(board, hull)[0] > 0:
                continue
            colour = _CLUTTER_COLOURS[int(rng.integers(0, len(_CLUTTER_COLOURS)))]
            items.append(Clutter(kind, (x, y), float(rng.uniform(0, 2 * math.pi)), colour))
            taken.append((x, y, radius))
            break
    return tuple(items)


def sample_look(
    rng: np.random.Generator,
    config: SceneConfig,
    size: tuple[int, int],
    board: BoardStyle,
    extra_view: FloatArray | None = None,
) -> Look:
    """Styles, camera, lamp and imaging for one scene on `board`; `extra_view` points are kept
    in frame."""
    layout = BoardLayout(board.dims)
    dims = layout.dims
    keep = np.concatenate([layout.outline(dims.rim_height), layout.outline(-dims.floor)])
    if config.markers:
        keep = np.concatenate([keep, *sticker_squares(layout).values()])
    if extra_view is not None:
        keep = np.concatenate([keep, extra_view])
    ox0, ox1, oy0, oy1 = layout.outer
    spread = config.camera.aim_jitter
    jitter = rng.uniform(-spread, spread, 2) * np.array([ox1 - ox0, oy1 - oy0])
    target = np.array([(ox0 + ox1) / 2 + jitter[0], (oy0 + oy1) / 2 + jitter[1], 0.0])
    camera = sample_camera(rng, config.camera, size, target, keep)
    imaging_config = config.imaging
    light = sample_light(rng, config.light, float(rng.uniform(*imaging_config.exposure)))
    blurred = rng.random() < imaging_config.blur_probability
    imaging = Imaging(
        noise_sigma=float(rng.uniform(*imaging_config.noise_sigma)),
        blur_sigma=float(rng.uniform(*imaging_config.blur_sigma_px)) if blurred else 0.0,
        vignette=float(rng.uniform(*imaging_config.vignette)),
        jpeg_quality=int(rng.uniform(*imaging_config.jpeg_quality)),
    )
    return Look(
        board=board,
        checkers=CHECKER_SETS[_pick(rng, config.checker_sets, CHECKER_SETS)],
        dice=DICE_SETS[_pick(rng, config.dice_sets, DICE_SETS)],
        table=_pick(rng, config.tables, TABLES),
        layout=layout,
        camera=camera,
        light=light,
        imaging=imaging,
        clutter=(),
        # Drawn last, so that scenes without markers stay as they were for a seed.
        markers=tuple(int(t) for t in rng.integers(0, 4, 4)) if config.markers else None,  # type: ignore[arg-type]
    )


def sample_hand(
    rng: np.random.Generator, config: HandConfig, layout: BoardLayout, side: Color
) -> Hand:
    """A hand reaching over the board from `side`'s seat."""
    ox0, ox1, oy0, oy1 = layout.outer
    toward = 1.0 if side == "white" else -1.0
    edge = oy0 if side == "white" else oy1
    reach = float(rng.uniform(*config.reach)) * (oy1 - oy0)
    height = float(rng.uniform(*config.wrist_height_mm))
    wrist = (float(rng.uniform(ox0, ox1)), edge + toward * reach, height)
    spread = math.radians(config.heading_spread_deg)
    pose = HandPose(
        wrist=wrist,
        heading=math.atan2(toward, 0.0) + float(rng.uniform(-spread, spread)),
        curl=float(rng.uniform(*config.curl)),
        right=bool(rng.random() < config.right_handed),
        skin=SKIN_TONES[int(rng.integers(0, len(SKIN_TONES)))],
        sleeve=SLEEVES[int(rng.integers(0, len(SLEEVES)))],
    )
    return make_hand(pose)


def sample_scene(
    rng: np.random.Generator, config: SceneConfig, size: tuple[int, int], seed: int
) -> Scene:
    """A whole random scene; `seed` names the data set's pool of random games."""
    variant = weighted(rng, config.variant_weights)
    moment = sample_moment(
        rng, variant, weighted(rng, config.position_weights), seed, config.games_per_variant
    )
    position = moment.position
    roller = cast(Color, position["turn"])
    zone = roll_zone(variant)
    situations = {
        name: weight
        for name, weight in config.dice.situation_weights.items()
        if zone == "right_half" or name != "wrong_half"
    }
    situation = weighted(rng, situations)
    die_size = float(rng.uniform(*config.dice.size_mm))
    board = BOARD_STYLES[_pick(rng, config.board_styles, BOARD_STYLES)]
    layout = BoardLayout(board.dims)
    off_spot = None
    extra = None
    if situation == "off_board":
        off_spot = _table_spot(rng, layout, float(rng.uniform(*config.dice.off_board_clearance_mm)))
        extra = np.array([[off_spot[0], off_spot[1], -layout.dims.floor]]) + np.array(
            [[dx, dy, 0.0] for dx in (-die_size, die_size) for dy in (-die_size, die_size)]
        )
    look = sample_look(rng, config, size, board, extra)
    checkers = place_checkers(
        layout,
        position,
        config.checkers,
        run_on=bool(rng.random() < config.checkers.run_on_probability),
        jitter_seed=int(rng.integers(0, 2**31)),
    )
    thrower = Thrower(rng, config.dice, layout, checkers, die_size)
    canvas_width = look.camera.canvas_size[0]
    dice = throw(thrower, situation, roller, zone, moment.roll, off_spot, canvas_width)
    if dice is None:
        # This board leaves no room for the situation (say, no checker to lean on): a plain throw.
        situation = "valid"
        dice = throw(thrower, situation, roller, zone, moment.roll, None, canvas_width)
    if dice is None:
        raise RuntimeError("no room on the board for two dice")
    taken = [(float(d.center[0]), float(d.center[1]), d.size) for d in dice if not d.on_board]
    look = dataclasses.replace(look, clutter=_clutter(rng, config, look.camera, layout, taken))
    hands: tuple[Hand, ...] = ()
    if rng.random() < config.hand_probability:
        hands = (sample_hand(rng, config.hands, layout, roller),)
    if config.onlooker_probability > 0 and rng.random() < config.onlooker_probability:
        look = dataclasses.replace(look, onlooker=sample_onlooker(rng, layout, look.light))
    frame = Frame(tuple(checkers), tuple(dice), hands)
    return Scene(look, frame, position, roller, zone, situation)


def sample_onlooker(rng: np.random.Generator, layout: BoardLayout, light: Light) -> FloatArray:
    """Someone's head and shoulders, between the lamp and the board: a flat oval solid a
    quarter to half of the lamp's height above the board, placed so that the middle of its
    shadow falls somewhere on the board's outline (its points, board mm, (32, 3))."""
    ox0, ox1, oy0, oy1 = layout.outer
    target = np.array([rng.uniform(ox0, ox1), rng.uniform(oy0, oy1), 0.0])
    lamp = light.position
    height = float(rng.uniform(0.25, 0.5)) * float(lamp[2])
    middle = target + (lamp - target) * (height / float(lamp[2]))
    across, along = rng.uniform(60.0, 110.0), rng.uniform(110.0, 200.0)
    turn = rng.uniform(0.0, math.pi)
    angles = np.linspace(0.0, 2 * math.pi, 16, endpoint=False)
    oval = np.stack([across * np.cos(angles), along * np.sin(angles)], axis=1)
    oval = oval @ np.array([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]])
    rings = [np.column_stack([middle[:2] + oval, np.full(16, middle[2] + dz)]) for dz in (0, 60)]
    return np.asarray(np.concatenate(rings), np.float64)


def dice_halves(dice: Sequence[DiePose], roller: str) -> list[str | None]:
    """Each die's half as the roller sees it; None for a die off the board."""
    return [die_half(float(d.center[0]), roller) if d.on_board else None for d in dice]
