"""Round-trip comparison (PLAN_ITINERARY) in channel 1: the trip from the conversation, then the itinerary tool.

    "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"

The conversation is this handler's: it reads the answer to its own open question from memory, and asks one
question for whatever is missing or wrong (the trip's rule is the service's, `round_trip_problems`). The use case
itself (supplier candidates, preference scores, the engine, the store) is `itinerary.round_trip`, run
through the `compare_round_trip` tool channel 2 offers the model, and presented the same way.

Booking one of the compared plans: the plan card's button sends the plan it shows (`TurnContext.choice`,
"<plan id>|<plan name>"); the `book_plan` tool then shows one confirmation card listing every part and the total,
and books nothing before the traveller's yes. Who travels comes from the traveller's own words in the conversation;
when their name or mobile is missing the reply asks for it and remembers the plan (awaiting "plan_book|…"), so the
answer ("张三 13800000000") prepares the same plan.
"""

import datetime as dt
from dataclasses import replace

from assistant.booking_wants import passengers_of
from assistant.handlers.base import answer_with, run_tool
from assistant.handlers.registry import handles
from assistant.llm.audit import audited
from assistant.llm.contacts import find_contact
from assistant.llm.factory import get_llm_port
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import ROUND_TRIP_TOOL, round_trip_arguments
from assistant.memory import memory_load
from assistant.presenters import present
from assistant.presenters.plans import CHOICE_SEPARATOR
from assistant.replies import compose
from assistant.turn import Reply, TurnContext
from itinerary.round_trip import PLAN_NAMES, round_trip_problems

AWAITING = "plan_itinerary"  # + ":" + the one slot asked for, when only one was missing
BOOKING = "plan_book"  # + "|<plan id>|<plan name>": the plan waits for who travels
BOOK_PLAN_TOOL = "book_plan"


@handles(IntentName.PLAN_ITINERARY)
def plan_round_trip(context: TurnContext) -> Reply:
    chosen = _chosen_plan(context)
    if chosen is not None:
        return book_plan(context, *chosen)
    origin, destination, depart, back = _trip(context)
    missing = round_trip_problems(
        origin=origin, destination=destination, depart_date=depart, return_date=back, today=context.today
    )
    if missing:
        text = compose("plan_need", context.language, missing=missing, origin=origin, destination=destination)
        awaiting = f"{AWAITING}:{missing[0]}" if len(missing) == 1 else AWAITING
        return Reply(text, "CLARIFY", awaiting=awaiting)

    # The port audits its own calls; when this turn's port is not audited yet, the rows it writes are linked to the
    # turn through the reply.
    port = audited(context.port or get_llm_port(), user=context.user)
    already = len(port.calls)
    reply = answer_with(
        replace(context, port=port),
        ROUND_TRIP_TOOL,
        **round_trip_arguments(context.intent, origin=origin, destination=destination, depart=depart, back=back),
    )
    if port is not context.port:
        reply.llm_calls = [*reply.llm_calls, *port.calls[already:]]
    return reply


def _trip(context: TurnContext) -> tuple[str | None, str | None, dt.date | None, dt.date | None]:
    """(origin, destination, depart, return) from the intent, reading an answer to this handler's own question.

    Asked for the return date, "12月7号回来" is understood as a single date, which the slots merge over the depart
    date; asked where from, "上海" is understood as a place, which replaces the destination. The question we asked
    tells which slot the answer fills.
    """
    intent = context.intent
    origin = intent.origin
    destination = intent.city or (intent.destination_keywords[0] if intent.destination_keywords else None)
    depart, back = intent.date_start, intent.date_end
    asked, remembered = _open_question(context)
    if asked in ("return_date", "return_after_depart") and depart and (back is None or back <= depart):
        earlier = _iso_date(remembered.get("date_start"))
        if earlier and earlier < depart:
            depart, back = earlier, depart
    elif asked == "origin" and destination and not origin:
        before = remembered.get("city") or next(iter(remembered.get("destination_keywords") or []), None)
        if before and before != destination:
            origin, destination = destination, before
    return origin, destination, depart, back


def _open_question(context: TurnContext) -> tuple[str | None, dict]:
    if not context.conversation_id:
        return None, {}
    memory = memory_load(context.conversation_id)  # the previous turn's: this turn's is saved after the reply
    if memory.intent != IntentName.PLAN_ITINERARY or not (memory.awaiting or "").startswith(f"{AWAITING}:"):
        return None, {}
    return memory.awaiting.split(":", 1)[1], memory.slots


def _iso_date(value: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


# --- booking a compared plan ----------------------------------------------------------------------------------------


def _plan_of(value: str) -> tuple[str, str] | None:
    plan_id, _, name = value.partition(CHOICE_SEPARATOR)
    return (plan_id.strip(), name.strip()) if plan_id.strip() and name.strip() in PLAN_NAMES else None


def _chosen_plan(context: TurnContext) -> tuple[str, str] | None:
    """(plan id, plan name) to book: the one a card's button chose this turn, or the one waiting for who travels
    when this message names them (anything else goes on with the comparison)."""
    if context.choice:
        return _plan_of(context.choice)
    if not context.conversation_id:
        return None
    awaiting = memory_load(context.conversation_id).awaiting or ""
    if not awaiting.startswith(f"{BOOKING}{CHOICE_SEPARATOR}"):
        return None
    latest = context.request_text.splitlines()[-1:] or [""]
    contact = find_contact(latest)
    if not (context.intent.passengers or contact.name or contact.mobile):
        return None
    return _plan_of(awaiting.split(CHOICE_SEPARATOR, 1)[1])


def book_plan(context: TurnContext, plan_id: str, name: str) -> Reply:
    """Prepare booking the plan: the tool's one confirmation card (nothing is booked before the yes), or the
    question for who travels (the plan is remembered for the answer)."""
    texts = [line for line in reversed(context.request_text.splitlines()) if line.strip()]
    passengers = passengers_of(context.intent, texts)
    envelope = run_tool(context, BOOK_PLAN_TOOL, plan_id=plan_id, plan=name, passengers=passengers)
    reply = present([envelope], context)
    if reply.outcome == "CLARIFY":
        reply.awaiting = CHOICE_SEPARATOR.join((BOOKING, plan_id, name))
    return reply
