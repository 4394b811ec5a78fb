"""The slots an intent is filled with beyond what the readers give as read: a booking's wants, the nights of a stay,
a rebooking's new and original dates, a day already over, the options asked about, which booking is meant, the
refinement, and the passengers."""

import re
from datetime import date

from assistant.llm.rules import booking_prefs, conversation_cues, option_questions, people, refinements
from assistant.llm.rules import dates as dates_mod
from assistant.llm.rules.gazetteer import Gazetteer
from assistant.llm.rules.text import mask


def _refining(refine: refinements.Refinement, *, pick: int | None, rebook: bool) -> dict:
    """The refinement's slots (a day moved from the one shown only outside a rebooking, which moves a booking)."""
    return {
        "interests": refine.interests,
        "avoid_interests": refine.avoid_interests,
        "audience": refine.audience,
        "packing": refine.packing,
        "day_shift": None if rebook else refine.day_shift,
        "pick": pick,
    }


# The fact an order implies when a sentence asks only which option comes first in it ("哪个最便宜").
_ORDER_FACT = {
    "CHEAPEST": option_questions.PRICE,
    "FASTEST": option_questions.DURATION,
    "EARLIEST": option_questions.DEPARTURE,
    "LATEST": option_questions.DEPARTURE,
}


def _option_question(text: str, pending: str | None, pick: int | None, sort: str | None) -> dict:
    """What the sentence asks of the options a waiting booking showed: the facts, about which one (a position, or
    the first in an order); {} when it asks nothing of them."""
    if pending != "BOOK":
        return {}
    facts, _spans = option_questions.read_option_question(text)
    order = sort if sort and option_questions.asks_which(text) else None
    if order and not facts:
        facts = [_ORDER_FACT[order]]
    if not facts:
        return {}
    # "第一个多少钱" asks about the first without taking it; "第二个多少钱？那就订它吧" takes it too.
    chosen = pick if option_questions.also_chooses(text) else None
    return {"asks_option": facts, "asked_option": None if order else pick, "asked_order": order, "pick": chosen}


def _booking_ordinal(text: str, data: dict) -> dict:
    """Which of the traveller's bookings a cancel, a rebooking or a payment names by when it was made ("最新的那个订单",
    "the last one I booked"); its words are no order of options ("latest") nor a pick ("第一个") there."""
    ordinal, span = conversation_cues.read_booking_ordinal(text)
    if ordinal is None or span is None:
        return {}
    said = text[span[0] : span[1]]
    found = {"booking_ordinal": ordinal}
    if data.get("sort") and booking_prefs.read_wants(said).sort == data["sort"]:
        found["sort"] = None
    if data.get("pick") and conversation_cues.read_pick(said)[0] == data["pick"]:
        found["pick"] = None
    return found


def _wants_slots(wants: booking_prefs.BookingWants) -> dict:
    return {
        "time_band": wants.time_band,
        "avoid_time_band": wants.avoid_time_band,
        "sort": wants.sort,
        "direct": wants.direct,
        "seat_class": wants.seat_class,
        "star": wants.star,
        "star_or_above": wants.star_or_above,
        "vendor": wants.vendor,
        "avoid_vendor": wants.avoid_vendor,
        "number": wants.number,
    }


def _nights(text: str, date_range: dates_mod.DateRange, biz_types: list[str]) -> int | None:
    """The nights of a stay: as said ("住两晚"), or from the check-in and check-out days of a hotel."""
    said = dates_mod.nights(text)
    if said:
        return said
    if "HOTEL" in biz_types and date_range.start and date_range.end and date_range.end > date_range.start:
        return (date_range.end - date_range.start).days
    if "HOTEL" in biz_types and dates_mod.one_night(text, date_range):
        return 1  # "明晚的酒店", "a hotel for tomorrow night": in that evening, out the next morning
    return None


