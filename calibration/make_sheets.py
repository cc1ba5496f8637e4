"""Write the printable calibration sheets into this folder (or another one).

    .venv/bin/python calibration/make_sheets.py [DIR]

Same as `referee calibrate --sheets DIR`: the four ArUco corner markers (ids 0..3, one per
corner of the playing surface), a ChArUco board (9x6 squares of 30 mm) and a 10x7-square
checkerboard for the lens, A4 at 300 dpi.
"""

from __future__ import annotations

import sys
from pathlib import Path

from referee.vision.markers import write_sheets


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in write_sheets(folder):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
