"""The scene gate: still frames settle after `still_frames`, motion flips it at once, small
changes between the thresholds keep a still scene still and make a settling one wait. (Its
speed is measured by `scripts/bench_vision.py`, not here.)"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.config import GateConfig
from referee.vision.gate import SceneGate

SIZE = (720, 1280)


def scene(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.full((*SIZE, 3), 120, np.uint8)
    for _ in range(30):
        x, y = rng.integers(0, SIZE[1]), rng.integers(0, SIZE[0])
        colour = tuple(int(c) for c in rng.integers(0, 255, 3))
        cv2.circle(image, (int(x), int(y)), int(rng.integers(10, 60)), colour, -1)
    return image


def noisy(image: np.ndarray, rng: np.random.Generator, sigma: float = 3.0) -> np.ndarray:
    out = image.astype(np.float32) + rng.normal(0, sigma, image.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def with_hand(image: np.ndarray, x: int) -> np.ndarray:
    out = image.copy()
    cv2.rectangle(out, (x, 200), (x + 220, 560), (90, 140, 200), -1)
    return out


def test_still_scene_settles_after_the_configured_frames() -> None:
    config = GateConfig()
    gate = SceneGate(config)
    rng = np.random.default_rng(1)
    base = scene()
    states = [gate.update(noisy(base, rng)) for _ in range(config.still_frames + 3)]
    assert not states[0].still  # nothing is known from one frame
    first_still = next(i for i, s in enumerate(states) if s.still)
    assert first_still == config.still_frames
    assert states[first_still].became_still
    assert not any(s.became_still for s in states[first_still + 1 :])


def test_motion_makes_it_moving_at_once_then_it_settles_again() -> None:
    config = GateConfig()
    gate = SceneGate(config)
    rng = np.random.default_rng(2)
    base = scene()
    for _ in range(config.still_frames + 1):
        gate.update(noisy(base, rng))
    moving = [gate.update(noisy(with_hand(base, x), rng)) for x in range(100, 700, 100)]
    assert all(not s.still for s in moving)
    assert all(s.changed_frac >= config.moving_frac for s in moving)
    after = [gate.update(noisy(base, rng)) for _ in range(config.still_frames + 2)]
    assert not after[0].still  # the hand just left: that frame differs from the last
    assert after[-1].still


def test_changes_between_the_thresholds_keep_the_state() -> None:
    config = GateConfig(moving_frac=0.05, still_frac=0.0005, still_frames=2)
    gate = SceneGate(config)
    base = scene()
    for _ in range(4):
        gate.update(base)
    assert gate.update(base).still
    # A small object appears and stays: a middling change, then none.
    small = base.copy()
    cv2.circle(small, (640, 360), 40, (0, 0, 0), -1)
    state = gate.update(small)
    assert config.still_frac < state.changed_frac < config.moving_frac
    assert state.still  # hysteresis: not enough to count as motion


def with_die(image: np.ndarray, x: int) -> np.ndarray:
    out = image.copy()
    cv2.rectangle(out, (x, 300), (x + 24, 324), (235, 235, 235), -1)
    return out


def test_a_die_still_creeping_after_a_throw_keeps_the_scene_moving() -> None:
    config = GateConfig()
    gate = SceneGate(config)
    rng = np.random.default_rng(4)
    base = scene()
    gate.update(noisy(with_hand(base, 300), rng))
    # The die slides 6 px a frame: a few of the small image's pixels change each time.
    creeping = [gate.update(noisy(with_die(base, 400 + 6 * k), rng)) for k in range(8)]
    assert all(config.still_frac < s.changed_frac < config.moving_frac for s in creeping[1:])
    assert not any(s.still for s in creeping)
    resting = [gate.update(noisy(with_die(base, 442), rng)) for _ in range(config.still_frames)]
    assert [s.still for s in resting] == [False] * (config.still_frames - 1) + [True]


def test_a_middling_change_restarts_the_count_of_quiet_frames() -> None:
    config = GateConfig(still_frames=3)
    gate = SceneGate(config)
    base = scene()
    gate.update(base)
    gate.update(base)
    gate.update(base)
    assert not gate.update(with_die(base, 400)).still
    assert not gate.update(with_die(base, 400)).still
    assert not gate.update(with_die(base, 400)).still
    assert gate.update(with_die(base, 400)).still


def test_reset_forgets_the_past() -> None:
    gate = SceneGate(GateConfig(still_frames=1))
    base = scene()
    gate.update(base)
    assert gate.update(base).still
    gate.reset()
    assert not gate.update(base).still
