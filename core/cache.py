"""Django's Redis cache with one client object per connection pool.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache operation, and redis-py's client
fills a dictionary of response callbacks in each constructor: about 0.2 ms of CPU per operation, four or five times
per chat turn (the rate limit, the conversation's memory, the viewer's profile). A client is thread-safe and only
borrows connections from its pool, so one per pool serves every thread; after a fork the pool notices the new
process and opens connections of its own.
"""

import threading

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class SharedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shared: dict[int, object] = {}
        self._shared_lock = threading.Lock()

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._shared.get(id(pool))
        if client is None:
            with self._shared_lock:
                client = self._shared.setdefault(id(pool), self._client(connection_pool=pool))
        return client


class SharedClientRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache`, its client object shared (see the module)."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient

    def incr_expiring(self, key: str, timeout: int, version: int | None = None) -> int:
        """Add one to the counter `key` (from 0) and return it; the counter expires `timeout` seconds after it was
        created. One round trip (INCR and EXPIRE NX in one MULTI/EXEC), where Django's add + incr take three (SET NX,
        EXISTS, INCR). Readable with `get` like any counter Django's incr wrote."""
        key = self.make_and_validate_key(key, version=version)
        with self._cache.get_client(key, write=True).pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, timeout, nx=True)
            count, _ = pipe.execute()
        return count
