"""A serial-attached LED controller with one light per point (hardware/serial_protocol.md).

The controller lights the points an indication is about (the offending point in red) and, in
teaching mode, the throw's legal destinations in green. It never stops the referee: a missing
or unplugged controller marks itself disconnected, and a worker thread reconnects with growing
waits when the port comes back, then shows the current indication again.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable
from functools import reduce
from operator import xor
from typing import Any

import serial

from referee.signals.config import SerialConfig
from referee.signals.errors import ProtocolError
from referee.signals.indication import Indication, Kind

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
MAX_LINE = 64
"""The longest line either side may send, in bytes, `*HH` and the newline included."""

ERR_CHECKSUM = "1"
ERR_VERSION = "4"

# How long one read waits for bytes; replies are awaited in such slices up to their deadline.
_READ_SLICE_S = 0.05
# How often HELLO is repeated while a board that resets on opening boots.
_HELLO_REPEAT_S = 0.5


class Colour(enum.Enum):
    """A light's colour, as the one-letter protocol code."""

    OFF = "O"
    RED = "R"
    GREEN = "G"
    AMBER = "A"


KIND_COLOURS: dict[Kind, Colour] = {
    Kind.LEGAL: Colour.GREEN,
    Kind.ILLEGAL: Colour.RED,
    Kind.RETHROW: Colour.AMBER,
    Kind.WAITING: Colour.AMBER,
    Kind.UNSURE: Colour.AMBER,
    Kind.GAME_OVER: Colour.GREEN,
    Kind.IDLE: Colour.OFF,
}
"""The colour of an indication's points."""

FILLED: frozenset[Kind] = frozenset({Kind.RETHROW, Kind.GAME_OVER})
"""Kinds that light the whole strip in their colour (a re-throw is for everyone to see)."""

DESTINATION_COLOUR = Colour.GREEN


def checksum(body: str) -> str:
    """The line checksum: XOR of the body's bytes, as two upper-case hex digits."""
    return f"{reduce(xor, body.encode('ascii'), 0):02X}"


def encode(body: str) -> bytes:
    """The line for a command or reply body: ``BODY*HH`` and a newline."""
    line = f"{body}*{checksum(body)}\n".encode("ascii")
    if len(line) > MAX_LINE:
        raise ValueError(f"line longer than {MAX_LINE} bytes: {line!r}")
    return line


def decode(line: bytes) -> str:
    """The body of a received line; raises `ProtocolError` on a bad frame or checksum."""
    text = line.decode("ascii", "replace").rstrip("\r\n")
    body, star, check = text.rpartition("*")
    if not star or len(check) != 2:
        raise ProtocolError(f"not a protocol line: {line!r}")
    if checksum(body) != check.upper():
        raise ProtocolError(f"bad checksum in {line!r}: expected {checksum(body)}")
    return body


def commands(indication: Indication, *, teaching: bool = False) -> list[str]:
    """The command bodies that show `indication`: one frame, from CLR (or ALL) to SHOW."""
    colour = KIND_COLOURS[indication.kind]
    bodies = [f"ALL {colour.value}" if indication.kind in FILLED else "CLR"]
    if teaching:
        bodies += [f"P {d} {DESTINATION_COLOUR.value}" for d in indication.destinations]
    # The points come after the destinations so that the offence's colour wins on a shared light.
    if colour is not Colour.OFF:
        bodies += [f"P {p} {colour.value}" for p in indication.points]
    bodies.append("SHOW")
    return bodies


