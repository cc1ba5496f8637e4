"""SerialLedController: protocol lines, acknowledgements, absent port, unplug and reconnect."""

from __future__ import annotations

import io
import logging
import os
import re
import select
import threading
import time
from collections.abc import Callable, Iterator
from functools import reduce
from operator import xor
from pathlib import Path
from typing import Any, ClassVar

import pytest
import serial

from referee.signals import (
    BAR,
    OFF,
    ConsoleSignals,
    Indication,
    Kind,
    ProtocolError,
    SerialLedController,
    SignalHub,
)
from referee.signals.serial_leds import commands, decode, encode

ROOT = Path(__file__).resolve().parents[1]
FAST: dict[str, Any] = {
    "ack_timeout": 0.3,
    "hello_timeout": 1.0,
    "reconnect_min": 0.02,
    "reconnect_max": 0.1,
}


def framed(body: str) -> bytes:
    """A protocol line, built independently of the code under test."""
    return f"{body}*{reduce(xor, body.encode(), 0):02X}\n".encode()


def wait_until(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class FakeController:
    """A firmware stand-in on the master side of a pseudo-terminal: checks lines, answers."""

    def __init__(self, link: Path, *, refuse: str | None = None, silent: bool = False) -> None:
        self.master, self.slave = os.openpty()
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.ttyname(self.slave))
        self.refuse = refuse
        self.silent = silent
        self.received: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        buffer = b""
        while not self._stop.is_set():
            if not select.select([self.master], [], [], 0.02)[0]:
                continue
            try:
                buffer += os.read(self.master, 1024)
            except OSError:
                return
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                self._answer(line.decode())

    def _answer(self, line: str) -> None:
        body, _, check = line.rpartition("*")
        if f"{reduce(xor, body.encode(), 0):02X}" != check:
            reply = "ERR 1 checksum"
        elif body == "HELLO 1":
            reply = "OK HELLO 1 fake-leds"
        elif body == self.refuse:
            reply = "ERR 3 bad argument"
        else:
            reply = "OK"
        self.received.append(body)
        if not self.silent:
            os.write(self.master, framed(reply))

    def unplug(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "ttyLEDS"


@pytest.fixture
def device(link: Path) -> Iterator[FakeController]:
    fake = FakeController(link)
    yield fake
    fake.unplug()


def test_lines_are_checksummed_and_round_trip() -> None:
    assert encode("P 5 R") == framed("P 5 R") == b"P 5 R*37\n"
    assert decode(b"OK*04\r\n") == "OK"
    with pytest.raises(ProtocolError, match="checksum"):
        decode(b"OK*05\n")
    with pytest.raises(ProtocolError):
        decode(b"garbage\n")


def test_commands_for_each_kind() -> None:
    illegal = Indication(Kind.ILLEGAL, points=(5,), destinations=(3, OFF))
    assert commands(illegal) == ["CLR", "P 5 R", "SHOW"]
    assert commands(illegal, teaching=True) == ["CLR", "P 0 G", "P 3 G", "P 5 R", "SHOW"]
    assert commands(Indication(Kind.RETHROW)) == ["ALL A", "SHOW"]
    assert commands(Indication(Kind.UNSURE, points=(BAR, 12))) == [
        "CLR",
        "P 12 A",
        "P 25 A",
        "SHOW",
    ]
    assert commands(Indication(Kind.GAME_OVER)) == ["ALL G", "SHOW"]
    assert commands(Indication(Kind.IDLE, points=(4,))) == ["CLR", "SHOW"]


def test_loop_receives_the_exact_protocol_lines() -> None:
    port = serial.serial_for_url("loop://", timeout=0.1)
    leds = SerialLedController(
        "loop://", teaching=True, ack=False, opener=lambda url, **kw: port, **FAST
    )
    leds.show(Indication(Kind.ILLEGAL, "closed point", points=(5,), destinations=(3, 9)))
    assert leds.flush(timeout=2.0)
    expected = [framed(b) for b in ("HELLO 1", "CLR", "P 3 G", "P 9 G", "P 5 R", "SHOW")]
    assert port.read(port.in_waiting) == b"".join(expected)
    leds.close()


def test_pty_device_acknowledges_every_command(device: FakeController, link: Path) -> None:
    leds = SerialLedController(str(link), **FAST)
    leds.show(Indication(Kind.ILLEGAL, points=(17,)))
    assert leds.flush(timeout=3.0)
    assert leds.connected
    assert leds.firmware == "fake-leds"
    assert device.received == ["HELLO 1", "CLR", "P 17 R", "SHOW"]
    leds.show(Indication(Kind.RETHROW))
    assert leds.flush(timeout=3.0)
    leds.close()
    # Closing turns the lights off.
    assert device.received[4:] == ["ALL A", "SHOW", "CLR", "SHOW"]


def test_a_refused_command_is_logged_and_the_frame_goes_on(
    link: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeController(link, refuse="P 17 R")
    leds = SerialLedController(str(link), **FAST)
    with caplog.at_level(logging.WARNING):
        leds.show(Indication(Kind.ILLEGAL, points=(17,)))
        assert leds.flush(timeout=3.0)
    assert "refused 'P 17 R': ERR 3 bad argument" in caplog.text
    assert fake.received[-1] == "SHOW"
    assert leds.connected
    leds.close()
    fake.unplug()


def test_absent_port_falls_back_and_the_console_goes_on(tmp_path: Path) -> None:
    out = io.StringIO()
    leds = SerialLedController(str(tmp_path / "no-such-tty"), **FAST)
    hub = SignalHub([leds, ConsoleSignals(out)])
    hub.show(Indication(Kind.ILLEGAL, "wrong direction", points=(8,)))
    assert not leds.flush(timeout=0.2)
    assert not leds.connected
    assert leds.last_error is not None and "no LED controller" in leds.last_error
    assert out.getvalue() == "ILLEGAL   point 8: wrong direction\n"
    hub.close()


def test_silent_device_is_not_taken_for_a_controller(link: Path) -> None:
    fake = FakeController(link, silent=True)
    leds = SerialLedController(str(link), **{**FAST, "hello_timeout": 0.3})
    assert wait_until(lambda: leds.last_error is not None)
    assert "no answer to HELLO" in str(leds.last_error)
    assert not leds.connected
    leds.close()
    fake.unplug()


def test_unplugged_mid_game_reconnects_when_the_port_returns(
    device: FakeController, link: Path
) -> None:
    leds = SerialLedController(str(link), **FAST)
    leds.show(Indication(Kind.LEGAL))
    assert leds.flush(timeout=3.0)

    device.unplug()
    link.unlink()
    leds.show(Indication(Kind.ILLEGAL, points=(3,)))  # the write fails: no exception here
    assert wait_until(lambda: not leds.connected)
    assert leds.last_error is not None

    replugged = FakeController(link)
    assert leds.flush(timeout=3.0)
    assert replugged.received == ["HELLO 1", "CLR", "P 3 R", "SHOW"]
    leds.close()
    replugged.unplug()


def test_write_error_marks_disconnected_then_reconnects() -> None:
    class FlakyPort:
        """A port whose first two opens fail, then whose writes fail once."""

        opened = 0
        written: ClassVar[list[bytes]] = []
        broken = True

        def __init__(self, url: str, **kwargs: Any) -> None:
            FlakyPort.opened += 1
            if FlakyPort.opened <= 2:
                raise serial.SerialException(f"could not open port {url}")

        def reset_input_buffer(self) -> None:
            pass

        def write(self, data: bytes) -> int:
            if FlakyPort.broken and data.startswith(b"CLR"):
                FlakyPort.broken = False
                raise serial.SerialException("write failed: [Errno 5] Input/output error")
            FlakyPort.written.append(data)
            return len(data)

        def close(self) -> None:
            pass

    leds = SerialLedController("/dev/ttyFLAKY", ack=False, opener=FlakyPort, **FAST)
    leds.show(Indication(Kind.ILLEGAL, points=(9,)))
    assert leds.flush(timeout=3.0)
    assert FlakyPort.opened == 4  # two failed opens, one lost on writing, one that works
    assert b"".join(FlakyPort.written).endswith(framed("CLR") + framed("P 9 R") + framed("SHOW"))
    assert leds.last_error is not None and "write failed" in leds.last_error
    leds.close()


def test_protocol_doc_examples_have_correct_checksums() -> None:
    doc = (ROOT / "hardware" / "serial_protocol.md").read_text(encoding="utf-8")
    examples = re.findall(r"`([A-Z][^`*]*)\*([0-9A-F]{2})`", doc)
    assert len(examples) >= 10
    for body, check in examples:
        assert encode(body) == f"{body}*{check}\n".encode(), body
