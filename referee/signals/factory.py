"""Builds the table's signal sinks from the configuration."""

from __future__ import annotations

import logging
from typing import Any, TextIO

from referee.signals.config import SignalsConfig
from referee.signals.console import ConsoleSignals
from referee.signals.errors import GpioUnavailable, WebUnavailable
from referee.signals.gpio import GpioSignals
from referee.signals.hub import SignalHub
from referee.signals.serial_leds import SerialLedController
from referee.signals.web import WebSignals

logger = logging.getLogger(__name__)


def signals_from_config(
    config: SignalsConfig, *, stream: TextIO | None = None, pin_factory: Any = None
) -> SignalHub:
    """A hub driving every sink the configuration enables; the buttons post to its decisions.

    GPIO that cannot be driven here (off a Raspberry Pi, no permission) is left out with a
    warning, and the reason is kept in `hub.unavailable["gpio"]`; so is a web page that cannot
    be served (the port taken), in `hub.unavailable["web"]`. A missing LED controller is kept
    and reconnects by itself. `stream` is the console's (standard output by default);
    `pin_factory` is gpiozero's (None: its default).
    """
    hub = SignalHub()
    if config.console.enabled:
        colour = {"auto": None, "always": True, "never": False}[config.console.colour]
        hub.add(ConsoleSignals(stream, colour=colour, teaching=config.teaching))
    if config.gpio.enabled:
        try:
            hub.add(
                GpioSignals(
                    config.gpio,
                    config.buzzer.patterns(),
                    on_decision=hub.post_decision,
                    pin_factory=pin_factory,
                )
            )
        except GpioUnavailable as exc:
            hub.unavailable["gpio"] = str(exc)
            logger.warning("lamps, buzzer and buttons off: %s", exc)
    if config.serial.url:
        hub.add(SerialLedController.from_config(config.serial, teaching=config.teaching))
    if config.web.enabled:
        try:
            hub.add(WebSignals.from_config(config.web, teaching=config.teaching))
        except WebUnavailable as exc:
            hub.unavailable["web"] = str(exc)
            logger.warning("web page off: %s", exc)
    return hub
