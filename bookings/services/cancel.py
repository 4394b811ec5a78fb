"""Cancelling: every cancel rule for every caller (chat, pages, API, admin, the after-sale executor) — ownership,
idempotency, the approval of a paid booking above BOOKINGS_CANCEL_APPROVAL_ABOVE (`cancel_needs_approval`: only where
money is at stake), a claim on the row so concurrent cancels call the platform once, the platform first, our record
only after it succeeded, and the refund of a paid booking under its fare rules recorded on the row (`details.refund`);
and the confirmation card of a cancel (`booking_cancel_preview`)."""

import datetime as dt
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from bookings import conf
from bookings.formatting import refund_terms, times_text
from bookings.models import BizType, BookingRecord, BookingStatus
from bookings.platform import PlatformCommand, PlatformError, platform_run
from bookings.refund_rules import refund_estimate
from bookings.selectors import booking_facts
from bookings.services.errors import BOOKING_NOT_FOUND_MESSAGE, BookingError, booking_closed_error
from bookings.services.transitions import booking_of_user, booking_transition, supplier_moved
from bookings.vocabulary import names_shown
from core.approvals import approval_gate
from core.envelope import Code
from core.ids import normalise_booking_id

logger = logging.getLogger(__name__)


# How long past the platform's own timeout a cancel holds the row: the wait for a platform worker and a margin,
# so a lease never ends while the platform may still be cancelling.
CANCEL_LEASE_MARGIN_SECONDS = 30


APPROVAL_ACTION = "CANCEL_BOOKING"


@dataclass
class CancelOutcome:
    booking: BookingRecord
    already_cancelled: bool = False
    call_the_hotel: bool = False

    @property
    def refund(self) -> dict | None:
        """The refund this cancel recorded (`refund_record`), None for a booking that was never paid."""
        return (self.booking.details or {}).get("refund")


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


def cancel_approval_above() -> Decimal:
    """The amount (yuan) above which cancelling a booking waits for an approver: BOOKINGS_CANCEL_APPROVAL_ABOVE."""
    return conf.cancel_approval_above()


def cancel_needs_approval(*, amount: Decimal, paid: bool) -> bool:
    """Whether cancelling a booking waits for an approver: only where money is at stake, a paid booking above the
    approval amount. An unpaid booking charged nothing (and expires by itself), so the traveller's confirmation is
    enough. The one rule the cancel gate, the confirmation cards (a booking's terms, a cancel's, a rebooking's) and
    the pages state."""
    return paid and amount > cancel_approval_above()


def booking_cancel_needs_approval(booking: BookingRecord) -> bool:
    """`cancel_needs_approval` for a booking as it is now (paid = CONFIRMED)."""
    return cancel_needs_approval(amount=booking.amount, paid=booking.status == BookingStatus.CONFIRMED)


def refund_record(booking: BookingRecord) -> dict | None:
    """What cancelling `booking` now gives back, as recorded on the cancelled row (`details.refund`) and told on
    every card: `{"paid", "refund", "share", "band"}` (refund None: the supplier's or hotel's own rule), None when
    nothing was paid. The amounts come from `bookings.refund_rules`, the one place of the fare rules."""
    estimate = refund_estimate(booking)
    if not estimate.paid:
        return None
    return {
        "paid": str(booking.amount),
        "refund": None if estimate.amount is None else str(estimate.amount),
        "share": None if estimate.share is None else estimate.percent,
        "at_least_seconds": None if estimate.at_least is None else int(estimate.at_least.total_seconds()),
    }


def _ask_approval(*, user, booking: BookingRecord) -> None:
    """A paid booking above the approval amount is cancelled only once an approver said yes; raises while it waits
    or when it was rejected (the after-sale executor resuming an approved ticket is told to proceed)."""
    if not booking_cancel_needs_approval(booking):
        return
    decision = approval_gate()(
        user=user,
        action=APPROVAL_ACTION,
        entity=booking.booking_id,
        amount=booking.amount,
        summary=f"Cancel {booking.biz_type.lower()} booking {booking.booking_id} (¥{booking.amount})",
        arguments={"booking_id": booking.booking_id},
        evidence=_booking_facts(booking),
    )
    if not decision.proceed:
        raise BookingError(decision.code, decision.message, dict(decision.data or {}))


def _cancel_lease_until(now: dt.datetime) -> dt.datetime:
    return now + dt.timedelta(seconds=float(conf.platform_timeout()) + CANCEL_LEASE_MARGIN_SECONDS)


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


