"""A chat turn's record: the Turn row, its model calls and agent steps, written in one transaction once the reply is
composed (and the audit of a failed turn's model calls), and what the turn hands back (`TurnResult`)."""

import functools
import json
import logging
import re
import time
from dataclasses import dataclass, field

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from assistant.agent.steps import steps_current
from assistant.llm.audit import AuditedPort, calls_save
from assistant.llm.schema import Intent
from assistant.models import AgentStep, Conversation, LLMCall, Turn
from assistant.turn import Reply
from core import metrics
from core.text import storable, storable_text

logger = logging.getLogger("assistant.turn")


@dataclass
class TurnResult:
    conversation_id: str
    reply: str
    intent: dict | None
    cards: list[dict]
    suggestions: list[dict]
    outcome: str
    meta: dict = field(default_factory=dict)
    # What staff wrote in this conversation (and the word that the assistant is back) since the traveller last saw
    # it: shown once, with this reply (`assistant.handovers`).
    staff: list[dict] = field(default_factory=list)
    # The reply's language (`reply_language`): its cards and chips are shown in it too, whatever the page's.
    language: str = ""


# What a PositiveIntegerField holds: a turn's sums of (already clamped) per-call numbers never exceed it.
MAX_COLUMN_INT = 2_147_483_647


# In JSON text written with `ensure_ascii` (json.dumps' default) a NUL or a lone surrogate can only appear as its
# escape (`\u0000`, `\ud800`–`\udfff`, hex in lower case): text without one decodes to storable strings only.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|d[89a-f])")


def _storable(value):
    """`value` as JSON data either database accepts: Decimals, dates and the like as text, and every string storable
    (no NUL, which a text or jsonb column refuses; no lone surrogate, which cannot be encoded: `core.text`), so
    what a model or a tool put in it can never fail the turn's record. The walk that makes strings storable runs
    only when the JSON text holds an escape that may be one (a turn's cards are thousands of strings)."""
    encoded = json.dumps(value, cls=DjangoJSONEncoder)
    decoded = json.loads(encoded)
    return storable(decoded) if _UNSTORABLE_ESCAPE.search(encoded) else decoded


def _turn_calls(port, reply: Reply) -> list[LLMCall]:
    """The audit rows of the turn's model calls: those the audited port wrote (and any a handler passed on)."""
    calls = list(port.calls) if isinstance(port, AuditedPort) else []
    calls += [call for call in reply.llm_calls if isinstance(call, LLMCall)]
    return list({id(call): call for call in calls}.values())


def _total(numbers) -> int:
    return min(max(sum(numbers), 0), MAX_COLUMN_INT)


def turn_audit_save(port) -> None:
    """Insert the audit rows of a failed turn's model calls (without a turn); never raises: the turn's own error is
    the one to report."""
    try:
        calls_save(list(port.calls))
    except Exception:
        logger.exception("could not record the model calls of a failed turn")


def turn_finish(
    conversation, user, language, text, intent: Intent | None, reply: Reply, port, started, *, fallback: bool = False
) -> TurnResult:
    """The turn's record, written in one transaction after the reply is composed: the conversation (its first turn
    inserts it; a change of language updates it), the Turn row, its model calls and its agent steps."""
    calls = _turn_calls(port, reply)
    unsaved = [call for call in calls if call.pk is None]
    try:
        with transaction.atomic():
            return _record(conversation, user, language, text, intent, reply, port, started, calls, fallback)
    except BaseException:
        for call in unsaved:  # rolled back with the turn: still to be saved (`turn_audit_save`)
            call.pk, call.turn = None, None
        raise


def _record(conversation, user, language, text, intent, reply, port, started, calls, fallback) -> TurnResult:
    latency_ms = _total([int((time.monotonic() - started) * 1000)])
    # What the traveller is shown is what is recorded: text a tool or a model left unencodable would fail the
    # insert and the answer alike (`core.text`).
    reply_text, cards, suggestions = storable_text(reply.text), storable(reply.cards), storable(reply.suggestions)
    if conversation._state.adding:
        # A pending action kept during this turn may have inserted the row already: then only its language is set.
        conversation.language = language
        Conversation.objects.bulk_create(
            [conversation], update_conflicts=True, unique_fields=["id"], update_fields=["language"]
        )
    elif conversation.language != language:
        Conversation.objects.filter(pk=conversation.pk).update(language=language)
    turn = Turn.objects.create(
        conversation=conversation,
        user=user,
        message=text,
        intent=intent.intent if intent else "",
        understanding=_storable(intent.model_dump(mode="json")) if intent else {},
        reply=reply_text,
        cards=_storable(cards),
        outcome=reply.outcome,
        provider=str(port.provider)[:16],
        model=str(port.model)[:100],
        prompt_tokens=_total(c.prompt_tokens for c in calls),
        completion_tokens=_total(c.completion_tokens for c in calls),
        latency_ms=latency_ms,
        fallback=fallback,
    )
    calls_save(calls, turn=turn)
    AgentStep.objects.bulk_create(
        AgentStep(
            turn=turn,
            iteration=step.iteration,
            tool=storable_text(step.tool),
            arguments=_storable(step.arguments),
            code=step.code,
            ok=step.ok,
            latency_ms=step.latency_ms,
            trace_id=step.trace_id,
        )
        for step in steps_current()
    )
    # Counted once the turn's row is committed (core.metrics: turns by intent and outcome, confidence, fallbacks).
    transaction.on_commit(
        functools.partial(
            metrics.turn_observed,
            intent=turn.intent,
            outcome=turn.outcome,
            confidence=intent.confidence if intent else None,
            fallback=fallback,
            provider=turn.provider,
        )
    )
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
        reply=reply_text,
        intent=turn.understanding or None,
        cards=cards,
        suggestions=suggestions,
        outcome=reply.outcome,
        meta={
            "turn_id": turn.pk,
            "provider": turn.provider,
            "model": turn.model,
            "latency_ms": latency_ms,
            "channel": reply.channel,
        },
        language=language,
    )
