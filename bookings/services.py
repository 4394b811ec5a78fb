"""Writes of bookings, and the rules every way in shares: recording what the platform made, cancelling, what a
booking needs, and what a traveller's own platform command may do.

A booking moves only through `booking_transition` (row lock, BOOKING_TRANSITIONS, a BookingEvent). Cancelling
holds every cancel rule for every caller (chat, pages, API, admin, the after-sale executor): ownership, idempotency,
the approval of a paid booking above BOOKINGS_CANCEL_APPROVAL_ABOVE (`cancel_needs_approval`: only where money is at
stake), a claim on the row so concurrent cancels call the platform once, the platform first, our record only after it
succeeded, and the refund of a paid booking under its fare rules recorded on the row (`details.refund`).
"""

import datetime as dt
import logging
import re
import secrets
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from bookings.accounts import supplier_account_ensure
from bookings.models import (
    BOOKING_TRANSITIONS,
    CLOSED_STATUSES,
    BizType,
    BookingEvent,
    BookingNotice,
    BookingRecord,
    BookingStatus,
    EventSource,
)
from bookings.options import (
    BookingWants,
    OptionRef,
    option_for_ref,
    option_ref,
    options_from_supplier,
    overnight_days,
    parse_option_ref,
    rank_options,
)
from bookings.platform import (
    READ_ACTIONS,
    SUPPLIER_SYSTEM_ERRORS,
    PlatformCommand,
    PlatformError,
    mask_mobiles,
    order_number,
    parse_command,
    platform_run,
    unwrap,
)
from bookings.refund_rules import refund_estimate
from bookings.selectors import booking_facts
from bookings.vocabulary import names_shown, seat_name
from core.approvals import approval_gate
from core.envelope import Code
from core.errors import ApplicationError
from core.ids import normalise_booking_id
from core.transitions import record_creation, transition

