"""What the agent may call about bookings. Each returns the envelope of DESIGN.md and never raises."""

import logging
from typing import Annotated, Literal

from pydantic import Field

from bookings.hooks import BookingPersistenceHook
from bookings.selectors import bookings_for_user
from bookings.services import BookingError, booking_cancel
from core.envelope import Code, fail, ok
from core.tools import Risk, ToolContext, tool

logger = logging.getLogger(__name__)

# Error codes with which a supplier says it is broken, not that the request was wrong.
SUPPLIER_SYSTEM_ERRORS = {"PLATFORM_ERROR", "SYSTEM_ERROR", "SYSTEM_BUSY", "INTERNAL_ERROR"}


def booking_summary(booking) -> dict:
    return {
        "booking_id": booking.booking_id,
        "biz_type": booking.biz_type,
        "status": booking.status,
        "amount": str(booking.amount),
        "external_order_no": booking.external_order_no,
        "details": booking.details,
        "created_at": booking.created_at.isoformat(),
    }


@tool(risk=Risk.WRITE, tags=("booking",))
def execute_platform_command(
    context: ToolContext,
    command: Annotated[
        str,
        Field(
            max_length=4000,
            description="One supplier command line: supplier call <product> <action> -a '<json object>'",
        ),
    ],
) -> dict:
    """Run one command of the supplier platform (search, saveOrder, cancelOrder, queryOrder for flight, hotel or
    train) for the signed-in traveller, as the booking skill document describes. Returns the platform's JSON."""
    from bookings.platform import PlatformError, parse_command, platform_run

    try:
        parsed = parse_command(command)
    except PlatformError as exc:
        return fail(Code.INVALID_PARAM, f"command refused: {exc}")
    try:
        answer = platform_run(parsed, user=context.user)
    except PlatformError as exc:
        business_no = exc.code == "REJECTED" and getattr(exc, "platform_code", None) not in SUPPLIER_SYSTEM_ERRORS
        code = Code.PLATFORM_REJECTED if business_no else Code.PLATFORM_UNAVAILABLE
        return fail(code, str(exc), {"platform_code": getattr(exc, "platform_code", None)})
    return ok(answer, f"{parsed.product} {parsed.action} done")


@tool(risk=Risk.WRITE, tags=("booking",))
def cancel_booking(
    context: ToolContext,
    booking_id: Annotated[str, Field(max_length=32, description="TripDesk booking id, like BK20261201001")],
) -> dict:
    """Cancel one of the traveller's bookings by its TripDesk booking id. Flights and trains are cancelled on the
    platform first; hotels are marked cancelled and the traveller must call the hotel. Safe to repeat."""
    try:
        outcome = booking_cancel(user=context.user, booking_id=booking_id)
    except BookingError as exc:
        return fail(exc.code, exc.message)
    data = booking_summary(outcome.booking) | {
        "already_cancelled": outcome.already_cancelled,
        "call_the_hotel": outcome.call_the_hotel,
    }
    message = "already cancelled" if outcome.already_cancelled else "cancelled"
    return ok(data, message)


@tool(risk=Risk.READ, tags=("booking",))
def list_my_bookings(
    context: ToolContext,
    biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"] | None = None,
    status: Literal["PENDING_PAYMENT", "CONFIRMED", "CANCELLED"] | None = None,
) -> dict:
    """List the traveller's own bookings, newest first, optionally of one type or status."""
    bookings = bookings_for_user(user=context.user)
    if biz_type:
        bookings = bookings.filter(biz_type=biz_type)
    if status:
        bookings = bookings.filter(status=status)
    return ok({"bookings": [booking_summary(b) for b in bookings[:20]]})


TOOLS = [execute_platform_command, cancel_booking, list_my_bookings]
HOOKS = [BookingPersistenceHook()]
