"""Bookings: BOOK runs the booking agent over the supplier skill; CANCEL_BOOKING is code (the cancel tool).

Whatever the agent did, the reply is composed from BookingRecord rows and tool envelopes, never from the
model's own words.
"""

import json
from functools import cache

from django.conf import settings
from django.utils import timezone

from assistant import cards
from assistant.audit import llm_call_record
from assistant.dispatcher import Reply, TurnContext, chip, handles
from assistant.llm.schema import IntentName
from assistant.replies import compose
from bookings.models import BookingStatus
from bookings.selectors import bookings_created_since, bookings_for_user
from core.tools import ToolContext

SKILL_FILE = settings.BASE_DIR / "bookings" / "skills" / "booking.md"
BIZ_LABEL_ZH = {"FLIGHT": "机票", "HOTEL": "酒店", "TRAIN": "火车票"}
BIZ_LABEL_EN = {"FLIGHT": "flight", "HOTEL": "hotel", "TRAIN": "train ticket"}


@cache
def skill_document() -> str:
    return SKILL_FILE.read_text(encoding="utf-8")


def card_for(booking) -> dict:
    """The booking card (labels in both languages come with it)."""
    return cards.booking_card(booking)


def _what(biz_type: str | None, language: str) -> str:
    labels = BIZ_LABEL_ZH if language == "zh-hans" else BIZ_LABEL_EN
    if biz_type:
        return labels[biz_type]
    return "机票、酒店或火车票" if language == "zh-hans" else "a flight, hotel or train"


def _missing_facts(context: TurnContext) -> list[str]:
    intent, zh = context.intent, context.language == "zh-hans"
    missing = []
    if not intent.biz_type:
        missing.append("订机票、酒店还是火车票" if zh else "whether it is a flight, a hotel or a train")
    if intent.biz_type in ("FLIGHT", "TRAIN") and not (intent.origin and intent.destination_keywords):
        missing.append("出发地和目的地" if zh else "where from and where to")
    if intent.biz_type == "HOTEL" and not (intent.destination_keywords or intent.city):
        missing.append("酒店所在城市" if zh else "the city of the hotel")
    if not intent.date_start:
        missing.append("日期" if zh else "the date")
    if intent.biz_type == "HOTEL" and intent.date_start and not intent.date_end:
        missing.append("离店日期或住几晚" if zh else "the check-out date or number of nights")
    return missing


def _contact_needed(context: TurnContext) -> str:
    zh = context.language == "zh-hans"
    person = {"FLIGHT": "乘机人", "TRAIN": "乘车人", "HOTEL": "入住人"}.get(context.intent.biz_type or "", "联系人")
    return f"{person}姓名和手机号" if zh else "the traveller's name and mobile number"


def _agent_messages(context: TurnContext) -> list[dict]:
    understood = context.intent.model_dump(mode="json")
    system = f"{skill_document()}\n\nUNDERSTOOD: {json.dumps(understood, ensure_ascii=False)}\nTODAY: {context.today}"
    return [{"role": "system", "content": system}, {"role": "user", "content": context.request_text}]


@handles(IntentName.BOOK)
def book(context: TurnContext) -> Reply:
    from assistant.agent import default_registry, run_agent

    what = _what(context.intent.biz_type, context.language)
    missing = _missing_facts(context)
    if missing:
        text = compose(
            "booking_need",
            context.language,
            what=what,
            missing="、".join(missing) if context.language == "zh-hans" else ", ".join(missing),
        )
        return Reply(text, "CLARIFY", awaiting="booking")

    started = timezone.now()
    tool_context = ToolContext(
        user=context.user, conversation_id=context.conversation_id, language=context.language, today=context.today
    )
    result = run_agent(
        port=context.port,
        registry=default_registry().scoped(["execute_platform_command"]),
        context=tool_context,
        messages=_agent_messages(context),
        max_iterations=settings.ASSISTANT_AGENT_MAX_ITERATIONS,
    )
    calls = record_agent_calls(context, result)
    return booking_reply(context, result, started, calls)


def record_agent_calls(context: TurnContext, result) -> list:
    """One audit row per model call the agent made."""
    return [
        llm_call_record(
            port=context.port, purpose="agent", usage=c.usage, outcome=c.outcome, error=c.error, user=context.user
        )
        for c in result.llm_calls
    ]


