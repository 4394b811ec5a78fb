"""Writes of bookings, and the rules every way in shares: recording what the platform made, cancelling, what a
booking needs, and what a traveller's own platform command may do.

A booking moves only through `booking_transition` (row lock, BOOKING_TRANSITIONS, a BookingEvent). Cancelling
holds every cancel rule for every caller (chat, pages, API, admin, the after-sale executor): ownership, idempotency,
the approval above AFTERSALE_CHECKPOINT_AMOUNT, a claim on the row so concurrent cancels call the platform once,
and the platform first, our record only after it succeeded.
"""

import datetime as dt
import logging
import secrets
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from bookings.accounts import supplier_account_ensure
from bookings.models import BOOKING_TRANSITIONS, BizType, BookingEvent, BookingRecord, BookingStatus
from bookings.platform import READ_ACTIONS, PlatformCommand, PlatformError, order_number, parse_command, platform_run
from core.approvals import approval_gate
from core.envelope import Code
from core.errors import ApplicationError
from core.ids import normalise_booking_id
from core.transitions import record_creation, transition

__all__ = [
    "BookingError",
    "CancelOutcome",
    "PlatformOutcome",
    "booking_cancel",
    "booking_lock",
    "booking_record_from_platform",
    "booking_requirements",
    "booking_transition",
    "platform_command_for_traveller",
    "supplier_account_ensure",
]

logger = logging.getLogger(__name__)

# How long past the platform's own timeout a cancel holds the row: the wait for a platform worker and a margin,
# so a lease never ends while the platform may still be cancelling.
CANCEL_LEASE_MARGIN_SECONDS = 30
# Booking numbers: the date, then this many random digits; a clash with an existing number is retried this often.
BOOKING_NUMBER_DIGITS = 10
BOOKING_NUMBER_ATTEMPTS = 8
# What a traveller is told about a booking id that is not one of theirs, unknown or someone else's alike: the same
# code and words, and not the id, so an answer never tells whether a number exists.
BOOKING_NOT_FOUND_MESSAGE = "You have no booking with that number."
APPROVAL_ACTION = "CANCEL_BOOKING"
# What a traveller's own platform command may do, per product. Cancelling goes through `booking_cancel`, refunds
# through the after-sale workflow: neither is ever a command the model composes.
TRAVELLER_ACTIONS: dict[str, frozenset[str]] = {
    "flight": frozenset({"search", "saveOrder", "queryOrder"}),
    "hotel": frozenset({"search", "saveOrder", "queryOrder"}),
    "train": frozenset({"search", "saveOrder", "queryOrder"}),
    "order": frozenset({"queryOrder"}),
}
SERVICE_ONLY_ACTIONS = frozenset({"cancelOrder", "refund"})
# Error codes with which a supplier says it is broken, not that the request was wrong.
SUPPLIER_SYSTEM_ERRORS = frozenset({"PLATFORM_ERROR", "SYSTEM_ERROR", "SYSTEM_BUSY", "INTERNAL_ERROR"})


class BookingError(ApplicationError):
    """A booking request that cannot be done; `code` is one of `core.envelope.Code`."""


# --- recording what the platform made ----------------------------------------------------------------------------


def _random_digits() -> str:
    """The random part of a booking number, from the OS's secure generator: nothing about one number tells
    another (a sequence would let anyone guess their neighbours' numbers)."""
    return f"{secrets.randbelow(10**BOOKING_NUMBER_DIGITS):0{BOOKING_NUMBER_DIGITS}d}"


def _new_booking_id(day: dt.date) -> str:
    """`BK` + the local date + BOOKING_NUMBER_DIGITS random digits, e.g. BK202612017305118264 (matches
    `core.ids.BOOKING_ID_RE`). Uniqueness is the column's unique constraint: a clash is retried with new digits."""
    return f"BK{day:%Y%m%d}{_random_digits()}"


