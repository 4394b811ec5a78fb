"""Bookings: BOOK finds options and prepares the best (or the picked) one; a rebooking prepares the change of a
booking; a payment (BOOK with `pay`) prepares paying one; CANCEL_BOOKING prepares the cancel. Nothing is written
here: every write is a pending action that the traveller confirms ("确认" / the Confirm button), answered by
`assistant.actions` before any handler runs.

The same tools channel 2 offers a model (`find_booking_options` → `book_option` / `rebook_booking`, and
`pay_booking`, `cancel_booking`), with bookings' rules (`bookings.requests`, `bookings.targets`, asked through
`assistant.booking_wants`) deciding what to search, which option and which booking. These flows are the only ones:
channel 2's offline `rules` adapter replays them call by call (`assistant.handlers.base.next_call`). Which option is
best is `bookings.options`' rule; what the traveller reads comes from the tools' envelopes through the presenters,
and the questions from the reply templates.
"""

import datetime as dt
from dataclasses import dataclass, field, replace

from assistant import cards
from assistant.booking_wants import booking_wants, passengers_of
from assistant.handlers.base import answer_with, run_tool
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.presenters import present
from assistant.presenters.base import merge_replies
from assistant.replies import compose, format_day
from assistant.turn import Reply, TurnContext, chip
from bookings.models import BookingStatus
from bookings.requests import (
    NEEDS_DATE,
    BookingSearch,
    booking_search,
    option_choice,
    passengers_complete,
    rebook_day,
    rebook_search,
)
from bookings.selectors import bookings_cancellable
from bookings.targets import booking_target, payment_target
from bookings.tools import (
    BOOK_TOOL,
    CANCEL_TOOL,
    DESCRIBE_TOOL,
    LIST_BOOKINGS_TOOL,
    OPTIONS_TOOL,
    PAY_TOOL,
    REBOOK_TOOL,
)

MAX_CHOICES = 10
ASK_TOOL = "ask_traveller"  # assistant.tools
AWAITING = "booking"  # the open question (or open choice) of a booking, remembered for the next turn


@dataclass
class Found:
    """What a search answered: its envelope, the refs of the options in the order shown, and the option to
    prepare (None when nothing can be prepared yet, with why)."""

    envelope: dict
    refs: list[str] = field(default_factory=list)
    option: dict | None = None
    why: str = ""


def _search(context: TurnContext, search: BookingSearch, pick: int | None) -> Found:
    envelope = run_tool(context, OPTIONS_TOOL, **search.arguments)
    data = envelope.get("data") if isinstance(envelope.get("data"), dict) else {}
    refs = [o["ref"] for o in data.get("options") or [] if isinstance(o, dict) and o.get("ref")]
    if not envelope.get("ok"):
        return Found(envelope, refs, None, "failed")
    option, why = option_choice(data, pick, context.intent.accept_nearest)
    return Found(envelope, refs, option, why)


def _offering(reply: Reply, context: TurnContext, refs: list[str], *, skip: int | None = None) -> Reply:
    """The reply with the options as picks ("第二个" / a chip picks one; the one prepared is no pick), remembered
    for the next turn."""
    if not refs:
        return reply
    given = {c["message"] for c in reply.suggestions}
    picks = [compose("option_pick", context.language, n=n) for n in range(1, len(refs) + 1)]
    chips = [chip(p) for n, p in enumerate(picks, start=1) if p not in given and n != skip]
    suggestions = [c for c in reply.suggestions if c["message"] != (picks[skip - 1] if skip else None)]
    asks = reply.outcome == "ANSWERED" and not any(c.get("type") == "confirmation" for c in reply.cards)
    return replace(
        reply,
        offered=list(refs),
        suggestions=[*suggestions, *chips],
        awaiting=reply.awaiting or AWAITING,
        outcome="CLARIFY" if asks else reply.outcome,  # options to pick from, or the contact asked: a question
    )


def _with_text(reply: Reply, *texts: str) -> Reply:
    return replace(reply, text="\n".join(t for t in (reply.text, *texts) if t))


def _choose(context: TurnContext, found: Found) -> Reply:
    """The options when none can be prepared yet (none met every want, or no such pick): the traveller picks."""
    intent = context.intent
    reply = present([found.envelope], context)
    if not found.refs:
        return reply  # a failed or empty search: the presenter says so
    no_such = intent.pick if intent.pick and intent.pick > len(found.refs) else None
    reply = _with_text(reply, compose("booking_choose", context.language, no_such=no_such, count=len(found.refs)))
    return _offering(reply, context, found.refs)


@handles(IntentName.BOOK)
def book(context: TurnContext) -> Reply:
    intent = context.intent
    if intent.rebook:
        return rebook(context)
    if intent.pay:
        return pay(context)
    if intent.asks_option and context.offered:
        # A question about the options on screen is answered from them; a pick said with it goes on as a pick.
        answered = _about_options(context)
        return merge_replies([answered, _booked(context)]) if intent.pick else answered
    return _booked(context)


