"""Login sessions read from the cache and kept in the database (SESSION_ENGINE when Redis is configured).

Django's `cached_db` store: every request of a signed-in user reads its session from Redis, not from its row
(one PostgreSQL query and its decoding less per request); the row stays the record, written on every change. The
cache may be unreachable: then every read comes from the row and every write goes to it alone, and nobody is
logged out. Django's store already survives a failed read or write of the cache; here also filling the cache after
a read from the row, deleting on logout and the key-collision check on creation.

A session deleted while the cache was unreachable (a logout during a Redis outage) could be found there again if
that Redis comes back with its data: a session is therefore kept in the cache at most CACHE_SECONDS, then read from
its row again (where it is gone).
"""

import logging

from django.contrib.sessions.backends import cached_db

logger = logging.getLogger(__name__)

CACHE_SECONDS = 15 * 60


class SessionStore(cached_db.SessionStore):
    def _cache_timeout(self, expiry_age: int) -> int:
        return min(expiry_age, CACHE_SECONDS)

    def load(self):
        try:
            data = self._cache.get(self.cache_key)
        except Exception:
            logger.warning("session cache unreachable: reading the session from the database", exc_info=True)
            data = None
        if data is not None:
            return data
        row = self._get_session_from_db()
        if not row:
            return {}
        data = self.decode(row.session_data)
        try:
            self._cache.set(self.cache_key, data, self._cache_timeout(self.get_expiry_age(expiry=row.expire_date)))
        except Exception:
            logger.warning("session cache unreachable: the session is not cached", exc_info=True)
        return data

    def exists(self, session_key):
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except Exception:
            logger.warning("session cache unreachable: asking the database whether the key exists", exc_info=True)
        return super(cached_db.SessionStore, self).exists(session_key)

    def save(self, must_create=False):
        super(cached_db.SessionStore, self).save(must_create)
        try:
            self._cache.set(self.cache_key, self._session, self._cache_timeout(self.get_expiry_age()))
        except Exception:
            logger.warning("session cache unreachable: the session is saved in the database only", exc_info=True)

    def delete(self, session_key=None):
        super(cached_db.SessionStore, self).delete(session_key)
        session_key = session_key or self.session_key
        if session_key is None:
            return
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except Exception:
            logger.warning(
                "session cache unreachable: the deleted session may stay cached for up to %s s",
                CACHE_SECONDS,
                exc_info=True,
            )
