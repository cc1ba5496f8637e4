"""Named looks: boards, checker sets, dice, tables, skin and sleeves.

Colours are written `#RRGGBB` as a person reads them; `bgr()` turns them into OpenCV order.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from referee.scenes.layout import BoardDims

BGR = tuple[float, float, float]


def bgr(hex_colour: str) -> BGR:
    """OpenCV's (blue, green, red) for `#RRGGBB`."""
    value = int(hex_colour.lstrip("#"), 16)
    return (float(value & 0xFF), float((value >> 8) & 0xFF), float(value >> 16))


@dataclasses.dataclass(frozen=True)
class WoodLook:
    """A wood species as two colours (early and late wood) and the grain's ring spacing (mm)."""

    light: str
    dark: str
    ring_mm: float
    figure: float = 1.0


@dataclasses.dataclass(frozen=True)
class BoardStyle:
    """One kind of board: its measurements, frame, playing field and points."""

    name: str
    dims: BoardDims
    frame: WoodLook
    # 'wood' fields show `field_wood`; 'felt' fields show `field_colour` cloth.
    field: Literal["wood", "felt"]
    field_wood: WoodLook | None
    field_colour: str
    # 'carved': engraved outline, stained inside; 'painted': flat paint; 'inlay': veneer of
    # another wood; 'felt': cloth of another colour.
    points: Literal["carved", "painted", "inlay", "felt"]
    point_colours: tuple[str, str]
    # Varnish: 0 = matt, 1 = lacquered mirror (drives the glare).
    gloss: float


@dataclasses.dataclass(frozen=True)
class CheckerSet:
    """A pair of checker colours; `light` plays white."""

    name: str
    light: str
    dark: str
    material: Literal["plastic", "wood", "stone"]
    gloss: float


@dataclasses.dataclass(frozen=True)
class DiceSet:
    """Dice body and pip colours; `one` recolours the single pip (Asian dice paint it red)."""

    name: str
    body: str
    pips: str
    gloss: float
    one: str | None = None


@dataclasses.dataclass(frozen=True)
class TableLook:
    """What the board stands on."""

    name: str
    kind: Literal["wood", "cloth", "checked"]
    colours: tuple[str, str]


def _dims(
    d: float, t: float, pw: float, pl: float, depth: float, frame: float, rim: float
) -> BoardDims:
    """Board measurements from the few numbers that differ between styles."""
    return BoardDims(
        checker_diameter=d,
        checker_thickness=t,
        point_width=pw,
        point_length=pl,
        field_depth=depth,
        field_margin=5.0,
        bar_width=d + 8.0,
        frame_width=frame,
        rim_height=rim,
        floor=10.0,
        tray_width=d + 12.0,
    )


WALNUT = WoodLook("#7A5436", "#4A2E1B", 3.2, 1.2)
OAK = WoodLook("#C9A26B", "#9C7440", 4.0)
BIRCH = WoodLook("#E3CCA0", "#C7A878", 5.0, 0.7)
MAHOGANY = WoodLook("#8E3B22", "#5C2314", 2.6, 1.1)
WENGE = WoodLook("#4A3A2E", "#2A1F18", 2.0, 1.3)
CHERRY = WoodLook("#B0653C", "#7E4125", 3.0)
LEATHER_BROWN = WoodLook("#5A3A26", "#43291A", 9.0, 0.25)
LEATHER_BLACK = WoodLook("#2C2A28", "#1A1918", 9.0, 0.25)

