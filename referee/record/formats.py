"""Reading and writing record files by format name or file extension.

Formats: `mat` (Jellyfish / GNU Backgammon match text, backgammon only), `sgf` (GM[6],
backgammon only), `long` (the long-nardy text format of LONG_FORMAT.md, any variant) and
`journal` (the referee's JSON-lines journal, read only: see `referee.record.journal`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from referee.record.errors import RecordError, RecordSyntaxError, UnsupportedRecordError
from referee.record.mat import format_mat, format_text, read_mat
from referee.record.model import Match
from referee.record.replay import ReplayedMatch
from referee.record.sgf import format_sgf, read_sgf

FORMATS = ("mat", "sgf", "long", "journal")
EXTENSIONS = {".mat": "mat", ".sgf": "sgf", ".nardy": "long", ".jsonl": "journal"}
WRITERS: dict[str, Callable[[Match], str]] = {
    "mat": format_mat,
    "sgf": format_sgf,
    "long": format_text,
}


def format_of(path: str | Path, explicit: str | None = None) -> str:
    """The format named `explicit`, or the one `path`'s extension stands for."""
    if explicit is not None:
        if explicit not in FORMATS:
            raise UnsupportedRecordError(f"unknown format {explicit!r}; known: {FORMATS}")
        return explicit
    suffix = Path(path).suffix.lower()
    if suffix not in EXTENSIONS:
        known = ", ".join(f"{ext} ({name})" for ext, name in EXTENSIONS.items())
        raise UnsupportedRecordError(
            f"cannot tell the format from the extension {suffix or '(none)'!r}; known: "
            f"{known}; or name it with --from/--to"
        )
    return EXTENSIONS[suffix]


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of a record file; RecordSyntaxError naming the line of a bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise RecordSyntaxError(
            f"not UTF-8 text (byte {data[error.start]:#04x})", source=source, line=line
        ) from None


def read_record(path: str | Path, fmt: str | None = None, *, strict: bool = True) -> ReplayedMatch:
    """Read a record file and replay it through the rules; RecordError at the first problem
    (OSError when the file cannot be opened)."""
    from referee.record.journal import Journal

    path = Path(path)
    fmt = format_of(path, fmt)
    source = str(path)
    if fmt == "journal":
        return Journal.replay(path).replayed
    text = decode(path.read_bytes(), source)
    if fmt == "sgf":
        return read_sgf(text, source=source, strict=strict)
    return read_mat(text, source=source, strict=strict)


def dumps(match: Match, fmt: str) -> str:
    """`match` as text in format `fmt` (not `journal`: a journal is written event by event)."""
    if fmt not in WRITERS:
        raise UnsupportedRecordError(f"cannot write the {fmt!r} format; writable: {list(WRITERS)}")
    return WRITERS[fmt](match)


def write_record(
    match: Match, path: str | Path, fmt: str | None = None, *, overwrite: bool = False
) -> None:
    """Write `match` to `path`, atomically (a temporary file renamed over it, after fsync), so a
    crash leaves either the old file or the new one. An existing file is kept unless
    `overwrite`."""
    path = Path(path)
    text = dumps(match, format_of(path, fmt))
    if path.exists() and not overwrite:
        raise RecordError(f"{path} exists; not overwriting it (use --force)")
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        if overwrite:
            os.replace(temporary, path)
        else:
            # A hard link fails if the name appeared meanwhile: never clobbers.
            os.link(temporary, path)
    except FileExistsError:
        raise RecordError(f"{path} exists; not overwriting it (use --force)") from None
    finally:
        Path(temporary).unlink(missing_ok=True)
