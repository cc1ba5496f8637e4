"""The live loop: frames from a source, through vision, into the session; buttons in between.

A missing or unplugged camera never ends the loop: the session is told once (it shows amber
and waits), the loop idles briefly between attempts, and play carries on when frames return.
Frames that cannot be used are skipped and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.session.machine import Session
from referee.session.sources import CorruptFrame, EndOfSource, FrameSource, Unavailable
from referee.session.vision import Vision
from referee.signals import Decision


@dataclass
class RunStats:
    """What one run of the loop saw."""

    reads: int = 0
    frames: int = 0
    observations: int = 0
    corrupt: int = 0
    unavailable: int = 0
    decisions: int = 0


class Runner:
    """Drives `session` from `source` through `vision`.

    `decisions` is polled after every read for the players' buttons (`SignalHub.next_decision`
    fits); `idle_s` is how long to wait after a read that gave no frame, so a missing camera
    does not spin the processor.
    """

    def __init__(
        self,
        source: FrameSource,
        vision: Vision,
        session: Session,
        *,
        decisions: Callable[[], Decision | None] | None = None,
        idle_s: float = 0.1,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.source = source
        self.vision = vision
        self.session = session
        self.decisions = decisions
        self.idle_s = idle_s
        self.sleep = sleep
        self.stats = RunStats()

    def step(self) -> bool:
        """Read once and pass on what came; False when the source has ended."""
        item = self.source.read()
        self.stats.reads += 1
        if isinstance(item, EndOfSource):
            return False
        if isinstance(item, Unavailable):
            self.stats.unavailable += 1
            self.session.source_lost(item.reason)
            self._poll_decisions()
            self.sleep(self.idle_s)
            return True
        self.session.source_back()
        if isinstance(item, CorruptFrame):
            self.stats.corrupt += 1
            self.session.frame_skipped(item.reason)
        else:
            self.stats.frames += 1
            observation = self.vision.observe(item)
            if observation is not None:
                self.stats.observations += 1
                self.session.observe(observation)
        self._poll_decisions()
        return True

    def run(self, *, max_reads: int | None = None) -> RunStats:
        """Step until the source ends (or `max_reads` reads); the statistics."""
        while max_reads is None or self.stats.reads < max_reads:
            if not self.step():
                break
        return self.stats

    def _poll_decisions(self) -> None:
        if self.decisions is None:
            return
        while (decision := self.decisions()) is not None:
            self.stats.decisions += 1
            self.session.decide(decision)


__all__ = ["RunStats", "Runner"]
