"""Writes of bookings: supplier accounts, records created from platform answers, cancellation.

A booking moves only through `booking_transition`, which locks the row, checks BOOKING_TRANSITIONS and writes a
BookingEvent. Cancelling calls the platform first and flips the internal state only after it succeeded.
"""

import datetime as dt
import logging
import secrets
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction
from django.utils import timezone

from bookings.models import BOOKING_TRANSITIONS, BizType, BookingEvent, BookingRecord, BookingStatus, SupplierAccount

logger = logging.getLogger(__name__)


class BookingError(Exception):
    """A booking request that cannot be done; `code` is one of the envelope codes of DESIGN.md."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@transaction.atomic
def supplier_account_ensure(*, user) -> SupplierAccount:
    """The user's supplier key; the sandbox platform issues one on first use (a real platform's key is set by
    an administrator in the admin)."""
    account, _ = SupplierAccount.objects.get_or_create(
        user=user, defaults={"api_key": f"sbx_{secrets.token_urlsafe(24)}"}
    )
    return account


def normalise_booking_id(raw: object) -> str:
    """' bk20261201001 ' → 'BK20261201001'; '' when blank."""
    return raw.strip().upper() if isinstance(raw, str) else ""


def _next_booking_id(day: dt.date) -> str:
    prefix = f"BK{day:%Y%m%d}"
    last = (
        BookingRecord.objects.filter(booking_id__startswith=prefix)
        .order_by("-booking_id")
        .values_list("booking_id", flat=True)
        .first()
    )
    seq = int(last[len(prefix) :]) + 1 if last else 1
    return f"{prefix}{seq:03d}"


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
        raise BookingError("INVALID_PARAM", f"unknown business type {biz_type}")
    existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
    if existing:
        return existing
    contact = arguments.get("contactTourist") or arguments.get("contact") or (arguments.get("guests") or [{}])[0]
    details = {k: v for k, v in arguments.items() if k not in ("contactTourist", "contact", "guests")}
    for _attempt in range(5):  # two bookings on the same day may race for a number: take the next one
        try:
            with transaction.atomic():
                booking = BookingRecord.objects.create(
                    booking_id=_next_booking_id(timezone.localdate()),
                    user=user,
                    biz_type=biz_type,
                    external_order_no=external_order_no,
                    status=BookingStatus.PENDING_PAYMENT,
                    amount=_amount(response),
                    contact=contact if isinstance(contact, dict) else {},
                    details=details,
                    raw_payload=response,
                )
                BookingEvent.objects.create(
                    booking=booking, to_status=booking.status, actor=user, reason="Created on the supplier platform."
                )
                return booking
        except IntegrityError:
            existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
            if existing:
                return existing
    raise BookingError("INTERNAL_ERROR", "could not number the booking")


@transaction.atomic
def booking_transition(*, booking_id: str, to_status: str, actor=None, reason: str = "") -> BookingRecord:
    """Move a booking to another status under a row lock, with an event row. Same status: nothing happens."""
    booking = BookingRecord.objects.select_for_update().get(booking_id=booking_id)
    if booking.status == to_status:
        return booking
    if to_status not in BOOKING_TRANSITIONS[booking.status]:
        raise BookingError("INVALID_PARAM", f"a {booking.status} booking cannot become {to_status}")
    BookingEvent.objects.create(
        booking=booking, from_status=booking.status, to_status=to_status, actor=actor, reason=reason
    )
    booking.status = to_status
    booking.save(update_fields=["status", "updated_at"])
    return booking


@dataclass
class CancelOutcome:
    booking: BookingRecord
    already_cancelled: bool = False
    call_the_hotel: bool = False


def booking_cancel(*, user, booking_id: object) -> CancelOutcome:
    """Cancel one of the user's bookings: the platform first, then our record. Idempotent.

    Raises BookingError: INVALID_PARAM (blank id), BOOKING_NOT_FOUND, PERMISSION_DENIED (someone else's),
    PLATFORM_CANCEL_FAILED (the platform said no or did not answer; our record is unchanged).
    """
    bid = normalise_booking_id(booking_id)
    if not bid:
        raise BookingError("INVALID_PARAM", "booking id is blank")
    booking = BookingRecord.objects.filter(booking_id=bid).first()
    if booking is None:
        raise BookingError("BOOKING_NOT_FOUND", f"no booking {bid}")
    if booking.user_id != user.pk:
        raise BookingError("PERMISSION_DENIED", f"booking {bid} is not yours")
    if booking.status == BookingStatus.CANCELLED:
        return CancelOutcome(booking, already_cancelled=True, call_the_hotel=booking.biz_type == BizType.HOTEL)
    if booking.biz_type == BizType.HOTEL:
        # Hotels have no online cancel: record the request and tell the traveller to call the hotel.
        booking = booking_transition(
            booking_id=bid,
            to_status=BookingStatus.CANCELLED,
            actor=user,
            reason="Cancelled; the traveller calls the hotel.",
        )
        return CancelOutcome(booking, call_the_hotel=True)
    from bookings.platform import PlatformCommand, PlatformError, platform_run  # the client needs our accounts

    command = PlatformCommand(booking.biz_type.lower(), "cancelOrder", {"orderId": booking.external_order_no})
    try:
        platform_run(command, user=user)
    except PlatformError as exc:
        logger.warning("platform cancel failed", extra={"booking_id": bid, "code": exc.code})
        raise BookingError("PLATFORM_CANCEL_FAILED", f"the platform did not cancel {bid}: {exc.code}")
    booking = booking_transition(
        booking_id=bid, to_status=BookingStatus.CANCELLED, actor=user, reason="Cancelled on the supplier platform."
    )
    return CancelOutcome(booking)


def booking_mark_cancelled_by_platform(*, user, biz_type: str, external_order_no: str) -> BookingRecord | None:
    """A cancelOrder the agent ran itself succeeded: bring our record in line, if we have one for this user."""
    booking = BookingRecord.objects.filter(
        user=user, biz_type=biz_type.upper(), external_order_no=external_order_no
    ).first()
    if booking is None or booking.status == BookingStatus.CANCELLED:
        return booking
    return booking_transition(
        booking_id=booking.booking_id,
        to_status=BookingStatus.CANCELLED,
        actor=user,
        reason="Cancelled on the platform.",
    )