def _cancelled(booking: BookingRecord, *, actor, reason: str) -> BookingRecord:
    """Our record cancelled and the claim cleared, in one transaction; a paid booking's refund under its fare rules
    (`refund_record`, as its cancel card told it) is recorded on the row and named in the event."""
    fields: dict[str, Any] = {"cancel_claimed_until": None}
    refund = refund_record(booking)
    if refund is not None:
        fields["details"] = {**(booking.details or {}), "refund": refund}
        if refund["refund"] is not None:
            reason += f" Refund ¥{refund['refund']} of ¥{refund['paid']} paid under the fare rules."
        else:
            reason += f" Paid ¥{refund['paid']}: refunded under the supplier's own rules."
    return booking_transition(
        booking_id=booking.booking_id,
        to_status=BookingStatus.CANCELLED,
        actor=actor,
        reason=reason,
        fields=fields,
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
    if booking.status == BookingStatus.EXPIRED:
        raise booking_closed_error(booking, doing="cancel")
    _ask_approval(user=user, booking=booking)

    if not _claim_for_cancel(booking):
        booking.refresh_from_db()
        if booking.status == BookingStatus.CANCELLED:  # the other cancel finished first
            return CancelOutcome(booking, already_cancelled=True, call_the_hotel=is_hotel)
        raise BookingError(Code.CANCEL_IN_PROGRESS, f"booking {bid} is being cancelled already")
    was_paid = booking.status == BookingStatus.CONFIRMED
    booking.refresh_from_db()
    if booking.status == BookingStatus.CONFIRMED and not was_paid:  # paid meanwhile: money is at stake now
        _release_claim(booking)
        _ask_approval(user=user, booking=booking)
        if not _claim_for_cancel(booking):
            raise BookingError(Code.CANCEL_IN_PROGRESS, f"booking {bid} is being cancelled already")

    if is_hotel:
        # Hotels have no online cancel: record it and tell the traveller to call the hotel.
        try:
            booking = _cancelled(booking, actor=user, reason="Cancelled; the traveller calls the hotel.")
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
        if isinstance(exc, PlatformError) and exc.platform_code == "ORDER_EXPIRED":
            booking = supplier_moved(booking, to_status=BookingStatus.EXPIRED, reason="Not paid by its deadline.")
            raise booking_closed_error(booking, doing="cancel") from None
        if isinstance(exc, PlatformError):
            logger.warning("platform cancel failed", extra={"booking_id": bid, "code": exc.code})
            raise BookingError(Code.PLATFORM_CANCEL_FAILED, f"the platform did not cancel {bid}: {exc.code}") from None
        raise
    booking = _cancelled(booking, actor=user, reason="Cancelled on the supplier platform.")
    return CancelOutcome(booking)


def booking_cancel_preview(*, user, booking_id: object, language: str = "zh-hans") -> dict:
    """The confirmation card of a cancel: the booking's facts and what cancelling means for it (a refund by the
    supplier's rules; a hotel to call; an approver when `cancel_needs_approval`). Changes nothing.

    Raises BookingError INVALID_PARAM, BOOKING_NOT_FOUND (unknown or someone else's, alike), INVALID_TRANSITION
    (cancelled already: `data.already_cancelled`).
    """
    booking = booking_of_user(user=user, booking_id=booking_id)
    if booking.status == BookingStatus.CANCELLED:
        raise BookingError(
            Code.INVALID_TRANSITION,
            f"booking {booking.booking_id} is cancelled already",
            {"already_cancelled": True, "booking_id": booking.booking_id},
        )
    if booking.status == BookingStatus.EXPIRED:
        raise booking_closed_error(booking, doing="cancel")
    facts = booking_facts(booking)
    with translation.override(language):
        names = names_shown(facts, booking.biz_type)
        if booking.biz_type == BizType.HOTEL:
            title = " ".join(p for p in (names["name"] or facts["number"], names["city"]) if p)
            rows = [
                [_("Check-in"), facts["check_in"] or ""],
                [_("Check-out"), facts["check_out"] or ""],
                [_("Nights"), str(facts["nights"] or "")],
                [_("Guests"), "、".join(facts["passengers"])],
            ]
            terms = _(
                "Hotels cannot be cancelled online: we record the cancellation and you call the hotel to confirm."
            )
            if booking.status == BookingStatus.CONFIRMED:
                terms += " " + _("It is paid (¥%(paid)s): the refund follows the hotel's own rules.") % {
                    "paid": booking.amount
                }
        else:
            title = names["title"]
            rows = [
                [_("Date"), facts["date"] or ""],
                [_("Departs – arrives"), times_text(facts["depart"], facts["arrive"]) if facts["depart"] else ""],
                [_("Seat"), names["seat"]],
                [_("Passengers"), "、".join(facts["passengers"])],
            ]
            terms = refund_terms(booking)
        if booking_cancel_needs_approval(booking):
            terms += " " + _(
                "It is paid and above ¥%(limit)s, so an approver decides; nothing is cancelled until they approve."
            ) % {"limit": cancel_approval_above()}
        rows = [[_("Booking"), booking.booking_id], *[r for r in rows if r[1]], [_("Amount"), f"¥{booking.amount}"]]
        return {
            "title": _("Cancel %(what)s") % {"what": title or booking.booking_id},
            "rows": rows,
            "amount": str(booking.amount),
            "terms": terms,
            "subject": {
                "action": "cancel",
                "booking_id": booking.booking_id,
                "biz_type": booking.biz_type,
                "status": booking.status,
                "needs_approver": booking_cancel_needs_approval(booking),
            },
        }
