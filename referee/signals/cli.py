"""`referee signals-test`: shows every kind of indication in turn and echoes the buttons.

For checking the wiring of a new table (hardware/wiring.md) before the first game.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from referee.signals.config import SignalsConfig, load_config
from referee.signals.errors import ConfigError
from referee.signals.factory import signals_from_config
from referee.signals.gpio import GpioSignals
from referee.signals.indication import BAR, Indication, Kind
from referee.signals.serial_leds import SerialLedController
from referee.signals.web import WebSignals

DEMO: tuple[Indication, ...] = (
    Indication(Kind.WAITING, "waiting for a throw (amber)"),
    Indication(Kind.LEGAL, "a legal move (green)"),
    Indication(
        Kind.ILLEGAL, "an illegal move (red, three long beeps)", points=(5,), destinations=(3, 9)
    ),
    Indication(Kind.RETHROW, "a void throw: throw again (amber, two short beeps)"),
    Indication(Kind.UNSURE, "please check point 12 and the bar (amber)", points=(12, BAR)),
    Indication(Kind.GAME_OVER, "game over (green and amber)"),
    Indication(Kind.IDLE, "all off"),
)
"""The indications shown, in order: one of each kind."""


def register(subparsers: Any) -> None:
    """Adds the `signals-test` command to the `referee` command's sub-parsers."""
    parser = subparsers.add_parser(
        "signals-test",
        help="show each signal in turn and echo button presses, to check the wiring",
        description="Shows every kind of indication on the configured lamps, buzzer, LED strip, "
        "console and web page, then prints the buttons pressed.",
    )
    parser.add_argument(
        "--config", type=Path, help="the referee's TOML file (default: built-in defaults)"
    )
    parser.add_argument(
        "--step", type=float, default=2.0, help="seconds each indication stays (default 2)"
    )
    parser.add_argument(
        "--buttons",
        type=float,
        default=10.0,
        help="seconds to wait for button presses at the end (default 10; 0 skips)",
    )
    parser.add_argument(
        "--teaching", action="store_true", help="show the legal destinations (teaching mode)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Runs `referee signals-test`; returns the exit status (2: bad configuration)."""
    try:
        config = load_config(args.config) if args.config else SignalsConfig()
    except ConfigError as exc:
        print(f"referee signals-test: {exc}", file=sys.stderr)
        return 2
    if args.teaching:
        config = dataclasses.replace(config, teaching=True)
    with signals_from_config(config) as hub:
        for sink in hub.sinks:
            if isinstance(sink, WebSignals):
                print(f"web page: {sink.url}")
        for indication in DEMO:
            hub.show(indication)
            time.sleep(args.step)
        for sink in hub.sinks:
            if isinstance(sink, SerialLedController):
                # Give a board that resets on opening the time to boot and answer.
                if sink.flush(timeout=sink.hello_timeout + 1.0):
                    state = f"connected ({sink.firmware or 'acknowledgements off'})"
                else:
                    state = f"not connected: {sink.last_error}"
                print(f"LED controller on {sink.url}: {state}")
        if args.buttons > 0 and any(isinstance(sink, GpioSignals) for sink in hub.sinks):
            print(f"Press the buttons within {args.buttons:g} s.")
            deadline = time.monotonic() + args.buttons
            while (left := deadline - time.monotonic()) > 0:
                decision = hub.next_decision(timeout=left)
                if decision is not None:
                    print(f"button: {decision.value}")
    return 0