def _amount(payload: dict) -> Decimal:
    for key in ("totalPrice", "amount", "price", "orderAmount"):
        value = payload.get(key)
        if value is not None:
            try:
                return Decimal(str(value)).quantize(Decimal("0.01"))
            except InvalidOperation:
                continue
    return Decimal("0.00")


def booking_record_from_platform(
    *, user, biz_type: str, external_order_no: str, arguments: dict, response: dict
) -> BookingRecord:
    """Record (or return the existing record of) an order the platform created for the user."""
    biz_type = biz_type.upper()
    if biz_type not in BizType.values:
        raise BookingError(Code.INVALID_PARAM, f"unknown business type {biz_type}")
    existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
    if existing:
        return existing
    contact = arguments.get("contactTourist") or arguments.get("contact") or (arguments.get("guests") or [{}])[0]
    details = {k: v for k, v in arguments.items() if k not in ("contactTourist", "contact", "guests")}
    for _attempt in range(BOOKING_NUMBER_ATTEMPTS):  # a number clash (about 1 in 10^10) is retried with new digits
        try:
            with transaction.atomic():
                booking = BookingRecord.objects.create(
                    booking_id=_new_booking_id(timezone.localdate()),
                    user=user,
                    biz_type=biz_type,
                    external_order_no=external_order_no,
                    status=BookingStatus.PENDING_PAYMENT,
                    amount=_amount(response),
                    contact=contact if isinstance(contact, dict) else {},
                    details=details,
                    raw_payload=response,
                )
                record_creation(
                    booking, event_model=BookingEvent, actor=user, reason="Created on the supplier platform."
                )
                return booking
        except IntegrityError:
            existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
            if existing:
                return existing
    raise BookingError(Code.INTERNAL_ERROR, "could not number the booking")


# --- the one state machine ---------------------------------------------------------------------------------------


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


# --- cancelling --------------------------------------------------------------------------------------------------


@dataclass
class CancelOutcome:
    booking: BookingRecord
    already_cancelled: bool = False
    call_the_hotel: bool = False


def _booking_facts(booking: BookingRecord) -> dict:
    return {
        "booking": {
            "booking_id": booking.booking_id,
            "biz_type": booking.biz_type,
            "status": booking.status,
            "amount": str(booking.amount),
            "external_order_no": booking.external_order_no,
            "created_at": booking.created_at.isoformat(),
        }
    }


def _ask_approval(*, user, booking: BookingRecord) -> None:
    """Above the checkpoint amount a cancel runs only once an approver said yes; raises while it waits or when
    it was rejected (the after-sale executor resuming an approved ticket is told to proceed)."""
    if booking.amount <= Decimal(str(settings.AFTERSALE_CHECKPOINT_AMOUNT)):
        return
    decision = approval_gate()(
        user=user,
        action=APPROVAL_ACTION,
        entity=booking.booking_id,
        amount=booking.amount,
        summary=f"Cancel {booking.get_biz_type_display().lower()} booking {booking.booking_id} (¥{booking.amount})",
        arguments={"booking_id": booking.booking_id},
        evidence=_booking_facts(booking),
    )
    if not decision.proceed:
        raise BookingError(decision.code, decision.message, dict(decision.data or {}))


def _cancel_lease_until(now: dt.datetime) -> dt.datetime:
    return now + dt.timedelta(seconds=float(settings.PLATFORM_TIMEOUT) + CANCEL_LEASE_MARGIN_SECONDS)


def _claim_for_cancel(booking: BookingRecord) -> bool:
    """Compare-and-set: take the row for this cancel unless it is cancelled or another cancel holds it."""
    now = timezone.now()
    claimed = (
        BookingRecord.objects.filter(pk=booking.pk)
        .exclude(status=BookingStatus.CANCELLED)
        .filter(Q(cancel_claimed_until__isnull=True) | Q(cancel_claimed_until__lt=now))
        .update(cancel_claimed_until=_cancel_lease_until(now))
    )
    return claimed == 1


