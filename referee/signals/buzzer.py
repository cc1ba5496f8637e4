"""Buzzer patterns: a short code of beeps ("LLL") turned into on/off timings."""

from __future__ import annotations

from dataclasses import dataclass

SHORT = "S"
LONG = "L"


@dataclass(frozen=True)
class BuzzerPattern:
    """A run of beeps: each is (seconds sounding, seconds silent afterwards); () is silence."""

    beeps: tuple[tuple[float, float], ...] = ()

    @classmethod
    def from_code(cls, code: str, *, short_s: float, long_s: float, gap_s: float) -> BuzzerPattern:
        """Builds a pattern from a code of `S` (short) and `L` (long) beeps, e.g. "SSL".

        Every beep is followed by `gap_s` of silence; "" is silence.
        """
        durations = {SHORT: short_s, LONG: long_s}
        unknown = set(code) - set(durations)
        if unknown:
            raise ValueError(
                f"buzzer code {code!r} has {''.join(sorted(unknown))!r}: use only S and L"
            )
        return cls(tuple((durations[c], gap_s) for c in code))

    @property
    def duration(self) -> float:
        """Seconds the whole pattern takes, silences included."""
        return sum(on + off for on, off in self.beeps)
