"""Reads of bookings."""

from django.db.models import QuerySet

from bookings.models import BookingRecord


def bookings_for_user(*, user) -> QuerySet[BookingRecord]:
    return BookingRecord.objects.filter(user=user).order_by("-created_at", "-id")


def booking_get(*, booking_id: str) -> BookingRecord | None:
    return BookingRecord.objects.filter(booking_id=booking_id).first()


def bookings_created_since(*, user, since) -> QuerySet[BookingRecord]:
    return BookingRecord.objects.filter(user=user, created_at__gte=since).order_by("created_at", "id")
