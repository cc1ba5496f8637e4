"""The one interface every output device implements, and the hub that drives several at once."""

from __future__ import annotations

import logging
import queue
from collections.abc import Iterable
from types import TracebackType
from typing import Protocol, runtime_checkable

from referee.signals.indication import Decision, Indication

logger = logging.getLogger(__name__)


@runtime_checkable
class SignalSink(Protocol):
    """Something that shows indications at the table: lamps, a strip of LEDs, a console."""

    def show(self, indication: Indication) -> None:
        """Shows `indication` until the next one; must return promptly (no long waits)."""

    def close(self) -> None:
        """Turns the device's outputs off and releases it; calling it twice is harmless."""


class SignalHub:
    """Shows each indication on every sink, and collects the players' decisions.

    One failing sink never stops the others: its error is logged and the rest are still
    driven. An indication equal to the one shown last is not shown again, so the session may
    call `show` on every camera frame without repeating beeps. Decisions from the buttons
    arrive through `post_decision` (any thread) and are read with `next_decision`.

    `unavailable` maps the names of sinks that were configured but could not be started to the
    reason, so the caller can tell the players (see `signals_from_config`).
    """

    def __init__(
        self, sinks: Iterable[SignalSink] = (), *, unavailable: dict[str, str] | None = None
    ) -> None:
        self.sinks: list[SignalSink] = list(sinks)
        self.unavailable: dict[str, str] = dict(unavailable or {})
        self.last: Indication | None = None
        self._decisions: queue.SimpleQueue[Decision] = queue.SimpleQueue()

    def add(self, sink: SignalSink) -> None:
        """Adds a sink; it is shown the current indication, if any, straight away."""
        self.sinks.append(sink)
        if self.last is not None:
            self._show_on(sink, self.last)

    def show(self, indication: Indication) -> None:
        """Shows `indication` on every sink, unless it is the one already shown."""
        if indication == self.last:
            return
        self.last = indication
        for sink in self.sinks:
            self._show_on(sink, indication)

    def post_decision(self, decision: Decision) -> None:
        """Queues a player's decision; safe to call from a button's callback thread."""
        logger.info("decision: %s", decision.value)
        self._decisions.put(decision)

    def next_decision(self, timeout: float | None = 0.0) -> Decision | None:
        """The oldest decision not yet read, waiting up to `timeout` seconds (None: forever).

        Returns None when no decision arrived in time; the default only looks.
        """
        try:
            if timeout == 0.0:
                return self._decisions.get_nowait()
            return self._decisions.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        """Closes every sink, each even if another fails to close."""
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as exc:  # a sink's failure must not leave the others open
                logger.warning("%s failed to close: %s", type(sink).__name__, exc)
                logger.debug("close failure", exc_info=True)

    def __enter__(self) -> SignalHub:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @staticmethod
    def _show_on(sink: SignalSink, indication: Indication) -> None:
        try:
            sink.show(indication)
        except Exception as exc:  # one broken sink must not silence the others
            # The message goes to the log; the traceback only at debug level, never at the table.
            logger.warning(
                "%s failed to show %s: %s", type(sink).__name__, indication.kind.value, exc
            )
            logger.debug("show failure", exc_info=True)
