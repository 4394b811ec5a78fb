"""Bookings made on the supplier platform, and the events that changed them."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import StatusEvent


class BizType(models.TextChoices):
    FLIGHT = "FLIGHT", "Flight"
    HOTEL = "HOTEL", "Hotel"
    TRAIN = "TRAIN", "Train"


class BookingStatus(models.TextChoices):
    PENDING_PAYMENT = "PENDING_PAYMENT", "Pending payment"
    CONFIRMED = "CONFIRMED", "Confirmed"
    CANCELLED = "CANCELLED", "Cancelled"


# The only moves a booking may make; `bookings.services.booking_transition` checks every change against it.
BOOKING_TRANSITIONS: dict[str, set[str]] = {
    BookingStatus.PENDING_PAYMENT: {BookingStatus.CONFIRMED, BookingStatus.CANCELLED},
    BookingStatus.CONFIRMED: {BookingStatus.CANCELLED},
    BookingStatus.CANCELLED: set(),
}


class BookingRecord(models.Model):
    """TripDesk's record of an order placed on the supplier platform for one user."""

    booking_id = models.CharField(max_length=32, unique=True, help_text="Like BK20261201001.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bookings")
    biz_type = models.CharField(max_length=8, choices=BizType.choices)
    external_order_no = models.CharField(max_length=64, db_index=True)
    status = models.CharField(max_length=16, choices=BookingStatus.choices, default=BookingStatus.PENDING_PAYMENT)
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    contact = models.JSONField(default=dict, blank=True)
    details = models.JSONField(default=dict, blank=True, help_text="What was booked: route, dates, hotel, numbers.")
    raw_payload = models.JSONField(default=dict, blank=True)
    remark = models.TextField(blank=True)
    # A cancel in progress holds the row until then (compare-and-set), so concurrent cancels call the platform once.
    cancel_claimed_until = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="booking_user_recent")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="booking_amount_not_negative"),
            models.CheckConstraint(condition=Q(status__in=BookingStatus.values), name="booking_status_known"),
            models.CheckConstraint(condition=Q(biz_type__in=BizType.values), name="booking_biz_type_known"),
            models.UniqueConstraint(fields=["biz_type", "external_order_no"], name="booking_one_per_platform_order"),
        ]

    def __str__(self) -> str:
        return f"{self.booking_id} {self.get_biz_type_display()} {self.get_status_display()} ¥{self.amount}"


class BookingEvent(StatusEvent):
    """One change of a booking: who, when, from, to, why."""

    SUBJECT_FIELD = "booking"

    booking = models.ForeignKey(BookingRecord, on_delete=models.CASCADE, related_name="events")

    class Meta(StatusEvent.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.booking.booking_id}: {self.from_status or '∅'} → {self.to_status}"


class SupplierAccount(models.Model):
    """A traveller's key on the supplier platform. It goes into the CLI's environment only: never argv, logs,
    audit rows or API answers."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="supplier_account")
    api_key = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"supplier account of {self.user}"
