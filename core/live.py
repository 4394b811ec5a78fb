"""The live channel: what happens for a user reaches their open pages as it happens (server-sent events).

A push is one entry on the user's Redis stream (`tripdesk:live:<user id>`: ordered, its ids the browser's
Last-Event-ID, the newest STREAM_LENGTH kept for STREAM_SECONDS) and a wake-up on one pub/sub channel. A page's
stream (`config.live.events`, served by an ASGI server) sends the entries after the last one it sent, so a
reconnect resumes where it stopped: nothing lost, nothing repeated. The wake-up only makes readers look early; each
reader also looks every HEARTBEAT_SECONDS, so a wake-up lost costs time, not entries. Redis not answering ends a
stream (and refuses a new one): the page polls meanwhile, and its browser reconnects and resumes once Redis is back. One pub/sub
connection per process serves every open page of that process (`Hub`).

What is pushed stays small: CHANGED (the page then asks for its news through the view its polling asks, so what is
shown and marked read has one path) and a turn's PROGRESS (`assistant.progress`).

Without Redis (the embedded default) nothing is pushed and the pages keep asking every few seconds. A push never
fails its caller: Redis unreachable loses the push (logged), and the page's next request shows what happened.
"""

import asyncio
import functools
import logging
import re
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis
import redis.asyncio
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

CHANGED = "changed"  # something the page shows changed: it asks for its news
PROGRESS = "progress"  # a step of a turn the page is waiting for (JSON: the turn's token, a line, cards)

CHANNEL = "tripdesk:live"
STREAM_LENGTH = 200
STREAM_SECONDS = 3600
HEARTBEAT_SECONDS = 15.0
POOL_SIZE = 20  # Redis connections of one live server process (plus its one pub/sub connection)
POOL_WAIT_SECONDS = 30
ENTRY_ID = re.compile(r"\d{1,20}-\d{1,20}")


def enabled() -> bool:
    return bool(settings.REDIS_URL)


def stream_key(user_id) -> str:
    return f"tripdesk:live:{int(user_id)}"


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def push(user_id, event: str, data: str = "") -> str | None:
    """Push one entry to the user's open pages now; its id, or None when nothing was pushed (no Redis, or Redis
    unreachable: logged, never raised)."""
    if not (settings.REDIS_URL and user_id):
        return None
    key = stream_key(user_id)
    try:
        with _client(settings.REDIS_URL).pipeline(transaction=False) as pipe:
            pipe.xadd(key, {"e": event, "d": data}, maxlen=STREAM_LENGTH, approximate=True)
            pipe.expire(key, STREAM_SECONDS)
            pipe.publish(CHANNEL, str(int(user_id)))
            entry_id = pipe.execute()[0]
    except redis.RedisError:
        logger.warning("live push to user %s lost: Redis unreachable", user_id, exc_info=True)
        return None
    return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)


def changed(user_id) -> None:
    """Tell the user's open pages that something they show changed, once the current transaction commits (at once
    outside one): a page asking before the commit would find nothing new."""
    if settings.REDIS_URL and user_id:
        transaction.on_commit(functools.partial(push, user_id, CHANGED))


@dataclass(frozen=True)
class Entry:
    id: str
    event: str
    data: str