class SerialLedController:
    """A serial LED controller, opened by URL (`serial.serial_for_url`).

    `show` only records the indication and returns: a worker thread owns the port, sends each
    new indication as one frame (hardware/serial_protocol.md) and, with `ack`, waits for every
    command's OK before the next. A port that cannot be opened, or fails to write or to answer,
    marks the controller disconnected (`connected`, `last_error`); the worker then retries after
    `reconnect_min` seconds, doubling the wait up to `reconnect_max`, and shows the current
    indication again once connected. `opener` replaces `serial.serial_for_url` (tests).
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        teaching: bool = False,
        ack: bool = True,
        ack_timeout: float = 0.5,
        hello_timeout: float = 3.0,
        reconnect_min: float = 0.5,
        reconnect_max: float = 10.0,
        opener: Callable[..., Any] | None = None,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.teaching = teaching
        self.ack = ack
        self.ack_timeout = ack_timeout
        self.hello_timeout = hello_timeout
        self.reconnect_min = reconnect_min
        self.reconnect_max = reconnect_max
        self.firmware: str | None = None
        """The firmware's name from its HELLO reply, once connected with `ack`."""
        self.last_error: str | None = None
        """Why the controller last failed to connect or was lost; None if it never did."""
        self._opener: Callable[..., Any] = opener if opener is not None else serial.serial_for_url
        self._cond = threading.Condition()
        self._port: Any = None
        self._wanted: Indication | None = None
        self._sent: Indication | None = None
        self._closed = False
        self._quiet = False  # True once a failure in the current run of failures was logged
        self._rx = b""
        self._worker = threading.Thread(target=self._run, name=f"referee-leds {url}", daemon=True)
        self._worker.start()

    @classmethod
    def from_config(cls, config: SerialConfig, *, teaching: bool = False) -> SerialLedController:
        """A controller for the `[signals.serial]` table."""
        return cls(
            config.url,
            baudrate=config.baudrate,
            teaching=teaching,
            ack=config.ack,
            ack_timeout=config.ack_timeout_s,
            hello_timeout=config.hello_timeout_s,
            reconnect_min=config.reconnect_min_s,
            reconnect_max=config.reconnect_max_s,
        )

    @property
    def connected(self) -> bool:
        """Whether the port is open and the controller answered (or `ack` is off)."""
        return self._port is not None

    def show(self, indication: Indication) -> None:
        """Shows `indication` as soon as the controller is connected; never blocks or raises."""
        with self._cond:
            self._wanted = indication
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Waits until the current indication is on the strip; False if `timeout` passed first."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._port is not None and self._sent == self._wanted, timeout
            )

    def close(self) -> None:
        """Turns the lights off when connected, closes the port and stops the worker."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._worker.join(timeout=self.hello_timeout + 2 * self.ack_timeout + 1.0)

    def _run(self) -> None:
        retry_in = 0.0
        while True:
            with self._cond:
                if self._port is None:
                    self._cond.wait_for(lambda: self._closed, timeout=retry_in)
                else:
                    self._cond.wait_for(lambda: self._closed or self._sent != self._wanted)
                if self._closed:
                    break
                port, wanted = self._port, self._wanted
            if port is None:
                # Connect without holding the lock: a handshake may take seconds, and `show`
                # must never wait for it.
                port = self._connect()
                with self._cond:
                    self._port, self._sent = port, None
                    self._cond.notify_all()
                retry_in = (
                    self.reconnect_min
                    if port is not None
                    else min(max(2 * retry_in, self.reconnect_min), self.reconnect_max)
                )
                continue
            try:
                if wanted is not None:
                    self._send(port, wanted)
            except (OSError, ProtocolError) as exc:  # serial.SerialException is an OSError
                self._fail(f"lost the LED controller on {self.url}: {exc}")
                self._close_port(port)
                with self._cond:
                    self._port = None
                continue
            with self._cond:
                self._sent = wanted
                self._cond.notify_all()
        self._shut_down()

    def _connect(self) -> Any:
        try:
            port = self._opener(
                self.url,
                baudrate=self.baudrate,
                timeout=_READ_SLICE_S,
                write_timeout=self.ack_timeout,
            )
        except (OSError, ValueError) as exc:
            self._fail(f"no LED controller on {self.url}: {exc}")
            return None
        try:
            self._hello(port)
        except (OSError, ProtocolError) as exc:
            self._fail(f"the LED controller on {self.url} did not greet: {exc}")
            self._close_port(port)
            return None
        logger.info("LED controller on %s connected (%s)", self.url, self.firmware or "no ack")
        self._quiet = False
        return port

    def _hello(self, port: Any) -> None:
        port.reset_input_buffer()
        self._rx = b""
        self.firmware = None
        deadline = time.monotonic() + self.hello_timeout
        while True:
            self._write(port, f"HELLO {PROTOCOL_VERSION}")
            if not self.ack:
                return
            # A board that resets when the port opens misses HELLOs while it boots: repeat.
            repeat_at = min(deadline, time.monotonic() + _HELLO_REPEAT_S)
            while (reply := self._read_line(port, repeat_at)) is not None:
                words = reply.split()
                if words[:3] == ["OK", "HELLO", str(PROTOCOL_VERSION)]:
                    self.firmware = " ".join(words[3:]) or "unnamed firmware"
                    return
                if words[:2] == ["ERR", ERR_VERSION]:
                    raise ProtocolError(f"it does not speak protocol {PROTOCOL_VERSION}: {reply}")
            if time.monotonic() >= deadline:
                raise ProtocolError(
                    f"no answer to HELLO within {self.hello_timeout:g} s (is it the LED "
                    f"controller, with protocol {PROTOCOL_VERSION} firmware, at {self.baudrate} "
                    "baud?)"
                )

    def _send(self, port: Any, indication: Indication) -> None:
        for body in commands(indication, teaching=self.teaching):
            self._command(port, body)

    def _command(self, port: Any, body: str) -> None:
        # Stop-and-wait: one command in flight, so a small receive buffer never overflows.
        for attempt in (1, 2):
            self._write(port, body)
            if not self.ack:
                return
            reply = self._read_ack(port, time.monotonic() + self.ack_timeout)
            if reply == "OK":
                return
            if reply.split()[1:2] == [ERR_CHECKSUM] and attempt == 1:
                continue  # the line was damaged on the way: send it once more
            logger.warning("the LED controller refused %r: %s", body, reply)
            return

    def _read_ack(self, port: Any, deadline: float) -> str:
        while (reply := self._read_line(port, deadline)) is not None:
            # Only OK and ERR answer a command; a late HELLO reply is skipped.
            if reply == "OK" or reply.startswith("ERR"):
                return reply
        raise ProtocolError(f"no answer within {self.ack_timeout:g} s")

    def _read_line(self, port: Any, deadline: float) -> str | None:
        """The next well-formed line's body, or None at `deadline`; other lines are skipped."""
        while time.monotonic() < deadline:
            self._rx += port.readline()
            if not self._rx.endswith(b"\n"):
                if len(self._rx) > MAX_LINE:
                    self._rx = b""  # noise without a newline: drop it
                continue
            line, self._rx = self._rx, b""
            try:
                return decode(line)
            except ProtocolError as exc:
                logger.debug("LED controller: %s", exc)
        return None

    def _write(self, port: Any, body: str) -> None:
        port.write(encode(body))

    def _fail(self, message: str) -> None:
        self.last_error = message
        if self._quiet:
            logger.debug("%s", message)
            return
        logger.warning("%s; carrying on without it, retrying in the background", message)
        self._quiet = True

    def _shut_down(self) -> None:
        port = self._port
        if port is None:
            return
        try:
            self._send(port, Indication(Kind.IDLE))
        except (OSError, ProtocolError) as exc:
            logger.debug("could not turn the LEDs off: %s", exc)
        self._close_port(port)
        self._port = None

    @staticmethod
    def _close_port(port: Any) -> None:
        try:
            port.close()
        except OSError as exc:
            logger.debug("closing the LED port: %s", exc)
