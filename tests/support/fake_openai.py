"""A local OpenAI-compatible HTTP server for tests and benchmarks: scripted answers, errors and delays.

It speaks `POST /v1/chat/completions` (and `/chat/completions`) on 127.0.0.1, so the real openai SDK makes real
HTTP calls to it; it also answers a request sent to it as an HTTP proxy (`POST http://any.host/v1/chat/completions`,
`RecordedRequest.target` keeps the absolute address). Each request takes the next `Reply` from the script queue; when the queue is empty the default
(a `Reply` or a responder `(request_json) -> Reply`) answers. Every request is recorded.

In a test (see `tests.support.fixtures.fake_openai`)::

    fake_openai.enqueue(Reply(content={"intent": "RECOMMEND"}, prompt_tokens=120, completion_tokens=9))
    fake_openai.enqueue(Reply(status=503), Reply(delay=2))
    fake_openai.enqueue(Reply(content={"intent": "RECOMMEND"}, trickle=1.0))   # one byte a second
    ...
    assert fake_openai.requests[0].json["response_format"] == {"type": "json_object"}

As a process (benchmarks): every request is answered after the delay with the fixed reply; threaded, so
concurrent requests wait in parallel::

    python -m tests.support.fake_openai --port 8765 --delay 2 --reply '{"intent": "RECOMMEND"}'
"""

import argparse
import contextlib
import itertools
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
# A `delay` that never ends on its own: the answer waits until the server stops. A model slower than any timeout,
# so a test of the timeout does not race a clock against the machine's load.
HANG = float("inf")


@dataclass
class Reply:
    """What the server does with one request.

    - `content`: the assistant message content; a dict/list is sent as JSON text, a str as is (may be garbage).
    - `tool_calls`: `[{"id": "call_1", "name": "search", "arguments": {...} or "raw text"}]`.
    - `status`: an HTTP status other than 200 answers with an OpenAI-style error body (`error_message`), or `body`.
    - `delay`: seconds to wait before answering (slow models); `HANG`: no answer until the server stops (timeouts).
    - `prompt_tokens` / `completion_tokens`: reported in `usage`; `usage=False` leaves `usage` out.
    - `body`: a raw response body (str) sent instead of a chat completion, with `status`.
    - `trickle`: seconds between the bytes of the response, sent one at a time (a hostile or broken endpoint that
      never stalls long enough for a read timeout); from the status line on, or only the body with
      `headers_first`. It stops when the client hangs up or the server stops.
    """

    content: Any = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    error_message: str | None = None
    delay: float = 0.0
    prompt_tokens: int = 11
    completion_tokens: int = 7
    usage: bool = True
    finish_reason: str | None = None
    body: str | None = None
    trickle: float = 0.0
    headers_first: bool = False

    @classmethod
    def of(cls, item: "Reply | dict[str, Any]") -> "Reply":
        return item if isinstance(item, Reply) else cls(**item)


Responder = Callable[[dict[str, Any]], "Reply | dict[str, Any]"]


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    json: Any
    received_at: float = field(default_factory=time.monotonic)
    target: str = ""  # the request line's target as sent: an absolute address when the client took this for a proxy

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.json.get("messages", []) if isinstance(self.json, dict) else []

    @property
    def system_prompt(self) -> str | None:
        return next((m.get("content") for m in self.messages if m.get("role") == "system"), None)


