"""The reader registry: `referee eval --reader NAME` looks NAME up here.

An entry is either a factory or the import path "package.module:attribute" of one, imported
only when chosen, so a reader's heavy dependencies cost nothing to the others. Adding a reader
is one line in `READERS`, e.g. `"vision": "referee.vision.reader:VisionReader",`. A name that is
not registered but contains a colon is imported as such a path, for readers outside the project.

A factory takes the `--reader-option KEY=VALUE` pairs (strings) and returns a `BoardReader`;
it raises `ReaderOptionError` for options it does not understand.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, TypeVar

from referee.evaluation.reading import BoardReader

ReaderFactory: TypeAlias = Callable[[Mapping[str, str]], BoardReader]

READERS: dict[str, ReaderFactory | str] = {
    "oracle": "referee.evaluation.oracle:OracleReader",
    "perturbed": "referee.evaluation.oracle:PerturbedReader",
    "vision": "referee.vision.reader:VisionReader",
}


class ReaderError(Exception):
    """A reader that cannot be created: unknown name, failed import, or bad options."""


class ReaderOptionError(ReaderError):
    """A `--reader-option` the chosen reader does not accept, or with a value of the wrong type."""


def register_reader(name: str, factory: ReaderFactory | str) -> None:
    """Make `factory` (or the import path of one) available as `--reader name`."""
    READERS[name] = factory


def reader_names() -> list[str]:
    """Registered reader names, sorted."""
    return sorted(READERS)


def create_reader(name: str, options: Mapping[str, str]) -> BoardReader:
    """The reader registered as `name` (or at import path `name`), built with `options`."""
    entry = READERS.get(name)
    if entry is None:
        if ":" not in name:
            raise ReaderError(f"unknown reader {name!r}; known: {', '.join(reader_names())}")
        entry = name
    factory = _import_factory(entry) if isinstance(entry, str) else entry
    return factory(options)


def _import_factory(path: str) -> ReaderFactory:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ReaderError(f"reader module {module_name!r} cannot be imported: {exc}") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ReaderError(f"{module_name!r} has no reader factory {attribute!r}")
    return typing.cast(ReaderFactory, factory)


Settings = TypeVar("Settings")


def parse_options(cls: type[Settings], options: Mapping[str, str]) -> Settings:
    """A dataclass `cls` of reader settings from string options (int, float, bool, str fields).

    Fields not given keep their defaults; unknown names and unparsable values raise
    `ReaderOptionError` listing what is accepted.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, text in options.items():
        if key not in known:
            raise ReaderOptionError(f"unknown option {key!r}; accepted: {', '.join(sorted(known))}")
        kind = hints[key]
        try:
            if kind is bool:
                values[key] = _parse_bool(text)
            elif kind in (int, float, str):
                values[key] = kind(text)
            else:
                raise ReaderOptionError(f"option {key!r} cannot be set from the command line")
        except ValueError as exc:
            raise ReaderOptionError(f"option {key}={text!r}: expected {kind.__name__}") from exc
    return cls(**values)


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)