__all__ = [
    "BookingError",
    "CancelOutcome",
    "PlatformOutcome",
    "RebookOutcome",
    "booking_cancel",
    "booking_cancel_preview",
    "booking_create",
    "booking_option_preview",
    "booking_options",
    "booking_rebook",
    "booking_rebook_preview",
    "platform_command_preview",
    "booking_lock",
    "booking_notices_mark_read",
    "booking_record_from_platform",
    "booking_requirements",
    "booking_transition",
    "platform_command_for_traveller",
    "supplier_moved",
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
SERVICE_ONLY_ACTIONS = frozenset({"cancelOrder", "refund", "pay"})


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
                    booking_id=_new_booking_id(timezone.localdate()),
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


def booking_notices_mark_read(*, user, notice_ids: list[int]) -> int:
    """The user's notices shown to them (on their bookings page or in the chat): read now. How many were unread."""
    return BookingNotice.objects.filter(user=user, pk__in=notice_ids, read_at__isnull=True).update(
        read_at=timezone.now()
    )


# --- cancelling --------------------------------------------------------------------------------------------------


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
    return Decimal(str(settings.BOOKINGS_CANCEL_APPROVAL_ABOVE))


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


# --- options: search, preview, book, rebook (issue 13) ------------------------------------------------------------
#
# The model only understands: which options exist, what they cost and when they leave is read from the supplier
# each time (a search, then the same search again before a preview and before saveOrder), never from a caller.

PRODUCT_OF = {BizType.FLIGHT: "flight", BizType.HOTEL: "hotel", BizType.TRAIN: "train"}
MOBILE_DIGITS_RE = re.compile(r"\D")
MOBILE_OK_RE = re.compile(r"^1\d{10}$")
MAX_PASSENGERS = 9
# Supplier codes that say the request itself was wrong (not that the supplier is broken).
SUPPLIER_REQUEST_ERRORS = frozenset({"INVALID_PARAM", "PRICE_CHANGED", "SOLD_OUT"})


def _product(biz_type: object) -> str:
    biz = str(biz_type or "").strip().upper()
    if biz not in BizType.values:
        raise BookingError(Code.INVALID_PARAM, "what to book: a flight, a hotel or a train", {"missing": ["biz_type"]})
    return biz


def _search_arguments(
    biz: str, *, origin, destination, city, date: dt.date | None, check_out: dt.date | None
) -> dict[str, str]:
    """The supplier search for a product; INVALID_PARAM naming what is missing (`data.missing`)."""
    missing = []
    if biz == BizType.HOTEL:
        if not city:
            missing.append("city")
        if not date:
            missing.append("check_in")
        if not check_out:
            missing.append("check_out")
    else:
        if not origin or not destination:
            missing.append("origin" if destination else "destination" if origin else "route")
        if not date:
            missing.append("date")
    if missing:
        raise BookingError(Code.INVALID_PARAM, f"still needed to search: {', '.join(missing)}", {"missing": missing})
    if date < timezone.localdate():
        raise BookingError(Code.INVALID_PARAM, f"{date.isoformat()} is in the past", {"invalid": ["date"]})
    if biz == BizType.HOTEL:
        if check_out <= date:
            raise BookingError(Code.INVALID_PARAM, "check-out must be after check-in", {"invalid": ["check_out"]})
        return {"city": str(city).strip(), "checkInDate": date.isoformat(), "checkOutDate": check_out.isoformat()}
    if str(origin).strip() == str(destination).strip():
        raise BookingError(Code.INVALID_PARAM, "origin and destination are the same city", {"invalid": ["route"]})
    return {"from": str(origin).strip(), "to": str(destination).strip(), "date": date.isoformat()}


def _supplier_search(*, user, biz: str, arguments: dict) -> dict:
    """A READ on the supplier. Raises BookingError INVALID_PARAM (the supplier refused the request) or
    PLATFORM_UNAVAILABLE (it failed, timed out or answered garbage)."""
    try:
        return platform_run(PlatformCommand(PRODUCT_OF[biz], "search", arguments), user=user)
    except PlatformError as exc:
        if exc.code == PlatformError.REJECTED and exc.platform_code in SUPPLIER_REQUEST_ERRORS:
            raise BookingError(Code.INVALID_PARAM, f"the supplier refused the search: {exc.message}") from None
        logger.warning("supplier search failed", extra={"product": PRODUCT_OF[biz], "code": exc.code})
        raise BookingError(
            Code.PLATFORM_UNAVAILABLE,
            "the supplier platform did not answer the search; nothing was booked",
            {"platform_code": exc.platform_code},
        ) from None


def booking_options(
    *,
    user,
    biz_type: str,
    origin: str | None = None,
    destination: str | None = None,
    city: str | None = None,
    date: dt.date | None = None,
    check_out: dt.date | None = None,
    wants: BookingWants | None = None,
    passengers: int = 1,
) -> dict:
    """The best few options on the supplier for a route or a stay, ranked by the traveller's wants
    (`bookings.options`): `{"biz_type", "query", "options", "matched", "unmet"}`. Books nothing.

    Raises BookingError INVALID_PARAM (something missing or wrong: `data.missing` / `data.invalid`),
    PLATFORM_UNAVAILABLE (the supplier failed).
    """
    biz = _product(biz_type)
    wants = wants or BookingWants()
    passengers = min(MAX_PASSENGERS, max(1, int(passengers or 1)))
    arguments = _search_arguments(
        biz, origin=origin, destination=destination, city=city, date=date, check_out=check_out
    )
    answer = _supplier_search(user=user, biz=biz, arguments=arguments)
    found = options_from_supplier(
        biz, answer, passengers=passengers, seat_class=wants.seat_class, check_in=date, check_out=check_out
    )
    ranked = rank_options(biz, found, wants, limit=int(settings.BOOKING_OPTIONS_SHOWN))
    query = {
        "origin": arguments.get("from"),
        "destination": arguments.get("to"),
        "city": arguments.get("city"),
        "date": date.isoformat(),
        "check_out": check_out.isoformat() if biz == BizType.HOTEL else None,
        "nights": (check_out - date).days if biz == BizType.HOTEL else None,
        "passengers": passengers,
        **wants.given(biz),
    }
    return {
        "biz_type": biz,
        "query": {k: v for k, v in query.items() if v is not None},
        "options": ranked.options,
        "matched": ranked.matched,
        "unmet": ranked.unmet,
        "found": len(found),
    }


def _ref(option_ref: object) -> OptionRef:
    try:
        return parse_option_ref(option_ref)
    except ValueError as exc:
        raise BookingError(
            Code.INVALID_PARAM, f"{exc}; book one of the options find_booking_options offered", {"invalid": ["option"]}
        ) from None


def _ref_search(ref: OptionRef) -> dict:
    """The supplier search that offers the option a ref names (its route and day, or its city and stay)."""
    if ref.biz_type == BizType.HOTEL:
        return {"city": ref.city, "checkInDate": ref.date.isoformat(), "checkOutDate": ref.check_out.isoformat()}
    return {"from": ref.origin, "to": ref.destination, "date": ref.date.isoformat()}


def options_described(*, user, option_refs: list[object]) -> list[dict]:
    """The options these refs name, in the order given, each read again from the supplier (one search per route or
    city and day): what a question about the options on screen is answered from, never the caller's words. A ref
    the supplier no longer offers (or a day gone by) is left out. Books nothing.

    Raises BookingError INVALID_PARAM (not a ref), PLATFORM_UNAVAILABLE.
    """
    refs = [_ref(raw) for raw in option_refs]
    answers: dict[tuple, dict] = {}
    found = []
    for ref in refs:
        if ref.date < timezone.localdate():
            continue
        arguments = _ref_search(ref)
        key = (ref.biz_type, *sorted(arguments.items()))
        if key not in answers:
            answers[key] = _supplier_search(user=user, biz=ref.biz_type, arguments=arguments)
        option = option_for_ref(answers[key], ref)
        if option is not None:
            found.append(option)
    return found


def option_lookup(*, user, option_ref: object, passengers: int = 1) -> tuple[OptionRef, dict]:
    """The option a ref names, read again from the supplier (facts never come from the caller).

    Raises BookingError INVALID_PARAM (not a ref, or the supplier does not offer it), PLATFORM_UNAVAILABLE.
    """
    ref = _ref(option_ref)
    if ref.date < timezone.localdate():
        raise BookingError(Code.INVALID_PARAM, f"{ref.date.isoformat()} is in the past", {"invalid": ["date"]})
    answer = _supplier_search(user=user, biz=ref.biz_type, arguments=_ref_search(ref))
    option = option_for_ref(answer, ref, passengers=passengers)
    if option is None:
        where = ref.city if ref.biz_type == BizType.HOTEL else f"{ref.origin}→{ref.destination}"
        seat = f" ({ref.seat})" if ref.seat else ""
        raise BookingError(
            Code.INVALID_PARAM,
            f"the supplier does not offer {ref.number}{seat} for {where} on {ref.date.isoformat()}; nothing was booked",
            {"invalid": ["option"], "number": ref.number},
        )
    return ref, option


def _mobile(value: object) -> str:
    digits = MOBILE_DIGITS_RE.sub("", str(value or ""))
    if len(digits) == 13 and digits.startswith("86"):
        digits = digits[2:]
    return digits


def passengers_checked(passengers: object) -> list[dict]:
    """The passengers as the supplier takes them: each a name, the first (the contact) with a valid mobile.

    Raises BookingError INVALID_PARAM whose message and `data.missing` name what is missing ("name", "mobile").
    """
    people = [p for p in passengers if isinstance(p, dict)] if isinstance(passengers, list | tuple) else []
    if not people:
        raise BookingError(
            Code.INVALID_PARAM,
            "who travels: the passenger's name and mobile number are missing; nothing was booked",
            {"missing": ["name", "mobile"]},
        )
    if len(people) > MAX_PASSENGERS:
        raise BookingError(Code.INVALID_PARAM, f"at most {MAX_PASSENGERS} passengers per booking")
    checked, missing = [], []
    for index, person in enumerate(people):
        name = " ".join(str(person.get("name") or "").split())[:40]
        mobile = _mobile(person.get("mobile"))
        if not name and "name" not in missing:
            missing.append("name")
        if mobile and not MOBILE_OK_RE.match(mobile):
            raise BookingError(
                Code.INVALID_PARAM,
                f"{mobile} is not a mobile number (11 digits starting with 1)",
                {"invalid": ["mobile"]},
            )
        if index == 0 and not mobile:
            missing.append("mobile")
        checked.append({"name": name, "mobile": mobile or None})
    if missing:
        words = {"name": "the passenger's name", "mobile": "the contact's mobile number"}
        raise BookingError(
            Code.INVALID_PARAM,
            f"missing {' and '.join(words[m] for m in missing)}; nothing was booked",
            {"missing": missing},
        )
    return checked


def _masked(person: dict) -> str:
    mobile = person.get("mobile")
    return f"{person['name']} {mask_mobiles(mobile)}" if mobile else person["name"]


def _clock(moment: str | None) -> str:
    return str(moment or "")[11:16]


def duration_text(minutes: object) -> str:
    """2小时35分 / 2 h 35 min (through the translations)."""
    if not isinstance(minutes, int) or minutes <= 0:
        return ""
    hours, rest = divmod(minutes, 60)
    if not hours:
        return _("%(minutes)d min") % {"minutes": rest}
    if not rest:
        return _("%(hours)d h") % {"hours": hours}
    return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": rest}


def times_text(depart: str | None, arrive: str | None) -> str:
    """07:10 – 09:45, with +1 when it arrives the next day."""
    days = overnight_days(depart, arrive)
    text = f"{_clock(depart)} – {_clock(arrive)}" if arrive else _clock(depart)
    return f"{text} (+{days})" if days else text


def option_title(option: dict) -> str:
    """东方航空 MU5101 上海→成都 / G101 北京→天津 / 大理古城客栈 4★, in the active language (China Eastern MU5101
    Shanghai→Chengdu: `bookings.vocabulary.names_shown`)."""
    return names_shown(option, option["biz_type"])["title"]


def _cancel_terms(biz_type: str, amount: Decimal) -> str:
    if biz_type == BizType.HOTEL:
        terms = _("Hotels cannot be cancelled online: to cancel, you call the hotel.")
    else:
        terms = _("It can be cancelled online later; the refund follows the supplier's rules.")
    if cancel_needs_approval(amount=amount, paid=True):
        terms += " " + _(
            "Once it is paid, cancelling a booking above ¥%(limit)s needs an approver's decision; unpaid, it is "
            "cancelled on your confirmation."
        ) % {"limit": cancel_approval_above()}
    return terms


def _option_rows(option: dict, people: list[dict]) -> list[list[str]]:
    if option["biz_type"] == BizType.HOTEL:
        return [
            [_("Hotel"), option_title(option)],
            [_("Check-in"), option["check_in"]],
            [_("Check-out"), option["check_out"]],
            [_("Nights"), str(option["nights"])],
            [_("Guests"), "、".join(_masked(p) for p in people)],
            [_("Per night"), f"¥{option['unit_price']}"],
        ]  # the total is the card's own line (`amount`), not a row
    seat_label = _("Cabin") if option["biz_type"] == BizType.FLIGHT else _("Seat")
    rows = [
        [_("Date"), str(option["depart"])[:10]],
        [_("Departs – arrives"), times_text(option["depart"], option["arrive"])],
        [_("Duration"), duration_text(option.get("duration_minutes"))],
        [seat_label, seat_name(option["seat_class"], option.get("seat_class_en"))],
        [_("Passengers"), "、".join(_masked(p) for p in people)],
        [_("Price per person"), f"¥{option['unit_price']}"],
    ]
    return [row for row in rows if row[1]]


def _priced(option: dict, people: list[dict]) -> dict:
    """The option's total for these passengers (a hotel is one room: per night × nights)."""
    if option["biz_type"] == BizType.HOTEL:
        return option
    return {**option, "total": str(Decimal(option["unit_price"]) * len(people))}


def booking_option_preview(*, user, option_ref: object, passengers: object, language: str = "zh-hans") -> dict:
    """What booking this option will do, for the confirmation card: `{"title", "rows", "amount", "terms",
    "subject"}`, every fact re-read from the supplier. Books nothing.

    Raises BookingError INVALID_PARAM (not an option the supplier offers; a missing name or mobile, named in the
    message and `data.missing`), PLATFORM_UNAVAILABLE.
    """
    people = passengers_checked(passengers)
    _ref_, option = option_lookup(user=user, option_ref=option_ref, passengers=len(people))
    option = _priced(option, people)
    with translation.override(language):
        return {
            "title": option_title(option),
            "rows": _option_rows(option, people),
            "amount": option["total"],
            "terms": " ".join(
                (_("Booked pending payment."), _cancel_terms(option["biz_type"], Decimal(option["total"])))
            ),
            "subject": {
                "action": "book",
                "option_ref": option["ref"],
                "option": option,
                "passengers": [{"name": p["name"], "mobile": mask_mobiles(p["mobile"] or "")} for p in people],
            },
        }


def _save_arguments(option: dict, people: list[dict], raw_price: Any) -> dict:
    def person(p: dict) -> dict:
        return {"name": p["name"], **({"mobile": p["mobile"]} if p.get("mobile") else {})}

    contact = person(people[0])
    if option["biz_type"] == BizType.FLIGHT:
        return {
            "flightNo": option["number"],
            "date": str(option["depart"])[:10],
            "from": option["origin"],
            "to": option["destination"],
            "contactTourist": contact,
            "passengers": [person(p) for p in people],
        }
    if option["biz_type"] == BizType.TRAIN:
        return {
            "trainNo": option["number"],
            "date": str(option["depart"])[:10],
            "from": option["origin"],
            "to": option["destination"],
            "resources": [
                {"seatType": option["seat_class"], "adultPrice": raw_price, "passengers": [person(p) for p in people]}
            ],
            "contact": contact,
        }
    return {
        "hotelId": option["number"],
        "city": option["city"],
        "checkInDate": option["check_in"],
        "checkOutDate": option["check_out"],
        "guests": [person(p) for p in people],
        "rooms": 1,
    }


def _plain_price(value: str) -> int | float:
    number = Decimal(value)
    return int(number) if number == number.to_integral_value() else float(number)


def _details(option: dict, people: list[dict], extra: dict | None) -> dict:
    """What the record keeps of what was booked: our facts (read back as `bookings.facts.BookingFacts`), and the
    supplier's own names as the API and the admin have always shown them."""
    details = {
        "ref": option["ref"],
        "number": option["number"],
        "name": option["name"],
        "origin": option["origin"],
        "destination": option["destination"],
        "city": option["city"],
        "depart": option["depart"],
        "arrive": option["arrive"],
        "overnight_days": option["overnight_days"],
        "duration_minutes": option["duration_minutes"],
        "seat": option["seat_class"],
        "star": option["star"],
        "check_in": option["check_in"],
        "check_out": option["check_out"],
        "nights": option["nights"],
        "unit_price": option["unit_price"],
        "passengers": [p["name"] for p in people],
        # The supplier's English names, so pages and cards name them in English ever after.
        **{k: option[k] for k in ("name_en", "origin_en", "destination_en", "city_en") if option.get(k)},
        **({"seat_en": option["seat_class_en"]} if option.get("seat_class_en") else {}),
    }
    if option["biz_type"] == BizType.HOTEL:
        details |= {"hotelId": option["number"], "hotelName": option["name"]}
        details |= {"checkInDate": option["check_in"], "checkOutDate": option["check_out"]}
    else:
        key = "flightNo" if option["biz_type"] == BizType.FLIGHT else "trainNo"
        details |= {key: option["number"], "from": option["origin"], "to": option["destination"]}
        details |= {"date": str(option["depart"])[:10]}
    return details | (extra or {})


def booking_create(
    *,
    user,
    option_ref: object,
    passengers: object,
    scope: str | None = None,
    reason: str = "Booked on the supplier platform after the traveller confirmed.",
    extra_details: dict | None = None,
) -> BookingRecord:
    """Book an option for the passengers: the supplier's saveOrder (keyed by `scope`: the same confirmed action
    replayed is the supplier's first order), then our record with its creation event. A repeat returns the first
    record. Nothing of ours is written when the supplier did not book.

    Raises BookingError INVALID_PARAM (see `booking_option_preview`), PLATFORM_REJECTED (the supplier said no,
    e.g. the price changed), PLATFORM_UNAVAILABLE.
    """
    people = passengers_checked(passengers)
    _ref_, option = option_lookup(user=user, option_ref=option_ref, passengers=len(people))
    option = _priced(option, people)
    product = PRODUCT_OF[option["biz_type"]]
    arguments = _save_arguments(option, people, _plain_price(option["unit_price"]))
    try:
        answer = platform_run(PlatformCommand(product, "saveOrder", arguments), user=user, idempotency_scope=scope)
    except PlatformError as exc:
        business_no = exc.code == PlatformError.REJECTED and exc.platform_code not in SUPPLIER_SYSTEM_ERRORS
        code = Code.PLATFORM_REJECTED if business_no else Code.PLATFORM_UNAVAILABLE
        logger.warning("supplier saveOrder failed", extra={"product": product, "code": exc.code})
        raise BookingError(
            code, f"the supplier did not book it: {exc.message}", {"platform_code": exc.platform_code}
        ) from None
    number = order_number(answer)
    if not number:
        logger.error("saveOrder answer has no order number", extra={"product": product})
        raise BookingError(Code.PLATFORM_UNAVAILABLE, "the supplier's answer has no order number")
    contact = {**people[0], "travellers": people}
    amount = order_amount(answer) if order_amount(answer) > 0 else Decimal(option["total"])
    try:
        return booking_record_create(
            user=user,
            biz_type=option["biz_type"],
            external_order_no=number,
            amount=amount,
            contact=contact,
            details=_details(option, people, extra_details),
            raw=answer,
            reason=reason,
        )
    except Exception:  # the supplier booked: never hide its order behind our own failure
        logger.exception("the supplier booked order %s but recording it failed", number, extra={"product": product})
        raise BookingError(
            Code.INTERNAL_ERROR,
            f"the supplier booked order {number}, but TripDesk could not record it yet",
            {"unrecorded_order_no": number},
        ) from None


# --- rebooking -----------------------------------------------------------------------------------------------------


@dataclass
class RebookOutcome:
    new: BookingRecord
    old: BookingRecord
    old_cancelled: bool
    cancel_error: str | None = None
    cancel_code: str | None = None
    money: dict | None = None  # `rebook_money`, with the refund the old booking's cancel recorded


def booking_of_user(*, user, booking_id: object) -> BookingRecord:
    bid = normalise_booking_id(booking_id)
    if not bid:
        raise BookingError(Code.INVALID_PARAM, "that is not a booking id (like BK20261201001)")
    booking = BookingRecord.objects.filter(booking_id=bid, user_id=getattr(user, "pk", None)).first()
    if booking is None:
        raise BookingError(Code.BOOKING_NOT_FOUND, BOOKING_NOT_FOUND_MESSAGE)
    return booking


def booking_travellers(booking: BookingRecord) -> list[dict]:
    """Who travels on a booking, with the contact's mobile (for booking them again)."""
    contact = booking.contact or {}
    if isinstance(contact.get("travellers"), list) and contact["travellers"]:
        return [dict(p) for p in contact["travellers"] if isinstance(p, dict)]
    names = booking_facts(booking)["passengers"] or [contact.get("name") or ""]
    mobile = contact.get("mobile")
    return [{"name": n, "mobile": mobile if i == 0 else None} for i, n in enumerate(names)]


def _rebookable(*, user, booking_id: object, option_ref: object) -> tuple[BookingRecord, OptionRef]:
    old = booking_of_user(user=user, booking_id=booking_id)
    if old.status in CLOSED_STATUSES:
        raise booking_closed_error(old, doing="change")
    ref = _ref(option_ref)
    if ref.biz_type != old.biz_type:
        raise BookingError(
            Code.INVALID_PARAM, f"booking {old.booking_id} is a {old.biz_type.lower()}, not a {ref.biz_type.lower()}"
        )
    if (old.details or {}).get("ref") == option_ref:
        raise BookingError(Code.INVALID_PARAM, f"booking {old.booking_id} is already this option")
    return old, ref


def booking_rebook_preview(*, user, booking_id: object, option_ref: object, language: str = "zh-hans") -> dict:
    """The confirmation card of a rebooking: the booking now, the new option, and what happens in which order."""
    old, _ref_ = _rebookable(user=user, booking_id=booking_id, option_ref=option_ref)
    preview = booking_option_preview(
        user=user, option_ref=option_ref, passengers=booking_travellers(old), language=language
    )
    facts = booking_facts(old)
    with translation.override(language):
        now = " ".join(
            p
            for p in (
                old.booking_id,
                facts["number"],
                facts["date"] or "",
                times_text(facts["depart"], facts["arrive"]) if facts["depart"] else "",
            )
            if p
        )
        order = _(
            "The new booking is made first, then %(old)s is cancelled; if that cancel fails, both stay and you are told."
        ) % {"old": old.booking_id}
        money = rebook_money(old, new_amount=Decimal(preview["amount"]))
        return {
            **preview,
            "title": _("Change to %(title)s") % {"title": preview["title"]},
            "rows": [[_("Booking now"), now], *preview["rows"], *rebook_money_rows(money)],
            "terms": " ".join((order, rebook_money_text(money), preview["terms"])),
            "subject": {**preview["subject"], "action": "rebook", "booking_id": old.booking_id, "money": money},
        }


def rebook_money(old: BookingRecord, *, new_amount: Decimal) -> dict:
    """What a rebooking does with the money, told on its card before anything moves and again after it: what the
    old booking was paid (None: not paid), its refund under the fare rules (`refund_record`, the same rule and
    record as any cancel; None: the supplier's or hotel's own rule), the new fare, the difference (new fare minus
    refund) and what is to pay (the new booking is a new order, paid in full). `waits_for_approver`: the old
    booking's cancel, and so its refund, waits for an approver."""
    refund = refund_record(old)
    refund_amount = None if refund is None or refund["refund"] is None else Decimal(refund["refund"])
    if refund is None:
        difference = new_amount
    elif refund_amount is None:
        difference = None
    else:
        difference = new_amount - refund_amount
    return {
        "paid": None if refund is None else refund["paid"],
        "refund": None if refund_amount is None else str(refund_amount),
        "share": None if refund is None else refund["share"],
        "new_amount": str(new_amount),
        "difference": None if difference is None else str(difference),
        "to_pay": str(new_amount),
        "waits_for_approver": booking_cancel_needs_approval(old),
        "old_booking_id": old.booking_id,
    }


def yuan(value: str | Decimal) -> str:
    """An amount as cards and replies write it: ¥390, ¥370.50."""
    return f"¥{Decimal(value):.2f}".replace(".00", "")


def rebook_money_rows(money: dict) -> list[list[str]]:
    """The card's money rows of a rebooking, in the active language."""
    if money["paid"] is None:
        rows = [[_("Paid for the booking now"), _("nothing (not paid yet)")]]
    else:
        refund = (
            _("%(amount)s (%(share)s%% under its fare rules)")
            % {"amount": yuan(money["refund"]), "share": money["share"]}
            if money["refund"] is not None
            else _("by the supplier's own rules")
        )
        rows = [[_("Paid for the booking now"), yuan(money["paid"])], [_("Refund of it"), refund]]
    rows.append([_("New fare"), yuan(money["new_amount"])])
    if money["difference"] is not None and money["paid"] is not None:
        difference = Decimal(money["difference"])
        sign = "+" if difference >= 0 else "−"
        rows.append([_("Difference"), f"{sign}{yuan(abs(difference))}"])
    rows.append([_("To pay for the new booking"), yuan(money["to_pay"])])
    return rows


def rebook_money_text(money: dict) -> str:
    """What a rebooking does with the money, in a sentence or two of the active language (the card's terms)."""
    facts = {
        "old": money["old_booking_id"],
        "paid": yuan(money["paid"]) if money["paid"] is not None else "",
        "refund": yuan(money["refund"]) if money["refund"] is not None else "",
        "share": money["share"] or "",
        "new": yuan(money["new_amount"]),
        "to_pay": yuan(money["to_pay"]),
    }
    if money["paid"] is None:
        return (
            _(
                "Nothing was paid for %(old)s, so nothing is refunded; the new booking (%(new)s) is to pay, by its "
                "payment deadline."
            )
            % facts
        )
    if money["refund"] is None:
        text = (
            _(
                "%(old)s was paid %(paid)s: cancelling it refunds under the supplier's own rules. The new booking "
                "(%(new)s) is a new order: %(to_pay)s is to pay."
            )
            % facts
        )
    else:
        difference = Decimal(money["difference"])
        text = (
            _(
                "%(old)s was paid %(paid)s: cancelling it refunds %(refund)s (%(share)s%% under its fare rules) to how "
                "you paid. The new booking (%(new)s) is a new order: %(to_pay)s is to pay."
            )
            % facts
        )
        if difference > 0:
            text += " " + _("With the refund, the change costs you %(diff)s more.") % {"diff": yuan(difference)}
        elif difference < 0:
            text += " " + _("With the refund, you get back %(diff)s more than the new fare.") % {
                "diff": yuan(-difference)
            }
        else:
            text += " " + _("With the refund, the change costs nothing more.")
    if money["waits_for_approver"]:
        text += " " + _(
            "It is paid and above ¥%(limit)s, so cancelling %(old)s (and its refund) waits for an approver; until "
            "then you hold both bookings."
        ) % {"limit": cancel_approval_above(), "old": money["old_booking_id"]}
    return text


def booking_rebook(*, user, booking_id: object, option_ref: object, scope: str | None = None) -> RebookOutcome:
    """Change a booking to another option: book the new one first (same passengers), then cancel the old one
    through `booking_cancel`. When the cancel fails (supplier down, an approver needed) both bookings stay and the
    outcome says why: nothing is lost. Repeating it (same scope) books nothing more.

    Raises BookingError like `booking_create` (then nothing changed), BOOKING_NOT_FOUND, INVALID_TRANSITION (the
    old booking is cancelled already).
    """
    old, _ref_ = _rebookable(user=user, booking_id=booking_id, option_ref=option_ref)
    new = booking_create(
        user=user,
        option_ref=option_ref,
        passengers=booking_travellers(old),
        scope=scope,
        reason=f"Rebooked from {old.booking_id} after the traveller confirmed.",
        extra_details={"rebooked_from": old.booking_id},
    )
    money = rebook_money(old, new_amount=new.amount)
    try:
        outcome = booking_cancel(user=user, booking_id=old.booking_id)
    except BookingError as exc:
        logger.warning(
            "rebook: the old booking was not cancelled", extra={"booking_id": old.booking_id, "code": exc.code}
        )
        old.refresh_from_db()
        return RebookOutcome(
            new=new,
            old=old,
            old_cancelled=False,
            cancel_error=exc.message,
            cancel_code=str(exc.code),
            money={**money, "refunded": False},
        )
    recorded = outcome.refund  # what the cancel recorded (the same rule as the card, at the moment it ran)
    if recorded is not None and recorded.get("refund") is not None:
        refund = Decimal(recorded["refund"])
        money = {**money, "refund": str(refund), "share": recorded["share"], "difference": str(new.amount - refund)}
    return RebookOutcome(new=new, old=outcome.booking, old_cancelled=True, money={**money, "refunded": True})


# --- what a cancel will do -------------------------------------------------------------------------------------------


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
            terms = _refund_terms(booking)
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


def _refund_terms(booking: BookingRecord) -> str:
    """What cancelling a flight or train gives back, under its fare rules (`bookings.refund_rules`)."""
    estimate = refund_estimate(booking)
    if not estimate.paid:
        return _("It is cancelled on the supplier platform. It is not paid yet, so nothing is charged or refunded.")
    if estimate.amount is None:
        return _("It is cancelled on the supplier platform; the refund follows the supplier's rules.")
    return _(
        "It is cancelled on the supplier platform. Refund under its fare rules: ¥%(refund)s of the ¥%(paid)s paid "
        "(%(share)s%%: cancelled %(band)s)."
    ) % {"refund": estimate.amount, "paid": booking.amount, "share": estimate.percent, "band": estimate.band_text}


# --- what a traveller's own saveOrder will do ------------------------------------------------------------------------


def platform_command_preview(*, user, command: str, language: str = "zh-hans") -> dict:
    """The confirmation card of a platform command that changes something (saveOrder): the item re-read from a
    supplier search, as `booking_option_preview` shows it. Refuses (BookingError INVALID_PARAM) an item the
    supplier does not list and a command that names no route or city to look it up by; PERMISSION_DENIED /
    INVALID_PARAM for commands outside what a traveller may run (`platform_command_read`)."""
    parsed = platform_command_read(command)
    if parsed.action != "saveOrder":
        raise BookingError(Code.INVALID_PARAM, f"`{parsed.product} {parsed.action}` changes nothing to confirm")
    args = parsed.arguments
    text = lambda name: str(args.get(name) or "").strip()  # noqa: E731
    try:
        if parsed.product == "hotel":
            ref = option_ref(
                biz_type="HOTEL",
                number=text("hotelId"),
                date=dt.date.fromisoformat(text("checkInDate")),
                check_out=dt.date.fromisoformat(text("checkOutDate")),
                city=text("city"),
            )
            people = [g for g in args.get("guests") or [] if isinstance(g, dict)]
        else:
            number = text("flightNo") if parsed.product == "flight" else text("trainNo")
            resources = [r for r in args.get("resources") or [] if isinstance(r, dict)]
            seat = str(resources[0].get("seatType") or "") if resources else ""
            ref = option_ref(
                biz_type=parsed.product.upper(),
                number=number,
                date=dt.date.fromisoformat(text("date")),
                origin=text("from"),
                destination=text("to"),
                seat=seat,
            )
            contact = args.get("contactTourist") or args.get("contact")
            others = args.get("passengers") or [p for r in resources for p in r.get("passengers") or []]
            people = [p for p in [contact, *others] if isinstance(p, dict)]
    except ValueError:
        raise BookingError(Code.INVALID_PARAM, "saveOrder needs the item's number and its dates (YYYY-MM-DD)") from None
    # The contact first, then everyone else once.
    seen, unique = set(), []
    for person in people:
        name = str(person.get("name") or "").strip()
        if name in seen:
            continue
        seen.add(name)
        unique.append(person)
    if not (parse_option_ref_safe(ref)):
        raise BookingError(
            Code.INVALID_PARAM, "saveOrder must name the route (from, to) or the hotel's city, as the search did"
        )
    preview = booking_option_preview(user=user, option_ref=ref, passengers=unique, language=language)
    return {
        **preview,
        "subject": {**preview["subject"], "action": "platform_save", "command": parsed.display(masked=True)},
    }


def parse_option_ref_safe(ref: str) -> bool:
    try:
        parse_option_ref(ref)
    except ValueError:
        return False
    return True
