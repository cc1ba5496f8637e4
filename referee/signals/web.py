"""A live web page of the referee's verdicts, for phones and screens on the club's network.

`WebSignals` serves, with the standard library's threading HTTP server on a daemon thread:

- ``/``: the page (`referee.signals.web_page`): the verdict's colour, text and confidence, the
  board with the points at issue and, in teaching mode, the legal destinations, and the log;
- ``/events``: the state as Server-Sent Events, the current one at once, then one per change;
- ``/state``: the current state as JSON.

`show` only updates the state and queues it for every open event stream; the streams are
written by the server's threads. Each stream keeps at most `STREAM_BACKLOG` states, dropping
the oldest, so a slow or vanished browser costs the referee nothing and still ends up with the
latest state.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import socket
import threading
import time
from collections import deque
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from referee.signals.config import WebConfig
from referee.signals.console import LABELS, format_indication
from referee.signals.errors import WebUnavailable
from referee.signals.indication import Indication, Kind
from referee.signals.serial_leds import KIND_COLOURS
from referee.signals.web_page import PAGE

logger = logging.getLogger(__name__)

STREAM_BACKLOG = 8
"""The most states one event stream holds unsent; older ones are dropped (each is complete)."""

KEEPALIVE_S = 15.0
"""A comment is sent on a quiet stream this often, so a vanished browser is noticed."""

RETRY_MS = 2000
"""How long a browser waits before reconnecting a lost stream (the SSE ``retry`` field)."""

_SOCKET_TIMEOUT_S = 10.0  # a browser that stops reading for this long loses its stream
_POLL_S = 0.2  # how soon the server's loop notices `close`

# Inline script and style only; the page fetches nothing but its own event stream.
_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'"
)

_WILDCARD_HOST = "0.0.0.0"


def colour(kind: Kind) -> str:
    """The page's colour for `kind`: "green", "red", "amber" or "off", as on the LED strip."""
    return KIND_COLOURS[kind].name.lower()


class _Stream:
    """One open event stream: its connection and the messages not yet written to it."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.pending: deque[str] = deque(maxlen=STREAM_BACKLOG)
        self.ended = False


class WebSignals:
    """Serves the live page on `host`:`port` (port 0: any free one, see `port`) from creation.

    `teaching` shows the throw's legal destinations; `log_lines` is how many of the latest
    indications the log keeps. Raises `WebUnavailable` when the address cannot be served (the
    port taken, a port below 1024 without privileges, an unknown host).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        teaching: bool = False,
        log_lines: int = 20,
    ) -> None:
        self.host = host
        self.teaching = teaching
        self._cond = threading.Condition()
        self._current = Indication(Kind.IDLE)
        self._log: deque[dict[str, Any]] = deque(maxlen=log_lines)
        self._streams: set[_Stream] = set()
        self._closed = False
        try:
            self._server = _PageServer((host, port), _PageHandler, self)
        except OSError as exc:
            raise WebUnavailable(_bind_failure(host, port, exc)) from None
        self.port: int = self._server.server_address[1]
        """The port served: the one configured, or the one the system chose for port 0."""
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": _POLL_S},
            name=f"referee-web {host}:{self.port}",
            daemon=True,
        )
        self._thread.start()
        logger.info("web page at %s", self.url)

    @classmethod
    def from_config(cls, config: WebConfig, *, teaching: bool = False) -> WebSignals:
        """The page for the `[signals.web]` table (whether it is enabled is the caller's)."""
        return cls(config.host, config.port, teaching=teaching, log_lines=config.log_lines)

    @property
    def url(self) -> str:
        """The page's address; host 0.0.0.0 (every network) is given as this machine's name."""
        host = socket.gethostname() if self.host == _WILDCARD_HOST else self.host
        return f"http://{host}:{self.port}/"

    def show(self, indication: Indication) -> None:
        """Makes `indication` the page's state and queues it for every open stream."""
        entry = {
            "time": time.strftime("%H:%M:%S"),
            "kind": indication.kind.value,
            "colour": colour(indication.kind),
            "text": format_indication(indication, teaching=self.teaching),
        }
        with self._cond:
            self._current = indication
            self._log.appendleft(entry)
            message = _event(self._state())
            for stream in self._streams:
                stream.pending.append(message)
            self._cond.notify_all()

    def state(self) -> dict[str, Any]:
        """What the page shows, as served at ``/state`` (a fresh, JSON-ready dict).

        `kind`, `label` (as on the console), `colour`, `message`, `points`, `destinations`
        (empty unless teaching), `confidence` (None when not measured), `teaching`, and `log`,
        the latest indications first, each with `time`, `kind`, `colour` and `text`.
        """
        with self._cond:
            return self._state()

    def close(self) -> None:
        """Ends every open stream, stops the server and frees the port; twice is harmless."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            streams = list(self._streams)
            for stream in streams:
                stream.ended = True
            self._cond.notify_all()
        for stream in streams:
            # Wakes a server thread blocked writing to a browser that stopped reading; a
            # browser that already went raises, and needs nothing more.
            with contextlib.suppress(OSError):
                stream.connection.shutdown(socket.SHUT_RDWR)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _state(self) -> dict[str, Any]:
        current = self._current
        return {
            "kind": current.kind.value,
            "label": LABELS[current.kind],
            "colour": colour(current.kind),
            "message": current.message,
            "points": list(current.points),
            "destinations": list(current.destinations) if self.teaching else [],
            "confidence": current.confidence,
            "teaching": self.teaching,
            "log": list(self._log),
        }

    def _open_stream(self, connection: socket.socket) -> _Stream | None:
        """A new stream with the current state queued; None once closed."""
        with self._cond:
            if self._closed:
                return None
            stream = _Stream(connection)
            stream.pending.append(_event(self._state()))
            self._streams.add(stream)
            return stream

    def _next_message(self, stream: _Stream) -> str | None:
        """The stream's next message, a keep-alive comment after a quiet spell; None: end it."""
        with self._cond:
            self._cond.wait_for(lambda: stream.ended or bool(stream.pending), KEEPALIVE_S)
            if stream.ended:
                return None
            return stream.pending.popleft() if stream.pending else ": keep-alive\n\n"

    def _close_stream(self, stream: _Stream) -> None:
        with self._cond:
            self._streams.discard(stream)


