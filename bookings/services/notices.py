"""The traveller's notices about their bookings, marked read once shown."""

from django.utils import timezone

from bookings.models import BookingNotice


def booking_notices_mark_read(*, user, notice_ids: list[int]) -> int:
    """The user's notices shown to them (on their bookings page or in the chat): read now. How many were unread."""
    return BookingNotice.objects.filter(user=user, pk__in=notice_ids, read_at__isnull=True).update(
        read_at=timezone.now()
    )
