"""Reads of bookings."""

import datetime as dt
from functools import cache
from pathlib import Path

from django.db.models import QuerySet
from django.utils import timezone

from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus, EventSource
from bookings.options import overnight_days


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
    """What was booked, as cards and previews show it, from the record's details: the number, the airline or
    hotel, the route or city, departure and arrival (and how many days later it arrives), seat, stay and nights,
    passengers. Works for records made by `booking_create` and for older ones recorded from a platform command."""
    d = booking.details or {}
    depart = d.get("depart") or d.get("departTime")
    arrive = d.get("arrive") or d.get("arriveTime")
    check_in = d.get("check_in") or d.get("checkInDate")
    check_out = d.get("check_out") or d.get("checkOutDate")
    nights = d.get("nights")
    if nights is None and check_in and check_out:
        try:
            nights = (dt.date.fromisoformat(str(check_out)) - dt.date.fromisoformat(str(check_in))).days
        except ValueError:
            nights = None
    passengers = d.get("passengers") or d.get("guests") or []
    names = [p.get("name") if isinstance(p, dict) else p for p in passengers]
    seat = d.get("seat") or d.get("cabin")
    if not seat and isinstance(d.get("resources"), list) and d["resources"]:
        first = d["resources"][0]
        seat = first.get("seatType") if isinstance(first, dict) else None
    return {
        "number": d.get("number") or d.get("flightNo") or d.get("trainNo") or d.get("hotelId") or "",
        "name": d.get("name") or d.get("airline") or d.get("hotelName") or "",
        "origin": d.get("origin") or d.get("from") or "",
        "destination": d.get("destination") or d.get("to") or "",
        "city": d.get("city") or "",
        "date": (str(depart)[:10] if depart else None) or d.get("date") or check_in,
        "depart": depart,
        "arrive": arrive,
        "overnight_days": overnight_days(depart, arrive),
        "seat": seat or "",
        "star": d.get("star"),
        "check_in": check_in,
        "check_out": check_out,
        "nights": nights,
        "passengers": [str(n) for n in names if n],
        "unit_price": d.get("unit_price") or d.get("unitPrice") or d.get("pricePerNight"),
    }
