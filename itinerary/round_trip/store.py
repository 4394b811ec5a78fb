"""Where plan results are kept: the cache (Redis when configured) under `plan:{uuid}`, for ITINERARY_PLAN_TTL seconds.

A plan is a search result, not a record: it expires. The stored value is the engine's full result (JSON-ready), its
id and when it expires; a plan made for a user is readable by that user only.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from itinerary import conf
from itinerary.round_trip.plan_types import PlanResult

logger = logging.getLogger(__name__)

KEY_PREFIX = "plan:"


class PlanStoreError(RuntimeError):
    """The cache could not be reached to keep or read a plan."""


def plan_ttl() -> int:
    """How long a stored plan lives, in seconds (ITINERARY_PLAN_TTL, 3600 by default)."""
    return conf.plan_ttl()


def plan_key(plan_id: str) -> str:
    return f"{KEY_PREFIX}{plan_id}"


def _normal_id(plan_id: Any) -> str | None:
    try:
        return str(uuid.UUID(str(plan_id).strip()))
    except (ValueError, AttributeError):
        return None


def plan_store(result: PlanResult, *, owner_id: int | None = None) -> str:
    """Keep a result for ITINERARY_PLAN_TTL seconds and return its plan id (a UUID).

    With `owner_id`, only that user can load it back (`plan_load(..., owner_id=...)`).
    Raises PlanStoreError when the cache is unavailable.
    """
    plan_id = str(uuid.uuid4())
    ttl = plan_ttl()
    now = timezone.now()
    payload = {
        "plan_id": plan_id,
        **result.to_dict(),
        "created_at": now.isoformat(),
        "expires_at": (now + timedelta(seconds=ttl)).isoformat(),
    }
    try:
        cache.set(plan_key(plan_id), {"owner_id": owner_id, "result": payload}, timeout=ttl)
    except Exception as exc:  # any cache backend failure (Redis down, database cache table missing)
        logger.warning("plan store unavailable: %s", type(exc).__name__)
        raise PlanStoreError("plans cannot be stored right now") from exc
    return plan_id


def plan_load(plan_id: str, *, owner_id: int | None = None) -> dict[str, Any] | None:
    """The stored full result with `plan_id` and `expires_in` (seconds left), or None when unknown or expired.

    A plan stored for one user is None for any other `owner_id`. Raises PlanStoreError when the cache is
    unavailable.
    """
    normal = _normal_id(plan_id)
    if normal is None:
        return None
    try:
        record = cache.get(plan_key(normal))
    except Exception as exc:
        logger.warning("plan store unavailable: %s", type(exc).__name__)
        raise PlanStoreError("plans cannot be read right now") from exc
    if not isinstance(record, dict) or "result" not in record:
        return None
    if record.get("owner_id") is not None and record["owner_id"] != owner_id:
        return None
    result = dict(record["result"])
    expires_at = datetime.fromisoformat(result["expires_at"])
    result["expires_in"] = max(0, int((expires_at - timezone.now()).total_seconds()))
    return result


def plan_summary(result: PlanResult, *, plan_id: str) -> dict[str, Any]:
    """What a caller gets back on creation: the id, how long it lives, the four plans, labels and counts."""
    return {
        "plan_id": plan_id,
        "expires_in": plan_ttl(),
        "plans": result.plans,
        "labels": result.labels,
        "counts": result.counts,
    }
