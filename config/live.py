"""GET /live/events: a signed-in user's live channel, as server-sent events (`core.live`).

A plain ASGI application (config/asgi.py sends this one path to it), served by the live server (`run.sh` starts
uvicorn beside the web server; README "Live pages"). Not a Django view on purpose: Django's ASGI handler gives every
request a thread of its own for its whole life (and, through it, its own cache and database connections), which
for a stream that stays open as long as its page would tie a thread per page. Here an open page is a coroutine and
a socket: the user is read from the session cookie once, in the shared thread pool (Django's session engine and
authentication, the session's password hash checked), that thread's database connection closed again; then the
stream waits on the user's entries (one pub/sub connection and a small pool to Redis for the whole process).

Every (re)connection starts with CHANGED: the page asks for its news once, which covers whatever happened between
drawing the page (or losing the connection) and this stream; then the entries after the Last-Event-ID, as they come.
The stream ends after LIFETIME_SECONDS and the browser reconnects (EventSource does, sending the Last-Event-ID), so
a signed-out session stops receiving within that time. Redis not answering: 503, and the page polls (opening the channel again later by itself).

The page may be served from another origin than this stream (the web server's port, when no proxy puts both behind
one): a browser origin whose host is one of ALLOWED_HOSTS may read it with its cookies (CORS with credentials).
"""

import asyncio
import contextlib
import logging
from importlib import import_module
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import auth
from django.db import connections
from django.http import HttpRequest, parse_cookie
from django.http.request import split_domain_port, validate_host

from core import live

logger = logging.getLogger(__name__)

PATH = "/live/events"
LIFETIME_SECONDS = 15 * 60
RETRY_MS = 1000
STOP_SECONDS = 5


def _allowed_hosts() -> list[str]:
    return settings.ALLOWED_HOSTS or (["localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])


def _user_id(session_key: str) -> int | None:
    """The signed-in, active user of the session (Django's own check, its password hash included), or None."""
    try:
        request = HttpRequest()
        request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
        user = auth.get_user(request)
        return user.pk if user.is_authenticated and user.is_active else None
    finally:
        connections.close_all()  # the pool's thread keeps no connection for the stream's life


def _event(entry: live.Entry) -> bytes:
    lines = "".join(f"data: {line}\n" for line in entry.data.split("\n"))
    return f"id: {entry.id}\nevent: {entry.event}\n{lines}\n".encode()


async def _answer(send, status: int, text: str, headers: list) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [*headers, (b"content-type", b"text/plain")]}
    )
    await send({"type": "http.response.body", "body": text.encode()})


async def events(scope, receive, send) -> None:
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
    host, _port = split_domain_port(headers.get("host", ""))
    if scope["method"] not in ("GET", "HEAD"):
        return await _answer(send, 405, "GET only.", [(b"allow", b"GET")])
    if not validate_host(host, _allowed_hosts()):
        return await _answer(send, 400, "Bad host.", [])
    cors = []
    origin = headers.get("origin")
    if origin and validate_host(urlsplit(origin).hostname or "", _allowed_hosts()):
        cors = [(b"access-control-allow-origin", origin.encode()), (b"access-control-allow-credentials", b"true")]
    cors.append((b"vary", b"Origin, Cookie"))

    session_key = parse_cookie(headers.get("cookie", "")).get(settings.SESSION_COOKIE_NAME)
    # In the loop's thread pool without this request's context (not sync_to_async, which copies it): Django keeps its
    # cache clients per context, and a client made in the request's own would hold a Redis connection per page.
    user_id = await asyncio.get_running_loop().run_in_executor(None, _user_id, session_key) if session_key else None
    if user_id is None:
        return await _answer(send, 403, "Sign in first.", cors)
    if not live.enabled() or (after := await live.start(user_id, headers.get("last-event-id"))) is None:
        # No live channel now (no Redis, or it does not answer): a refusal makes EventSource stop; the page polls.
        return await _answer(send, 503, "The live channel is unavailable.", cors)

    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"),  # a proxy (nginx) passes each event on at once
                *cors,
            ],
        }
    )
    subscription = live.Subscription(user_id)
    stream = asyncio.ensure_future(_stream(send, subscription, after))
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait((stream, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        subscription.close()  # the page went (or the stream ended): its wake-up is let go now
        gone.cancel()
    # The stream's loop ends at its next step; one still stuck in a read after STOP_SECONDS is cancelled.
    if not (await asyncio.wait((stream,), timeout=STOP_SECONDS))[0]:
        stream.cancel()
    elif not stream.cancelled() and stream.exception() is not None:  # read, or asyncio reports it "never retrieved"
        logger.warning("a live stream of user %s ended on %r", user_id, stream.exception())


async def _stream(send, subscription: live.Subscription, after: str) -> None:
    # Where the stream starts was settled before its first event: a push from then on is sent, none skipped.
    first = f"retry: {RETRY_MS}\nid: {after}\nevent: {live.CHANGED}\ndata: \n\n".encode()
    await send({"type": "http.response.body", "body": first, "more_body": True})
    async with contextlib.aclosing(subscription.entries(after, lifetime=LIFETIME_SECONDS)) as entries:
        async for entry in entries:
            body = b": still here\n\n" if entry is None else _event(entry)
            await send({"type": "http.response.body", "body": body, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def context(request) -> dict:
    """Templates: where a page opens its live channel (`data-live-url` on <body>), or nothing (the page polls)."""
    return {"live_url": settings.LIVE_URL}