def _release_claim(booking: BookingRecord) -> None:
    BookingRecord.objects.filter(pk=booking.pk).update(cancel_claimed_until=None)


def _cancelled(booking_id: str, *, actor, reason: str) -> BookingRecord:
    """Our record cancelled and the claim cleared, in one transaction."""
    return booking_transition(
        booking_id=booking_id,
        to_status=BookingStatus.CANCELLED,
        actor=actor,
        reason=reason,
        fields={"cancel_claimed_until": None},
    )


def booking_cancel(*, user, booking_id: object) -> CancelOutcome:
    """Cancel one of the user's bookings: the platform first, then our record. Idempotent. Every way in uses it.

    Raises BookingError: INVALID_PARAM (not a booking id), BOOKING_NOT_FOUND (unknown, or someone else's: the same
    answer, so it never tells whether a number exists), PERMISSION_DENIED (an approver rejected the cancel),
    TICKET_PENDING (above the checkpoint amount: waiting for an approver; the ticket is in `data`),
    CANCEL_IN_PROGRESS (another cancel of it is running), PLATFORM_CANCEL_FAILED (the platform said no or did not
    answer; our record is unchanged).
    """
    bid = normalise_booking_id(booking_id)
    if not bid:
        raise BookingError(Code.INVALID_PARAM, "that is not a booking id (like BK20261201001)")
    booking = BookingRecord.objects.filter(booking_id=bid).first()
    if booking is None or booking.user_id != getattr(user, "pk", None):
        if booking is not None:  # for audit only: the traveller is answered exactly as for an unknown number
            logger.warning(
                "booking cancel refused: someone else's booking",
                extra={"booking_id": bid, "user_id": getattr(user, "pk", None), "reason": "NOT_OWNED"},
            )
        raise BookingError(Code.BOOKING_NOT_FOUND, BOOKING_NOT_FOUND_MESSAGE)
    is_hotel = booking.biz_type == BizType.HOTEL
    if booking.status == BookingStatus.CANCELLED:
        return CancelOutcome(booking, already_cancelled=True, call_the_hotel=is_hotel)
    _ask_approval(user=user, booking=booking)

    if not _claim_for_cancel(booking):
        booking.refresh_from_db()
        if booking.status == BookingStatus.CANCELLED:  # the other cancel finished first
            return CancelOutcome(booking, already_cancelled=True, call_the_hotel=is_hotel)
        raise BookingError(Code.CANCEL_IN_PROGRESS, f"booking {bid} is being cancelled already")

    if is_hotel:
        # Hotels have no online cancel: record it and tell the traveller to call the hotel.
        try:
            booking = _cancelled(bid, actor=user, reason="Cancelled; the traveller calls the hotel.")
        except BaseException:
            _release_claim(booking)
            raise
        return CancelOutcome(booking, call_the_hotel=True)

    # One idempotency key per booking: a cancel repeated after a lost answer, a killed worker or an expired claim
    # is answered by the supplier with its first cancellation.
    cancel_key = f"cancel:{booking.booking_id}"
    command = PlatformCommand(
        booking.biz_type.lower(), "cancelOrder", {"orderId": booking.external_order_no, "requestId": cancel_key}
    )
    try:
        platform_run(command, user=user)
    except BaseException as exc:
        _release_claim(booking)
        if isinstance(exc, PlatformError):
            logger.warning("platform cancel failed", extra={"booking_id": bid, "code": exc.code})
            raise BookingError(Code.PLATFORM_CANCEL_FAILED, f"the platform did not cancel {bid}: {exc.code}") from None
        raise
    booking = _cancelled(bid, actor=user, reason="Cancelled on the supplier platform.")
    return CancelOutcome(booking)


# --- what a booking needs ----------------------------------------------------------------------------------------

