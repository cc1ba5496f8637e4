"""Writing a run down: the per-image CSV, the summary JSON, and the table printed at the end."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from referee.evaluation.dataset import Problem
from referee.evaluation.metrics import ConfusionMatrix, ImageScore, Rate
from referee.evaluation.runner import EvalResult

PROBLEMS_SHOWN = 20
"""Problems listed in the printed table; the JSON always has all of them."""


def to_jsonable(obj: object) -> object:
    """`obj` as JSON-ready data: dataclasses become objects, a `Rate` also gets its `share`."""
    if isinstance(obj, Rate):
        return {"numerator": obj.numerator, "denominator": obj.denominator, "share": obj.share}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None  # JSON has no inf/nan
    if isinstance(obj, Path):
        return str(obj)
    return obj


def summary_document(result: EvalResult, run: Mapping[str, object]) -> dict[str, object]:
    """The summary JSON: `run` (what was evaluated, how), problems, failures and the totals."""
    return {
        "run": to_jsonable(run),
        "images_scored": result.summary.images_scored,
        "problems": to_jsonable(result.problems),
        "reader_failures": to_jsonable(result.reader_failures),
        "summary": to_jsonable(result.summary),
    }


def write_summary_json(path: Path, result: EvalResult, run: Mapping[str, object]) -> None:
    """Write the summary JSON to `path`."""
    path.write_text(json.dumps(summary_document(result, run), indent=2, ensure_ascii=False) + "\n")


CSV_COLUMNS: tuple[str, ...] = (
    "image",
    "status",
    "reason",
    "hand",
    "points_exact",
    "points",
    "count_abs_error",
    "points_unmatched",
    "extra_points",
    "board_exact",
    "bar_right",
    "off_right",
    "numbered_right",
    "corner_error_mean_px",
    "corner_error_max_px",
    "corner_error_max_frac",
    "dice",
    "dice_detected",
    "dice_value_right",
    "dice_false_positives",
    "roll_truth",
    "roll_predicted",
)


def image_row(score: ImageScore) -> dict[str, object]:
    """The CSV row of one scored image; columns its truth does not label are left empty.

    `hand` is 1 when the truth has a hand or arm over the board, else 0.
    """
    row: dict[str, object] = {"image": score.name, "status": "scored", "hand": int(score.hand)}
    if score.board is not None:
        b = score.board
        row |= {
            "points_exact": b.points_exact,
            "points": len(b.points),
            "count_abs_error": sum(p.count_error for p in b.points),
            "points_unmatched": sum(not p.matched for p in b.points),
            "extra_points": b.extra_points,
            "board_exact": int(b.exact),
            "bar_right": int(b.bar_right),
            "off_right": int(b.off_right),
        }
        if b.numbered_right is not None:
            row["numbered_right"] = int(b.numbered_right)
    if score.corners is not None and score.corners.errors_px is not None:
        errors = score.corners.errors_px
        row |= {
            "corner_error_mean_px": f"{sum(errors) / len(errors):.3f}",
            "corner_error_max_px": f"{max(errors):.3f}",
            "corner_error_max_frac": f"{max(errors) / score.corners.board_width_px:.5f}",
        }
    dice = score.dice.dice
    row |= {
        "dice": len(dice),
        "dice_detected": sum(d.matched for d in dice),
        "dice_value_right": sum(d.value_right for d in dice),
        "dice_false_positives": score.dice.false_positives,
    }
    if score.roll is not None:
        row |= {"roll_truth": score.roll.truth, "roll_predicted": score.roll.predicted}
    row |= {f"ms_{stage}": f"{ms:.3f}" for stage, ms in score.timings_ms.items()}
    return row


def write_image_csv(path: Path, result: EvalResult) -> None:
    """One row per image: scored ones with their numbers, problems with the reason.

    An image the reader failed on is scored (as an empty reading) and its row says "reader
    failed" with the error in `reason`.
    """
    failures = {p.name: p.reason for p in result.reader_failures}
    rows = []
    for score in result.scores:
        row = image_row(score)
        if score.name in failures:
            row |= {"status": "reader failed", "reason": failures[score.name]}
        rows.append(row)
    rows += [{"image": p.name, "status": "not scored", "reason": p.reason} for p in result.problems]
    stages = sorted({k for row in rows for k in row if k.startswith("ms_")})
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=[*CSV_COLUMNS, *stages], restval="")
        writer.writeheader()
        writer.writerows(rows)


def format_rate(rate: Rate) -> str:
    """'22/24  91.7 %', or 'n/a' when there was nothing to count."""
    share = rate.share
    if share is None:
        return "n/a"
    return f"{rate.numerator}/{rate.denominator}  {100 * share:.1f} %"


def _num(value: float | None, unit: str = "", digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}{unit}"


def format_summary(result: EvalResult, title: str) -> str:
    """The summary as a plain-text table for the terminal."""
    s = result.summary
    lines = [
        title,
        f"  images scored {s.images_scored}, not scored {len(result.problems)}, "
        f"reader failures {len(result.reader_failures)}",
    ]

    def row(label: str, value: str) -> None:
        lines.append(f"  {label:<40} {value}")

    if s.board is not None:
        b = s.board
        lines.append("Checkers")
        row("points exactly right (colour and count)", format_rate(b.points_exact))
        # A hand's checkers are counted by the labels but shown by nothing in the picture.
        row("points in view (none under a hand)", format_rate(b.points_in_view_exact))
        row("count error per point, mean absolute", _num(b.count_mae, digits=3))
        row(
            "count error histogram (error: points)",
            "  ".join(f"{k}: {v}" for k, v in b.count_error_histogram.items()),
        )
        row("boards exactly right", format_rate(b.boards_exact))
        row("boards right, every checker in view", format_rate(b.boards_in_view_exact))
        row("bar counts right", format_rate(b.bar_right))
        row("borne-off counts right", format_rate(b.off_right))
        if b.numbered_right.denominator:
            # Points are paired by position, so only a reader's numbers show where it put
            # white's seat and home: the direction of play, and which point is which.
            row("points numbered right (white's seat)", format_rate(b.numbered_right))
        row("points not found / invented", f"{b.points_unmatched} / {b.extra_points}")
        # The live referee reads checkers only once hands are gone, so these are its figures.
        still = s.board_still
        lines.append(
            "Checkers, scenes without a hand over the board "
            f"({0 if still is None else still.boards} of {b.boards})"
        )
        if still is not None:
            row("points exactly right (colour and count)", format_rate(still.points_exact))
            row("boards exactly right", format_rate(still.boards_exact))
            row("bar counts right", format_rate(still.bar_right))
            row("borne-off counts right", format_rate(still.off_right))
    if s.corners is not None:
        c = s.corners
        lines.append("Board corners")
        row(
            "error mean / median / max",
            f"{_num(c.mean_error_px)} / {_num(c.median_error_px)} / {_num(c.max_error_px)} px",
        )
        mean_frac = None if c.mean_error_frac is None else 100 * c.mean_error_frac
        row("mean error / board width", _num(mean_frac, " %", 3))
        tol = f"{100 * c.tolerance_frac:g} %"
        row(f"corners within {tol} of board width", format_rate(c.corners_within_tolerance))
        row(f"corners in view within {tol}", format_rate(c.corners_in_view_within_tolerance))
        row(f"boards with all 4 corners within {tol}", format_rate(c.boards_within_tolerance))
        row("boards not found", str(c.boards_not_found))
    if s.dice is not None:
        d = s.dice
        lines.append("Dice")
        row("detected", format_rate(d.detected))
        row("false positives", str(d.false_positives))
        row("value right, all dice (missed = wrong)", format_rate(d.value_right))
        row("value right, detected dice", format_rate(d.value_right_when_detected))
        row("value right, flat dice", format_rate(d.value_right_on_flat))
        row("value right, flat dice in view", format_rate(d.value_right_on_flat_in_view))
        for name, rate in d.attributes.items():
            row(f"'{name}' right, detected dice", format_rate(rate))
    if s.roll is not None:
        lines += _format_confusion(s.roll)
    if s.dice_still is not None or s.roll_still is not None:
        # As for checkers: the live referee judges throws only once hands are gone.
        lines.append("Dice, scenes without a hand over the board")
        if s.dice_still is not None:
            d = s.dice_still
            row("detected", format_rate(d.detected))
            row("false positives", str(d.false_positives))
            row("value right, flat dice", format_rate(d.value_right_on_flat))
        if s.roll_still is not None:
            m = s.roll_still
            row("verdicts right", format_rate(m.accuracy))
            row(
                "recall per true verdict",
                "  ".join(
                    f"{c} {m.per_class[c].recall.numerator}/{m.per_class[c].recall.denominator}"
                    for c, n in zip(m.classes, m.counts, strict=True)
                    if sum(n)
                ),
            )
    if s.timings_ms:
        columns = "".join(f"{c:>10}" for c in ("mean", "median", "p95", "max"))
        lines.append(f"{'Time per image, ms':<42}{columns}")
        for stage in sorted(s.timings_ms):
            t = s.timings_ms[stage]
            values = "".join(f"{v:>10.2f}" for v in (t.mean, t.median, t.p95, t.max))
            lines.append(f"  {stage:<40}{values}")
    lines += _format_problems("Not scored", result.problems)
    lines += _format_problems("Reader failures", result.reader_failures)
    return "\n".join(lines)


def _format_confusion(m: ConfusionMatrix) -> list[str]:
    width = max(9, *(len(c) + 1 for c in m.classes))
    header = "truth \\ read".ljust(14) + "".join(c.rjust(width) for c in m.classes)
    lines = ["Throw verdict (rows: truth, columns: reader)", "  " + header + "  recall"]
    for cls, counts in zip(m.classes, m.counts, strict=True):
        recall = m.per_class[cls].recall.share
        lines.append(
            "  "
            + cls.ljust(14)
            + "".join(str(n).rjust(width) for n in counts)
            + "  "
            + ("n/a" if recall is None else f"{100 * recall:.1f} %")
        )
    precisions = [m.per_class[c].precision.share for c in m.classes]
    lines.append(
        "  "
        + "precision".ljust(14)
        + "".join(("n/a" if p is None else f"{100 * p:.1f} %").rjust(width) for p in precisions)
    )
    lines.append(f"  {'verdicts right':<40} {format_rate(m.accuracy)}")
    return lines


def _format_problems(title: str, problems: Sequence[Problem]) -> list[str]:
    if not problems:
        return []
    lines = [f"{title} ({len(problems)})"]
    for p in problems[:PROBLEMS_SHOWN]:
        lines.append(f"  {p.name}: {p.reason}")
    if len(problems) > PROBLEMS_SHOWN:
        lines.append(f"  ... and {len(problems) - PROBLEMS_SHOWN} more (all in the summary JSON)")
    return lines
