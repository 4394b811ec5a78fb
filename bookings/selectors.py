"""Reads of bookings."""

from functools import cache
from pathlib import Path

from django.db.models import QuerySet

from bookings.models import BookingRecord, BookingStatus


def bookings_for_user(*, user, biz_type: str | None = None, status: str | None = None) -> QuerySet[BookingRecord]:
    """The user's own bookings, newest first, optionally of one type or status."""
    bookings = BookingRecord.objects.filter(user=user)
    if biz_type:
        bookings = bookings.filter(biz_type=biz_type)
    if status:
        bookings = bookings.filter(status=status)
    return bookings.order_by("-created_at", "-id")


def bookings_cancellable(*, user, biz_type: str | None = None) -> QuerySet[BookingRecord]:
    """The user's bookings that are not cancelled yet, newest first."""
    return bookings_for_user(user=user, biz_type=biz_type).exclude(status=BookingStatus.CANCELLED)


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