class Hub:
    """One per event loop (an ASGI server process has one): a single pub/sub subscription wakes the open streams
    of the user named in each message."""

    def __init__(self, url: str):
        # Reads wait for one of POOL_SIZE connections rather than fail: a push to every open page at once makes each
        # of their streams read at the same moment.
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url,
            max_connections=POOL_SIZE,
            timeout=POOL_WAIT_SECONDS,
            socket_connect_timeout=2,
            health_check_interval=30,
        )
        self.redis = redis.asyncio.Redis(connection_pool=pool)
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._listener: asyncio.Task | None = None
        self._subscribed = asyncio.Event()

    def register(self, user_id) -> asyncio.Event:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._listen())
        waiter = asyncio.Event()
        self._waiters[str(int(user_id))].add(waiter)
        return waiter

    def unregister(self, user_id, waiter: asyncio.Event) -> None:
        waiters = self._waiters.get(str(int(user_id)))
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiters[str(int(user_id))]

    async def subscribed(self, seconds: float = 2.0) -> None:
        """Wait (`seconds` at most: Redis may not answer) until wake-ups are received: a stream reading before then
        would miss the wake-up of a push landing between its read and the subscription, and wait a heartbeat."""
        try:
            async with asyncio.timeout(seconds):
                await self._subscribed.wait()
        except TimeoutError:
            pass

    @property
    def open_streams(self) -> int:
        return sum(map(len, self._waiters.values()))

    async def _listen(self) -> None:
        while True:
            try:
                async with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    await pubsub.get_message(timeout=2)  # its confirmation: every wake-up from here on comes
                    self._subscribed.set()
                    async for message in pubsub.listen():
                        user = message["data"].decode() if isinstance(message["data"], bytes) else message["data"]
                        for waiter in self._waiters.get(user, ()):
                            waiter.set()
            except (redis.RedisError, OSError):
                self._subscribed.clear()
                logger.warning("live wake-ups interrupted (Redis unreachable); every open stream looks now")
                # Each stream reads at once: one whose read fails ends, and its page polls until the channel is back
                # (rather than at its next heartbeat); one whose read succeeds (a blip) waits again.
                for waiters in list(self._waiters.values()):
                    for waiter in list(waiters):
                        waiter.set()
                await asyncio.sleep(1)


_hubs: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub]" = weakref.WeakKeyDictionary()


def hub() -> Hub:
    loop = asyncio.get_running_loop()
    if loop not in _hubs:
        _hubs[loop] = Hub(settings.REDIS_URL)
    return _hubs[loop]


async def start(user_id, last_event_id: str | None) -> str | None:
    """Where a stream starts: after the browser's Last-Event-ID when it sent one, else after the newest entry (what
    came before is on the page already, or asked for by the CHANGED every stream opens with). None when Redis does
    not answer: there is no live channel now."""
    newest = await _read(hub().redis.xrevrange(stream_key(user_id), count=1))
    if newest is None:
        return None
    if last_event_id and ENTRY_ID.fullmatch(last_event_id):
        return last_event_id
    return newest[0][0].decode() if newest else "0-0"


class Subscription:
    """One open page's wait on its user's entries (`entries`), until it is closed (the page went) or its lifetime
    ends. Closing lets go of the page's wake-up at once and ends `entries` at its next step, whatever it awaits: a
    page that has gone never waits on a cancellation reaching a read (Python 3.11's asyncio can lose one that lands
    as a wake-up does)."""

    def __init__(self, user_id) -> None:
        self.user_id = user_id
        self._hub = hub()
        self._waiter = self._hub.register(user_id)
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._hub.unregister(self.user_id, self._waiter)
            self._waiter.set()

    async def entries(self, after: str, *, lifetime: float) -> AsyncIterator[Entry | None]:
        """The entries after `after` (from `start`), as they come; None every HEARTBEAT_SECONDS without one (the
        caller keeps the connection alive with it). Ends when closed, after `lifetime` seconds, or when Redis does not
        answer (the browser then reconnects and resumes, or polls)."""
        key = stream_key(self.user_id)
        loop = asyncio.get_running_loop()
        ends = loop.time() + lifetime
        await self._hub.subscribed()
        while not self.closed and loop.time() < ends:
            self._waiter.clear()  # cleared before reading: a push landing after the read wakes the wait below
            found = await _read(self._hub.redis.xrange(key, min=f"({after}", count=STREAM_LENGTH))
            if found is None or self.closed:
                return
            for entry_id, fields in found:
                after = entry_id.decode()
                yield Entry(after, fields[b"e"].decode(), fields.get(b"d", b"").decode())
            if found:
                continue
            try:
                async with asyncio.timeout(min(HEARTBEAT_SECONDS, max(0.0, ends - loop.time()))):
                    await self._waiter.wait()
            except TimeoutError:
                if not self.closed:
                    yield None


async def _read(call):
    """A stream read; None when Redis does not answer."""
    try:
        return await call
    except (redis.RedisError, OSError):
        logger.warning("live stream read failed: Redis unreachable", exc_info=True)
        return None
