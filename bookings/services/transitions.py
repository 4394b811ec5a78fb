"""The one state machine: a booking moves only through `booking_transition` (row lock, BOOKING_TRANSITIONS, a
BookingEvent); a change the supplier made is `supplier_moved`."""

from typing import Any

from django.db import transaction

from bookings.models import BOOKING_TRANSITIONS, BookingEvent, BookingRecord, EventSource
from bookings.services.errors import BOOKING_NOT_FOUND_MESSAGE, BookingError
from core.envelope import Code
from core.ids import normalise_booking_id
from core.transitions import transition


def booking_lock(*, booking_id: str) -> BookingRecord:
    """The booking, locked for the rest of the caller's transaction (the one lock helper of bookings)."""
    booking = BookingRecord.objects.select_for_update().filter(booking_id=booking_id).first()
    if booking is None:
        raise BookingError(Code.BOOKING_NOT_FOUND, f"no booking {booking_id}")
    return booking


@transaction.atomic
def booking_transition(
    *, booking_id: str, to_status: str, actor=None, reason: str = "", fields: dict[str, Any] | None = None
) -> BookingRecord:
    """Move a booking to another status under a row lock, with an event row (who, when, from, to, why).

    Raises BookingError INVALID_TRANSITION when BOOKING_TRANSITIONS does not allow the move.
    """
    booking = booking_lock(booking_id=booking_id)
    return transition(
        booking,
        to_status=to_status,
        table=BOOKING_TRANSITIONS,
        event_model=BookingEvent,
        actor=actor,
        reason=reason,
        fields=fields,
        error=BookingError,
        error_code=Code.INVALID_TRANSITION,
    )


@transaction.atomic
def supplier_moved(
    booking: BookingRecord, *, to_status: str, reason: str, fields: dict[str, Any] | None = None
) -> BookingRecord:
    """A change the supplier made on its side (expired, cancelled, paid), recorded as a transition with the
    supplier as its source (no user acted). A booking already there is left as it is."""
    locked = booking_lock(booking_id=booking.booking_id)
    if locked.status == to_status:
        return locked
    moved = transition(
        locked,
        to_status=to_status,
        table=BOOKING_TRANSITIONS,
        event_model=BookingEvent,
        actor=None,
        reason=reason,
        fields={"cancel_claimed_until": None, **(fields or {})},
        error=BookingError,
        error_code=Code.INVALID_TRANSITION,
        event_fields={"source": EventSource.SUPPLIER},
    )
    return moved


def booking_of_user(*, user, booking_id: object) -> BookingRecord:
    bid = normalise_booking_id(booking_id)
    if not bid:
        raise BookingError(Code.INVALID_PARAM, "that is not a booking id (like BK20261201001)")
    booking = BookingRecord.objects.filter(booking_id=bid, user_id=getattr(user, "pk", None)).first()
    if booking is None:
        raise BookingError(Code.BOOKING_NOT_FOUND, BOOKING_NOT_FOUND_MESSAGE)
    return booking
