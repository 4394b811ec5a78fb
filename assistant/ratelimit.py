"""A per-user daily turn limit, counted in the cache (Redis: one atomic INCR per turn)."""

import datetime as dt
import logging

from django.core.cache import cache

from assistant import conf
from core import metrics

logger = logging.getLogger(__name__)

TTL_SECONDS = 60 * 60 * 26  # a day's counter outlives the day in every time zone


def turn_admitted(*, user_id: int, today: dt.date) -> bool:
    """Count one turn for the user today; False once the day's limit is passed.

    If the counter cannot be reached the turn is admitted (the limit protects cost, not safety) and logged.
    """
    key = f"ratelimit:turns:{user_id}:{today:%Y%m%d}"
    try:
        if hasattr(cache, "incr_expiring"):  # Redis (core.cache): one round trip
            count = cache.incr_expiring(key, TTL_SECONDS)
        else:  # the database cache of the embedded defaults
            cache.add(key, 0, timeout=TTL_SECONDS)
            count = cache.incr(key)
    except Exception as exc:
        logger.warning("rate limit counter unavailable, admitting the turn", extra={"error": repr(exc)})
        return True
    admitted = count <= conf.daily_turn_limit()
    if not admitted:
        metrics.turn_rate_limited(limit="daily")
    return admitted