# Codes of the facts a booking still needs before any supplier call; the reply templates word them.
NEEDS_BIZ_TYPE = "biz_type"
NEEDS_ROUTE = "route"
NEEDS_HOTEL_CITY = "hotel_city"
NEEDS_DATE = "date"
NEEDS_CHECK_OUT = "check_out"
NEEDS_CONTACT = "contact"


def booking_requirements(
    *,
    biz_type: str | None,
    origin: str | None,
    destinations: list[str] | None,
    city: str | None,
    date_start: dt.date | None,
    date_end: dt.date | None,
) -> list[str]:
    """What a booking still needs before the supplier is asked anything: codes, in the order to ask them."""
    missing = []
    if not biz_type:
        missing.append(NEEDS_BIZ_TYPE)
    if biz_type in (BizType.FLIGHT, BizType.TRAIN) and not (origin and destinations):
        missing.append(NEEDS_ROUTE)
    if biz_type == BizType.HOTEL and not (destinations or city):
        missing.append(NEEDS_HOTEL_CITY)
    if not date_start:
        missing.append(NEEDS_DATE)
    if biz_type == BizType.HOTEL and date_start and not date_end:
        missing.append(NEEDS_CHECK_OUT)
    return missing


# --- the traveller's own platform command ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlatformOutcome:
    """What one of the traveller's platform commands did: the command, the supplier's answer, its order number."""

    product: str
    action: str
    arguments: dict
    answer: dict
    order_no: str | None

    @property
    def changes_something(self) -> bool:
        return self.action not in READ_ACTIONS


def platform_command_read(command: str) -> PlatformCommand:
    """The traveller's command, read once and checked before anything runs.

    Raises BookingError INVALID_PARAM (outside the grammar, or an action the product has not), PERMISSION_DENIED
    (cancelOrder and refund: a cancellation goes through cancel_booking, a refund through the after-sale desk).
    """
    try:
        parsed = parse_command(command)
    except PlatformError as exc:
        raise BookingError(Code.INVALID_PARAM, f"command refused: {exc.message}") from None
    where = {"product": parsed.product, "action": parsed.action}
    if parsed.action in SERVICE_ONLY_ACTIONS:
        raise BookingError(
            Code.PERMISSION_DENIED,
            f"command refused: `{parsed.product} {parsed.action}` is not run as a platform command; "
            "a cancellation goes through cancel_booking and a refund through the after-sale desk",
            where,
        )
    if parsed.action not in TRAVELLER_ACTIONS[parsed.product]:
        raise BookingError(
            Code.INVALID_PARAM, f"command refused: `{parsed.product} {parsed.action}` is not allowed", where
        )
    return parsed


def platform_command_for_traveller(*, user, command: str, scope: str | None = None) -> PlatformOutcome:
    """Run one of the traveller's platform commands (search, saveOrder, queryOrder) with their platform key.

    Raises BookingError: INVALID_PARAM / PERMISSION_DENIED (see `platform_command_read`; nothing runs),
    PLATFORM_REJECTED (the supplier said no), PLATFORM_UNAVAILABLE (it failed, timed out or answered garbage);
    the error's data names product, action and the supplier's own code.
    """
    parsed = platform_command_read(command)
    try:
        # `scope` (the chat turn) keys what the command changes: a redelivered saveOrder answers the first order.
        answer = platform_run(parsed, user=user, idempotency_scope=scope)
    except PlatformError as exc:
        business_no = exc.code == PlatformError.REJECTED and exc.platform_code not in SUPPLIER_SYSTEM_ERRORS
        code = Code.PLATFORM_REJECTED if business_no else Code.PLATFORM_UNAVAILABLE
        data = {"product": parsed.product, "action": parsed.action, "platform_code": exc.platform_code}
        raise BookingError(code, str(exc), data) from None
    number = order_number(answer) if parsed.action != "search" else None
    return PlatformOutcome(parsed.product, parsed.action, parsed.arguments, answer, number)
