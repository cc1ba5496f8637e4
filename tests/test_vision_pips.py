"""Pips gathered into dice (`referee.vision.dice.group_pips`)."""

from __future__ import annotations

import numpy as np

from referee.vision.config import DiceConfig
from referee.vision.dice import Pip, group_pips

SIDE = 20.0
GREY = np.zeros((300, 400), np.uint8)


def face(cx: float, cy: float, offsets: list[tuple[int, int]], contrast: float = 60.0) -> list[Pip]:
    """Dark pips `offsets` pixels from (cx, cy), all as strong."""
    return [Pip(cx + dx, cy + dy, 3.0, contrast, 1) for dx, dy in offsets]


FIVE = [(-6, -6), (6, -6), (0, 0), (-6, 6), (6, 6)]
THREE = [(-6, -6), (0, 0), (6, 6)]


def as_sets(groups: list[list[Pip]]) -> list[set[tuple[float, float]]]:
    return [{(p.x, p.y) for p in group} for group in groups]


def test_each_dies_pips_form_one_group_strongest_first() -> None:
    five = face(100, 100, FIVE, contrast=80.0)
    three = face(200, 150, THREE)
    groups = group_pips(GREY, three + five, SIDE, DiceConfig())
    assert as_sets(groups) == [{(p.x, p.y) for p in five}, {(p.x, p.y) for p in three}]


def test_light_pips_never_join_a_group_of_dark_ones() -> None:
    dark = face(100, 100, THREE)
    light = [Pip(102.0, 101.0, 3.0, 90.0, -1)]
    groups = group_pips(GREY, dark + light, SIDE, DiceConfig())
    assert sorted(len(g) for g in groups) == [1, 3]
    assert all(len({p.polarity for p in g}) == 1 for g in groups)


def test_a_group_keeps_at_most_six_pips_the_strongest() -> None:
    crowd = [
        Pip(100.0 + dx, 100.0 + dy, 3.0, 40.0 + 5 * k, 1)
        for k, (dx, dy) in enumerate(
            [(-6, -6), (0, -6), (6, -6), (-6, 0), (6, 0), (-6, 6), (0, 6), (6, 6)]
        )
    ]
    groups = group_pips(GREY, crowd, SIDE, DiceConfig())
    assert len(groups[0]) == 6
    assert [p.contrast for p in groups[0]] == [75.0, 70.0, 65.0, 60.0, 55.0, 50.0]
    assert sum(len(g) for g in groups) == len(crowd)


def test_no_pips_no_groups() -> None:
    assert group_pips(GREY, [], SIDE, DiceConfig()) == []


def greedy_groups(pips: list[Pip], side: float, config: DiceConfig) -> list[list[Pip]]:
    """group_pips's rule spelt out one greedy step at a time, with no shortcut for lone pips:
    the pip with the most strength within reach among those left seeds a die (the first in the
    list where they tie)."""
    groups = []
    reach = config.group_distance_frac * side
    for polarity in (1, -1):
        left = [p for p in pips if p.polarity == polarity]
        while left:

            def support(p: Pip, left: list[Pip] = left) -> float:
                return sum(q.contrast for q in left if np.hypot(p.x - q.x, p.y - q.y) <= reach)

            seed = max(left, key=support)  # max keeps the first of equals
            near = [q for q in left if np.hypot(seed.x - q.x, seed.y - q.y) <= reach]
            cx, cy = np.mean([q.x for q in near]), np.mean([q.y for q in near])
            member = [q for q in left if np.hypot(q.x - cx, q.y - cy) <= 0.5 * side]
            if seed not in member:
                member.append(seed)
            member = sorted(member, key=lambda q: -q.contrast)[:6]
            groups.append(member)
            left = [q for q in left if q not in member]
    return groups


def test_lone_pips_are_taken_in_the_order_the_greedy_rule_takes_them() -> None:
    # group_pips queues pips with nothing within reach rather than finding them step by step;
    # the groups and their order must be the rule's, ties of strength included.
    rng = np.random.default_rng(7)
    config = DiceConfig()
    for trial in range(40):
        n = int(rng.integers(5, 60))
        # Whole-number contrasts from a few values: many ties, as a frame gives.
        pips = [
            Pip(
                float(rng.integers(0, 400)),
                float(rng.integers(0, 300)),
                3.0,
                float(rng.choice([25.0, 30.0, 40.0])),
                int(rng.choice([1, -1])),
            )
            for _ in range(n)
        ]
        # Some dice's faces among the specks.
        pips += face(float(rng.integers(30, 370)), float(rng.integers(30, 270)), FIVE, 30.0)
        assert group_pips(GREY, pips, SIDE, config) == greedy_groups(pips, SIDE, config), trial
