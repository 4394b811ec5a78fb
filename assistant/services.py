"""The assistant's writes: one chat turn end to end, and the audit of every model call."""

import datetime as dt
import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from assistant.agent_turn import agent_turn
from assistant.dispatcher import dispatch
from assistant.llm.audit import AuditedPort, audited
from assistant.llm.factory import get_llm_port
from assistant.llm.port import LLMError, LLMPort, UnderstandContext
from assistant.llm.schema import Intent, IntentName
from assistant.memory import Memory, memory_load, memory_save
from assistant.models import Conversation, LLMCall, Turn, TurnOutcome
from assistant.ratelimit import turn_admitted
from assistant.replies import compose, reply_language
from assistant.selectors import catalogue_places
from assistant.turn import Reply, TurnContext

logger = logging.getLogger("assistant.turn")

MAX_MESSAGE_CHARS = 2000


class InvalidMessage(ValueError):
    """The message cannot be a turn (empty, too long); nothing was recorded."""


@dataclass
class TurnResult:
    conversation_id: str
    reply: str
    intent: dict | None
    cards: list[dict]
    suggestions: list[dict]
    outcome: str
    meta: dict = field(default_factory=dict)


def clean_message(raw: object) -> str:
    """The user's message without control characters; refuses empty and over-long messages."""
    if not isinstance(raw, str):
        raise InvalidMessage("message must be text")
    text = "".join(ch for ch in raw if ch.isprintable() or ch in "\n\t").strip()
    if not text:
        raise InvalidMessage("message is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidMessage(f"message is longer than {MAX_MESSAGE_CHARS} characters")
    return text


def conversation_start(*, user) -> Conversation:
    """A new, empty conversation: nothing remembered from the previous one."""
    return Conversation.objects.create(user=user)


def conversation_for(*, user, conversation_id: str | None) -> Conversation:
    """The user's conversation with that id, or a new one (another user's id is never reused)."""
    if conversation_id:
        try:
            found = Conversation.objects.filter(pk=conversation_id, user=user).first()
        except (ValidationError, ValueError):  # a malformed id is simply not found
            found = None
        if found:
            return found
    return Conversation.objects.create(user=user)


def chat_turn(
    *,
    user,
    message: str,
    conversation_id: str | None = None,
    page_language: str = "zh-hans",
    fresh: bool = False,
    port: LLMPort | None = None,
    today: dt.date | None = None,
) -> TurnResult:
    """Answer one message: limit, understand, remember, dispatch, record. Raises InvalidMessage for bad input."""
    started = time.monotonic()
    turn_id = uuid.uuid4().hex
    text = clean_message(message)
    today = today or timezone.localdate()
    language = reply_language(text, page_language)
    conversation = conversation_for(user=user, conversation_id=conversation_id)
    port = audited(port or get_llm_port(), user=user)  # every model call of the turn writes its own LLMCall row

    if not turn_admitted(user_id=user.pk, today=today):
        reply = Reply(
            compose("rate_limited", language, limit=settings.ASSISTANT_DAILY_TURN_LIMIT), TurnOutcome.RATE_LIMITED
        )
        return _finish(conversation, user, text, None, reply, port, started)

    if settings.ASSISTANT_AGENT_ENABLED:
        context = TurnContext(
            intent=Intent(intent=IntentName.OUT_OF_SCOPE),  # channel 2 does not classify; the model picks tools
            user=user,
            today=today,
            language=language,
            port=port,
            conversation_id=str(conversation.pk),
            request_text=text,
            turn_id=turn_id,
        )
        reply = agent_turn(context)
        return _finish(conversation, user, text, None, reply, port, started)

    memory = Memory() if fresh else memory_load(str(conversation.pk))
    context = UnderstandContext(
        today=today, pending_intent=memory.intent if memory.awaiting else None, places=catalogue_places()
    )
    try:
        understanding = port.understand(text, context=context)
    except LLMError as error:
        reply = Reply(compose("llm_unavailable", language, kind=error.kind), TurnOutcome.DEGRADED)
        return _finish(conversation, user, text, None, reply, port, started)

    understood = understanding.intent
    name = understood.intent
    if memory.awaiting and name == IntentName.OUT_OF_SCOPE and answers_open_question(memory, text):
        name = memory.intent  # "张三 13800000000" answers the booking question; it is not a new topic
    continuing = bool(memory.awaiting) and name == memory.intent
    request_text = f"{memory.request}\n{text}" if continuing and memory.request else text
    slots = memory.merged_with(name, understood.slots())
    intent = Intent.model_validate({"intent": name, **slots, "also": understood.also})  # also: this sentence only
    reply = dispatch(
        TurnContext(
            intent=intent,
            user=user,
            today=today,
            language=language,
            port=port,
            conversation_id=str(conversation.pk),
            request_text=request_text,
            turn_id=turn_id,
        )
    )
    remembered = Memory(
        intent=intent.intent,
        slots=intent.slots(),
        awaiting=reply.awaiting,
        request=request_text if reply.awaiting else "",
    )
    memory_save(str(conversation.pk), remembered)
    return _finish(conversation, user, text, intent, reply, port, started)


MOBILE = re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)")