def _rebook_to_dated(text: str, date_range: dates_mod.DateRange) -> bool:
    """ "改到20号的航班", "明天的火车改到后天": a change to (or from and to) a dated booking is a change of a booking."""
    match = conversation_cues.rebook_to_dated(text)
    if not match:
        return False
    spans = [match.span(name) for name, said in match.groupdict().items() if said]
    return all(any(s < end and e > start for s, e in date_range.spans) for start, end in spans)


def _past_date(text: str, today: date, data: dict, date_range: dates_mod.DateRange) -> dict:
    """A booking for a day already over (昨天, last Friday, 11月20号 on December 1st): `past_date` is that day and
    the booking has no date (the handler says the day has passed and asks for another). Words read as a coming day
    that are the past day's own ("Friday" of "last Friday", next year's 11月20号) are that past day."""
    found = dates_mod.past_day(text, today)
    start = data.get("date_start")
    if found is None:
        return {}
    day, (begin, end) = found
    misread = any(begin < e and s < end for s, e in date_range.spans)
    if start is not None and start >= today and not misread:
        return {}  # "昨天订的机票改到周五": the new day is Friday
    return {"past_date": day, "date_start": None, "date_end": None, "nights": data.get("nights")}


def _rebook_dates(text: str, today: date) -> tuple[date | None, date | None]:
    """(the new date, the original one) of a rebooking sentence: "把12月19号的机票改签到20号" → (Dec 20, Dec 19)."""
    mentions = dates_mod.mentions(text, today)
    if not mentions:
        return None, None
    new = original = None
    for m in mentions:
        before = text[max(0, m.start - 10) : m.start]
        after = text[m.end : m.end + 10]
        if new is None and conversation_cues.NEW_DATE_BEFORE.search(before):
            new = m
        elif original is None and (
            conversation_cues.OLD_DATE_AFTER.match(after) or conversation_cues.OLD_DATE_BEFORE.search(before)
        ):
            original = m
    rest = [m for m in mentions if m is not new and m is not original]
    if new is None and rest and original is not None:
        new = next((m for m in rest if m.start > original.start), None)
    if original is None and new is not None:
        original = next((m for m in rest if m.start < new.start), None)
    if new is None and original is None:
        new = mentions[0]
    original_day = original.first if original is not None else None
    if new is None:
        return None, original_day
    new_day = dates_mod.resolve_after(new, original_day) if original_day and new.relative else new.first
    return new_day, original_day


_CHECK_OUT_WORDS = re.compile(r"退房|离店|check", re.I)


def _ends_known_trip(pending: str | None, words: str) -> bool:
    """Whether a lone coming-back date ends the trip the conversation is about rather than starting one."""
    return pending == "PLAN_ITINERARY" or (pending == "BOOK" and bool(_CHECK_OUT_WORDS.search(words)))


def _bare_passenger(text: str, places: Gazetteer) -> tuple[list[dict], list]:
    """A sentence that is only a name, read while a booking waits for its passengers (not a place's name)."""
    person = people.bare_name(text)
    if person is None or places.find(text) or booking_prefs.read_wants(text).any:
        return [], []
    start, end = person.span
    if any(m.start < end and start < m.end for m in dates_mod.mentions(text, date.today())):
        return [], []  # "周五吧": a day, not a name
    return [{"name": person.name, "mobile": None}], [person.span]


def _passengers(text: str, id_spans: list[tuple[int, int]], places: Gazetteer) -> tuple[list[dict], list]:
    """The passengers named, without any "name" that is a place ("I'm going to Dunhuang")."""
    found, spans = people.passengers(mask(text, id_spans))
    place_spans = [(m.start, m.end) for m in places.find(text)]
    kept = [
        (person, span)
        for person, span in zip(found, spans, strict=True)
        if not any(s <= span[0] and span[1] <= e for s, e in place_spans)
    ]
    return [p for p, _ in kept], [s for _, s in kept]
