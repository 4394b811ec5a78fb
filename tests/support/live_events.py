"""The live channel's ASGI server for tests and benchmarks: uvicorn serving config.asgi in a thread of this process
(so on the test database), and a small reader of its server-sent events."""

import http.client
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import uvicorn

from core import live
from tests.conftest import free_port


class LiveEventsServer:
    def __init__(self) -> None:
        from config.asgi import application

        self.port = free_port()
        config = uvicorn.Config(
            application,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="live-events", daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.origin}/live/events"

    def start(self) -> "LiveEventsServer":
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the live events server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=15)

    def open_streams(self) -> int:
        """How many streams the server holds open now (its hub's waiters)."""
        return sum(hub.open_streams for hub in list(live._hubs.values()))


@dataclass
class Event:
    id: str | None
    event: str
    data: str


class EventReader:
    """One open stream, read event by event (`next_event`), with the session cookie of `session_key`."""

    def __init__(self, url: str, session_key: str | None, *, last_event_id: str | None = None, origin: str = ""):
        headers = {"Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        if origin:
            headers["Origin"] = origin
        if session_key:
            headers["Cookie"] = f"sessionid={session_key}"
        parts = urlsplit(url)
        self._connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self._connection.request("GET", parts.path, headers=headers)
        self.response = self._connection.getresponse()
        self.status = self.response.status

    def _lines(self, deadline: float):
        # The deadline holds across lines: the keep-alive comment every 15 s would otherwise keep a read waiting for
        # an event that never comes until the stream ends (15 minutes).
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no event came in time")
            self._connection.sock.settimeout(left)
            raw = self.response.readline()
            if not raw:
                return
            yield raw.decode().rstrip("\r\n")

    def next_event(self, seconds: float = 30) -> Event:
        """The next event (comments such as the keep-alive are skipped); waits for it (`seconds` at most, then
        fails)."""
        fields: dict[str, list[str]] = {}
        for line in self._lines(time.monotonic() + seconds):
            if not line:
                if "event" in fields or "data" in fields:
                    return Event(
                        (fields.get("id") or [None])[0],
                        (fields.get("event") or ["message"])[0],
                        "\n".join(fields.get("data", [])),
                    )
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        raise EOFError("the stream ended")

    def close(self) -> None:
        self.response.close()  # (the response holds the socket open until it is closed itself)
        self._connection.close()

    def __enter__(self) -> "EventReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def work(callbacks: list) -> list:
    """The on-commit callbacks that do work (an execution enqueued), without the live channel's pushes telling the
    traveller's open pages (`core.live.changed`, with Redis)."""
    return [callback for callback in callbacks if getattr(callback, "func", None) is not live.push]
