"""A conversation's memory between turns, in the cache (Redis), 30 min TTL.

The memory keeps the conversation's current task (the intent being worked on) apart from its slots, what the last
reply asked for, the options it offered, a task put aside by a side question and the places the traveller excluded.
The rules that move from one turn's memory to the next are `assistant.conversation_state`'s.

If the cache is down the assistant degrades to single-turn and says nothing to the user: every failure here is
logged and swallowed. A memory cached by an older version (`intent` instead of `task`) still loads.
"""

import logging
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

from assistant import conf

logger = logging.getLogger(__name__)

# Slots that stay meaningful when the user moves to another intent ("大理有什么活动" → "那边天气怎么样").
PLACE_AND_TIME_SLOTS = ("destination_keywords", "province", "city", "origin", "date_start", "date_end", "days")
PLACE_SLOTS = ("destination_keywords", "province", "city")

MAX_REQUEST_CHARS = 2000  # the traveller's words kept for the task (a booking agent and the comparison read them)
MAX_OFFERED = 20
MAX_EXCLUDED = 10
MAX_QUEUED = 2


@dataclass
class Memory:
    task: str | None = None  # the intent being worked on
    slots: dict[str, Any] = field(default_factory=dict)  # the task's slots (and its flags: rebook, pick, …)
    awaiting: str | None = None  # what the last reply asked for, if it asked
    request: str = ""  # the traveller's words for the task so far (the booking agent and the comparison read them)
    offered: list[str] = field(default_factory=list)  # option refs the last reply offered, in the order shown
    suspended: dict[str, Any] | None = None  # a task put aside by a side question: {task, slots, awaiting, …}
    excluded: list[str] = field(default_factory=list)  # places the traveller excluded for the task
    # Bookings asked for in the same sentence as the task's and taken up after it ("机票和酒店": the hotel), each
    # {"task": "BOOK", "slots": {…}}, in order.
    queued: list[dict[str, Any]] = field(default_factory=list)
    # Whose conversation this is and the language it is answered in, kept beside the dialogue so a turn of a
    # conversation in memory need not read its row: a memory names its owner, and another user's is never used.
    owner: int | None = None
    language: str = ""
    # A person holds (or held) the conversation: the next turn asks the database whether they still do.
    handover: bool = False
    # How many turns in a row the assistant could not help (unsure, out of scope): at two it offers a person.
    misses: int = 0

    @property
    def intent(self) -> str | None:
        """The task (the name older code reads)."""
        return self.task

    def as_data(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "slots": self.slots,
            "awaiting": self.awaiting,
            "request": self.request[-MAX_REQUEST_CHARS:],
            "offered": list(self.offered)[:MAX_OFFERED],
            "suspended": self.suspended,
            "excluded": list(self.excluded)[:MAX_EXCLUDED],
            "queued": list(self.queued)[:MAX_QUEUED],
            "owner": self.owner,
            "language": self.language,
            "handover": self.handover,
            "misses": self.misses,
        }


def _key(conversation_id: str) -> str:
    return f"conv:{conversation_id}:memory"


def _strings(value: Any, limit: int) -> list[str]:
    if not isinstance(value, list | tuple):
        return []
    return [item for item in value if isinstance(item, str) and item][:limit]


def memory_from(raw: Any) -> Memory:
    """A memory from cached data, tolerant of older or damaged entries (a missing or odd field is empty)."""
    if not isinstance(raw, dict):
        return Memory()
    task = raw.get("task") if "task" in raw else raw.get("intent")
    suspended = raw.get("suspended")
    if not (isinstance(suspended, dict) and isinstance(suspended.get("task"), str)):
        suspended = None
    slots = raw.get("slots")
    return Memory(
        task=task if isinstance(task, str) and task else None,
        slots=slots if isinstance(slots, dict) else {},
        awaiting=raw.get("awaiting") if isinstance(raw.get("awaiting"), str) else None,
        request=raw.get("request") if isinstance(raw.get("request"), str) else "",
        offered=_strings(raw.get("offered"), MAX_OFFERED),
        suspended=suspended,
        excluded=_strings(raw.get("excluded"), MAX_EXCLUDED),
        queued=[q for q in raw.get("queued") or [] if isinstance(q, dict) and isinstance(q.get("slots"), dict)][
            :MAX_QUEUED
        ]
        if isinstance(raw.get("queued"), list)
        else [],
        owner=raw.get("owner") if type(raw.get("owner")) is int else None,
        language=raw.get("language") if isinstance(raw.get("language"), str) else "",
        handover=raw.get("handover") is True,
        misses=raw.get("misses") if type(raw.get("misses")) is int else 0,
    )


def memory_load(conversation_id: str) -> Memory:
    try:
        raw = cache.get(_key(conversation_id))
    except Exception as exc:  # Redis down: single-turn
        logger.warning("conversation memory unavailable, answering single-turn", extra={"error": repr(exc)})
        return Memory()
    return memory_from(raw)


def memory_save(conversation_id: str, memory: Memory) -> bool:
    try:
        cache.set(_key(conversation_id), memory.as_data(), timeout=conf.session_ttl())
    except Exception as exc:
        logger.warning("conversation memory not saved", extra={"error": repr(exc)})
        return False
    return True


def memory_forget(conversation_id: str) -> None:
    """Drop a conversation's memory (the conversation was deleted); the cache being down only leaves it to expire."""
    try:
        cache.delete(_key(conversation_id))
    except Exception as exc:
        logger.warning("conversation memory not dropped", extra={"error": repr(exc)})
