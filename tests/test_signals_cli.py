"""`referee signals-test`, the wiring check."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from referee.signals import GpioConfig, cli


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(["signals-test", *argv])
    status: int = args.func(args)
    return status


def test_shows_every_kind_and_reports_the_led_controller(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "referee.toml"
    config.write_text(
        '[signals.gpio]\nenabled = false\n[signals.serial]\nurl = "loop://"\nack = false\n'
    )
    assert run("--config", str(config), "--step", "0", "--buttons", "0", "--teaching") == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:7]] == [
        "WAITING", "LEGAL", "ILLEGAL", "RE-THROW", "CHECK", "GAME", "IDLE"
    ]  # fmt: skip
    assert "(legal: 3, 9)" in lines[2]
    assert lines[7] == "LED controller on loop://: connected (acknowledgements off)"


def test_bad_config_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "referee.toml"
    config.write_text("[signals.gpio]\nred_led = 17\n")
    assert run("--config", str(config)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "signals.gpio.red_led: GPIO 17 is already used by signals.gpio.green_led" in err


def test_echoes_button_presses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Device.pin_factory = MockFactory()
    try:
        press = threading.Timer(0.1, Device.pin_factory.pin(GpioConfig().demand_button).drive_low)
        press.start()
        assert run("--step", "0", "--buttons", "0.5") == 0
        press.join()
        Device.pin_factory.pin(GpioConfig().demand_button).drive_high()
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None
    assert "button: demand" in capsys.readouterr().out
