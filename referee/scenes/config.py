"""Every range and threshold the scene generator draws from, as dataclasses with JSON forms.

`SceneConfig()` is the default data set (`datasets/default.json` holds the same values); a JSON
file names only the fields it changes, section by section. Ranges are `[low, high]` pairs drawn
uniformly; weights are relative (they need not sum to 1).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from referee.configfile import dataclass_from_dict

Span = tuple[float, float]

# The dice situations a scene can show. Each names the one defect of the throw (or none): the
# roll verdict follows from the geometry the situation produces, see `dice.judge_roll`. The
# `by_` ones are valid throws with a die lying flat against a checker stack, a wall or the
# other die: touching, leaning on nothing (what a cocked die must not be confused with).
# They weigh nothing by default, so the default scenes of a seed stay as they were.
DICE_SITUATIONS = (
    "valid",
    "wrong_half",
    "split_halves",
    "cocked_checker",
    "cocked_rim",
    "cocked_die",
    "on_checker",
    "off_board",
    "rolling",
    "by_checker",
    "by_rim",
    "by_die",
)

# What kind of position a scene shows; `positions.PositionSampler` explains each.
POSITION_KINDS = ("start", "opening", "middle", "bearoff", "bar")


@dataclasses.dataclass(frozen=True)
class CameraConfig:
    """Where the camera hangs and what its lens does."""

    height_mm: Span = (550.0, 1150.0)
    # Angle between the optical axis and straight down.
    tilt_deg: Span = (0.0, 30.0)
    # Rotation of the image about the optical axis, on top of the board's own orientation.
    roll_deg: Span = (-12.0, 12.0)
    # Chance that the camera looks from black's side (the image is turned round).
    from_black_side: float = 0.2
    # Fraction of the image's limiting dimension the board (trays included) spans.
    fill: Span = (0.72, 0.94)
    # How far off the board's centre the camera aims, as a fraction of the board's size.
    aim_jitter: float = 0.03
    principal_offset: Span = (-0.02, 0.02)
    k1: Span = (-0.28, 0.06)
    k2: Span = (-0.05, 0.08)
    tangential: Span = (-0.0015, 0.0015)
    # Image sizes drawn from when the command line does not fix one.
    resolutions: tuple[tuple[int, int], ...] = (
        (640, 480),
        (800, 600),
        (1024, 768),
        (1280, 720),
        (1280, 960),
        (1600, 900),
        (1920, 1080),
    )


@dataclasses.dataclass(frozen=True)
class LightConfig:
    """One lamp above the table plus ambient light."""

    # Elevation of the lamp seen from the board centre (90 = straight above).
    elevation_deg: Span = (35.0, 85.0)
    distance_mm: Span = (900.0, 2200.0)
    kelvin: Span = (2700.0, 6800.0)
    intensity: Span = (0.65, 1.0)
    ambient: Span = (0.22, 0.45)
    # How much of the lamp's light a hard shadow removes.
    shadow_strength: Span = (0.55, 0.9)
    # Penumbra width in pixels at 1280 px image width.
    shadow_blur_px: Span = (1.0, 4.0)
    glare_probability: float = 0.5
    glare_strength: Span = (0.15, 0.55)


@dataclasses.dataclass(frozen=True)
class ImagingConfig:
    """What the sensor and the file format do to the picture."""

    noise_sigma: Span = (1.0, 6.0)
    blur_probability: float = 0.3
    blur_sigma_px: Span = (0.4, 1.3)
    vignette: Span = (0.0, 0.35)
    exposure: Span = (0.85, 1.15)
    jpeg_quality: Span = (55.0, 95.0)


@dataclasses.dataclass(frozen=True)
class HandConfig:
    """Where a hand hovers when a scene has one (it reaches in from the roller's seat)."""

    wrist_height_mm: Span = (45.0, 170.0)
    # How far across the board the wrist reaches, as a fraction of the board's depth.
    reach: Span = (0.0, 0.7)
    heading_spread_deg: float = 35.0
    curl: Span = (0.1, 0.9)
    right_handed: float = 0.8


@dataclasses.dataclass(frozen=True)
class CheckerConfig:
    """How players set checkers down."""

    # Checkers in one row before a point fills up (5 is the standard board's point length).
    row_length: int = 5
    # When a point holds more than a row: chance the row runs on toward the middle (up to
    # `max_run` checkers in a row) instead of starting a second layer at once.
    run_on_probability: float = 0.35
    max_run: int = 7
    # Hand placement error, millimetres, per axis.
    jitter_mm: float = 1.6
    # Borne-off checkers: piles of this many in the tray.
    tray_pile: int = 5
    # A checker counts as visible when at least this fraction of its outline is seen.
    visible_fraction: float = 0.5


@dataclasses.dataclass(frozen=True)
class DiceConfig:
    """Dice sizes and how the throw situations are drawn."""

    size_mm: Span = (13.0, 19.0)
    situation_weights: dict[str, float] = dataclasses.field(
        default_factory=lambda: {
            "valid": 4.0,
            "wrong_half": 1.0,
            "split_halves": 1.0,
            "cocked_checker": 1.0,
            "cocked_rim": 1.0,
            "cocked_die": 1.0,
            "on_checker": 1.0,
            "off_board": 1.0,
            "rolling": 1.0,
            "by_checker": 0.0,
            "by_rim": 0.0,
            "by_die": 0.0,
        }
    )
    # Tilt of a cocked die about its resting edge.
    cocked_tilt_deg: Span = (16.0, 38.0)
    # Length of the motion streak of a rolling die, pixels at 1280 px image width.
    rolling_blur_px: Span = (14.0, 45.0)
    rolling_height_mm: Span = (0.0, 35.0)
    # In the `rolling` situation, the chance that the second die is still rolling too.
    both_rolling: float = 0.4
    # A die on a checker sits this far (fraction of the checker's radius) off its centre.
    on_checker_offset: Span = (0.0, 0.3)
    # Distance kept between a die resting on the table and the board's outline.
    off_board_clearance_mm: Span = (25.0, 90.0)


@dataclasses.dataclass(frozen=True)
class SceneConfig:
    """Everything random about a generated scene."""

    variant_weights: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"long": 1.0, "short": 1.0}
    )
    position_weights: dict[str, float] = dataclasses.field(
        default_factory=lambda: {
            "start": 1.0,
            "opening": 2.0,
            "middle": 4.0,
            "bearoff": 2.0,
            "bar": 1.0,
        }
    )
    # Random games played per variant and data set; positions are drawn from them.
    games_per_variant: int = 6
    # Board, checker, dice and table styles to draw from (by name); empty means all.
    board_styles: tuple[str, ...] = ()
    checker_sets: tuple[str, ...] = ()
    dice_sets: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    hand_probability: float = 0.25
    # Someone beside the table, between the lamp and the board, no hand over it: the soft
    # shadow of their head and shoulders falls across part of the board, checkers and dice
    # included (0 in every set made before it, which draw nothing for it).
    onlooker_probability: float = 0.0
    # The printed ArUco corner markers (`referee calibrate --markers`) stuck on the frame's top
    # at the playing surface's corners, each turned at random.
    markers: bool = False
    hands: HandConfig = dataclasses.field(default_factory=HandConfig)
    clutter_count: tuple[int, int] = (0, 4)
    # Gap between the board's outline and a thing on the table.
    clutter_distance_mm: Span = (30.0, 160.0)
    camera: CameraConfig = dataclasses.field(default_factory=CameraConfig)
    light: LightConfig = dataclasses.field(default_factory=LightConfig)
    imaging: ImagingConfig = dataclasses.field(default_factory=ImagingConfig)
    checkers: CheckerConfig = dataclasses.field(default_factory=CheckerConfig)
    dice: DiceConfig = dataclasses.field(default_factory=DiceConfig)

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON-ready nested dicts (the form `config_from_dict` reads)."""
        data: dict[str, Any] = dataclasses.asdict(self)
        return data


def _check(config: SceneConfig) -> None:
    """Refuse situation, position-kind and variant names the generator does not know."""
    for name in config.dice.situation_weights:
        if name not in DICE_SITUATIONS:
            raise ValueError(f"unknown dice situation {name!r}")
    for name in config.position_weights:
        if name not in POSITION_KINDS:
            raise ValueError(f"unknown position kind {name!r}")
    for name in config.variant_weights:
        if name not in ("long", "short"):
            raise ValueError(f"unknown variant {name!r}")


def config_from_dict(data: dict[str, Any]) -> SceneConfig:
    """A SceneConfig from its (possibly partial) JSON form."""
    config = dataclass_from_dict(SceneConfig, data)
    _check(config)
    return config


def load_config(path: str | Path | None) -> SceneConfig:
    """The config in JSON file `path`, or the defaults when `path` is None."""
    if path is None:
        return SceneConfig()
    return config_from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
