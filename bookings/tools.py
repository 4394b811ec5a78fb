"""What the agent may call about bookings: thin over `bookings.services` and `bookings.selectors`. Each returns
the envelope of DESIGN.md (with `data["kind"]`, ok and fail alike) and never raises."""

import logging
from typing import Annotated, Literal

from pydantic import Field

from bookings.hooks import BookingPersistenceHook
from bookings.platform import READ_ACTIONS, PlatformError, parse_command
from bookings.selectors import bookings_for_user
from bookings.services import BookingError, booking_cancel, platform_command_for_traveller
from core.envelope import Code, fail, ok
from core.ids import normalise_booking_id
from core.tools import Risk, ToolContext, tool

logger = logging.getLogger(__name__)

KIND_PLATFORM = "platform"
KIND_CANCEL = "booking_cancel"
KIND_BOOKINGS = "bookings"
MAX_LISTED = 20


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


def platform_command_risk(arguments: dict) -> Risk:
    """search and queryOrder only read; anything else (saveOrder, or a command that will be refused) counts as a
    write, so the per-turn write cap counts every call that could change something."""
    command = arguments.get("command") if isinstance(arguments, dict) else None
    try:
        action = parse_command(command).action
    except PlatformError:
        return Risk.WRITE
    return Risk.READ if action in READ_ACTIONS else Risk.WRITE


@tool(risk=Risk.WRITE, risk_of=platform_command_risk, tags=("booking",))
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
    """Run one command of the supplier platform for the signed-in traveller, as the booking skill document
    describes: search, saveOrder or queryOrder for flight, hotel or train (and order queryOrder). cancelOrder and
    refund are refused: a cancellation goes through cancel_booking. Returns the platform's answer."""
    try:
        scope = f"turn:{context.turn_id}" if context.turn_id else None
        done = platform_command_for_traveller(user=context.user, command=command, scope=scope)
    except BookingError as exc:
        return fail(exc.code, exc.message, {"kind": KIND_PLATFORM, **(exc.data or {})})
    data = {
        "kind": KIND_PLATFORM,
        "product": done.product,
        "action": done.action,
        "order_no": done.order_no,
        "arguments": done.arguments,
        "answer": done.answer,
    }
    return ok(data, f"{done.product} {done.action} done")


@tool(risk=Risk.WRITE, tags=("booking",))
def cancel_booking(
    context: ToolContext,
    booking_id: Annotated[str, Field(max_length=32, description="TripDesk booking id, like BK20261201001")],
) -> dict:
    """Cancel one of the traveller's bookings by its TripDesk booking id. Flights and trains are cancelled on the
    platform first; hotels are marked cancelled and the traveller must call the hotel. A cancel above the approval
    amount waits for an approver. Safe to repeat."""
    asked = normalise_booking_id(booking_id) or booking_id
    try:
        outcome = booking_cancel(user=context.user, booking_id=booking_id)
    except BookingError as exc:
        # A number that is not the traveller's (unknown or someone else's) is not echoed: both answer alike.
        shown = None if exc.code == Code.BOOKING_NOT_FOUND else asked
        return fail(exc.code, exc.message, {**(exc.data or {}), "kind": KIND_CANCEL, "booking_id": shown})
    data = booking_summary(outcome.booking) | {
        "kind": KIND_CANCEL,
        "already_cancelled": outcome.already_cancelled,
        "call_the_hotel": outcome.call_the_hotel,
    }
    return ok(data, "already cancelled" if outcome.already_cancelled else "cancelled")


@tool(risk=Risk.READ, tags=("booking",))
def list_my_bookings(
    context: ToolContext,
    biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"] | None = None,
    status: Literal["PENDING_PAYMENT", "CONFIRMED", "CANCELLED"] | None = None,
) -> dict:
    """List the traveller's own bookings, newest first, optionally of one type or status."""
    bookings = bookings_for_user(user=context.user, biz_type=biz_type, status=status)[:MAX_LISTED]
    return ok({"kind": KIND_BOOKINGS, "bookings": [booking_summary(b) for b in bookings]})


TOOLS = [execute_platform_command, cancel_booking, list_my_bookings]
HOOKS = [BookingPersistenceHook()]
