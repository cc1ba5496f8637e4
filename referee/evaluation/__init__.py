"""Evaluation harness: scores any board reader against labelled images (`referee eval`).

Pieces, in the order data flows through them: `dataset` finds image/label pairs, `truth` parses
labels into `GroundTruth`, a `BoardReader` (registered in `readers`; `oracle` holds the two
built-in test readers) turns an image into a `Reading`, `matching` pairs predictions with the
truth by position, `metrics` scores and totals, `runner` drives one run, `report` writes the CSV
and JSON and the printed table, and `cli` is the command.
"""
