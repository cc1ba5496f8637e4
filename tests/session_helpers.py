"""Shared pieces of the live-session tests."""

from __future__ import annotations


class Clock:
    """A clock the test moves: `now` is the time; `sleep` advances it instead of waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
