"""Signals at the table: lamps, buzzer and buttons (GPIO), a serial LED strip, the console, and
a live web page for the club's network.

The session builds a `SignalHub` with `signals_from_config(load_config(path))`, calls
`hub.show(Indication(...))` whenever what the players should see changes, reads the buttons
with `hub.next_decision()`, and closes the hub at the end. Each sink implements `SignalSink`.
"""

from referee.signals.buzzer import BuzzerPattern
from referee.signals.config import (
    BuzzerConfig,
    ConsoleConfig,
    GpioConfig,
    SerialConfig,
    SignalsConfig,
    WebConfig,
    config_from_dict,
    load_config,
)
from referee.signals.console import ConsoleSignals, format_indication
from referee.signals.errors import (
    ConfigError,
    GpioUnavailable,
    ProtocolError,
    SignalsError,
    WebUnavailable,
)
from referee.signals.factory import signals_from_config
from referee.signals.gpio import LAMPS, GpioSignals, Lamp
from referee.signals.hub import SignalHub, SignalSink
from referee.signals.indication import (
    BAR,
    OFF,
    Decision,
    Indication,
    Kind,
    physical_point,
    point_name,
)
from referee.signals.serial_leds import SerialLedController
from referee.signals.web import WebSignals

__all__ = [
    "BAR",
    "LAMPS",
    "OFF",
    "BuzzerConfig",
    "BuzzerPattern",
    "ConfigError",
    "ConsoleConfig",
    "ConsoleSignals",
    "Decision",
    "GpioConfig",
    "GpioSignals",
    "GpioUnavailable",
    "Indication",
    "Kind",
    "Lamp",
    "ProtocolError",
    "SerialConfig",
    "SerialLedController",
    "SignalHub",
    "SignalSink",
    "SignalsConfig",
    "SignalsError",
    "WebConfig",
    "WebSignals",
    "WebUnavailable",
    "config_from_dict",
    "format_indication",
    "load_config",
    "physical_point",
    "point_name",
    "signals_from_config",
]
