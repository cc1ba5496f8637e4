"""The signals configuration: the example file, defaults, and errors that name the bad key."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from referee.signals import (
    BuzzerConfig,
    BuzzerPattern,
    ConfigError,
    ConsoleSignals,
    GpioConfig,
    Kind,
    SerialLedController,
    SignalsConfig,
    config_from_dict,
    load_config,
    signals_from_config,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "hardware" / "referee.example.toml"


def test_example_file_documents_the_defaults() -> None:
    assert load_config(EXAMPLE) == SignalsConfig()


def test_missing_tables_take_defaults_and_other_tables_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "referee.toml"
    path.write_text('[camera]\ndevice = 0\n\n[signals.serial]\nurl = "loop://"\nack = false\n')
    config = load_config(path)
    assert config.serial.url == "loop://"
    assert not config.serial.ack
    assert config.gpio == GpioConfig()


def test_whole_seconds_may_be_integers() -> None:
    config = config_from_dict({"buzzer": {"long_s": 1}})
    assert config.buzzer.long_s == 1.0
    assert isinstance(config.buzzer.long_s, float)


def test_patterns_from_codes() -> None:
    buzzer = BuzzerConfig(short_s=0.1, long_s=0.5, gap_s=0.2, unsure="sl")
    assert buzzer.pattern(Kind.UNSURE) == BuzzerPattern(((0.1, 0.2), (0.5, 0.2)))
    assert buzzer.pattern(Kind.LEGAL) == BuzzerPattern()
    assert buzzer.pattern(Kind.ILLEGAL).duration == pytest.approx(3 * 0.7)


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ({"gpio": {"gren_led": 4}}, "signals.gpio.gren_led", "did you mean 'green_led'"),
        ({"gpio": {"red_led": True}}, "signals.gpio.red_led", "expected an integer"),
        ({"gpio": {"red_led": 40}}, "signals.gpio.red_led", "not a BCM GPIO number"),
        ({"gpio": {"red_led": 17}}, "signals.gpio.red_led", "already used by signals.gpio.green"),
        ({"gpio": {"new_game_hold_s": -1}}, "signals.gpio.new_game_hold_s", "at least 0"),
        ({"gpio": "17"}, "signals.gpio", "must be a table"),
        ({"buzzer": {"illegal": "LXL"}}, "signals.buzzer.illegal", "use only S and L"),
        ({"buzzer": {"short_s": "fast"}}, "signals.buzzer.short_s", "expected a number"),
        ({"serial": {"baudrate": 0}}, "signals.serial.baudrate", "at least 300"),
        ({"serial": {"reconnect_max_s": 0.1}}, "signals.serial.reconnect_max_s", "at least 0.5"),
        ({"console": {"colour": "sometimes"}}, "signals.console.colour", "auto, always, never"),
        ({"teaching": "yes"}, "signals.teaching", "true or false"),
        ({"sound": {}}, "signals.sound", "unknown key"),
    ],
)
def test_bad_values_name_their_key(table: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words) as caught:
        config_from_dict(table)
    assert caught.value.key == key
    assert str(caught.value).startswith(f"{key}: ")


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "referee.toml"
    path.write_text("[signals.gpio]\nred_led = 99\n")
    with pytest.raises(ConfigError, match=r"referee\.toml: signals\.gpio\.red_led: 99 is not"):
        load_config(path)
    path.write_text("[signals\n")
    with pytest.raises(ConfigError, match="not valid TOML") as caught:
        load_config(path)
    assert caught.value.key is None
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.toml")


def test_factory_builds_the_configured_sinks() -> None:
    config = config_from_dict(
        {"teaching": True, "gpio": {"enabled": False}, "serial": {"url": "loop://", "ack": False}}
    )
    with signals_from_config(config, stream=io.StringIO()) as hub:
        console, leds = hub.sinks
        assert isinstance(console, ConsoleSignals) and console.teaching
        assert isinstance(leds, SerialLedController) and leds.teaching
        assert leds.flush(timeout=2.0)
    assert hub.unavailable == {}
