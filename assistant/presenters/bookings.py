"""Presenters of the bookings tools, the same for both channels: `booking_options` (options to pick from),
`booking_created`, `rebook`, `platform` (what the booking agent achieved), `booking_pay`, `booking_cancel` and
`bookings`.

Texts come from the reply templates, cards from BookingRecord and ticket rows; the envelopes say which rows and
what was done (product, action, order number), so no command string is read here.
"""

import datetime as dt
from decimal import Decimal

from django.utils import timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from aftersale.selectors import ticket_for_user
from assistant import cards
from assistant.presenters.base import Presenter, kind_of
from assistant.replies import compose, format_day, format_range
from assistant.selectors import conversation_history
from assistant.turn import Reply, TurnContext, chip
from bookings.formatting import duration_text, option_title, yuan
from bookings.selectors import bookings_for_user, bookings_of_platform_orders
from bookings.vocabulary import names_shown, place_name
from core.envelope import Code

BIZ_TYPES = ("FLIGHT", "HOTEL", "TRAIN")
# With no bookings to list: what the traveller would type to book one (chips, read by the engine as typed).
BOOK_CHIPS = {
    "FLIGHT": gettext_noop("Book a flight"),
    "HOTEL": gettext_noop("Book a hotel"),
    "TRAIN": gettext_noop("Book a train ticket"),
}
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
        booking_cards = [cards.booking_card(b, language=context.language) for b in created]
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
        with translation.override(language):  # the places searched, named as the cards name them
            said = {k: place_name(arguments[k]) for k in ("from", "to", "city") if isinstance(arguments.get(k), str)}
        conditions = " ".join(str(said.get(k) or arguments[k]) for k in SEARCH_CONDITIONS if arguments.get(k))
        text = compose("booking_failed", language, code="NOTHING_FOUND", what=what, conditions=conditions)
        return Reply(text, "EMPTY")
    text = compose("booking_need", language, what=what, biz_type=biz_type, missing=["contact"])
    return Reply(text, "CLARIFY", awaiting="booking")


def _deadline(ticket, data: dict) -> str:
    moment = ticket.deadline if ticket is not None else parse_datetime(str(data.get("deadline") or ""))
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M") if moment else ""


def _booking_card(context: TurnContext, booking_id: str) -> dict | None:
    """The card of one of the traveller's bookings, as it is now; None for a number that is not theirs."""
    booking = bookings_for_user(user=context.user).filter(booking_id=booking_id).first() if booking_id else None
    return cards.booking_card(booking, language=context.language) if booking is not None else None


def _recorded_refund(context: TurnContext, booking_id: str) -> dict | None:
    """The refund a paid booking's cancel recorded on its row (`bookings.services.cancel.refund_record`), or None."""
    booking = bookings_for_user(user=context.user).filter(booking_id=booking_id).first() if booking_id else None
    return (booking.details or {}).get("refund") if booking is not None else None


def present_cancel(envelopes: list[dict], context: TurnContext) -> Reply:
    """The reply to a cancel: done (the booking card), waiting for an approver or rejected (the ticket card),
    refused or failed (the booking unchanged)."""
    texts, found_cards, outcomes = [], [], []
    for envelope in envelopes:
        data, code = _data(envelope), envelope.get("code")
        booking_id = data.get("booking_id") or ""
        if code == Code.INVALID_TRANSITION and data.get("already_cancelled"):  # the preview found it cancelled
            envelope, code = {**envelope, "ok": True}, Code.OK
        card = _booking_card(context, booking_id) if envelope.get("ok") else None
        refund = _recorded_refund(context, booking_id) if card and not data.get("already_cancelled") else None
        ticket_no = data.get("ticket_no")
        ticket = ticket_for_user(user=context.user, ticket_no=ticket_no) if isinstance(ticket_no, str) else None
        rejected = code == Code.PERMISSION_DENIED and bool(ticket_no) and data.get("status") == "REJECTED"
        texts.append(
            compose(
                "cancel_result",
                context.language,
                code=code,
                booking_id=booking_id,
                booking=card,
                already=data.get("already_cancelled"),
                hotel=data.get("call_the_hotel"),
                rejected=rejected,
                ticket_no=ticket_no or "",
                deadline=_deadline(ticket, data) if ticket_no else "",
                reason=(ticket.decision_reason if ticket is not None else "") or "",
                refund=refund,
                refund_amount=yuan(refund["refund"]) if refund and refund.get("refund") is not None else "",
                paid=yuan(refund["paid"]) if refund else "",
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
    """The traveller's bookings that the tool listed, as cards from their rows; after a check with the supplier
    ("我的订单付款了吗"), each one's state in words: waiting for payment until when, paid, expired, cancelled by the
    supplier, its times changed."""
    envelope = envelopes[-1]
    if not envelope.get("ok"):
        return Reply(compose("booking_list", context.language, count=0, failed=True), "REJECTED")
    data = _data(envelope)
    wanted = [b.get("booking_id") for e in envelopes for b in _data(e).get("bookings", []) if isinstance(b, dict)]
    rows = bookings_for_user(user=context.user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    booking_cards = [cards.booking_card(rows[i], language=context.language) for i in dict.fromkeys(wanted) if i in rows]
    text = compose(
        "booking_list",
        context.language,
        count=len(booking_cards),
        bookings=booking_cards,
        checked=bool(data.get("checked")),
        supplier_answered=data.get("supplier_answered", True),
    )
    outcome = "ANSWERED" if booking_cards else "EMPTY"
    if data.get("checked") and data.get("supplier_answered") is False:
        outcome = "DEGRADED"
    return Reply(text, outcome, cards=booking_cards, suggestions=[] if booking_cards else _book_chips(context))


def _book_chips(context: TurnContext) -> list[dict]:
    """Nothing booked (of the kind asked): a chip to book each kind, the one asked about first."""
    asked = getattr(context.intent, "biz_type", None)
    kinds = sorted(BIZ_TYPES, key=lambda kind: kind != asked)
    with translation.override(context.language):
        return [chip(_(BOOK_CHIPS[kind]), fresh=True) for kind in kinds]


PAY_OUTCOMES = {Code.OK: "ANSWERED", Code.PAYMENT_FAILED: "DEGRADED", Code.PLATFORM_UNAVAILABLE: "DEGRADED"}


def present_pay(envelopes: list[dict], context: TurnContext) -> Reply:
    """The reply to a payment: paid (the booking card, now confirmed), or why not (expired, cancelled, paid
    already, the supplier did not take it: then nothing was charged and the booking is as it was)."""
    envelope = envelopes[-1]
    data, code = _data(envelope), envelope.get("code")
    booking_id = data.get("booking_id") or ""
    card = _booking_card(context, booking_id)
    text = compose(
        "pay_result",
        context.language,
        code=code,
        booking_id=booking_id,
        booking=card,
        already=bool(data.get("already_paid")),
        status=data.get("status") or "",
    )
    return Reply(text, PAY_OUTCOMES.get(code, "REJECTED"), cards=[card] if card else [])


# --- options, booking one, rebooking --------------------------------------------------------------------------------

# What the reply awaits when it offered only the nearest options (none met every want): a bare yes accepts them.
NEAREST = "nearest"
# Codes `bookings.services` names a missing fact with → the codes the booking_need template words.
NEED_WORDS = {"biz_type": "biz_type", "route": "route", "origin": "origin", "destination": "destination",
              "city": "hotel_city", "date": "date", "check_in": "date", "check_out": "check_out", "name": "contact",
              "mobile": "contact"}  # fmt: skip
WANT_ORDER = (
    "number",
    "time_band",
    "avoid_time_band",
    "sort",
    "direct",
    "seat_class",
    "star",
    "vendor",
    "avoid_vendor",
    "max_price",
)


def _date(value) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _searched(data: dict, language: str) -> str:
    query = data.get("query") or {}
    start, end = _date(query.get("date")), _date(query.get("check_out"))
    when = format_range(start, end, language) if end else (format_day(start, language) if start else "")
    # The places searched as the cards name them (the supplier's English names, where an option carries them).
    english = {}
    for option in [o for o in data.get("options") or [] if isinstance(o, dict)][:1]:
        english = {k: option.get(f"{k}_en") for k in ("origin", "destination", "city") if option.get(k) == query.get(k)}
    with translation.override(language):
        named = {k: place_name(query[k], english.get(k)) for k in ("origin", "destination", "city") if query.get(k)}
    return compose("booking_searched", language, biz_type=data.get("biz_type"), query={**query, **named}, when=when)


def _failed_reply(envelope: dict, context: TurnContext, biz_type: str | None) -> Reply:
    """A booking step that did not happen: what is missing (asked once), the supplier down, or refused."""
    data, code = _data(envelope), envelope.get("code")
    what = compose("booking_what", context.language, biz_type=biz_type)
    missing = list(dict.fromkeys(NEED_WORDS[m] for m in data.get("missing") or [] if m in NEED_WORDS))
    if code == Code.INVALID_PARAM and missing:
        option = data.get("option") if isinstance(data.get("option"), dict) else None
        brief = option is not None or bool(data.get("after_options"))
        card = None
        shown = None if brief else _card_on_screen(context, str(data.get("option_ref") or ""))
        if shown is not None:
            # One of the options on screen booked without a new search (a model passing its ref): said back too.
            card, brief = {**shown, "pick_message": ""}, True
        elif option is not None:
            # The options are on screen from the previous reply: the one meant is named in a line (its card
            # stands for the list), and only what is still missing is asked.
            offered = list(context.offered)
            index = offered.index(option["ref"]) + 1 if option["ref"] in offered else 1
            card = cards.option_card(option, index=index, language=context.language, pick_message="")
        picked = bool(getattr(context.intent, "pick", None)) or shown is not None
        text = compose(
            "booking_need", context.language, what=what, biz_type=biz_type, missing=missing, option=card,
            picked=picked, brief=brief,
        )  # fmt: skip
        return Reply(text, "CLARIFY", cards=[card] if card else [], awaiting="booking")
    shown = code if code in (Code.PLATFORM_UNAVAILABLE, Code.PERMISSION_DENIED) else "REJECTED"
    text = compose("booking_failed", context.language, code=shown, reason=envelope.get("message", ""), what=what)
    return Reply(text, "DEGRADED" if code == Code.PLATFORM_UNAVAILABLE else "REJECTED")


# What a booking step of a turn is, after the options it was made from (the option booked, or its card).
BOOKING_STEPS = frozenset(("booking_created", "rebook", "confirmation", "pending_action"))


def read_together(envelopes: list[dict], context: TurnContext) -> list[dict]:
    """The turn's envelopes with what one says about another, so the options are shown once: a search whose options
    are already on screen (the previous reply offered them, and the sentence changed nothing the search reads: a
    pick, who travels) and that a booking step follows is not listed again (`on_screen`); a search a card follows
    says so (`prepared`); a booking step that needs the traveller's name or mobile names the option it is for when
    the list is not shown (`option`), else only says the list is just above (`after_options`)."""
    searches = [e for e in envelopes if kind_of(e) == "booking_options" and e.get("ok")]
    if not searches:
        return envelopes
    data = _data(searches[-1])
    options = {o["ref"]: o for o in data.get("options") or [] if isinstance(o, dict) and o.get("ref")}
    steps = [e for e in envelopes if kind_of(e) in BOOKING_STEPS]
    offered = list(context.offered)
    # (a turn that changed what is searched shows what it found, the same options or not)
    same = bool(getattr(context.intent, "same_options", False))
    on_screen = same and bool(steps and options and offered) and set(offered) <= set(options)
    on_screen = on_screen and (len(offered) == 1 or set(offered) == set(options))
    prepared = any(kind_of(e) in ("confirmation", "pending_action") for e in steps)
    read = []
    for envelope in envelopes:
        if envelope is searches[-1]:
            envelope = {**envelope, "data": {**data, "on_screen": on_screen, "prepared": prepared}}
        elif kind_of(envelope) == "booking_created" and not envelope.get("ok"):
            option = options.get(str(_data(envelope).get("option_ref") or ""))
            if option is not None:  # the list is above in this reply, or the option is named in a line
                told = {"option": option} if on_screen else {"after_options": True}
                envelope = {**envelope, "data": {**_data(envelope), **told}}
        read.append(envelope)
    return read


# How many recent turns an option on screen is looked for in (its card, for a step that names it by its ref).
SCREEN_TURNS = 4


def _card_on_screen(context: TurnContext, ref: str) -> dict | None:
    """The card of an option on screen (the previous reply offered its ref), from the turns that showed it."""
    if not ref or ref not in context.offered or not context.conversation_id:
        return None
    turns = conversation_history(user=context.user, conversation_id=context.conversation_id, limit=SCREEN_TURNS)
    cards_shown = [c for t in reversed(turns) for c in t.cards or [] if isinstance(c, dict)]
    return next((c for c in cards_shown if c.get("type") == "option" and c.get("ref") == ref), None)


def present_options(envelopes: list[dict], context: TurnContext) -> Reply:
    """The options found (the last search of the turn): text naming what was searched and wanted (or what could
    not be met), an option card each, a "pick" chip each; `offered` holds their refs in the order shown."""
    envelope = envelopes[-1]
    data = _data(envelope)
    biz_type = data.get("biz_type")
    if not envelope.get("ok"):
        return _failed_reply(envelope, context, biz_type)
    language = context.language
    options = [o for o in data.get("options") or [] if isinstance(o, dict) and o.get("ref")]
    searched = _searched(data, language)
    if not options:
        what = compose("booking_what", language, biz_type=biz_type)
        text = compose("booking_failed", language, code="NOTHING_FOUND", what=what, conditions=searched)
        return Reply(text, "EMPTY")
    refs = [o["ref"] for o in options]
    if data.get("on_screen"):
        # Shown by the previous reply: the booking step that follows says what happens to them.
        return Reply("", "ANSWERED", awaiting="booking", offered=refs)
    query = data.get("query") or {}
    wants = [(name, query[name]) for name in WANT_ORDER if query.get(name) not in (None, "", False)]
    unmet = [(name, query.get(name)) for name in data.get("unmet") or [] if name in query]
    option_cards = []
    for index, option in enumerate(options, start=1):
        pick = compose("option_pick", language, n=index)
        option_cards.append(cards.option_card(option, index=index, language=language, pick_message=pick))
    text = compose(
        "booking_options",
        language,
        matched=bool(data.get("matched")),
        searched=searched,
        wants=wants,
        unmet=unmet,
        star_or_above=bool(query.get("star_or_above")),
        biz_type=biz_type,
        options=option_cards,
        prepared=bool(data.get("prepared")),
    )
    return Reply(
        text,
        "ANSWERED",
        cards=option_cards,
        suggestions=[chip(c["pick_message"]) for c in option_cards],
        # the nearest to what was asked: a bare yes takes the first (`assistant.services`); else a pick is awaited
        awaiting="booking" if data.get("matched", True) else NEAREST,
        offered=[c["ref"] for c in option_cards],
    )


def _booking_rows(user, summaries: list[dict]) -> list:
    wanted = [s.get("booking_id") for s in summaries if isinstance(s, dict) and s.get("booking_id")]
    rows = bookings_for_user(user=user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    return [rows[i] for i in dict.fromkeys(wanted) if i in rows]


def present_created(envelopes: list[dict], context: TurnContext) -> Reply:
    """What book_option did: the booking card(s) from their rows with the facts, or why nothing was booked."""
    done = [_data(e) for e in envelopes if e.get("ok")]
    created = _booking_rows(context.user, done)
    if created:
        booking_cards = [cards.booking_card(b, language=context.language) for b in created]
        text = compose("booking_done", context.language, bookings=booking_cards)
        return Reply(text, "ANSWERED", cards=booking_cards)
    envelope = envelopes[-1]
    unrecorded = _data(envelope).get("unrecorded_order_no")
    if unrecorded:  # the supplier booked it; our record failed (logged): say so, with the supplier's number
        return Reply(compose("booking_unrecorded", context.language, order_no=unrecorded), "DEGRADED")
    option = str(_data(envelope).get("option_ref") or "")
    return _failed_reply(envelope, context, option.split("|", 1)[0] or None)


def present_rebook(envelopes: list[dict], context: TurnContext) -> Reply:
    """A rebooking: both bookings (the new one, the old one cancelled or not, said plainly), or the failure."""
    envelope = envelopes[-1]
    data = _data(envelope)
    if not envelope.get("ok"):
        text = compose(
            "rebook_result", context.language, ok=False, code=envelope.get("code"), status=data.get("status") or "",
            booking_id=data.get("booking_id") or "",
        )  # fmt: skip
        return Reply(text, "DEGRADED" if envelope.get("code") == Code.PLATFORM_UNAVAILABLE else "REJECTED")
    rows = _booking_rows(context.user, [data.get("new") or {}, data.get("old") or {}])
    found = {b.booking_id: cards.booking_card(b, language=context.language) for b in rows}
    new = found.get((data.get("new") or {}).get("booking_id"))
    old = found.get((data.get("old") or {}).get("booking_id"))
    text = compose(
        "rebook_result",
        context.language,
        ok=True,
        new=new,
        old=old,
        old_cancelled=bool(data.get("old_cancelled")),
        cancel_code=data.get("cancel_code") or "",
        cancel_error=data.get("cancel_error") or "",
    )
    money = data.get("money")
    if isinstance(money, dict) and new is not None:
        text += "\n" + _money_text(money, new, context.language)
    outcome = "ANSWERED" if data.get("old_cancelled") else "DEGRADED"
    return Reply(text, outcome, cards=[c for c in (new, old) if c])


# What an order of options is called in a reply ("The cheapest is No. 2").
ORDER_WORDS = {
    "CHEAPEST": gettext_noop("The cheapest"),
    "FASTEST": gettext_noop("The fastest"),
    "EARLIEST": gettext_noop("The earliest"),
    "LATEST": gettext_noop("The latest"),
}


def _option_facts(option: dict, facts: list[str]) -> list[str]:
    """The facts asked of one option, as a reply says them (every fact when none was named)."""
    asked = facts or ["PRICE", "DURATION", "DEPARTURE", "ARRIVAL", "SEAT_CLASS", "DIRECT", "STAR"]
    hotel, flight = option.get("biz_type") == "HOTEL", option.get("biz_type") == "FLIGHT"
    said = []
    for fact in asked:
        if fact == "PRICE" and hotel:
            said.append(
                _("¥%(unit)s a night, ¥%(total)s in all") % {"unit": option["unit_price"], "total": option["total"]}
            )
        elif fact == "PRICE":
            said.append(_("¥%(total)s") % {"total": option["total"]})
        elif fact == "DURATION" and not hotel and (duration := duration_text(option.get("duration_minutes"))):
            said.append(_("%(duration)s on the way") % {"duration": duration})
        elif fact == "DEPARTURE" and not hotel and option.get("depart"):
            said.append(_("leaves at %(time)s") % {"time": str(option["depart"])[11:16]})
        elif fact == "ARRIVAL" and not hotel and option.get("arrive"):
            extra = _(" (+%(days)s day)") % {"days": option["overnight_days"]} if option.get("overnight_days") else ""
            said.append(_("arrives at %(time)s") % {"time": str(option["arrive"])[11:16]} + extra)
        elif fact == "VENDOR" and option.get("name"):
            said.append(names_shown(option, option["biz_type"])["name"])
        elif fact == "SEAT_CLASS" and not hotel and option.get("seat_class"):
            said.append(names_shown(option, option["biz_type"])["seat"])
        elif fact == "DIRECT" and flight and option.get("direct") is not None:
            said.append(_("direct") if option["direct"] else _("with a stop"))
        elif fact == "STAR" and hotel:
            said.append(_("%(star)s stars") % {"star": option["star"]} if option.get("star") else _("no star rating"))
    return [s for s in said if s]


def present_described(envelopes: list[dict], context: TurnContext) -> Reply:
    """The answer to a question about the options on screen, from the supplier's facts of the options asked about,
    each named by its number on screen; the booking goes on as it was (no new options, the same open question)."""
    envelope = envelopes[-1]
    data = _data(envelope)
    if not envelope.get("ok"):
        return _failed_reply(envelope, context, getattr(context.intent, "biz_type", None))
    options = [o for o in data.get("options") or [] if isinstance(o, dict) and o.get("ref")]
    order, first = data.get("order"), data.get("first")
    if order and first:
        options = [o for o in options if o["ref"] == first]
    language = context.language
    with translation.override(language):
        said = [
            {
                "index": context.offered.index(o["ref"]) + 1 if o["ref"] in context.offered else None,
                "title": option_title(o),
                "facts": _option_facts(o, list(data.get("facts") or [])),
            }
            for o in options
        ]
        lead = _(ORDER_WORDS[order]) if order in ORDER_WORDS and said else ""
    chosen = bool(getattr(context.intent, "pick", None))  # "那就订它吧" said with it: the pick's reply goes on
    text = compose("option_facts", language, options=said, lead=lead, chosen=chosen)
    chips = [chip(compose("option_pick", language, n=n)) for n in range(1, len(context.offered) + 1)]
    return Reply(text, "ANSWERED" if said else "EMPTY", suggestions=chips, awaiting="booking")


def _money_text(money: dict, new: dict, language: str) -> str:
    """What the rebooking did with the money (`bookings.services.rebook.rebook_money`, with the refund the cancel
    recorded): the same facts its confirmation card told."""
    difference = Decimal(money["difference"]) if money.get("difference") is not None else Decimal(0)
    return compose(
        "rebook_money",
        language,
        money=money,
        new=new,
        paid=yuan(money["paid"]) if money.get("paid") is not None else "",
        refund=yuan(money["refund"]) if money.get("refund") is not None else "",
        to_pay=yuan(money["to_pay"]),
        more=yuan(difference) if difference > 0 else "",
        back=yuan(-difference) if difference < 0 else "",
    )


PRESENTERS: dict[str, Presenter] = {
    "options_described": present_described,
    "booking_options": present_options,
    "booking_created": present_created,
    "rebook": present_rebook,
    "platform": present_platform,
    "booking_cancel": present_cancel,
    "booking_pay": present_pay,
    "bookings": present_bookings,
}
