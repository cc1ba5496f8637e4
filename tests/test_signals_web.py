"""WebSignals: the page, /state, the event stream, port clashes, closing, slow browsers."""

from __future__ import annotations

import http.client
import io
import json
import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.rules import LongNardy
from referee.session import TableScript, save_script
from referee.signals import (
    BAR,
    OFF,
    ConfigError,
    Indication,
    Kind,
    SignalHub,
    WebConfig,
    WebSignals,
    WebUnavailable,
    config_from_dict,
    signals_from_config,
)

TIMEOUT_S = 5.0  # a read that waits this long has failed: the test fails instead of hanging

ILLEGAL = Indication(
    Kind.ILLEGAL,
    "Illegal 6-5: landed on a closed point; the closest legal play is 24/18 18/13.",
    points=(5,),
    destinations=(3, 9),
    confidence=0.93,
)


@pytest.fixture
def web() -> Iterator[WebSignals]:
    signals = WebSignals(port=0, teaching=True)
    yield signals
    signals.close()


def get(web: WebSignals, path: str) -> tuple[str, bytes]:
    """The content type and body of `path`."""
    with urllib.request.urlopen(f"http://127.0.0.1:{web.port}{path}", timeout=TIMEOUT_S) as answer:
        return answer.headers["Content-Type"], answer.read()


def state(web: WebSignals) -> dict[str, Any]:
    content_type, body = get(web, "/state")
    assert content_type == "application/json"
    result: dict[str, Any] = json.loads(body)
    return result


class EventStream:
    """An open ``/events`` stream, read one event at a time as a browser's EventSource would."""

    def __init__(self, web: WebSignals) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=TIMEOUT_S)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()

    def next_event(self) -> dict[str, Any] | None:
        """The next event's data as JSON, skipping comments and `retry`; None at the end."""
        data: list[str] = []
        while line := self.response.readline().decode("utf-8"):
            line = line.rstrip("\n")
            if line.startswith("data:"):
                data.append(line.removeprefix("data:").strip())
            elif not line and data:
                event: dict[str, Any] = json.loads("\n".join(data))
                return event
        return None

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def open_stream(web: WebSignals) -> Iterator[EventStream]:
    stream = EventStream(web)
    yield stream
    stream.close()


def test_state_shows_the_verdict_its_points_and_the_log(web: WebSignals) -> None:
    web.show(Indication(Kind.WAITING, "waiting for a throw"))
    web.show(ILLEGAL)
    shown = state(web)
    assert shown["kind"] == "illegal"
    assert shown["label"] == "ILLEGAL"
    assert shown["colour"] == "red"
    assert shown["message"] == ILLEGAL.message
    assert shown["points"] == [5]
    assert shown["destinations"] == [3, 9]
    assert shown["confidence"] == 0.93
    assert [entry["colour"] for entry in shown["log"]] == ["red", "amber"]  # latest first
    assert shown["log"][0]["text"].startswith("ILLEGAL   point 5: Illegal 6-5")
    assert "(legal: 3, 9) [93%]" in shown["log"][0]["text"]
    assert shown["log"][1]["text"] == "WAITING   waiting for a throw"


@pytest.mark.parametrize(
    ("kind", "colour"),
    [
        (Kind.LEGAL, "green"),
        (Kind.ILLEGAL, "red"),
        (Kind.RETHROW, "amber"),
        (Kind.WAITING, "amber"),
        (Kind.UNSURE, "amber"),
        (Kind.GAME_OVER, "green"),
        (Kind.IDLE, "off"),
    ],
)
def test_colour_of_each_kind(web: WebSignals, kind: Kind, colour: str) -> None:
    web.show(Indication(kind, "something"))
    assert state(web)["colour"] == colour


def test_before_any_verdict_the_page_is_idle(web: WebSignals) -> None:
    shown = state(web)
    assert (shown["kind"], shown["colour"]) == ("idle", "off")
    assert shown["points"] == shown["log"] == []


def test_destinations_only_in_teaching_mode() -> None:
    web = WebSignals(port=0)
    try:
        web.show(ILLEGAL)
        shown = state(web)
        assert shown["points"] == [5]
        assert shown["destinations"] == []
        assert not shown["teaching"]
    finally:
        web.close()


def test_bar_and_bear_off_lights(web: WebSignals) -> None:
    web.show(Indication(Kind.UNSURE, "please check", points=(BAR, 12), destinations=(OFF,)))
    shown = state(web)
    assert shown["points"] == [12, BAR]
    assert shown["destinations"] == [OFF]


def test_log_keeps_the_latest_lines() -> None:
    web = WebSignals(port=0, log_lines=2)
    try:
        for n in range(5):
            web.show(Indication(Kind.WAITING, f"wait {n}"))
        assert [entry["text"] for entry in state(web)["log"]] == [
            "WAITING   wait 4",
            "WAITING   wait 3",
        ]
    finally:
        web.close()


def test_page_is_self_contained(web: WebSignals) -> None:
    content_type, body = get(web, "/")
    page = body.decode("utf-8")
    assert content_type == "text/html; charset=utf-8"
    assert 'new EventSource("events")' in page
    # Nothing is fetched from anywhere: no external scripts, styles, fonts or images.
    assert "src=" not in page
    assert "<link" not in page
    assert "url(" not in page