class FakeOpenAI:
    """The server: start it, script it, read what it received, stop it."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        default: "Reply | Responder | None" = None,
        record: bool = True,
    ) -> None:
        self.record = record  # a long benchmark run keeps no history
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self.default = default
        self._httpd = _Server((host, port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeOpenAI":
        # A short poll interval keeps `stop()` (and so every test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a `delay`
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ------------------------------------------------------------------------------------------------

    def enqueue(self, *items: "Reply | dict[str, Any]") -> None:
        """Add answers for the next requests, in order."""
        with self._lock:
            self._queue.extend(Reply.of(item) for item in items)

    def script(self, *items: "Reply | dict[str, Any]") -> None:
        """Replace the queue with these answers."""
        with self._lock:
            self._queue.clear()
            self._queue.extend(Reply.of(item) for item in items)

    def set_default(self, default: "Reply | dict[str, Any] | Responder | None") -> None:
        """What answers when the queue is empty: a Reply (dict), a responder function, or None (HTTP 500)."""
        self.default = Reply.of(default) if isinstance(default, dict) else default

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    # -- what was received ----------------------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            return self._requests[-1]

    # -- the handler's side ---------------------------------------------------------------------------------------

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            if self.record:
                self._requests.append(request)
            if self._queue:
                return self._queue.popleft()
            default = self.default
        if default is None:
            return Reply(status=500, error_message="fake_openai: no scripted answer left")
        if isinstance(default, Reply):
            return default
        return Reply.of(default(request.json if isinstance(request.json, dict) else {}))

    def _completion(self, reply: Reply, request_json: dict[str, Any]) -> dict[str, Any]:
        content = reply.content
        if content is not None and not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.get("id") or f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": call["arguments"]
                        if isinstance(call.get("arguments"), str)
                        else json.dumps(call.get("arguments") or {}, ensure_ascii=False),
                    },
                }
                for call in reply.tool_calls
            ]
        answer: dict[str, Any] = {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request_json.get("model") or "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
                    "logprobs": None,
                }
            ],
        }
        if reply.usage:
            answer["usage"] = {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            }
        return answer


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # load tests open many connections at once
    fake: FakeOpenAI


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests` instead
        pass

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw or b"{}")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = urlsplit(self.path).path
        if path not in CHAT_PATHS:
            self._send(404, _error_body(f"fake_openai: no route {path}", "invalid_request_error"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(path=path, headers=headers, json=body, target=self.path)
        reply = fake._next_reply(request)
        if reply.delay and fake._stopping.wait(None if reply.delay == HANG else reply.delay):
            return  # the server is stopping: drop the answer
        if reply.body is not None:
            status, text = reply.status, reply.body
        elif reply.status != 200:
            status, text = reply.status, _error_body(reply.error_message or f"fake error {reply.status}", _kind(reply))
        else:
            status, text = 200, json.dumps(fake._completion(reply, body if isinstance(body, dict) else {}))
        if reply.trickle:
            self._trickle(status, text, reply)
        else:
            self._send(status, text)

    def do_GET(self) -> None:
        self._send(404, _error_body("fake_openai: only POST /v1/chat/completions", "invalid_request_error"))

    def _trickle(self, status: int, text: str, reply: Reply) -> None:
        """The response written by hand, one byte every `reply.trickle` seconds."""
        data = text.encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        ).encode("latin-1")
        self.close_connection = True
        stopping = self.server.fake._stopping
        try:
            if reply.headers_first:
                self.wfile.write(head)
                head = b""
            for byte in head + data:
                if stopping.wait(reply.trickle):
                    return  # the server is stopping
                self.wfile.write(bytes((byte,)))
        except OSError:
            pass  # the client gave up (its timeout): nothing more to send

    def _send(self, status: int, text: str) -> None:
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to answer


def _kind(reply: Reply) -> str:
    return {401: "invalid_request_error", 429: "rate_limit_exceeded"}.get(reply.status, "server_error")


def _error_body(message: str, kind: str) -> str:
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": None}})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A local OpenAI-compatible server answering every request alike.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on start)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each answer")
    parser.add_argument("--reply", default='{"intent": "OUT_OF_SCOPE"}', help="the content of every answer (JSON)")
    parser.add_argument("--prompt-tokens", type=int, default=11)
    parser.add_argument("--completion-tokens", type=int, default=7)
    args = parser.parse_args(argv)
    try:
        content: Any = json.loads(args.reply)
    except ValueError:
        content = args.reply  # a raw (non-JSON) answer, e.g. to benchmark the INVALID path
    default = Reply(
        content=content,
        delay=args.delay,
        prompt_tokens=args.prompt_tokens,
        completion_tokens=args.completion_tokens,
    )
    server = FakeOpenAI(host=args.host, port=args.port, default=default, record=False)
    print(f"fake_openai listening on http://{args.host}:{server.port}/v1", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
