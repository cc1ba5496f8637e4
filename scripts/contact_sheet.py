"""Render a contact sheet of generated scenes: one tile per throw situation, a few more for hands,
the bar and bearing off, and a row of full-resolution crops round the dice.

    .venv/bin/python scripts/contact_sheet.py [--seed 7] [--out datasets/contact_sheet.png]

Each tile's caption names the situation, the throw verdict, the variant and the board style.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.scenes.config import DICE_SITUATIONS, SceneConfig, load_config
from referee.scenes.dataset import render_sample

TILE = (400, 225)
CAPTION = 20
COLUMNS = 4


def _decode(data: bytes) -> NDArray[np.uint8]:
    return np.asarray(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), np.uint8)


def _caption(image: NDArray[np.uint8], text: str) -> NDArray[np.uint8]:
    strip = np.full((CAPTION, image.shape[1], 3), 24, np.uint8)
    cv2.putText(
        strip, text, (6, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (230, 230, 230), 1, cv2.LINE_AA
    )
    return np.vstack([image, strip])


def _describe(truth: dict[str, Any]) -> str:
    roll = truth["roll"]
    verdict = "valid" if roll["valid"] else roll["reason"]
    hand = " +hand" if truth["hand"] else ""
    return (
        f"{truth['situation']} -> {verdict} | {truth['variant']} | {truth['board']['style']}"
        f" | tilt {truth['camera']['tilt_deg']:.0f}{hand}"
    )


def _variants(base: SceneConfig) -> list[tuple[str, SceneConfig]]:
    """One config per tile: each throw situation, then a hand, the bar and bearing off."""
    configs = []
    for situation in DICE_SITUATIONS:
        dice = dataclasses.replace(base.dice, situation_weights={situation: 1.0})
        variants = {"short": 1.0} if situation == "wrong_half" else base.variant_weights
        configs.append((situation, dataclasses.replace(base, dice=dice, variant_weights=variants)))
    configs.append(("hand", dataclasses.replace(base, hand_probability=1.0)))
    configs.append(
        (
            "bar",
            dataclasses.replace(
                base, position_weights={"bar": 1.0}, variant_weights={"short": 1.0}
            ),
        )
    )
    configs.append(("bearoff", dataclasses.replace(base, position_weights={"bearoff": 1.0})))
    return configs


def _zoom(data: bytes, truth: dict[str, Any]) -> NDArray[np.uint8]:
    """A crop at full resolution round the first die."""
    image = _decode(data)
    x1, y1, x2, y2 = truth["dice"][0]["box"]
    cx, cy = int((x1 + x2) / 2), int((y1 + y2) / 2)
    w, h = TILE
    x0 = min(max(0, cx - w // 2), image.shape[1] - w)
    y0 = min(max(0, cy - h // 2), image.shape[0] - h)
    return image[y0 : y0 + h, x0 : x0 + w]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="datasets/contact_sheet.png")
    parser.add_argument("--config", help="base JSON config (default: the built-in defaults)")
    args = parser.parse_args()
    base = load_config(args.config)
    tiles = []
    for index, (_, config) in enumerate(_variants(base)):
        data, truth = render_sample(config, args.seed, index, (1280, 720))
        small = cv2.resize(_decode(data), TILE, interpolation=cv2.INTER_AREA)
        tiles.append(_caption(small, _describe(truth)))
    for index in range(COLUMNS):
        data, truth = render_sample(base, args.seed, 100 + index, (1920, 1080))
        tiles.append(_caption(_zoom(data, truth), "1:1 crop at 1920x1080: " + _describe(truth)))
    rows = [np.hstack(tiles[k : k + COLUMNS]) for k in range(0, len(tiles), COLUMNS)]
    sheet = np.vstack(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(args.out, sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"{args.out}: {sheet.shape[1]}x{sheet.shape[0]}, {Path(args.out).stat().st_size} bytes")


if __name__ == "__main__":
    main()
