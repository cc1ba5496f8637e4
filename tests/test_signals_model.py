"""Indications, decisions, the hub's fan-out and the console sink."""

from __future__ import annotations

import io
import logging

import pytest

from referee.signals import (
    BAR,
    OFF,
    ConsoleSignals,
    Decision,
    Indication,
    Kind,
    SignalHub,
    SignalSink,
    format_indication,
    physical_point,
)


class Recorder:
    """A sink that remembers what it was shown."""

    def __init__(self) -> None:
        self.shown: list[Indication] = []
        self.closed = False

    def show(self, indication: Indication) -> None:
        self.shown.append(indication)

    def close(self) -> None:
        self.closed = True


class Broken:
    """A sink whose device has gone away."""

    def show(self, indication: Indication) -> None:
        raise OSError("device unplugged")

    def close(self) -> None:
        raise OSError("device unplugged")


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_points_are_sorted_unique_and_checked() -> None:
    indication = Indication(Kind.ILLEGAL, points=(7, 3, 7), destinations=(BAR, OFF))
    assert indication.points == (3, 7)
    assert indication.destinations == (OFF, BAR)
    assert indication == Indication(Kind.ILLEGAL, points=(3, 7), destinations=(0, 25))
    for bad in (26, -1, True, 2.0):
        with pytest.raises(ValueError, match="points"):
            Indication(Kind.ILLEGAL, points=(bad,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        Indication(Kind.LEGAL, confidence=1.5)
    with pytest.raises(TypeError):
        Indication("illegal")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("point", "black", "long_nardy", "expected"),
    [
        (5, False, False, 5),
        (5, True, False, 20),  # short nardy: opposite directions
        (24, True, True, 12),  # long nardy: Black's head is White's 12
        (1, True, True, 13),
        (12, True, True, 24),
        (BAR, True, False, BAR),
        (OFF, True, True, OFF),
    ],
)
def test_physical_point(point: int, black: bool, long_nardy: bool, expected: int) -> None:
    assert physical_point(point, black=black, long_nardy=long_nardy) == expected


def test_hub_fans_out_and_survives_a_broken_sink(caplog: pytest.LogCaptureFixture) -> None:
    first, last = Recorder(), Recorder()
    hub = SignalHub([first, Broken(), last])
    illegal = Indication(Kind.ILLEGAL, "moved backwards", points=(4,))
    with caplog.at_level(logging.WARNING):
        hub.show(illegal)
        hub.close()
    assert first.shown == last.shown == [illegal]
    assert first.closed and last.closed
    assert "Broken failed to show illegal: device unplugged" in caplog.text
    assert "Traceback" not in caplog.text


def test_hub_does_not_repeat_an_indication_and_catches_up_new_sinks() -> None:
    early, late = Recorder(), Recorder()
    hub = SignalHub([early])
    waiting = Indication(Kind.WAITING, "throw the dice")
    hub.show(waiting)
    hub.show(Indication(Kind.WAITING, "throw the dice"))
    hub.add(late)
    hub.show(Indication(Kind.LEGAL))
    assert early.shown == [waiting, Indication(Kind.LEGAL)]
    assert late.shown == [waiting, Indication(Kind.LEGAL)]


def test_hub_decisions_arrive_in_order() -> None:
    with SignalHub() as hub:
        assert hub.next_decision() is None
        hub.post_decision(Decision.DEMAND)
        hub.post_decision(Decision.NEW_GAME)
        assert hub.next_decision(timeout=1.0) is Decision.DEMAND
        assert hub.next_decision(timeout=None) is Decision.NEW_GAME
        assert hub.next_decision(timeout=0.01) is None


def test_every_sink_satisfies_the_protocol() -> None:
    assert isinstance(ConsoleSignals(io.StringIO()), SignalSink)
    assert isinstance(SignalHub(), SignalSink)
    assert isinstance(Recorder(), SignalSink)


def test_console_lines() -> None:
    illegal = Indication(
        Kind.ILLEGAL,
        "landed on a closed point",
        points=(5,),
        destinations=(3, OFF),
        confidence=0.93,
    )
    assert format_indication(illegal) == "ILLEGAL   point 5: landed on a closed point [93%]"
    assert format_indication(illegal, teaching=True) == (
        "ILLEGAL   point 5: landed on a closed point (legal: off, 3) [93%]"
    )
    assert format_indication(Indication(Kind.UNSURE, points=(BAR, 2))) == "CHECK     points 2, bar"
    assert format_indication(Indication(Kind.IDLE)) == "IDLE"


def test_console_colours_only_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    rethrow = Indication(Kind.RETHROW, "a die left the board")
    plain, tty = io.StringIO(), TtyStream()
    ConsoleSignals(plain).show(rethrow)
    ConsoleSignals(tty).show(rethrow)
    assert plain.getvalue() == "RE-THROW  a die left the board\n"
    assert tty.getvalue() == "\x1b[33mRE-THROW  a die left the board\x1b[0m\n"
    monkeypatch.setenv("NO_COLOR", "1")
    assert not ConsoleSignals(TtyStream()).colour
    assert ConsoleSignals(io.StringIO(), colour=True).colour
