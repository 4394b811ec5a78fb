"""Reads of bookings."""

from functools import cache
from pathlib import Path

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.utils import timezone

from bookings.facts import details_facts
from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus, EventSource


def bookings_for_user(*, user, biz_type: str | None = None, status: str | None = None) -> QuerySet[BookingRecord]:
    """The user's own bookings, newest first, optionally of one type or status."""
    bookings = BookingRecord.objects.filter(user=user)
    if biz_type:
        bookings = bookings.filter(biz_type=biz_type)
    if status:
        bookings = bookings.filter(status=status)
    return bookings.order_by("-created_at", "-id")


# Bookings still to be travelled on: listed before those that ended (cancelled, expired).
ACTIVE_STATUSES = (BookingStatus.PENDING_PAYMENT, BookingStatus.CONFIRMED)


def bookings_active_first(*, user, biz_type: str | None = None) -> QuerySet[BookingRecord]:
    """The user's own bookings as "what have I booked" answers: those waiting for payment or confirmed first, then
    the cancelled and expired ones, each newest first."""
    ended = Case(When(status__in=ACTIVE_STATUSES, then=Value(0)), default=Value(1), output_field=IntegerField())
    return bookings_for_user(user=user, biz_type=biz_type).order_by(ended, "-created_at", "-id")


def bookings_cancellable(*, user, biz_type: str | None = None) -> QuerySet[BookingRecord]:
    """The user's bookings that are not cancelled yet, newest first."""
    return bookings_for_user(user=user, biz_type=biz_type).exclude(status=BookingStatus.CANCELLED)


def booking_payable(booking: BookingRecord) -> bool:
    """Whether the traveller may pay it now: waiting for payment and before its deadline."""
    if booking.status != BookingStatus.PENDING_PAYMENT:
        return False
    return booking.pay_deadline is None or booking.pay_deadline > timezone.now()


def booking_cancelled_by_supplier(booking: BookingRecord) -> bool:
    if booking.status != BookingStatus.CANCELLED:
        return False
    return BookingEvent.objects.filter(
        booking=booking, to_status=BookingStatus.CANCELLED, source=EventSource.SUPPLIER
    ).exists()


def notices_for_user(*, user, unread: bool = False) -> QuerySet[BookingNotice]:
    """The user's booking notices (what the supplier changed), newest first; `unread`: not yet shown."""
    notices = BookingNotice.objects.filter(user=user).select_related("booking")
    if unread:
        notices = notices.filter(read_at__isnull=True)
    return notices.order_by("-created_at", "-id")


def bookings_of_platform_orders(*, user, orders: list[tuple[str, str]]) -> list[BookingRecord]:
    """The user's records of the given platform orders, `(biz_type, external_order_no)`, in that order."""
    wanted = [(biz.upper(), str(number)) for biz, number in orders if biz and number]
    if not wanted:
        return []
    rows = BookingRecord.objects.filter(user=user, external_order_no__in=[n for _, n in wanted])
    by_key = {(b.biz_type, b.external_order_no): b for b in rows}
    found, seen = [], set()
    for key in wanted:
        if key in by_key and key not in seen:
            seen.add(key)
            found.append(by_key[key])
    return found


SKILL_FILE = Path(__file__).resolve().parent / "skills" / "booking.md"


@cache
def booking_skill_document() -> str:
    """The supplier platform's skill document: how a model composes search and saveOrder commands."""
    return SKILL_FILE.read_text(encoding="utf-8")


def booking_facts(booking: BookingRecord) -> dict:
    """What was booked, as cards and previews show it (`bookings.facts.BookingFacts`, whichever words the record's
    details were written in): the number, the airline or hotel, the route or city, departure and arrival (and how
    many days later it arrives), seat, stay and nights, passengers."""
    return details_facts(booking.details).as_dict()
