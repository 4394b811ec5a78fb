"""ASSISTANT_LLM_TIMEOUT as a deadline for the whole model call: connecting, sending, every read and the total.

httpx (under the openai SDK) gives each network operation its own timeout (connect, read, write, pool), never the
request a total, and the SDK has no total either: an endpoint that sends a byte a second never lets one read wait
long enough, and holds the call (and the traveller, and a web thread) as long as it likes; measured: 64 s with a
5 s timeout. Here every operation's timeout is cut to what is left of the call's deadline, where all of them pass:
the socket stream of httpcore's connection pool, through its network backend (httpcore's extension point for
exactly this) and a transport given to the SDK's client (its `http_client` option). Past the deadline an operation
fails at once with httpcore's own timeout error, which httpx and the SDK report as a timeout
(`openai.APITimeoutError`), and the connection is closed, never reused half read. No thread and no signal watch
the clock: the thread that waits is the one that reads, and its socket wait ends at the deadline (a watchdog
would need a thread per call, or one shared, and a socket closed under a reader's feet). Name resolution is the one
wait outside it (the system resolver takes no timeout).

    client = openai.OpenAI(..., http_client=deadline_http_client(base_url=url, timeout=20))
    with call_deadline(20):
        client.chat.completions.create(...)

An HTTP(S) proxy from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`), which the SDK's own
client would use, is used the same way, its connections under the same deadline.
"""

import contextlib
import contextvars
import logging
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpcore2
import httpx2
import openai

logger = logging.getLogger("assistant.llm")

# The SDK's own connection limits (openai's DEFAULT_CONNECTION_LIMITS): one process's threads never queue for one.
CONNECTION_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("tripdesk_llm_deadline", default=None)


@contextlib.contextmanager
def call_deadline(seconds: float) -> Iterator[None]:
    """Every network operation in this block (this thread) ends `seconds` from now at the latest."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _left(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout` cut to what is left of the deadline; `expired` raised when nothing is left."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the model call's time is up")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    """A connection's socket whose every read and write waits no longer than the call's deadline."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None, timeout: float | None = None):
        return _DeadlineStream(
            self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore2.ConnectTimeout))
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore's own socket backend, its connections opened and used under the deadline."""

    def __init__(self) -> None:
        self._inner = httpcore2.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._inner.connect_tcp(
            host, port, _left(timeout, httpcore2.ConnectTimeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        stream = self._inner.connect_unix_socket(path, _left(timeout, httpcore2.ConnectTimeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx2.BaseTransport):
    """httpx's transport over httpcore's connection pool (or proxy), with the deadline's sockets."""

    def __init__(self, *, limits: httpx2.Limits, proxy: str | None = None) -> None:
        pool: dict[str, Any] = {
            "ssl_context": httpx2.create_ssl_context(),
            "max_connections": limits.max_connections,
            "max_keepalive_connections": limits.max_keepalive_connections,
            "keepalive_expiry": limits.keepalive_expiry,
            "network_backend": _DeadlineBackend(),
        }
        if proxy:
            url = httpx2.URL(proxy)
            auth = (url.username, url.password) if url.username else None
            self._pool = httpcore2.HTTPProxy(proxy_url=_core_url(url), proxy_auth=auth, **pool)
        else:
            self._pool = httpcore2.ConnectionPool(**pool)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        timeouts = request.extensions.get("timeout") or {}
        # Waiting for a free connection of the pool counts too (its other phases are cut at the socket).
        pool_wait = _left(timeouts.get("pool"), httpcore2.PoolTimeout) if timeouts else None
        extensions = {**request.extensions, "timeout": {**timeouts, "pool": pool_wait}}
        core_request = httpcore2.Request(
            method=request.method,
            url=_core_url(request.url),
            headers=request.headers.raw,
            content=request.stream,
            extensions=extensions,
        )
        with _as_httpx_errors():
            response = self._pool.handle_request(core_request)
        return httpx2.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseBody(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


class _ResponseBody(httpx2.SyncByteStream):
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors():
            yield from self._stream

    def close(self) -> None:
        with _as_httpx_errors():
            self._stream.close()


def _core_url(url: httpx2.URL) -> httpcore2.URL:
    return httpcore2.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    """httpcore's errors as httpx's of the same name (ReadTimeout → ReadTimeout …), which the SDK understands."""
    try:
        yield
    except Exception as exc:
        if not type(exc).__module__.startswith("httpcore2"):
            raise
        for kind in type(exc).__mro__:
            mapped = getattr(httpx2, kind.__name__, None)
            if isinstance(mapped, type) and issubclass(mapped, httpx2.TransportError):
                raise mapped(str(exc)) from exc
        raise


def environment_proxy(base_url: str) -> str | None:
    """The HTTP(S) proxy the environment names for `base_url` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY; NO_PROXY exempts
    a host), or None."""
    url = httpx2.URL(base_url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(url.host):
        return None
    proxy = proxy if "://" in proxy else f"http://{proxy}"
    if httpx2.URL(proxy).scheme not in ("http", "https"):
        logger.warning(
            "the model endpoint's proxy %s is not an HTTP proxy: connecting directly", httpx2.URL(proxy).scheme
        )
        return None
    return proxy


def deadline_http_client(*, base_url: str, timeout: float) -> httpx2.Client:
    """The SDK's client (its defaults: redirects, connection limits) over the deadline's transport."""
    transport = DeadlineTransport(limits=CONNECTION_LIMITS, proxy=environment_proxy(base_url))
    return openai.DefaultHttpxClient(transport=transport, timeout=timeout, limits=CONNECTION_LIMITS)
