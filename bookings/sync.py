"""Staying in step with the supplier: what it changed on its side becomes our record's state.

    report = bookings_sync_for_user(user=u)     # one `order queryOrder {}`: the user's orders as the supplier has them
    bookings_sync_all()                         # the beat task: every user with an open booking

The supplier is the truth about an order once it exists: it lets an unpaid order expire at its deadline, may cancel
one or move its times, and takes payments. Each sync asks it for the user's orders (one command) and applies, per
booking under its row lock:

- EXPIRED on the supplier, pending here → EXPIRED (a transition, the supplier as the event's source, a notice);
- CANCELLED on the supplier, open here → CANCELLED (a notice when the supplier did it on its own);
- PAID on the supplier, pending here (a payment whose answer we lost) → CONFIRMED;
- new departure or arrival times → the booking's details updated, an event row (status unchanged) and a notice;
- an order we have no record of (the persistence hook is best effort: the promise "we will check and record it")
  → recorded, in the supplier's state, with a notice.

Applying the same answer twice changes nothing the second time, so the beat task, a page refresh and a chat question
may all sync at once. Notices carry facts, not sentences: they are worded in the reader's language when shown.
"""

import datetime as dt
import logging
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from bookings import conf
from bookings.facts import details_facts
from bookings.models import (
    OPEN_STATUSES,
    BizType,
    BookingEvent,
    BookingNotice,
    BookingRecord,
    BookingStatus,
    EventSource,
    NoticeKind,
)
from bookings.platform import ORDER_NUMBER_KEYS, PlatformCommand, PlatformError, platform_run, unwrap
from bookings.services.recording import booking_record_create, order_amount
from bookings.services.transitions import booking_lock, supplier_moved
from core import live

logger = logging.getLogger("bookings.sync")

REFRESH_KEY = "bookings:refreshed:{user_id}"
# How long after asking for an order a user is still looked up with no open booking of ours (an unpaid order expires
# long before; a day covers a failed record however long the beat was down).
RECENT_ORDERS = dt.timedelta(days=1)
# What the supplier's order answer holds that is not what was booked (kept out of a recovered record's details).
ORDER_META = frozenset(
    {"product", "status", "totalPrice", "currency", "contact", "createdAt", "updatedAt", "payDeadline", "paidAt",
     "cancelledBy", "scheduleChange", *ORDER_NUMBER_KEYS}
)  # fmt: skip


@dataclass
class SyncReport:
    """What one sync did: the bookings it moved or changed, the ones it recorded, and an error code when the
    supplier could not be asked (then nothing changed)."""

    changed: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def bookings_sync_for_user(*, user) -> SyncReport:
    """Ask the supplier for the user's orders and apply what changed. Never raises for the supplier's faults: a
    supplier that does not answer leaves everything as it was (`report.error`)."""
    try:
        answer = unwrap(platform_run(PlatformCommand("order", "queryOrder", {}), user=user))
    except PlatformError as exc:
        logger.warning("booking sync: the supplier did not answer", extra={"user_id": user.pk, "code": exc.code})
        return SyncReport(error=exc.code)
    orders = answer.get("orders")
    if not isinstance(orders, list):
        return SyncReport(error=PlatformError.INVALID_RESPONSE)
    report = SyncReport()
    for order in orders:
        if not isinstance(order, dict):
            continue
        number, biz_type = _number(order), str(order.get("product") or "").upper()
        if not number or biz_type not in BizType.values:
            continue
        booking = BookingRecord.objects.filter(user=user, biz_type=biz_type, external_order_no=number).first()
        if booking is None:
            booking = _recover(user=user, biz_type=biz_type, number=number, order=order)
            if booking is None:
                continue
            report.recovered.append(booking.booking_id)
        if _apply(booking, order):
            report.changed.append(booking.booking_id)
    return report


def bookings_refresh_for_user(*, user) -> SyncReport | None:
    """A sync when the traveller looks (their bookings page, "我的订单付款了吗"), at most once per
    BOOKING_REFRESH_SECONDS per user; None when a recent one stands."""
    seconds = conf.refresh_seconds()
    if seconds > 0:
        try:
            if not cache.add(REFRESH_KEY.format(user_id=user.pk), 1, timeout=seconds):
                return None
        except Exception:  # the cache is down: sync anyway, the supplier is the truth
            logger.warning("booking refresh: cache unavailable", exc_info=True)
    return bookings_sync_for_user(user=user)


def bookings_sync_all() -> dict:
    """The beat task's work: one sync per user with an open booking, or who asked the supplier for an order lately
    (its record may have failed: the supplier's list finds it). Counts of what it did."""
    recent = timezone.now() - RECENT_ORDERS
    users = get_user_model().objects.filter(
        Q(pk__in=BookingRecord.objects.filter(status__in=OPEN_STATUSES).values("user_id"))
        | Q(supplier_account__ordered_at__gte=recent)
    )
    totals = {"users": 0, "changed": 0, "recovered": 0, "failed": 0}
    for user in users.iterator():
        report = bookings_sync_for_user(user=user)
        totals["users"] += 1
        totals["changed"] += len(report.changed)
        totals["recovered"] += len(report.recovered)
        totals["failed"] += 0 if report.ok else 1
    return totals


