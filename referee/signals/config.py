"""The signals configuration: the `[signals]` tables of the referee's TOML file.

Every value is checked when a config object is made, from a file or in code, and a bad one
raises `ConfigError` naming its dotted key (``signals.gpio.red_led``). Tables other than
`[signals]` belong to other parts of the referee and are left alone. The documented example
is hardware/referee.example.toml.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from referee.signals.buzzer import BuzzerPattern
from referee.signals.errors import ConfigError
from referee.signals.indication import Kind

# The Raspberry Pi's header exposes BCM GPIO 0..27; 0 and 1 are reserved for the HAT ID EEPROM.
FIRST_PIN, LAST_PIN = 2, 27

COLOUR_MODES = ("auto", "always", "never")

MAX_PORT = 65535

_TYPES: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "int": (int,),
    "float": (int, float),
    "str": (str,),
}
_TYPE_NAMES = {"bool": "true or false", "int": "an integer", "float": "a number", "str": "a string"}


@dataclass(frozen=True)
class _Section:
    """A table of the config: checks its values' types, then `_check` checks their ranges."""

    TABLE: ClassVar[str]

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kinds = _TYPES.get(str(f.type))
            if kinds is None:
                continue
            # bool is an int subclass: `true` must not pass for a pin number or a duration.
            if not isinstance(value, kinds) or (f.type != "bool" and isinstance(value, bool)):
                raise ConfigError(
                    f"expected {_TYPE_NAMES[str(f.type)]}, got {value!r}", self.key(f.name)
                )
            if f.type == "float":
                # TOML writes whole seconds as integers (`1`); store them as floats.
                object.__setattr__(self, f.name, float(getattr(self, f.name)))
        self._check()

    def _check(self) -> None:
        """Checks ranges and relations between values; the types are already right."""

    def key(self, name: str) -> str:
        """The dotted TOML key of field `name`."""
        return f"{self.TABLE}.{name}"

    def _at_least(self, name: str, low: float) -> None:
        if getattr(self, name) < low:
            raise ConfigError(f"must be at least {low}, got {getattr(self, name)}", self.key(name))


@dataclass(frozen=True)
class GpioConfig(_Section):
    """Lamps, buzzer and buttons on the Pi's header; pins are BCM GPIO numbers (hardware/wiring.md).

    `new_game_hold_s` is how long NEW GAME must be held (0: a press), so that a bump does not
    end a game; `bounce_s` is the buttons' debounce time (0: none).
    """

    TABLE: ClassVar[str] = "signals.gpio"

    enabled: bool = True
    green_led: int = 17
    red_led: int = 27
    amber_led: int = 22
    buzzer: int = 23
    accept_button: int = 5
    demand_button: int = 6
    new_game_button: int = 26
    new_game_hold_s: float = 1.0
    bounce_s: float = 0.05

    PIN_FIELDS: ClassVar[tuple[str, ...]] = (
        "green_led",
        "red_led",
        "amber_led",
        "buzzer",
        "accept_button",
        "demand_button",
        "new_game_button",
    )

    def _check(self) -> None:
        used: dict[int, str] = {}
        for name in self.PIN_FIELDS:
            pin = getattr(self, name)
            if not FIRST_PIN <= pin <= LAST_PIN:
                raise ConfigError(
                    f"{pin} is not a BCM GPIO number {FIRST_PIN}..{LAST_PIN}", self.key(name)
                )
            if pin in used:
                raise ConfigError(
                    f"GPIO {pin} is already used by {self.key(used[pin])}", self.key(name)
                )
            used[pin] = name
        self._at_least("new_game_hold_s", 0.0)
        self._at_least("bounce_s", 0.0)


@dataclass(frozen=True)
class BuzzerConfig(_Section):
    """The buzzer's pattern for each kind of indication: a code of S (short) and L (long) beeps.

    "" is silence. Each beep is followed by `gap_s` seconds of silence.
    """

    TABLE: ClassVar[str] = "signals.buzzer"

    short_s: float = 0.12
    long_s: float = 0.6
    gap_s: float = 0.15
    legal: str = ""
    illegal: str = "LLL"
    rethrow: str = "SS"
    waiting: str = ""
    unsure: str = "S"
    game_over: str = "SSL"
    idle: str = ""

    def _check(self) -> None:
        self._at_least("short_s", 0.01)
        self._at_least("long_s", 0.01)
        self._at_least("gap_s", 0.0)
        for kind in Kind:
            try:
                self.pattern(kind)
            except ValueError as exc:
                raise ConfigError(str(exc), self.key(kind.value)) from None

    def pattern(self, kind: Kind) -> BuzzerPattern:
        """The buzzer pattern for `kind`."""
        code: str = getattr(self, kind.value)
        return BuzzerPattern.from_code(
            code.upper(), short_s=self.short_s, long_s=self.long_s, gap_s=self.gap_s
        )

    def patterns(self) -> dict[Kind, BuzzerPattern]:
        """The buzzer pattern of every kind."""
        return {kind: self.pattern(kind) for kind in Kind}