def _about_options(context: TurnContext) -> Reply:
    """What the traveller asked of the options on screen: of the one named by its position, else of all of them
    (the supplier's facts, re-read; the one first in an order when they ask which)."""
    intent, offered = context.intent, context.offered
    asked = intent.asked_option
    refs = [offered[asked - 1]] if asked and 1 <= asked <= len(offered) and not intent.asked_order else list(offered)
    facts = list(intent.asks_option)
    return answer_with(context, DESCRIBE_TOOL, option_refs=refs, facts=facts, order=intent.asked_order)


def _booked(context: TurnContext) -> Reply:
    """Find the options and prepare the best (or the picked) one, asking first for what is missing."""
    intent = context.intent
    passengers = passengers_of(intent, _texts(context))
    picked = _offered_pick(context)
    search = booking_search(booking_wants(intent), today=context.today)
    if search.missing and not picked:
        return _ask(
            context, list(search.missing), passed=_passed_day(context) if NEEDS_DATE in search.missing else None
        )
    found = _search(context, search, intent.pick) if not search.missing else None
    if found is not None:
        _keep_earlier_choice(context, found, picked)
    if found is None or (picked and picked not in found.refs):
        # The options offered before cannot be searched again: the one picked is prepared as it was offered.
        prepared = run_tool(context, BOOK_TOOL, option_ref=picked, passengers=passengers)
        refs = context.offered if passengers_complete(passengers) else [picked]
        return _offering(present([prepared], context), context, refs, skip=intent.pick if len(refs) > 1 else None)
    if found.option is not None and not picked and passengers_complete(passengers) and _another_product(context, found):
        found.option = None  # "还是坐飞机吧" while trains were offered: the flights to pick from, no card yet
    if found.option is None:
        return _choose(context, found)
    # Without the full contact the tool refuses naming what is missing (the question), and nothing is pending;
    # a choice the traveller made is then kept (offered alone) until the contact comes.
    chosen = found.option["ref"]
    prepared = run_tool(context, BOOK_TOOL, option_ref=chosen, passengers=passengers)
    reply = present([found.envelope, prepared], context)
    if not passengers_complete(passengers) and chosen != found.refs[0]:
        return _offering(reply, context, [chosen])
    return _offering(reply, context, found.refs, skip=found.refs.index(chosen) + 1)


def _keep_earlier_choice(context: TurnContext, found: Found, picked: str | None) -> None:
    """The option picked now among those offered, or picked before the contact was given (the previous reply then
    offered only it), is the one to prepare when the search still finds it."""
    wanted = picked or (context.offered[0] if not context.intent.pick and len(context.offered) == 1 else None)
    data = found.envelope.get("data") or {}
    for option in data.get("options") or []:
        if isinstance(option, dict) and wanted and option.get("ref") == wanted:
            found.option = option


def _another_product(context: TurnContext, found: Found) -> bool:
    """Whether the options on screen were of another product than those found (the traveller switched from the
    train to the plane): the new ones are offered to pick from, and the card for the old product is withdrawn."""
    product = ((found.envelope.get("data") or {}).get("biz_type") or "").upper()
    shown = {ref.split("|", 1)[0].upper() for ref in context.offered}
    return bool(product and shown) and product not in shown


def _texts(context: TurnContext) -> list[str]:
    """The traveller's words of this booking, newest first (an earlier question's answers included)."""
    return [line for line in reversed(context.request_text.splitlines()) if line.strip()]


def _offered_pick(context: TurnContext) -> str | None:
    """The option the traveller picked among those the previous reply offered ("第二个", a chip)."""
    pick = context.intent.pick
    if pick and 1 <= pick <= len(context.offered):
        return context.offered[pick - 1]
    return None


def _ask(context: TurnContext, missing: list[str], *, passed: dt.date | None = None) -> Reply:
    """One question listing only what is still missing, asked through the ask tool (`ask_traveller`: the question
    is composed by its presenter from the `booking_need` template), as a model asks it in channel 2. A day said
    that is already over (`passed`) is named first: it has passed, so another date is asked for."""
    arguments = {"passed_date": passed.isoformat()} if passed else {}
    return answer_with(context, ASK_TOOL, missing=missing, biz_type=context.intent.biz_type, **arguments)


def _passed_day(context: TurnContext) -> dt.date | None:
    """The day the traveller asked to travel on when it is already over (the reader's `past_date`, or a model's
    date before today): no booking can be made for it."""
    intent = context.intent
    if intent.past_date is not None:
        return intent.past_date
    return intent.date_start if intent.date_start is not None and intent.date_start < context.today else None


# -- rebooking ------------------------------------------------------------------------------------------------------


