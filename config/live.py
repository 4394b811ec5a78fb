"""GET /live/events: a signed-in user's live channel, as server-sent events (`core.live`).

Served by the ASGI server (`run.sh` starts uvicorn beside the web server; README "Live pages"): an open page costs
a coroutine and a socket there, no thread and no database connection. The user is read from the session once,
then the database connection is given back as the stream starts; the stream ends after LIFETIME_SECONDS and the browser reconnects
(EventSource does, sending the Last-Event-ID), so a signed-out session stops receiving within that time.

Every (re)connection starts with CHANGED: the page asks for its news once, which covers whatever happened between
drawing the page (or losing the connection) and this stream. Then the entries after the Last-Event-ID, as they come.

The page may be served from another origin than this stream (the web server's port, when no proxy puts both behind
one): a browser origin whose host is one of ALLOWED_HOSTS may read it with its cookies (CORS with credentials).
"""

from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpResponse, StreamingHttpResponse
from django.http.request import validate_host
from django.views.decorators.http import require_GET

from core import live

LIFETIME_SECONDS = 15 * 60
RETRY_MS = 1000


def _allow_origin(request, response) -> None:
    origin = request.headers.get("Origin")
    if not origin:
        return
    host = urlsplit(origin).hostname or ""
    if validate_host(host, settings.ALLOWED_HOSTS or ["localhost", "127.0.0.1", "[::1]"]):
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Allow-Credentials"] = "true"
    response["Vary"] = "Origin"


def _event(entry: live.Entry) -> str:
    lines = "".join(f"data: {line}\n" for line in entry.data.split("\n"))
    return f"id: {entry.id}\nevent: {entry.event}\n{lines}\n"


@require_GET
async def events(request):
    user = await request.auser()
    if not user.is_authenticated:
        response = HttpResponse("Sign in first.", status=403, content_type="text/plain")
    elif not (live.enabled() and isinstance(request, ASGIRequest)):
        # No live channel here (no Redis, or a WSGI server, which would hold a thread per page): 204 stops
        # EventSource, and the page keeps polling.
        response = HttpResponse(status=204)
    else:
        after = request.headers.get("Last-Event-ID") or None
        response = StreamingHttpResponse(_stream(user.pk, after), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy (nginx) passes each event on at once
    _allow_origin(request, response)
    return response


async def _stream(user_id: int, after: str | None):
    # The middleware has run (a session saved, the user read): the request's thread gives its database connection
    # back now, so an open page holds none (Django would close it only when the stream ends).
    await sync_to_async(connections.close_all)()
    # Where it starts is settled before the first event: a push from then on is sent, none is skipped.
    after = await live.start(user_id, after)
    yield f"retry: {RETRY_MS}\nid: {after}\nevent: {live.CHANGED}\ndata: \n\n"
    async for entry in live.entries(user_id, after, lifetime=LIFETIME_SECONDS):
        yield ": still here\n\n" if entry is None else _event(entry)


def context(request) -> dict:
    """Templates: where a page opens its live channel (`data-live-url` on <body>), or nothing (the page polls)."""
    return {"live_url": settings.LIVE_URL}
