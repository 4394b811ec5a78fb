"""What the agent may call that belongs to the conversation itself: asking the traveller (channel 2), and handing
the conversation to a person when the traveller asks for one or complains (both channels: channel 1's handler calls
the same tool).

A model that needs a fact or a choice from the traveller calls `ask_traveller`; the question is composed by code
from the reply templates (`assistant.presenters.ask`), the same ones channel 1 asks with, never from the model's
words."""

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from assistant.handovers import HandoverError, handover_open
from assistant.models import HandoverReason
from core.envelope import Code, fail, ok
from core.ids import normalise_booking_id
from core.tools import Needs, Risk, ToolContext, tool

KIND_ASK = "ask"
KIND_HANDOVER = "handover"
# What may be asked for: a booking's facts (the codes of channel 1's `booking_need` question), an order, a place.
Fact = Literal[
    "biz_type", "route", "origin", "destination", "hotel_city", "date", "check_out", "contact", "order_id", "place"
]
MAX_ASKED = 10


@tool(risk=Risk.READ, tags=("conversation",))
def ask_traveller(
    context: ToolContext,
    missing: Annotated[
        list[Fact] | None, Field(max_length=MAX_ASKED, description="The facts you need from the traveller")
    ] = None,
    choices: Annotated[
        list[Annotated[str, Field(max_length=200)]] | None,
        Field(max_length=MAX_ASKED, description="Refs from OPTIONS ON SCREEN the traveller should pick among"),
    ] = None,
    biz_type: Annotated[
        Literal["FLIGHT", "HOTEL", "TRAIN"] | None, Field(description="What is being booked, when you know it")
    ] = None,
    booking_id: Annotated[
        str | None,
        Field(max_length=32, description="The booking being changed (改签), when its new date is what is missing"),
    ] = None,
    passed_date: Annotated[
        dt.date | None,
        Field(description="The day the traveller asked to travel on when it is already over (ask for another)"),
    ] = None,
) -> dict:
    """Ask the traveller for what you need before another tool can act: the facts that are missing (what to book,
    the route, the date, the check-out, the passenger's name and mobile, an order number, a place) and/or which of
    the options on screen they want (their refs). The application writes the question from its own templates; your
    words are never shown. A day the traveller gave that is already over (yesterday, last Friday) is no date: pass it
    as `passed_date` with "date" missing, and the question says it has passed; for a rebooking name the booking
    (`booking_id`). Call it instead of guessing, alone,
    and then stop."""
    missing = list(dict.fromkeys(missing or []))
    choices = list(dict.fromkeys(choices or []))
    if not missing and not choices:
        return fail(Code.INVALID_PARAM, "name what is missing or the refs to choose from", {"kind": KIND_ASK})
    data = {"kind": KIND_ASK, "missing": missing, "choices": choices, "biz_type": biz_type}
    if passed_date is not None:
        data["passed_date"] = passed_date.isoformat()
    if booking_id:
        data["booking_id"] = normalise_booking_id(booking_id) or None
    return ok(data, "asked")


@tool(risk=Risk.WRITE, needs=Needs.NOTHING, tags=("conversation",))
def hand_over_to_person(
    context: ToolContext,
    complaint: Annotated[
        bool, Field(description="True when the traveller complains (投诉, I want to complain)")
    ] = False,
) -> dict:
    """Hand the conversation to a person on the staff, when the traveller asks for one (转人工, 我要找客服, talk to a
    human) or complains. Staff answer in this chat; until they close it the assistant does nothing here. Moves no
    money and changes no booking. Call it once and stop."""
    reason = HandoverReason.COMPLAINT if complaint else HandoverReason.ASKED
    if not context.conversation_id:
        return fail(Code.INVALID_PARAM, "a hand-over needs a conversation", {"kind": KIND_HANDOVER})
    try:
        handover, opened = handover_open(
            user=context.user, conversation_id=context.conversation_id, words=context.request_text, reason=reason
        )
    except HandoverError as exc:
        return exc.envelope()
    return ok(
        {"kind": KIND_HANDOVER, "handover_id": handover.pk, "opened": opened, "complaint": complaint}, "handed over"
    )


TOOLS = (ask_traveller, hand_over_to_person)
