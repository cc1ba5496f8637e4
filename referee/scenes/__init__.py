"""Synthetic labelled photos and videos of a nardy board, for training and testing the reader.

`referee scenes make` renders a data set (datasets/FORMAT.md), `referee scenes video` a scripted
game. Modules: `config` (every range), `layout` (the board in mm), `styles` and `textures` (looks),
`camera` and `lighting`, `placement` (checkers), `dice` and `throws` (dice and the throw rules),
`hands`, `render` (painting), `scene` (random scenes), `truth` (labels), `dataset`, `video`, `cli`.
"""
