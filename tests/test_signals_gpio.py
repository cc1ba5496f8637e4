"""GpioSignals on gpiozero's mock pins: lamps, buzzer patterns, buttons, no-GPIO fallback."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from referee.signals import (
    BuzzerConfig,
    Decision,
    GpioConfig,
    GpioSignals,
    GpioUnavailable,
    Indication,
    Kind,
    SignalsConfig,
    signals_from_config,
)

PINS = GpioConfig()


@pytest.fixture
def mock_pins() -> Iterator[Any]:
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


def states(factory: Any, pin: int) -> list[bool]:
    return [s.state for s in factory.pin(pin).states]


def wait_until(condition: Callable[[], bool], timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def make(**kwargs: Any) -> tuple[GpioSignals, list[float]]:
    slept: list[float] = []
    kwargs.setdefault("background", False)
    gpio = GpioSignals(PINS, sleep=slept.append, **kwargs)
    return gpio, slept


def test_illegal_lights_red_only(mock_pins: Any) -> None:
    gpio, _ = make()
    gpio.show(Indication(Kind.ILLEGAL, "moved onto a closed point", points=(5,)))
    assert mock_pins.pin(PINS.red_led).state
    assert not mock_pins.pin(PINS.green_led).state
    assert not mock_pins.pin(PINS.amber_led).state
    gpio.close()


@pytest.mark.parametrize(
    ("kind", "green", "red", "amber"),
    [
        (Kind.LEGAL, True, False, False),
        (Kind.RETHROW, False, False, True),
        (Kind.WAITING, False, False, True),
        (Kind.UNSURE, False, False, True),
        (Kind.GAME_OVER, True, False, True),
        (Kind.IDLE, False, False, False),
    ],
)
def test_lamps_per_kind(mock_pins: Any, kind: Kind, green: bool, red: bool, amber: bool) -> None:
    gpio, _ = make()
    gpio.show(Indication(Kind.ILLEGAL))  # start from red, so every lamp must be set anew
    gpio.show(Indication(kind))
    lit = [mock_pins.pin(p).state for p in (PINS.green_led, PINS.red_led, PINS.amber_led)]
    assert lit == [green, red, amber]
    gpio.close()


def test_illegal_buzzer_sounds_three_long_beeps(mock_pins: Any) -> None:
    gpio, slept = make()
    gpio.show(Indication(Kind.ILLEGAL))
    assert states(mock_pins, PINS.buzzer) == [False, True, False, True, False, True, False]
    buzzer = BuzzerConfig()
    assert slept == [buzzer.long_s, buzzer.gap_s] * 3
    gpio.close()


def test_buzzer_patterns_are_configurable(mock_pins: Any) -> None:
    buzzer = BuzzerConfig(short_s=0.05, gap_s=0.02, legal="S", rethrow="SS")
    gpio, slept = make(patterns=buzzer.patterns())
    gpio.show(Indication(Kind.LEGAL))
    gpio.show(Indication(Kind.WAITING))  # silent
    gpio.show(Indication(Kind.RETHROW))
    assert states(mock_pins, PINS.buzzer) == [False, True, False, True, False, True, False]
    assert slept == [0.05, 0.02] * 3
    gpio.close()


def test_background_pattern_is_cut_short_by_the_next_indication(mock_pins: Any) -> None:
    # Real waits here: a long illegal pattern, interrupted by a silent indication.
    patterns = BuzzerConfig(long_s=5.0).patterns()
    gpio = GpioSignals(PINS, patterns)
    started = time.monotonic()
    gpio.show(Indication(Kind.ILLEGAL))
    assert wait_until(lambda: mock_pins.pin(PINS.buzzer).state)
    gpio.show(Indication(Kind.LEGAL))
    assert gpio.wait(timeout=2.0)
    assert time.monotonic() - started < 2.0
    assert not mock_pins.pin(PINS.buzzer).state
    assert states(mock_pins, PINS.buzzer) == [False, True, False]
    gpio.close()


def test_accept_button_press_delivers_accept(mock_pins: Any) -> None:
    got: list[Decision] = []
    gpio, _ = make(on_decision=got.append)
    mock_pins.pin(PINS.accept_button).drive_low()
    mock_pins.pin(PINS.accept_button).drive_high()
    assert wait_until(lambda: got == [Decision.ACCEPT])
    mock_pins.pin(PINS.demand_button).drive_low()
    assert wait_until(lambda: got == [Decision.ACCEPT, Decision.DEMAND])
    mock_pins.pin(PINS.demand_button).drive_high()  # a held button makes closing wait
    gpio.close()


def test_new_game_needs_a_hold(mock_pins: Any) -> None:
    got: list[Decision] = []
    config = GpioConfig(new_game_hold_s=0.1, bounce_s=0)
    gpio = GpioSignals(config, on_decision=got.append, background=False)
    pin = mock_pins.pin(config.new_game_button)
    pin.drive_low()  # a bump: pressed and released at once
    pin.drive_high()
    time.sleep(0.2)
    assert got == []
    pin.drive_low()
    assert wait_until(lambda: got == [Decision.NEW_GAME])
    pin.drive_high()
    gpio.close()


def test_button_decisions_reach_the_hub_queue(mock_pins: Any) -> None:
    config = SignalsConfig()
    with signals_from_config(config, stream=io.StringIO()) as hub:
        mock_pins.pin(config.gpio.accept_button).drive_low()
        assert hub.next_decision(timeout=2.0) is Decision.ACCEPT
        assert hub.next_decision() is None
        mock_pins.pin(config.gpio.accept_button).drive_high()


def test_a_failing_decision_handler_is_logged_not_raised(
    mock_pins: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(decision: Decision) -> None:
        raise RuntimeError("session not ready")

    gpio, _ = make(on_decision=broken)
    with caplog.at_level(logging.WARNING):
        mock_pins.pin(PINS.accept_button).drive_low()
        assert wait_until(lambda: "session not ready" in caplog.text)
    mock_pins.pin(PINS.accept_button).drive_high()
    gpio.close()


def test_close_turns_everything_off_and_frees_the_pins(mock_pins: Any) -> None:
    gpio, _ = make()
    gpio.show(Indication(Kind.GAME_OVER))
    gpio.close()
    gpio.close()
    assert not any(mock_pins.pin(p).state for p in (PINS.green_led, PINS.amber_led, PINS.buzzer))
    # Freed: the same pins can be claimed again.
    GpioSignals(PINS, background=False).close()


def test_no_pin_factory_raises_gpio_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    Device.pin_factory = None
    try:
        GpioSignals(PINS).close()
    except GpioUnavailable as exc:
        assert "no GPIO on this machine" in str(exc)
    else:
        pytest.skip("this machine has real GPIO")
    finally:
        Device.pin_factory = None


def test_factory_skips_gpio_with_a_message_off_a_pi(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    Device.pin_factory = None
    out = io.StringIO()
    with caplog.at_level(logging.WARNING), signals_from_config(SignalsConfig(), stream=out) as hub:
        hub.show(Indication(Kind.ILLEGAL, "wrong direction", points=(7,)))
    Device.pin_factory = None
    assert "gpio" in hub.unavailable
    assert "lamps, buzzer and buttons off" in caplog.text
    assert "Traceback" not in caplog.text
    assert out.getvalue().startswith("ILLEGAL")


def test_pins_in_use_become_gpio_unavailable(mock_pins: Any) -> None:
    first = GpioSignals(PINS, background=False)
    with pytest.raises(GpioUnavailable, match="cannot drive the GPIO pins"):
        GpioSignals(PINS, background=False)
    first.close()