# --- one order ---------------------------------------------------------------------------------------------------


def _number(order: dict) -> str | None:
    for key in ORDER_NUMBER_KEYS:
        value = order.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _moment(raw: object) -> dt.datetime | None:
    moment = parse_datetime(raw) if isinstance(raw, str) else None
    if moment is not None and timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _recover(*, user, biz_type: str, number: str, order: dict) -> BookingRecord | None:
    """Record an order the supplier has and we do not (its record failed at creation), as the supplier shows it."""
    details = {k: v for k, v in order.items() if k not in ORDER_META}
    contact = order.get("contact") if isinstance(order.get("contact"), dict) else {}
    try:
        booking = booking_record_create(
            user=user,
            biz_type=biz_type,
            external_order_no=number,
            amount=order_amount(order),
            contact=contact,
            details=details,
            raw=order,
            reason="Found on the supplier by the reconciliation: its record had failed at creation.",
            source=EventSource.SUPPLIER,
        )
    except Exception:
        logger.exception("booking sync: could not record order %s", number, extra={"user_id": user.pk})
        return None
    _notify(booking, NoticeKind.RECOVERED, {"order_no": number}, once=True)
    logger.info("booking sync: recovered an unrecorded order", extra={"booking_id": booking.booking_id})
    return booking


@transaction.atomic
def _apply(booking: BookingRecord, order: dict) -> bool:
    """Bring one booking in step with the supplier's order, under its row lock. True when anything changed."""
    locked = booking_lock(booking_id=booking.booking_id)
    changed = False
    deadline = _moment(order.get("payDeadline"))
    if locked.pay_deadline is None and deadline is not None:
        locked.pay_deadline = deadline
        locked.save(update_fields=["pay_deadline", "updated_at"])
    status, by = order.get("status"), order.get("cancelledBy")
    if status == "EXPIRED" and locked.status == BookingStatus.PENDING_PAYMENT:
        locked = supplier_moved(locked, to_status=BookingStatus.EXPIRED, reason="Not paid by its payment deadline.")
        _notify(locked, NoticeKind.EXPIRED, {"deadline": order.get("payDeadline")}, once=True)
        changed = True
    elif status == "CANCELLED" and locked.status in OPEN_STATUSES:
        by_supplier = by == "supplier"
        reason = "Cancelled by the supplier." if by_supplier else "Cancelled on the supplier platform."
        locked = supplier_moved(locked, to_status=BookingStatus.CANCELLED, reason=reason)
        if by_supplier:
            _notify(locked, NoticeKind.CANCELLED_BY_SUPPLIER, {"was_paid": bool(locked.paid_at)}, once=True)
        changed = True
    elif status == "PAID" and locked.status == BookingStatus.PENDING_PAYMENT:
        paid_at = _moment(order.get("paidAt")) or timezone.now()
        locked = supplier_moved(
            locked, to_status=BookingStatus.CONFIRMED, reason="Paid on the supplier.", fields={"paid_at": paid_at}
        )
        _notify(locked, NoticeKind.PAID, {}, once=True)
        changed = True
    return _schedule(locked, order) or changed


def _minutes(value: object) -> str:
    """A departure or arrival as compared: the date and time to the minute (`2026-12-19T07:10`)."""
    return str(value or "")[:16]


def _schedule(booking: BookingRecord, order: dict) -> bool:
    """New departure or arrival times from the supplier: the details follow, with an event row and a notice."""
    if booking.biz_type == BizType.HOTEL or booking.status not in OPEN_STATUSES:
        return False
    details = dict(booking.details or {})
    depart, arrive = order.get("departTime"), order.get("arriveTime")
    facts = details_facts(details)
    before_depart, before_arrive = facts.depart, facts.arrive
    if not isinstance(depart, str) or not before_depart:
        return False
    if _minutes(depart) == _minutes(before_depart) and _minutes(arrive) == _minutes(before_arrive):
        return False
    for ours, theirs, value in (("depart", "departTime", depart), ("arrive", "arriveTime", arrive)):
        if value:
            details[ours] = value
            details[theirs] = value
    details["schedule_change"] = {
        "previous_depart": before_depart,
        "previous_arrive": before_arrive,
        "changed_at": timezone.now().isoformat(),
    }
    booking.details = details
    booking.save(update_fields=["details", "updated_at"])
    BookingEvent.objects.create(
        booking=booking,
        from_status=booking.status,
        to_status=booking.status,
        reason=f"Schedule changed by the supplier: {_minutes(before_depart)} → {_minutes(depart)}.",
        source=EventSource.SUPPLIER,
    )
    facts = {
        "previous_depart": before_depart,
        "previous_arrive": before_arrive,
        "depart": depart,
        "arrive": arrive,
    }
    _notify(booking, NoticeKind.SCHEDULE_CHANGED, facts)
    return True


def _notify(booking: BookingRecord, kind: str, facts: dict, *, once: bool = False) -> None:
    """A notice for the booking's traveller; `once`: a kind that can happen to a booking only once."""
    if once and BookingNotice.objects.filter(booking=booking, kind=kind).exists():
        return
    BookingNotice.objects.create(user_id=booking.user_id, booking=booking, kind=kind, facts=facts)
    live.changed(booking.user_id)  # the traveller's open pages show it now (core.live)
