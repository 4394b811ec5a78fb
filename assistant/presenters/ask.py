"""The question a model asked through `ask_traveller`, composed by code from the templates channel 1 asks with."""

import datetime as dt

from assistant.presenters.base import present_refusal
from assistant.replies import compose, format_day
from assistant.tools import KIND_ASK
from assistant.turn import Reply, TurnContext, chip

# The facts channel 1's booking question (`booking_need`) names.
BOOKING_FACTS = ("biz_type", "route", "origin", "destination", "hotel_city", "date", "check_out", "contact")
AWAITING_BOOKING = "booking"
AWAITING_ANSWER = "question"


def present_ask(envelopes: list[dict], context: TurnContext) -> Reply:
    """One question: the booking facts still missing (as channel 1 asks them), an order or a place, and the options
    on screen to pick from (only refs that are on screen; "the second one" then means the second of these)."""
    envelope = envelopes[-1]
    if not envelope.get("ok"):
        return present_refusal(envelopes, context)
    data, language = envelope["data"], context.language
    missing, biz_type = data.get("missing") or [], data.get("biz_type")
    choices = [ref for ref in data.get("choices") or [] if ref in context.offered]
    booking = [fact for fact in missing if fact in BOOKING_FACTS]
    texts = []
    passed = _day(data.get("passed_date"))
    if passed is not None:
        texts.append(compose("date_passed", language, day=format_day(passed, language)))
    rebooking = data.get("booking_id")
    if rebooking and "date" in booking:  # the new day of a rebooking
        texts.append(compose("rebook_need", language, booking_id=rebooking))
        booking = [fact for fact in booking if fact != "date"]
    if booking:
        what = compose("booking_what", language, biz_type=biz_type)
        texts.append(compose("booking_need", language, what=what, biz_type=biz_type, missing=booking))
    if "order_id" in missing:
        texts.append(compose("aftersale_need", language, need="order"))
    if "place" in missing:
        texts.append(compose("clarify_destination", language))
    if choices or not texts:
        texts.append(compose("ask_choose", language, count=len(choices)))
    chips = [chip(compose("option_pick", language, n=n)) for n in range(1, len(choices) + 1)]
    return Reply(
        "\n".join(texts),
        "CLARIFY",
        suggestions=chips,
        awaiting=AWAITING_BOOKING if booking or choices or rebooking else AWAITING_ANSWER,
        offered=choices,
    )


def _day(value: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


PRESENTERS = {KIND_ASK: present_ask}
