"""Bookings: BOOK runs the booking agent over the supplier skill; CANCEL_BOOKING runs the cancel tool.

What a booking needs is decided by `bookings.services.booking_requirements`; what the agent did is told by the
`platform` presenter from the tools' envelopes and BookingRecord rows, never from the model's own words.
"""

import json
from dataclasses import replace

from django.conf import settings
from django.utils import timezone

from assistant import cards
from assistant.agent import default_registry, run_agent
from assistant.handlers.base import answer_with, tool_context
from assistant.handlers.registry import handles
from assistant.llm.audit import audited
from assistant.llm.schema import IntentName
from assistant.presenters import present_run
from assistant.presenters.bookings import present_platform
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip
from bookings.selectors import booking_skill_document, bookings_cancellable
from bookings.services import booking_requirements
from bookings.tools import cancel_booking, execute_platform_command

MAX_CHOICES = 10


def _agent_messages(context: TurnContext) -> list[dict]:

    understood = context.intent.model_dump(mode="json")
    system = f"{booking_skill_document()}\n\nUNDERSTOOD: {json.dumps(understood, ensure_ascii=False)}\nTODAY: {context.today}"
    return [{"role": "system", "content": system}, {"role": "user", "content": context.request_text}]


@handles(IntentName.BOOK)
def book(context: TurnContext) -> Reply:
    intent = context.intent
    missing = booking_requirements(
        biz_type=intent.biz_type,
        origin=intent.origin,
        destinations=intent.destination_keywords,
        city=intent.city,
        date_start=intent.date_start,
        date_end=intent.date_end,
    )
    if missing:
        what = compose("booking_what", context.language, biz_type=intent.biz_type)
        text = compose("booking_need", context.language, what=what, biz_type=intent.biz_type, missing=missing)
        return Reply(text, "CLARIFY", awaiting="booking")

    port = audited(context.port, user=context.user)
    already_audited = len(port.calls)
    context = replace(context, port=port, started=context.started or timezone.now())
    result = run_agent(
        port=port,
        registry=default_registry().scoped([execute_platform_command.name]),
        context=tool_context(context),
        messages=_agent_messages(context),
        max_iterations=settings.ASSISTANT_AGENT_MAX_ITERATIONS,
    )
    calls = port.calls[already_audited:]
    # A model that answered without calling the platform gets asked for what a booking still needs.
    reply = present_run(result, context) if result.steps or result.error is not None else present_platform([], context)
    return replace(reply, llm_calls=[*reply.llm_calls, *calls])


@handles(IntentName.CANCEL_BOOKING)
def cancel(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    booking_id = intent.booking_id
    if not booking_id:
        active = list(bookings_cancellable(user=context.user, biz_type=intent.biz_type)[:MAX_CHOICES])
        if len(active) == 1 and intent.biz_type:
            booking_id = active[0].booking_id
        else:
            text = compose("cancel_choose", language, bookings=active, biz_type=intent.biz_type)
            verb = compose("cancel_verb", language)
            chips = [chip(f"{verb} {b.booking_id}", fresh=True) for b in active]
            booking_cards = [cards.booking_card(b) for b in active]
            return Reply(text, "CLARIFY" if active else "EMPTY", cards=booking_cards, suggestions=chips)
    return answer_with(context, cancel_booking.name, booking_id=booking_id)