def booking_reply(context: TurnContext, result, started, calls) -> Reply:
    """What the booking agent achieved, told from BookingRecord rows and the tools' envelopes."""
    what = _what(context.intent.biz_type, context.language)
    created = list(bookings_created_since(user=context.user, since=started))
    if created:
        booking_cards = [card_for(b) for b in created]
        text = compose("booking_created", context.language, bookings=booking_cards)
        return Reply(text, "ANSWERED", cards=booking_cards, llm_calls=calls)

    saved = [s for s in result.steps if s.ok and _is_action(s, "saveOrder")]
    if saved:
        # The platform made the order but our record of it failed (the hook logged why): say so, with its number.
        from bookings.platform import order_number

        number = order_number(saved[-1].envelope.get("data") or {}) or "?"
        return Reply(compose("booking_unrecorded", context.language, order_no=number), "DEGRADED", llm_calls=calls)
    failed = [s for s in result.steps if not s.envelope.get("ok") and s.envelope.get("code") != "DUPLICATE_CALL"]
    if failed:
        envelope = failed[-1].envelope
        code = envelope["code"] if envelope["code"] == "PLATFORM_UNAVAILABLE" else "REJECTED"
        text = compose("booking_failed", context.language, code=code, reason=envelope.get("message", ""), what=what)
        return Reply(text, "DEGRADED" if code == "PLATFORM_UNAVAILABLE" else "REJECTED", llm_calls=calls)
    if result.error is not None:
        return Reply(compose("llm_unavailable", context.language, kind=result.error.kind), "DEGRADED", llm_calls=calls)
    if any(_is_action(s, "search") and not _has_results(s.envelope) for s in result.steps):
        place = (context.intent.origin, *context.intent.destination_keywords, context.intent.date_start)
        conditions = " ".join(str(x) for x in place if x)
        text = compose("booking_failed", context.language, code="NOTHING_FOUND", what=what, conditions=conditions)
        return Reply(text, "EMPTY", llm_calls=calls)
    text = compose("booking_need", context.language, what=what, missing=_contact_needed(context))
    return Reply(text, "CLARIFY", awaiting="booking", llm_calls=calls)


def _is_action(step, action: str) -> bool:
    words = str(step.arguments.get("command", "")).split()
    return step.tool == "execute_platform_command" and words[3:4] == [action]


def _has_results(envelope: dict) -> bool:
    data = envelope.get("data") or {}
    return any(isinstance(v, list) and v for v in data.values()) if isinstance(data, dict) else False


@handles(IntentName.CANCEL_BOOKING)
def cancel(context: TurnContext) -> Reply:
    from assistant.agent import default_registry

    intent, language = context.intent, context.language
    booking_id = intent.booking_id
    if not booking_id:
        active = bookings_for_user(user=context.user).exclude(status=BookingStatus.CANCELLED)
        if intent.biz_type:
            active = active.filter(biz_type=intent.biz_type)
        active = list(active[:10])
        if len(active) == 1 and intent.biz_type:
            booking_id = active[0].booking_id
        else:
            text = compose(
                "cancel_choose",
                language,
                bookings=active,
                what=_what(intent.biz_type, language) if intent.biz_type else "",
            )
            verb = "取消预订" if language == "zh-hans" else "cancel booking"
            chips = [chip(f"{verb} {b.booking_id}", fresh=True) for b in active]
            return Reply(text, "CLARIFY" if active else "EMPTY", cards=[card_for(b) for b in active], suggestions=chips)

    tool_context = ToolContext(
        user=context.user, conversation_id=context.conversation_id, language=language, today=context.today
    )
    envelope = default_registry().call("cancel_booking", {"booking_id": booking_id}, tool_context)
    text, card = cancel_result_reply(context, envelope, booking_id)
    outcome = {"OK": "ANSWERED", "TICKET_PENDING": "ANSWERED", "PLATFORM_CANCEL_FAILED": "DEGRADED"}.get(
        envelope["code"], "REJECTED"
    )
    return Reply(text, outcome, cards=[card] if card else [])


def cancel_result_reply(context: TurnContext, envelope: dict, booking_id: str) -> tuple[str, dict | None]:
    """The reply text and booking card for a cancel_booking envelope (channel 1 and channel 2 alike)."""
    data = envelope.get("data") or {}
    booking = None
    if envelope["ok"]:
        booking = bookings_for_user(user=context.user).filter(booking_id=data["booking_id"]).first()
    card = card_for(booking) if booking else None
    text = compose(
        "cancel_result",
        context.language,
        code=envelope["code"],
        message=envelope.get("message", ""),
        booking_id=booking_id,
        booking=card,
        already=data.get("already_cancelled"),
        hotel=data.get("call_the_hotel"),
        rejected=data.get("status") == "REJECTED",  # an approver rejected the paused cancellation
    )
    return text, card