def test_unknown_path_is_404(web: WebSignals) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        get(web, "/favicon.ico")
    assert caught.value.code == 404


def test_new_stream_gets_the_current_state_at_once_then_each_update(
    web: WebSignals, open_stream: EventStream
) -> None:
    # The fixture connected before anything was shown: the first event is the idle state.
    assert open_stream.response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
    first = open_stream.next_event()
    assert first is not None and first["kind"] == "idle"
    web.show(ILLEGAL)
    second = open_stream.next_event()
    assert second is not None
    assert (second["colour"], second["message"], second["points"]) == (
        "red",
        ILLEGAL.message,
        [5],
    )
    web.show(Indication(Kind.LEGAL, "Legal 6-5: 24/13."))
    third = open_stream.next_event()
    assert third is not None
    assert (third["colour"], third["message"], third["points"]) == (
        "green",
        "Legal 6-5: 24/13.",
        [],
    )
    late = EventStream(web)
    try:
        current = late.next_event()
        assert current is not None and current["message"] == "Legal 6-5: 24/13."
    finally:
        late.close()


def test_port_clash_raises_web_unavailable(web: WebSignals) -> None:
    with pytest.raises(
        WebUnavailable, match=re.escape(f"127.0.0.1:{web.port}: the port is in use")
    ):
        WebSignals(port=web.port)


def test_close_ends_open_streams_and_frees_the_port(
    web: WebSignals, open_stream: EventStream
) -> None:
    assert open_stream.next_event() is not None
    web.close()
    assert open_stream.next_event() is None  # the stream ended: no more events
    with pytest.raises(urllib.error.URLError):
        get(web, "/state")
    web.close()  # twice is harmless
    again = WebSignals(port=web.port)  # the port is free again
    again.close()


def test_a_browser_that_stops_reading_never_blocks_show(web: WebSignals) -> None:
    stalled = socket.create_connection(("127.0.0.1", web.port), timeout=TIMEOUT_S)
    stalled.sendall(b"GET /events HTTP/1.0\r\n\r\n")  # and never reads a byte
    gone = EventStream(web)
    gone.close()  # a browser that went away
    # Far more than the socket buffers hold: without the bounded queues, show would block.
    padding = "x" * 1000

    def show_many() -> None:
        for n in range(2000):
            web.show(Indication(Kind.WAITING, f"{n} {padding}"))
        web.show(Indication(Kind.LEGAL, "the last one"))

    shower = threading.Thread(target=show_many, daemon=True)
    shower.start()
    shower.join(timeout=60.0)
    assert not shower.is_alive(), "show blocked on a browser"
    assert state(web)["message"] == "the last one"
    # The stalled browser still ends up with the latest state once it reads again.
    with stalled, stalled.makefile("rb") as received:
        for line in received:
            if line.startswith(b"data:") and b'"message": "the last one"' in line:
                break
        else:
            pytest.fail("the stalled stream ended without the latest state")


def test_hub_drives_the_page_and_a_taken_port_leaves_the_others(web: WebSignals) -> None:
    console = io.StringIO()
    config = config_from_dict(
        {"gpio": {"enabled": False}, "web": {"enabled": True, "port": web.port}}
    )
    with signals_from_config(config, stream=console) as hub:
        assert "in use" in hub.unavailable["web"]
        hub.show(ILLEGAL)
    assert console.getvalue().startswith("ILLEGAL   point 5")

    free = config_from_dict({"gpio": {"enabled": False}, "web": {"enabled": True, "port": 0}})
    with signals_from_config(free, stream=io.StringIO()) as hub:
        (page,) = [sink for sink in hub.sinks if isinstance(sink, WebSignals)]
        hub.show(ILLEGAL)
        assert state(page)["points"] == [5]


def test_added_to_a_running_hub_it_shows_the_current_verdict() -> None:
    hub = SignalHub()
    hub.show(ILLEGAL)
    page = WebSignals(port=0)
    hub.add(page)
    try:
        assert state(page)["message"] == ILLEGAL.message
    finally:
        hub.close()


def test_config_defaults_and_bad_values() -> None:
    assert WebConfig() == WebConfig(enabled=False, host="127.0.0.1", port=8080, log_lines=20)
    with pytest.raises(ConfigError, match=re.escape("must be 0..65535")) as caught:
        config_from_dict({"web": {"port": 70000}})
    assert caught.value.key == "signals.web.port"
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {"host": " "}})
    assert caught.value.key == "signals.web.host"
    with pytest.raises(ConfigError, match="at least 1"):
        config_from_dict({"web": {"log_lines": 0}})


def test_watch_web_option_serves_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "referee.toml"
    config.write_text("[signals.gpio]\nenabled = false\n[signals.web]\nport = 0\n")
    script = TableScript(LongNardy())
    script.opening(6, 5).play("24/18 18/13").pick_up()
    observations = tmp_path / "game.jsonl"
    save_script(observations, script.take_observations())
    args = ["watch", "--script", str(observations), "--variant", "long", "--config", str(config)]
    assert main([*args, "--journal", str(tmp_path / "match.jsonl"), "--web"]) == 0
    out, err = capsys.readouterr()
    assert "web page: http://127.0.0.1:" in err
    assert "Legal 6-5: 24/18 18/13." in out