def answers_open_question(memory: Memory, text: str) -> bool:
    """Whether a sentence the engine found no intent in answers the question the last reply asked."""
    return memory.awaiting == "booking" and bool(MOBILE.search(text))


# What a PositiveIntegerField holds: a turn's sums of (already clamped) per-call numbers never exceed it.
MAX_COLUMN_INT = 2_147_483_647


def _storable(value):
    """`value` as JSON data PostgreSQL accepts: Decimals, dates and the like as text, no NUL characters (which a
    text or jsonb column refuses), so what a model or a tool put in it can never fail the turn's record."""
    return _without_nul(json.loads(json.dumps(value, cls=DjangoJSONEncoder)))


def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    return value


def _turn_calls(port, reply: Reply) -> list[LLMCall]:
    """The audit rows of the turn's model calls: those the audited port wrote (and any a handler passed on)."""
    calls = list(port.calls) if isinstance(port, AuditedPort) else []
    calls += [call for call in reply.llm_calls if isinstance(call, LLMCall)]
    return list({call.pk: call for call in calls if call.pk is not None}.values())


def _total(numbers) -> int:
    return min(max(sum(numbers), 0), MAX_COLUMN_INT)


@transaction.atomic
def _finish(conversation, user, text, intent: Intent | None, reply: Reply, port, started) -> TurnResult:
    latency_ms = _total([int((time.monotonic() - started) * 1000)])
    calls = _turn_calls(port, reply)
    turn = Turn.objects.create(
        conversation=conversation,
        user=user,
        message=text,
        intent=intent.intent if intent else "",
        understanding=_storable(intent.model_dump(mode="json")) if intent else {},
        reply=reply.text.replace("\x00", ""),
        cards=_storable(reply.cards),
        outcome=reply.outcome,
        provider=str(port.provider)[:16],
        model=str(port.model)[:100],
        prompt_tokens=_total(c.prompt_tokens for c in calls),
        completion_tokens=_total(c.completion_tokens for c in calls),
        latency_ms=latency_ms,
    )
    LLMCall.objects.filter(pk__in=[c.pk for c in calls]).update(turn=turn)
    Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
    logger.info(
        "turn",
        extra={
            "user_id": user.pk,
            "conversation": str(conversation.pk),
            "intent": turn.intent,
            "outcome": turn.outcome,
            "provider": turn.provider,
            "model": turn.model,
            "prompt_tokens": turn.prompt_tokens,
            "completion_tokens": turn.completion_tokens,
            "latency_ms": latency_ms,
        },
    )
    return TurnResult(
        conversation_id=str(conversation.pk),
        reply=reply.text,
        intent=turn.understanding or None,
        cards=reply.cards,
        suggestions=reply.suggestions,
        outcome=reply.outcome,
        meta={"turn_id": turn.pk, "provider": turn.provider, "model": turn.model, "latency_ms": latency_ms},
    )
