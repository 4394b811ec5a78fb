"""A conversation's memory between turns: the last intent and its slots, in the cache (Redis), 30 min TTL.

If the cache is down the assistant degrades to single-turn and says nothing to the user: every failure here is
logged and swallowed.
"""

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

# Slots that stay meaningful when the user moves to another intent ("大理有什么活动" → "那边天气怎么样").
PLACE_AND_TIME_SLOTS = ("destination_keywords", "province", "city", "origin", "date_start", "date_end", "days")


@dataclass
class Memory:
    intent: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    awaiting: str | None = None  # what the last reply asked for, if it asked
    request: str = ""  # the user's words so far while a question is open (the booking agent reads them)

    def merged_with(self, intent: str, new_slots: dict[str, Any]) -> dict[str, Any]:
        """The slots of this turn: the new ones over the remembered ones that still apply."""
        if self.intent == intent or self.awaiting:
            carried = dict(self.slots)
        else:
            carried = {k: v for k, v in self.slots.items() if k in PLACE_AND_TIME_SLOTS}
        if "destination_keywords" in new_slots or "province" in new_slots or "city" in new_slots:
            # A new place replaces the old place entirely, not partly.
            for key in ("destination_keywords", "province", "city"):
                carried.pop(key, None)
        carried.update(new_slots)
        return carried


def _key(conversation_id: str) -> str:
    return f"conv:{conversation_id}:memory"


def memory_load(conversation_id: str) -> Memory:
    try:
        raw = cache.get(_key(conversation_id))
    except Exception as exc:  # Redis down: single-turn
        logger.warning("conversation memory unavailable, answering single-turn", extra={"error": repr(exc)})
        return Memory()
    if not isinstance(raw, dict):
        return Memory()
    return Memory(
        intent=raw.get("intent"),
        slots=raw.get("slots") or {},
        awaiting=raw.get("awaiting"),
        request=raw.get("request") or "",
    )


def memory_save(conversation_id: str, memory: Memory) -> bool:
    data = {"intent": memory.intent, "slots": memory.slots, "awaiting": memory.awaiting, "request": memory.request}
    try:
        cache.set(_key(conversation_id), data, timeout=settings.ASSISTANT_SESSION_TTL)
    except Exception as exc:
        logger.warning("conversation memory not saved", extra={"error": repr(exc)})
        return False
    return True
