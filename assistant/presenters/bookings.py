"""Presenters of the bookings tools, the same for both channels: `platform` (what the booking agent achieved),
`booking_cancel` and `bookings`.

Texts come from the reply templates, cards from BookingRecord and ticket rows; the envelopes say which rows and
what was done (product, action, order number), so no command string is read here.
"""

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from aftersale.selectors import ticket_for_user
from assistant import cards
from assistant.presenters.base import Presenter
from assistant.replies import compose
from assistant.turn import Reply, TurnContext
from bookings.selectors import bookings_for_user, bookings_of_platform_orders
from core.envelope import Code

BIZ_TYPES = ("FLIGHT", "HOTEL", "TRAIN")
# What the traveller searched, as the reply names it (the supplier's argument names).
SEARCH_CONDITIONS = ("from", "to", "city", "date", "checkInDate", "checkOutDate")
CANCEL_OUTCOMES = {
    Code.OK: "ANSWERED",
    Code.TICKET_PENDING: "ANSWERED",
    Code.CANCEL_IN_PROGRESS: "ANSWERED",
    Code.PLATFORM_CANCEL_FAILED: "DEGRADED",
}


def _data(envelope: dict) -> dict:
    data = envelope.get("data")
    return data if isinstance(data, dict) else {}


def _biz_type(envelopes: list[dict], context: TurnContext) -> str | None:
    """What is being booked: the product of the platform commands, else what was understood."""
    for envelope in reversed(envelopes):
        product = str(_data(envelope).get("product") or "").upper()
        if product in BIZ_TYPES:
            return product
    biz_type = getattr(context.intent, "biz_type", None)
    return biz_type if biz_type in BIZ_TYPES else None


def _has_results(answer: object) -> bool:
    return isinstance(answer, dict) and any(isinstance(v, list) and v for v in answer.values())


def present_platform(envelopes: list[dict], context: TurnContext) -> Reply:
    """What the booking agent achieved: the bookings it made (cards from their rows), an order the platform made
    that we could not record, a failure, nothing found, or the question for the traveller's name and mobile."""
    language = context.language
    biz_type = _biz_type(envelopes, context)
    what = compose("booking_what", language, biz_type=biz_type)
    saved = [_data(e) for e in envelopes if e.get("ok") and _data(e).get("action") == "saveOrder"]
    orders = [(str(d.get("product") or ""), str(d.get("order_no") or "")) for d in saved]
    created = bookings_of_platform_orders(user=context.user, orders=orders)
    if created:
        booking_cards = [cards.booking_card(b) for b in created]
        return Reply(compose("booking_created", language, bookings=booking_cards), "ANSWERED", cards=booking_cards)
    if saved:
        # The platform made the order but our record of it failed (the hook logged why): say so, with its number.
        number = saved[-1].get("order_no") or "?"
        return Reply(compose("booking_unrecorded", language, order_no=number), "DEGRADED")
    failed = [e for e in envelopes if not e.get("ok")]
    if failed:
        envelope = failed[-1]
        code = envelope.get("code")
        shown = code if code in (Code.PLATFORM_UNAVAILABLE, Code.PERMISSION_DENIED) else "REJECTED"
        text = compose("booking_failed", language, code=shown, reason=envelope.get("message", ""), what=what)
        return Reply(text, "DEGRADED" if code == Code.PLATFORM_UNAVAILABLE else "REJECTED")
    searches = [_data(e) for e in envelopes if _data(e).get("action") == "search"]
    if searches and not any(_has_results(d.get("answer")) for d in searches):
        arguments = searches[-1].get("arguments") or {}
        conditions = " ".join(str(arguments[k]) for k in SEARCH_CONDITIONS if arguments.get(k))
        text = compose("booking_failed", language, code="NOTHING_FOUND", what=what, conditions=conditions)
        return Reply(text, "EMPTY")
    text = compose("booking_need", language, what=what, biz_type=biz_type, missing=["contact"])
    return Reply(text, "CLARIFY", awaiting="booking")


def _deadline(ticket, data: dict) -> str:
    moment = ticket.deadline if ticket is not None else parse_datetime(str(data.get("deadline") or ""))
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M") if moment else ""


def present_cancel(envelopes: list[dict], context: TurnContext) -> Reply:
    """The reply to a cancel: done (the booking card), waiting for an approver or rejected (the ticket card),
    refused or failed (the booking unchanged)."""
    texts, found_cards, outcomes = [], [], []
    for envelope in envelopes:
        data, code = _data(envelope), envelope.get("code")
        booking_id = data.get("booking_id") or ""
        booking = (
            bookings_for_user(user=context.user).filter(booking_id=booking_id).first() if envelope.get("ok") else None
        )
        card = cards.booking_card(booking) if booking else None
        ticket_no = data.get("ticket_no")
        ticket = ticket_for_user(user=context.user, ticket_no=ticket_no) if isinstance(ticket_no, str) else None
        rejected = code == Code.PERMISSION_DENIED and bool(ticket_no) and data.get("status") == "REJECTED"
        texts.append(
            compose(
                "cancel_result",
                context.language,
                code=code,
                message=envelope.get("message", ""),
                booking_id=booking_id,
                booking=card,
                already=data.get("already_cancelled"),
                hotel=data.get("call_the_hotel"),
                rejected=rejected,
                ticket_no=ticket_no or "",
                deadline=_deadline(ticket, data) if ticket_no else "",
                reason=(ticket.decision_reason if ticket is not None else "") or "",
            )
        )
        if card:
            found_cards.append(card)
        if ticket is not None:
            found_cards.append(cards.ticket_card(ticket))
        outcomes.append(CANCEL_OUTCOMES.get(code, "REJECTED"))
    outcome = next((o for o in ("ANSWERED", "DEGRADED") if o in outcomes), "REJECTED")
    return Reply("\n".join(texts), outcome, cards=found_cards)


def present_bookings(envelopes: list[dict], context: TurnContext) -> Reply:
    """The traveller's bookings that the tool listed, as cards from their rows."""
    wanted = [b.get("booking_id") for e in envelopes for b in _data(e).get("bookings", []) if isinstance(b, dict)]
    rows = bookings_for_user(user=context.user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    booking_cards = [cards.booking_card(rows[i]) for i in dict.fromkeys(wanted) if i in rows]
    text = compose("booking_list", context.language, count=len(booking_cards))
    return Reply(text, "ANSWERED" if booking_cards else "EMPTY", cards=booking_cards)


PRESENTERS: dict[str, Presenter] = {
    "platform": present_platform,
    "booking_cancel": present_cancel,
    "bookings": present_bookings,
}
