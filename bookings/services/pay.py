"""Paying a booking: a write of `bookings`.

    preview = booking_pay_preview(user=u, booking_id="BK…", language="zh-hans")   # the confirmation card
    outcome = booking_pay(user=u, booking_id="BK…")                               # after the traveller's yes

Paying pays once, however often it is asked (a double click, two tabs, ten requests at once): every try sends the
supplier's `order pay` with the same idempotency key, `pay:<booking id>`, so the supplier makes one payment and
answers every repeat with it; our record moves to CONFIRMED under its row lock, once. An order the supplier let
expire, or cancelled on its side, is recorded so (the supplier as the source) and the traveller is told why.
"""

import logging
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from bookings.formatting import times_text
from bookings.models import BOOKING_TRANSITIONS, BizType, BookingEvent, BookingRecord, BookingStatus
from bookings.platform import PlatformCommand, PlatformError, platform_run, unwrap
from bookings.selectors import booking_facts
from bookings.services.errors import BookingError, booking_closed_error
from bookings.services.transitions import booking_lock, booking_of_user, supplier_moved
from bookings.vocabulary import names_shown
from core.envelope import Code
from core.transitions import transition

logger = logging.getLogger(__name__)

# What the supplier answers an order that can no longer be paid, and what it means for our record.
SUPPLIER_CLOSED = {"ORDER_EXPIRED": BookingStatus.EXPIRED, "ORDER_CANCELLED": BookingStatus.CANCELLED}


@dataclass
class PayOutcome:
    booking: BookingRecord
    already_paid: bool = False
    payment_id: str | None = None


def pay_key(booking: BookingRecord) -> str:
    """The one idempotency key of a booking's payment: every try of it is the same payment to the supplier."""
    return f"pay:{booking.booking_id}"


def booking_pay_preview(*, user, booking_id: object, language: str = "zh-hans") -> dict:
    """The confirmation card of a payment: what is paid, the exact amount and until when. Changes nothing.

    Raises BookingError INVALID_PARAM, BOOKING_NOT_FOUND (unknown or someone else's, alike), INVALID_TRANSITION
    (paid, cancelled or expired already: `data.status`)."""
    booking = booking_of_user(user=user, booking_id=booking_id)
    _payable(booking)
    facts = booking_facts(booking)
    with translation.override(language):
        names = names_shown(facts, booking.biz_type)
        if booking.biz_type == BizType.HOTEL:
            what = " ".join(p for p in (names["name"] or facts["number"], names["city"]) if p)
            rows = [[_("Check-in"), facts["check_in"] or ""], [_("Check-out"), facts["check_out"] or ""]]
        else:
            what = " ".join(p for p in (facts["number"], names["route"].replace(" → ", "→")) if p)
            rows = [
                [_("Date"), facts["date"] or ""],
                [_("Departs – arrives"), times_text(facts["depart"], facts["arrive"]) if facts["depart"] else ""],
            ]
        deadline = timezone.localtime(booking.pay_deadline).strftime("%Y-%m-%d %H:%M") if booking.pay_deadline else ""
        rows = [
            [_("Booking"), booking.booking_id],
            *[r for r in rows if r[1]],
            [_("Passengers"), "、".join(facts["passengers"])],
            *([[_("Pay by"), deadline]] if deadline else []),
            [_("Amount"), f"¥{booking.amount}"],
        ]
        return {
            "title": _("Pay for %(what)s") % {"what": what or booking.booking_id},
            "rows": [r for r in rows if r[1]],
            "amount": str(booking.amount),
            "terms": _("¥%(amount)s is paid to the supplier once; the booking is then confirmed.")
            % {"amount": booking.amount},
            "subject": {"action": "pay", "booking_id": booking.booking_id, "biz_type": booking.biz_type},
        }


def _payable(booking: BookingRecord) -> None:
    """Refuse a booking that cannot be paid: paid already, cancelled, or past its payment deadline."""
    if booking.status == BookingStatus.CONFIRMED:
        data = {"status": booking.status, "booking_id": booking.booking_id}
        raise BookingError(Code.INVALID_TRANSITION, f"booking {booking.booking_id} is paid already", data)
    if booking.status != BookingStatus.PENDING_PAYMENT:
        raise booking_closed_error(booking, doing="pay")
    if _past_deadline(booking):
        message = f"booking {booking.booking_id} was not paid by its deadline and has expired: there is nothing to pay"
        raise BookingError(
            Code.BOOKING_EXPIRED, message, {"status": BookingStatus.EXPIRED, "booking_id": booking.booking_id}
        )


def _past_deadline(booking: BookingRecord) -> bool:
    return booking.pay_deadline is not None and booking.pay_deadline <= timezone.now()


def booking_pay(*, user, booking_id: object) -> PayOutcome:
    """Pay one of the user's bookings on the supplier, then confirm our record. Idempotent; every way in uses it.

    Raises BookingError: INVALID_PARAM, BOOKING_NOT_FOUND, INVALID_TRANSITION (cancelled, or paid elsewhere… see
    `data.status`), BOOKING_EXPIRED (past its payment deadline, by our clock or the supplier's: nothing is paid), PAYMENT_FAILED (the supplier
    did not take the payment or did not answer; the booking stays unpaid).
    """
    booking = booking_of_user(user=user, booking_id=booking_id)
    if booking.status == BookingStatus.CONFIRMED:
        return PayOutcome(booking, already_paid=True)
    _payable(booking)  # closed, or past its deadline by our clock even while the supplier still says unpaid
    command = PlatformCommand("order", "pay", {"orderId": booking.external_order_no, "requestId": pay_key(booking)})
    try:
        answer = unwrap(platform_run(command, user=user))
    except PlatformError as exc:
        closed = SUPPLIER_CLOSED.get(exc.platform_code or "")
        if exc.platform_code == "ALREADY_PAID":  # paid by an earlier try under another key: it is paid
            return _confirmed(booking, actor=user, payment_id=None, reason="The supplier says it is paid already.")
        if closed is not None:  # the supplier let it expire, or cancelled it on its side: record that
            booking = supplier_moved(
                booking, to_status=closed, reason=f"The supplier refused the payment: {exc.platform_code}."
            )
            raise booking_closed_error(booking, doing="pay") from None
        logger.warning("payment failed", extra={"booking_id": booking.booking_id, "code": exc.code})
        raise BookingError(
            Code.PAYMENT_FAILED, f"the supplier did not take the payment for {booking.booking_id} ({exc.code})"
        ) from None
    payment_id = answer.get("paymentId") if isinstance(answer, dict) else None
    return _confirmed(booking, actor=user, payment_id=payment_id, reason=f"Paid on the supplier ({payment_id}).")


@transaction.atomic
def _confirmed(booking: BookingRecord, *, actor, payment_id: str | None, reason: str) -> PayOutcome:
    """Our record paid, under its row lock: of many tries that all got the payment, one moves it."""
    locked = booking_lock(booking_id=booking.booking_id)
    if locked.status == BookingStatus.CONFIRMED:
        return PayOutcome(locked, already_paid=True, payment_id=payment_id)
    locked = transition(
        locked,
        to_status=BookingStatus.CONFIRMED,
        table=BOOKING_TRANSITIONS,
        event_model=BookingEvent,
        actor=actor,
        reason=reason,
        fields={"paid_at": timezone.now()},
        error=BookingError,
        error_code=Code.INVALID_TRANSITION,
    )
    return PayOutcome(locked, payment_id=payment_id)