class _PageServer(ThreadingHTTPServer):
    """The HTTP server, knowing the `WebSignals` whose state it serves."""

    # HTTPServer allows reusing a recent address (a quick restart); never a port in use.
    allow_reuse_port = False

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], web: WebSignals
    ) -> None:
        self.web = web
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser closing mid-answer is ordinary: no traceback on standard error at the table.
        logger.debug("web request from %s failed", client_address[0], exc_info=True)


class _PageHandler(BaseHTTPRequestHandler):
    """Answers ``/``, ``/state`` and ``/events``; anything else is 404."""

    timeout = _SOCKET_TIMEOUT_S

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        web = cast(_PageServer, self.server).web
        if path == "/":
            self._send(PAGE.encode("utf-8"), "text/html; charset=utf-8")
        elif path == "/state":
            self._send(json.dumps(web.state()).encode("utf-8"), "application/json")
        elif path == "/events":
            self._stream(web)
        else:
            self.send_error(HTTPStatus.NOT_FOUND)

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(HTTPStatus.OK)
        self._common_headers(content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, web: WebSignals) -> None:
        stream = web._open_stream(self.connection)
        if stream is None:
            self.send_error(HTTPStatus.SERVICE_UNAVAILABLE)
            return
        try:
            self.send_response(HTTPStatus.OK)
            self._common_headers("text/event-stream; charset=utf-8")
            self.end_headers()
            self.wfile.write(f"retry: {RETRY_MS}\n\n".encode())
            while (message := web._next_message(stream)) is not None:
                self.wfile.write(message.encode("utf-8"))
        except OSError as exc:  # the browser went away, stopped reading, or `close` cut it
            logger.debug("event stream to %s ended: %s", self.client_address[0], exc)
        finally:
            web._close_stream(stream)

    def _common_headers(self, content_type: str) -> None:
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _SECURITY_POLICY)

    def log_message(self, format: str, *args: Any) -> None:
        # Requests go to the debug log, not to standard error at the table.
        logger.debug("%s: %s", self.client_address[0], format % args)


def _event(state: dict[str, Any]) -> str:
    # json.dumps writes no newlines, so the state is one `data:` line.
    return f"data: {json.dumps(state)}\n\n"


def _bind_failure(host: str, port: int, exc: OSError) -> str:
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return f"cannot serve the page on {where}: the port is in use (another referee?)"
    if exc.errno == errno.EACCES:
        return f"cannot serve the page on {where}: ports below 1024 need privileges"
    return f"cannot serve the page on {where}: {exc.strerror or exc}"
