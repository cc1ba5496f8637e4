"""Exceptions raised by the signals package."""

from __future__ import annotations


class SignalsError(Exception):
    """Base class of every error the signals package raises on purpose."""


class ConfigError(SignalsError, ValueError):
    """A signals configuration value is missing, misspelt, of the wrong type or out of range.

    `key` is the dotted TOML key at fault (``signals.gpio.red_led``), or None when the fault is
    the file as a whole (unreadable, not TOML); `source` is the file, when there is one.
    """

    def __init__(self, message: str, key: str | None = None, *, source: str | None = None) -> None:
        where = ": ".join(part for part in (source, key) if part)
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.key = key
        self.source = source


class GpioUnavailable(SignalsError):
    """The lamps, buzzer and buttons cannot be driven here (no Raspberry Pi, no permission)."""


class ProtocolError(SignalsError):
    """The serial LED controller did not answer as hardware/serial_protocol.md requires."""


class WebUnavailable(SignalsError):
    """The web page cannot be served: the port is taken, not allowed, or the host is unknown."""
