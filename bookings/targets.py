"""Which of a traveller's bookings a request means when it gives no booking id, or gives one: the rule every way in
shares (both chat channels, and the booking a conversation just made).

The bookings are given as the caller holds them, records (`BookingRecord`) or as `list_my_bookings` lists them
(`bookings.tools.booking_summary`), and come back the same. A booking is active while it is open
(`bookings.models.OPEN_STATUSES`); its day is `bookings.facts.BookingFacts.day`, whichever words its details use.
"""

from collections.abc import Mapping, Sequence
from typing import TypeVar

from bookings.facts import BookingFacts, booking_day, details_facts
from bookings.models import OPEN_STATUSES, BookingRecord, BookingStatus
from bookings.requests import BookingWants
from core.ids import normalise_booking_id

B = TypeVar("B", BookingRecord, Mapping)


def booking_target(bookings: Sequence[B], wants: BookingWants, *, named: bool = False) -> tuple[B | None, list[B]]:
    """The booking a cancel or a rebooking means, and the candidates when it is not clear which: the one named by
    id, else the active ones that fit every hint of the request (`_meant`), the only one left. The only one is meant
    when the request named something of it (a type, a day, a place, which one by when it was made) or is a
    rebooking, or when the caller says the bookings given are the ones meant (`named`: those this conversation
    made). A hint that matches no booking picks nothing: the traveller is shown all of them to choose
    ("取消27号那张" never cancels the 28th)."""
    active = [b for b in bookings if _status(b) in OPEN_STATUSES and _of_type(b, wants.biz_type)]
    return _meant(active, wants, named=named or wants.rebook or _names_something(wants))


def payment_target(bookings: Sequence[B], wants: BookingWants) -> tuple[B | None, list[B]]:
    """The booking a payment means, and the candidates when it is not clear which: the one named by id, else those
    waiting for payment of the asked type that fit every other hint (`_meant`), the only one left."""
    waiting = [b for b in bookings if _status(b) == BookingStatus.PENDING_PAYMENT and _of_type(b, wants.biz_type)]
    return _meant(waiting, wants, named=True)


def _names_something(wants: BookingWants) -> bool:
    return bool(wants.biz_type or wants.booking_day or wants.origin or wants.booking_places or wants.ordinal)


def _meant(candidates: list[B], wants: BookingWants, *, named: bool) -> tuple[B | None, list[B]]:
    """The candidates narrowed by every hint in turn (the days, the places, which one by when it was made), the
    only one left; a hint that fits none leaves them all to choose from."""
    if wants.booking_id:
        wanted = normalise_booking_id(wants.booking_id)
        found = [b for b in candidates if wanted and normalise_booking_id(_field(b, "booking_id")) == wanted]
        return (found[0] if found else None), found
    fitting = candidates
    for narrow in (_on_days, _at_places, _by_ordinal):
        fitting = narrow(fitting, wants)
        if not fitting:
            return None, candidates
    return (fitting[0] if len(fitting) == 1 and named else None), fitting


def _on_days(candidates: list[B], wants: BookingWants) -> list[B]:
    days = wants.booking_days
    if days is None:
        return candidates
    first, last = days
    return [b for b in candidates if (day := booking_day(b)) is not None and first <= day <= last]


def _at_places(candidates: list[B], wants: BookingWants) -> list[B]:
    """Those from the origin named, and going to (or staying in) a place named; a place named that is where a
    booking leaves from fits only when no booking goes there ("我的北京机票" for the flight home from 北京)."""
    origin, places = _place(wants.origin), {_place(p) for p in wants.booking_places}
    if not origin and not places:
        return candidates
    facts = [(b, _facts(b)) for b in candidates]
    if origin:
        facts = [(b, f) for b, f in facts if _place(f.origin) == origin]
    if not places:
        return [b for b, _f in facts]
    going = [b for b, f in facts if {_place(f.destination), _place(f.city)} & places]
    return going or [b for b, f in facts if _place(f.origin) in places]


def _by_ordinal(candidates: list[B], wants: BookingWants) -> list[B]:
    """The newest or the oldest booking made, when asked."""
    if not wants.ordinal or len(candidates) < 2:
        return candidates
    made = sorted(candidates, key=lambda b: (_field(b, "created_at"), _field(b, "booking_id")))
    return [made[-1] if wants.ordinal == "NEWEST" else made[0]]


def _facts(booking: BookingRecord | Mapping) -> BookingFacts:
    return details_facts(booking.get("details") if isinstance(booking, Mapping) else booking.details)


def _place(name: str | None) -> str:
    return (name or "").strip().casefold()


def _field(booking: BookingRecord | Mapping, name: str) -> str:
    value = booking.get(name) if isinstance(booking, Mapping) else getattr(booking, name)
    return str(value or "")


def _status(booking: BookingRecord | Mapping) -> str:
    return _field(booking, "status").upper()


def _of_type(booking: BookingRecord | Mapping, biz_type: str | None) -> bool:
    kind = _field(booking, "biz_type").upper()
    return not biz_type or not kind or kind == biz_type
