"""Which of a traveller's bookings a request means when it gives no booking id, or gives one: the rule every way in
shares (both chat channels, and the booking a conversation just made).

The bookings are given as the caller holds them, records (`BookingRecord`) or as `list_my_bookings` lists them
(`bookings.tools.booking_summary`), and come back the same. A booking is active while it is open
(`bookings.models.OPEN_STATUSES`); its day is `bookings.facts.BookingFacts.day`, whichever words its details use.
"""

from collections.abc import Mapping, Sequence
from typing import TypeVar

from bookings.facts import booking_day
from bookings.models import OPEN_STATUSES, BookingRecord, BookingStatus
from bookings.requests import BookingWants
from core.ids import normalise_booking_id

B = TypeVar("B", BookingRecord, Mapping)


def booking_target(bookings: Sequence[B], wants: BookingWants, *, named: bool = False) -> tuple[B | None, list[B]]:
    """The booking a cancel or a rebooking means, and the candidates when it is not clear which: the one named by
    id, else the active ones of the asked type on the day named (`wants.booking_day`), the only one left. The only
    one is meant when the request named something of it (a type, a day) or is a rebooking, or when the caller
    says the bookings given are the ones meant (`named`: those this conversation made). A day that matches no
    booking picks nothing: the traveller is shown all of them to choose ("取消27号那张" never cancels the 28th)."""
    active = [b for b in bookings if _status(b) in OPEN_STATUSES and _of_type(b, wants.biz_type)]
    return _meant(active, wants, named=named or bool(wants.biz_type or wants.booking_day or wants.rebook))


def payment_target(bookings: Sequence[B], wants: BookingWants) -> tuple[B | None, list[B]]:
    """The booking a payment means, and the candidates when it is not clear which: the one named by id, else those
    waiting for payment of the asked type (on the day named), the only one left."""
    waiting = [b for b in bookings if _status(b) == BookingStatus.PENDING_PAYMENT and _of_type(b, wants.biz_type)]
    return _meant(waiting, wants, named=True)


def _meant(candidates: list[B], wants: BookingWants, *, named: bool) -> tuple[B | None, list[B]]:
    if wants.booking_id:
        wanted = normalise_booking_id(wants.booking_id)
        found = [b for b in candidates if wanted and normalise_booking_id(_field(b, "booking_id")) == wanted]
        return (found[0] if found else None), found
    day = wants.booking_day
    if day:
        on_day = [b for b in candidates if booking_day(b) == day]
        if not on_day:
            return None, candidates
        candidates = on_day
    return (candidates[0] if len(candidates) == 1 and named else None), candidates


def _field(booking: BookingRecord | Mapping, name: str) -> str:
    value = booking.get(name) if isinstance(booking, Mapping) else getattr(booking, name)
    return str(value or "")


def _status(booking: BookingRecord | Mapping) -> str:
    return _field(booking, "status").upper()


def _of_type(booking: BookingRecord | Mapping, biz_type: str | None) -> bool:
    kind = _field(booking, "biz_type").upper()
    return not biz_type or not kind or kind == biz_type