# fmt: off
BOARD_STYLES: dict[str, BoardStyle] = {
    style.name: style
    for style in (
        BoardStyle(
            "walnut_carved", _dims(32, 8, 38, 165, 400, 28, 14), WALNUT, "wood",
            OAK, "#000000", "carved", ("#3A2414", "#B88A58"), 0.45,
        ),
        BoardStyle(
            "oak_painted", _dims(30, 9, 36, 150, 370, 24, 12), OAK, "wood",
            BIRCH, "#000000", "painted", ("#1E1A18", "#9E2A22"), 0.3,
        ),
        BoardStyle(
            "birch_inlay", _dims(34, 9, 40, 175, 420, 30, 16), CHERRY, "wood",
            BIRCH, "#000000", "inlay", ("#4A2E1B", "#8E3B22"), 0.5,
        ),
        BoardStyle(
            "mahogany_lacquer", _dims(33, 8.5, 39, 170, 410, 32, 15), MAHOGANY, "wood",
            WoodLook("#B8703F", "#8E4E2A", 2.4), "#000000", "painted", ("#E8D8A8", "#2A1A12"), 0.9,
        ),
        BoardStyle(
            "wenge_dark", _dims(31, 8, 37, 160, 390, 26, 13), WENGE, "wood",
            WoodLook("#5E4A3A", "#3A2C22", 2.2, 1.2), "#000000", "carved",
            ("#C9A26B", "#201812"), 0.4,
        ),
        BoardStyle(
            "felt_green", _dims(38, 9, 44, 195, 470, 36, 18), LEATHER_BROWN, "felt",
            None, "#1F5A36", "felt", ("#E6DCC0", "#9A2424"), 0.1,
        ),
        BoardStyle(
            "felt_navy", _dims(36, 8, 42, 185, 450, 34, 16), LEATHER_BLACK, "felt",
            None, "#1C2A4A", "felt", ("#D8D8D0", "#7A8896"), 0.1,
        ),
        BoardStyle(
            "felt_beige", _dims(40, 10, 46, 205, 490, 38, 20), LEATHER_BLACK, "felt",
            None, "#CDB88E", "felt", ("#1E1E1E", "#8C1E1E"), 0.1,
        ),
    )
}
# fmt: on

CHECKER_SETS: dict[str, CheckerSet] = {
    s.name: s
    for s in (
        CheckerSet("white_black", "#ECEAE3", "#222222", "plastic", 0.7),
        CheckerSet("ivory_brown", "#E6D8B8", "#5A3A22", "wood", 0.3),
        CheckerSet("red_black", "#B3262A", "#1C1C1C", "plastic", 0.6),
        CheckerSet("cream_green", "#EDE3C8", "#1F4A32", "stone", 0.5),
        CheckerSet("white_red", "#F0EEE8", "#8E1A1E", "plastic", 0.7),
        CheckerSet("maple_walnut", "#D8B888", "#3B2616", "wood", 0.25),
    )
}

DICE_SETS: dict[str, DiceSet] = {
    s.name: s
    for s in (
        DiceSet("white_black", "#F2F1EC", "#151515", 0.5),
        DiceSet("ivory_black", "#E9DFC6", "#1A1A1A", 0.4),
        DiceSet("red_white", "#B01A1F", "#F5F5F5", 0.7),
        DiceSet("black_white", "#1E1E1E", "#F0F0F0", 0.6),
        DiceSet("green_white", "#1E6B3A", "#F2F2F2", 0.6),
        DiceSet("blue_white", "#1F3E8A", "#F2F2F2", 0.6),
        DiceSet("white_red_one", "#F2F1EC", "#151515", 0.5, one="#C01818"),
        DiceSet("yellow_black", "#E8C23A", "#151515", 0.5),
    )
}

TABLES: dict[str, TableLook] = {
    s.name: s
    for s in (
        TableLook("oak_table", "wood", ("#B08858", "#8A6438")),
        TableLook("dark_table", "wood", ("#4E3424", "#32201A")),
        TableLook("grey_cloth", "cloth", ("#8A8C8E", "#6E7072")),
        TableLook("gingham", "checked", ("#E8E4DC", "#A83A36")),
        TableLook("green_cloth", "cloth", ("#3E6A4A", "#2E5038")),
        TableLook("white_cloth", "cloth", ("#E4E2DC", "#C8C6C0")),
    )
}

SKIN_TONES = ("#F1C8A8", "#E0AC88", "#C68A64", "#9A6440", "#6E4428", "#F6D5BE")
SLEEVES = ("#2A3A5A", "#5A1E22", "#D8D4CC", "#3A3A3A", "#2E5A3A", "#8A7A5A", "#1A1A1A")
