"""The error every booking write raises, and what a traveller is told about a booking that is not theirs or
is closed."""

from bookings.models import BookingRecord, BookingStatus
from core.envelope import Code
from core.errors import ApplicationError

# What a traveller is told about a booking id that is not one of theirs, unknown or someone else's alike: the same
# code and words, and not the id, so an answer never tells whether a number exists.
BOOKING_NOT_FOUND_MESSAGE = "You have no booking with that number."


class BookingError(ApplicationError):
    """A booking request that cannot be done; `code` is one of `core.envelope.Code`."""


CLOSED_TAILS = {"pay": "there is nothing to pay", "cancel": "there is nothing to cancel", "change": "book anew instead"}


def booking_closed_error(booking: BookingRecord, *, doing: str) -> BookingError:
    """Why a cancelled or expired booking cannot be paid, cancelled or changed (`doing`: a key of CLOSED_TAILS):
    BOOKING_EXPIRED or INVALID_TRANSITION, with its status in `data`."""
    data = {"status": booking.status, "booking_id": booking.booking_id}
    if booking.status == BookingStatus.EXPIRED:
        message = f"booking {booking.booking_id} was not paid by its deadline and has expired: {CLOSED_TAILS[doing]}"
        return BookingError(Code.BOOKING_EXPIRED, message, data)
    message = f"booking {booking.booking_id} is cancelled: {CLOSED_TAILS[doing]}"
    return BookingError(Code.INVALID_TRANSITION, message, data)
