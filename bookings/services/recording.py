"""Recording what the platform made: the one way a BookingRecord is made (numbered, with its creation event, one per
platform order), and what an order's answer says of its amount and payment deadline."""

import datetime as dt
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from bookings.models import BizType, BookingEvent, BookingRecord, BookingStatus, EventSource
from bookings.platform import PlatformError, unwrap
from bookings.services.errors import BookingError
from bookings.services.numbering import BOOKING_NUMBER_ATTEMPTS, new_booking_id
from core.envelope import Code
from core.transitions import record_creation


def order_amount(payload: dict) -> Decimal:
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
    contact = arguments.get("contactTourist") or arguments.get("contact") or (arguments.get("guests") or [{}])[0]
    details = {k: v for k, v in arguments.items() if k not in ("contactTourist", "contact", "guests")}
    return booking_record_create(
        user=user,
        biz_type=biz_type,
        external_order_no=external_order_no,
        amount=order_amount(response),
        contact=contact if isinstance(contact, dict) else {},
        details=details,
        raw=response,
        reason="Created on the supplier platform.",
    )


def booking_record_create(
    *,
    user,
    biz_type: str,
    external_order_no: str,
    amount: Decimal,
    contact: dict,
    details: dict,
    raw: dict,
    reason: str,
    source: str = EventSource.TRIPDESK,
) -> BookingRecord:
    """The one way a BookingRecord is made: one per platform order (a repeat returns the first), with its
    creation event, numbered with retries on the (rare) clash. Its payment deadline is the supplier's
    (`payDeadline` in the order's answer). `source` SUPPLIER: found on the supplier by the reconciliation."""
    biz_type = biz_type.upper()
    if biz_type not in BizType.values:
        raise BookingError(Code.INVALID_PARAM, f"unknown business type {biz_type}")
    existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
    if existing:
        return existing
    for _attempt in range(BOOKING_NUMBER_ATTEMPTS):  # a number clash (about 1 in 10^10) is retried with new digits
        try:
            with transaction.atomic():
                booking = BookingRecord.objects.create(
                    booking_id=new_booking_id(timezone.localdate()),
                    user=user,
                    biz_type=biz_type,
                    external_order_no=external_order_no,
                    status=BookingStatus.PENDING_PAYMENT,
                    amount=amount,
                    contact=contact,
                    details=details,
                    raw_payload=raw,
                    pay_deadline=pay_deadline_of(raw),
                )
                record_creation(
                    booking,
                    event_model=BookingEvent,
                    actor=user if source == EventSource.TRIPDESK else None,
                    reason=reason,
                    event_fields={"source": source},
                )
                return booking
        except IntegrityError:
            existing = BookingRecord.objects.filter(biz_type=biz_type, external_order_no=external_order_no).first()
            if existing:
                return existing
    raise BookingError(Code.INTERNAL_ERROR, "could not number the booking")


def pay_deadline_of(answer: object) -> dt.datetime | None:
    """The supplier's payment deadline in an order's answer (raw or unwrapped), None when it names none."""
    try:
        order = unwrap(answer)
    except PlatformError:
        return None
    order = order.get("order") if isinstance(order.get("order"), dict) else order
    raw = order.get("payDeadline")
    moment = parse_datetime(raw) if isinstance(raw, str) else None
    if moment is not None and timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment
