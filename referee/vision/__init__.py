"""Reading the physical board from a camera: calibration, checkers, dice, throw verdict, gate.

Stages, one module each, thresholds in `config.VisionConfig`:

- `calibration` / `board_finder` / `markers` / `camera`: the board profile (where the playing
  surface is, which side is whose, the lens), from corners by hand, found automatically, or
  from printed ArUco markers; lens from a printed checkerboard; a cheap re-check.
- `checkers`: colour and count on every point, bar and borne off, on the rectified board.
- `dice`: dice by their pips; `verdict`: the throw's verdict from dice facts (RULES.md §2).
- `gate`: still or moving, for a live camera.
- `pipeline`: all of it on one image, timed; `reader`: the `vision` reader of `referee eval`;
  `position`: the reading as a rules `Position`; `cli`: `referee calibrate` and `referee read`.
"""