@dataclass(frozen=True)
class SerialConfig(_Section):
    """The serial LED controller (hardware/serial_protocol.md); an empty `url` means none.

    `url` is anything `serial.serial_for_url` opens: a device path (best a stable
    /dev/serial/by-id/... name), ``loop://`` for a dry run. `ack` false is for firmware that
    never answers. `hello_timeout_s` allows for boards that reset when the port opens (an
    Arduino Nano takes about 2 s). Reconnection waits start at `reconnect_min_s` and double up
    to `reconnect_max_s`.
    """

    TABLE: ClassVar[str] = "signals.serial"

    url: str = ""
    baudrate: int = 115200
    ack: bool = True
    ack_timeout_s: float = 0.5
    hello_timeout_s: float = 3.0
    reconnect_min_s: float = 0.5
    reconnect_max_s: float = 10.0

    def _check(self) -> None:
        self._at_least("baudrate", 300)
        self._at_least("ack_timeout_s", 0.01)
        self._at_least("hello_timeout_s", 0.01)
        self._at_least("reconnect_min_s", 0.01)
        self._at_least("reconnect_max_s", self.reconnect_min_s)


@dataclass(frozen=True)
class ConsoleConfig(_Section):
    """Indications as lines on standard output; `colour` is auto (on a terminal), always, never."""

    TABLE: ClassVar[str] = "signals.console"

    enabled: bool = True
    colour: str = "auto"

    def _check(self) -> None:
        if self.colour not in COLOUR_MODES:
            raise ConfigError(
                f"must be one of {', '.join(COLOUR_MODES)}, got {self.colour!r}",
                self.key("colour"),
            )


@dataclass(frozen=True)
class WebConfig(_Section):
    """The live web page for the players' phones and the club's screens (off by default).

    It is served on `host` ("127.0.0.1": this machine only; "0.0.0.0": every network the
    machine is on) at `port` (0: any free port). `log_lines` is how many of the latest
    indications the page lists.
    """

    TABLE: ClassVar[str] = "signals.web"

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8080
    log_lines: int = 20

    def _check(self) -> None:
        if not self.host.strip():
            raise ConfigError("must name an address, e.g. 127.0.0.1 or 0.0.0.0", self.key("host"))
        if not 0 <= self.port <= MAX_PORT:
            raise ConfigError(f"must be 0..{MAX_PORT}, got {self.port}", self.key("port"))
        self._at_least("log_lines", 1)


@dataclass(frozen=True)
class SignalsConfig(_Section):
    """The whole signals configuration. `teaching` shows the throw's legal destinations."""

    TABLE: ClassVar[str] = "signals"

    teaching: bool = False
    gpio: GpioConfig = field(default_factory=GpioConfig)
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    console: ConsoleConfig = field(default_factory=ConsoleConfig)
    web: WebConfig = field(default_factory=WebConfig)

    SECTIONS: ClassVar[dict[str, type[_Section]]] = {
        "gpio": GpioConfig,
        "buzzer": BuzzerConfig,
        "serial": SerialConfig,
        "console": ConsoleConfig,
        "web": WebConfig,
    }

    def _check(self) -> None:
        for name, section in self.SECTIONS.items():
            if not isinstance(getattr(self, name), section):
                raise ConfigError(f"expected a {section.__name__}", self.key(name))


_S = TypeVar("_S", bound=_Section)


def config_from_dict(table: Mapping[str, Any]) -> SignalsConfig:
    """Builds the config from the parsed `[signals]` table; missing keys take their defaults."""
    values = dict(_known_keys(SignalsConfig, table, "signals"))
    for name, section in SignalsConfig.SECTIONS.items():
        if name in values:
            values[name] = _section(section, values[name], f"signals.{name}")
    return SignalsConfig(**values)


def load_config(path: str | os.PathLike[str]) -> SignalsConfig:
    """Reads the `[signals]` tables of the TOML file at `path` (no such table: all defaults)."""
    source = os.fspath(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc.strerror}", source=source) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"not valid TOML: {exc}", source=source) from None
    try:
        return config_from_dict(data.get("signals", {}))
    except ConfigError as exc:
        raise ConfigError(exc.message, exc.key, source=source) from None


def _section(cls: type[_S], table: object, key: str) -> _S:
    return cls(**_known_keys(cls, table, key))


def _known_keys(cls: type[_Section], table: object, key: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError(f"must be a table ([{key}]), got {table!r}", key)
    known = [f.name for f in dataclasses.fields(cls)]
    for name in table:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(known)}"
            raise ConfigError(f"unknown key{hint}", f"{key}.{name}")
    return table
