"""The assistant's reading of a booking request (an `Intent`) as bookings' rules take it (`BookingWants`): the one
adapter through which the booking handlers ask `bookings.requests` and `bookings.targets` what to search, which
option and which booking is meant, and who travels."""

from collections.abc import Iterable

from assistant.llm.contacts import find_contact
from assistant.llm.schema import Intent
from bookings.options import SORTS
from bookings.requests import PREFERENCE_ARGUMENTS, BookingWants, booking_passengers


def booking_wants(intent: Intent) -> BookingWants:
    """What the understood sentence says about a booking; `passengers_of` adds those named in the words."""
    preferences = {name: getattr(intent, name, None) for name in PREFERENCE_ARGUMENTS}
    if preferences.get("sort") not in SORTS:  # "贵一点的" orders activities; a booking's options know no such order
        preferences["sort"] = None
    return BookingWants(
        biz_type=intent.biz_type,
        origin=intent.origin,
        city=intent.city,
        places=tuple(intent.destination_keywords),
        date_start=intent.date_start,
        date_end=intent.date_end,
        nights=intent.nights,
        passengers=tuple(intent.passengers),
        preferences={**preferences, "max_price": intent.max_price},
        pick=intent.pick,
        accept_nearest=intent.accept_nearest,
        booking_id=intent.booking_id,
        rebook=bool(intent.rebook),
        original_date=intent.original_date,
        day_shift=intent.day_shift,
        ordinal=intent.booking_ordinal,
    )


def passengers_of(intent: Intent, user_texts: Iterable[str]) -> list[dict[str, str | None]]:
    """Who travels, as far as known: the understood passengers (the first one's mobile may come from the words),
    else the contact in the traveller's words (newest first); empty when nothing is known."""
    contact = find_contact(user_texts)
    return booking_passengers(intent.passengers, contact_name=contact.name, contact_mobile=contact.mobile)
