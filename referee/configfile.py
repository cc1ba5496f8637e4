"""Reading nested frozen-dataclass configs from their (possibly partial) JSON form."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def dataclass_from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Dataclass `cls` from `data`: absent keys keep their defaults, unknown keys raise
    ValueError, nested dataclasses are read from nested objects and JSON lists become tuples
    (a list of lists, a tuple of tuples) where the default is a tuple."""
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - fields)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
    defaults = cls()
    values: dict[str, Any] = {}
    for name, value in data.items():
        current = getattr(defaults, name)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ValueError(f"{cls.__name__}.{name}: expected an object")
            values[name] = dataclass_from_dict(type(current), value)
        elif isinstance(current, tuple):
            values[name] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        else:
            values[name] = value
    return cls(**values)