def rebook(context: TurnContext) -> Reply:
    """Change a booking to another day: find it, show the options on the new day for the same route, and prepare
    `rebook_booking` for the best (or picked) one. The old booking is cancelled only after the new one is made."""
    intent, language = context.intent, context.language
    listed = run_tool(context, LIST_BOOKINGS_TOOL, biz_type=intent.biz_type)
    if not listed.get("ok"):
        return present([listed], context)
    wants = booking_wants(intent)
    booking, candidates = booking_target((listed.get("data") or {}).get("bookings") or [], wants)
    if booking is None:
        day = format_day(intent.date_start, language) if intent.date_start else ""
        text = compose("rebook_choose", language, bookings=candidates, biz_type=intent.biz_type)
        chips = [chip(compose("rebook_chip", language, booking_id=b["booking_id"], day=day)) for b in candidates]
        booking_cards = [cards.booking_card(b, language=context.language) for b in _rows(context, candidates)]
        return Reply(text, "CLARIFY" if candidates else "EMPTY", cards=booking_cards, suggestions=chips)
    passed = _passed_day(context)
    if rebook_day(booking, wants) is None or passed is not None:  # asked as a model asks it: the ask tool
        arguments = {"passed_date": passed.isoformat()} if passed else {}
        return answer_with(context, ASK_TOOL, missing=[NEEDS_DATE], booking_id=booking["booking_id"], **arguments)
    search = rebook_search(booking, wants)
    if search.missing:
        as_booked = replace(context, intent=intent.model_copy(update={"biz_type": booking["biz_type"]}))
        return _ask(as_booked, list(search.missing))
    picked = _offered_pick(context)
    found = _search(context, search, intent.pick)
    if picked and picked not in found.refs:
        reply = present([run_tool(context, REBOOK_TOOL, booking_id=booking["booking_id"], option_ref=picked)], context)
        return _offering(reply, context, context.offered, skip=intent.pick)
    if picked:
        _keep_earlier_choice(context, found, picked)
    if found.option is None:
        return _choose(context, found)
    prepared = run_tool(context, REBOOK_TOOL, booking_id=booking["booking_id"], option_ref=found.option["ref"])
    reply = present([listed, found.envelope, prepared], context)
    return _offering(reply, context, found.refs, skip=found.refs.index(found.option["ref"]) + 1)


def _rows(context: TurnContext, summaries: list[dict]) -> list:
    wanted = [s["booking_id"] for s in summaries]
    rows = bookings_cancellable(user=context.user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    return [rows[i] for i in wanted if i in rows]


# -- cancelling ------------------------------------------------------------------------------------------------------


@handles(IntentName.CANCEL_BOOKING)
def cancel(context: TurnContext) -> Reply:
    """Prepare the cancel of one booking (the tool answers with the confirmation card); without an id, the one the
    type and day point at (`booking_target`), else the question which one."""
    intent, language = context.intent, context.language
    booking_id = intent.booking_id
    if not booking_id:
        listed = run_tool(context, LIST_BOOKINGS_TOOL, biz_type=intent.biz_type)
        if not listed.get("ok"):
            return present([listed], context)
        booking, candidates = booking_target((listed.get("data") or {}).get("bookings") or [], booking_wants(intent))
        if booking is None:
            active = _rows(context, candidates[:MAX_CHOICES])
            text = compose("cancel_choose", language, bookings=active, biz_type=intent.biz_type)
            verb = compose("cancel_verb", language)
            chips = [chip(f"{verb} {b.booking_id}", fresh=True) for b in active]
            booking_cards = [cards.booking_card(b, language=context.language) for b in active]
            return Reply(text, "CLARIFY" if active else "EMPTY", cards=booking_cards, suggestions=chips)
        booking_id = booking["booking_id"]
    return answer_with(context, CANCEL_TOOL, booking_id=booking_id)


# -- paying ----------------------------------------------------------------------------------------------------------


def pay(context: TurnContext) -> Reply:
    """Prepare the payment of one booking waiting for it (the tool answers with the confirmation card: the exact
    amount); without an id, the only one waiting (of the type and day named), else the
    question which one, with a chip each."""
    intent, language = context.intent, context.language
    booking_id = intent.booking_id
    if not booking_id:
        listed = run_tool(context, LIST_BOOKINGS_TOOL, biz_type=intent.biz_type, status=BookingStatus.PENDING_PAYMENT)
        if not listed.get("ok"):
            return present([listed], context)
        booking, candidates = payment_target((listed.get("data") or {}).get("bookings") or [], booking_wants(intent))
        if booking is None:
            waiting = _rows(context, candidates[:MAX_CHOICES])
            text = compose(
                "pay_choose", language, bookings=[cards.booking_card(b, language=context.language) for b in waiting]
            )
            chips = [chip(compose("pay_chip", language, booking_id=b.booking_id), fresh=True) for b in waiting]
            booking_cards = [cards.booking_card(b, language=context.language) for b in waiting]
            return Reply(text, "CLARIFY" if waiting else "EMPTY", cards=booking_cards, suggestions=chips)
        booking_id = booking["booking_id"]
    return answer_with(context, PAY_TOOL, booking_id=booking_id)
