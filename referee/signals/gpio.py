"""Lamps, a buzzer and buttons on the Raspberry Pi's GPIO header, driven through gpiozero."""

from __future__ import annotations

import enum
import logging
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import LED, BadPinFactory, Button, Buzzer, PinFactoryFallback

from referee.signals.buzzer import BuzzerPattern
from referee.signals.config import BuzzerConfig, GpioConfig
from referee.signals.errors import GpioUnavailable
from referee.signals.indication import Decision, Indication, Kind

logger = logging.getLogger(__name__)


class Lamp(enum.Enum):
    """The three lamps beside the board."""

    GREEN = "green"
    RED = "red"
    AMBER = "amber"


LAMPS: dict[Kind, frozenset[Lamp]] = {
    Kind.LEGAL: frozenset({Lamp.GREEN}),
    Kind.ILLEGAL: frozenset({Lamp.RED}),
    Kind.RETHROW: frozenset({Lamp.AMBER}),
    Kind.WAITING: frozenset({Lamp.AMBER}),
    Kind.UNSURE: frozenset({Lamp.AMBER}),
    Kind.GAME_OVER: frozenset({Lamp.GREEN, Lamp.AMBER}),
    Kind.IDLE: frozenset(),
}
"""The lamps lit for each kind of indication; the others are off."""


class GpioSignals:
    """Green, red and amber lamps, an active buzzer and three buttons on the GPIO header.

    `show` lights the lamps of `LAMPS` and sounds the kind's buzzer pattern; a new indication
    cuts a pattern still sounding short. With `background` (the default) patterns sound on a
    worker thread and `show` returns at once; without, `show` returns when the pattern ends.
    `sleep` replaces the wait between buzzer edges (tests pass one that returns at once).

    The buttons (to ground, internal pull-ups) call `on_decision` with ACCEPT, DEMAND or
    NEW_GAME, on gpiozero's thread; NEW_GAME only after being held `new_game_hold_s`.
    `pin_factory` is gpiozero's (None: its default, `Device.pin_factory`). The gpiozero devices
    are `lamps` (by `Lamp`), `buzzer` and `buttons` (by `Decision`).

    Raises `GpioUnavailable` when the pins cannot be driven, e.g. off a Raspberry Pi.
    """

    def __init__(
        self,
        config: GpioConfig | None = None,
        patterns: Mapping[Kind, BuzzerPattern] | None = None,
        *,
        on_decision: Callable[[Decision], None] | None = None,
        sleep: Callable[[float], object] | None = None,
        background: bool = True,
        pin_factory: Any = None,
    ) -> None:
        config = config if config is not None else GpioConfig()
        self.patterns = dict(patterns) if patterns is not None else BuzzerConfig().patterns()
        self.on_decision = on_decision
        self._devices: list[Any] = []
        self._cut = threading.Event()
        # The default wait ends early when `_cut` is set, so a new pattern starts at once.
        self._sleep = sleep if sleep is not None else self._cut.wait
        self._cond = threading.Condition()
        self._pending: BuzzerPattern | None = None
        self._busy = False
        self._closed = False
        try:
            with warnings.catch_warnings():
                # gpiozero warns once per pin library it fails to load; the error says it all.
                warnings.simplefilter("ignore", PinFactoryFallback)
                self._make_devices(config, pin_factory)
        except BadPinFactory as exc:
            self._close_devices()
            raise GpioUnavailable(
                "no GPIO on this machine: gpiozero found no pin library (not a Raspberry Pi, "
                f"or python3-lgpio missing) ({exc})"
            ) from exc
        except Exception as exc:  # lgpio, RPi.GPIO and the kernel raise many kinds of error
            self._close_devices()
            raise GpioUnavailable(
                f"cannot drive the GPIO pins: {type(exc).__name__}: {exc} (is the user in "
                "the gpio group? is another program using the pins?)"
            ) from exc
        self._worker: threading.Thread | None = None
        if background:
            self._worker = threading.Thread(target=self._run, name="referee-buzzer", daemon=True)
            self._worker.start()

    def _make_devices(self, config: GpioConfig, pin_factory: Any) -> None:
        def add(device: Any) -> Any:
            self._devices.append(device)
            return device

        self.lamps: dict[Lamp, Any] = {
            Lamp.GREEN: add(LED(config.green_led, pin_factory=pin_factory)),
            Lamp.RED: add(LED(config.red_led, pin_factory=pin_factory)),
            Lamp.AMBER: add(LED(config.amber_led, pin_factory=pin_factory)),
        }
        self.buzzer: Any = add(Buzzer(config.buzzer, pin_factory=pin_factory))
        bounce = config.bounce_s or None
        hold = config.new_game_hold_s
        self.buttons: dict[Decision, Any] = {}
        for decision, pin in (
            (Decision.ACCEPT, config.accept_button),
            (Decision.DEMAND, config.demand_button),
            (Decision.NEW_GAME, config.new_game_button),
        ):
            held = decision is Decision.NEW_GAME and hold > 0
            extra = {"hold_time": hold} if held else {}
            button = add(
                Button(pin, pull_up=True, bounce_time=bounce, pin_factory=pin_factory, **extra)
            )
            if held:
                button.when_held = self._decider(decision)
            else:
                button.when_pressed = self._decider(decision)
            self.buttons[decision] = button

    def show(self, indication: Indication) -> None:
        """Lights the lamps for `indication` and sounds its buzzer pattern."""
        lit = LAMPS[indication.kind]
        for lamp, led in self.lamps.items():
            if lamp in lit:
                led.on()
            else:
                led.off()
        pattern = self.patterns.get(indication.kind, BuzzerPattern())
        if self._worker is None:
            self._play(pattern)
            return
        with self._cond:
            self._pending = pattern
            self._cut.set()
            self._cond.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Waits until the buzzer is quiet; False if `timeout` seconds passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending is None and not self._busy, timeout)

    def close(self) -> None:
        """Silences the buzzer, turns the lamps off and releases the pins."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cut.set()
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=2.0)
        self._close_devices()

    def _close_devices(self) -> None:
        for device in self._devices:
            # Output devices keep their last state when closed: switch them off first.
            if hasattr(device, "off"):
                device.off()
            device.close()
        self._devices.clear()

    def _decider(self, decision: Decision) -> Callable[[], None]:
        def decide() -> None:
            logger.debug("button: %s", decision.value)
            if self.on_decision is None:
                return
            try:
                self.on_decision(decision)
            except Exception as exc:  # an exception would end gpiozero's callback thread
                logger.warning("handling the %s button failed: %s", decision.value, exc)

        return decide

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending is not None or self._closed)
                if self._closed:
                    return
                pattern, self._pending = self._pending, None
                self._cut.clear()
                self._busy = True
            try:
                if pattern is not None:
                    self._play(pattern)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _play(self, pattern: BuzzerPattern) -> None:
        for on_s, off_s in pattern.beeps:
            if self._cut.is_set():
                break
            self.buzzer.on()
            self._sleep(on_s)
            self.buzzer.off()
            if self._cut.is_set():
                break
            self._sleep(off_s)
