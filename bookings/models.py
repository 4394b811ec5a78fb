"""Bookings made on the supplier platform, and the events that changed them."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.models import StatusEvent
from core.tracing import current_trace_id


class BizType(models.TextChoices):
    FLIGHT = "FLIGHT", _("Flight")
    HOTEL = "HOTEL", _("Hotel")
    TRAIN = "TRAIN", _("Train")


class BookingStatus(models.TextChoices):
    PENDING_PAYMENT = "PENDING_PAYMENT", _("Pending payment")
    CONFIRMED = "CONFIRMED", _("Confirmed")
    CANCELLED = "CANCELLED", _("Cancelled")
    EXPIRED = "EXPIRED", _("Expired")  # not paid by its deadline: the supplier let it go


# The only moves a booking may make; `bookings.services.transitions.booking_transition` checks every change against it.
BOOKING_TRANSITIONS: dict[str, set[str]] = {
    BookingStatus.PENDING_PAYMENT: {BookingStatus.CONFIRMED, BookingStatus.CANCELLED, BookingStatus.EXPIRED},
    BookingStatus.CONFIRMED: {BookingStatus.CANCELLED},
    BookingStatus.CANCELLED: set(),
    BookingStatus.EXPIRED: set(),
}
# Bookings still open on the supplier: the ones the reconciliation asks about.
OPEN_STATUSES = (BookingStatus.PENDING_PAYMENT, BookingStatus.CONFIRMED)
CLOSED_STATUSES = (BookingStatus.CANCELLED, BookingStatus.EXPIRED)


class EventSource(models.TextChoices):
    """Who made a change: the traveller (or staff) is the event's actor; the supplier has no user row."""

    TRIPDESK = "TRIPDESK", _("TripDesk")
    SUPPLIER = "SUPPLIER", _("The supplier")


class BookingRecord(models.Model):
    """TripDesk's record of an order placed on the supplier platform for one user."""

    booking_id = models.CharField(_("booking"), max_length=32, unique=True, help_text="Like BK20261201001.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bookings", verbose_name=_("traveller")
    )
    biz_type = models.CharField(_("type"), max_length=8, choices=BizType.choices)
    external_order_no = models.CharField(_("supplier order number"), max_length=64, db_index=True)
    status = models.CharField(
        _("status"), max_length=16, choices=BookingStatus.choices, default=BookingStatus.PENDING_PAYMENT
    )
    amount = models.DecimalField(_("amount"), max_digits=10, decimal_places=2)
    contact = models.JSONField(_("contact"), default=dict, blank=True)
    details = models.JSONField(
        _("details"), default=dict, blank=True, help_text=_("What was booked: route, dates, hotel, numbers.")
    )
    raw_payload = models.JSONField(_("supplier payload"), default=dict, blank=True)
    remark = models.TextField(_("remark"), blank=True)
    # A cancel in progress holds the row until then (compare-and-set), so concurrent cancels call the platform once.
    cancel_claimed_until = models.DateTimeField(_("cancel in progress until"), null=True, blank=True, editable=False)
    # The supplier's payment deadline: an unpaid order expires then (the supplier's saveOrder answer says when).
    pay_deadline = models.DateTimeField(_("pay by"), null=True, blank=True)
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("booking")
        verbose_name_plural = _("booking records")
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
    source = models.CharField(_("source"), max_length=16, choices=EventSource.choices, default=EventSource.TRIPDESK)

    class Meta(StatusEvent.Meta):
        verbose_name = _("booking event")
        verbose_name_plural = _("booking events")

    def __str__(self) -> str:  # the caption of its row in the admin: statuses by their labels
        return f"{self.booking.booking_id}: {_status_word(self.from_status)} → {_status_word(self.to_status)}"


def _status_word(code: str) -> str:
    if not code:
        return "∅"
    return str(BookingStatus(code).label) if code in BookingStatus.values else code


class NoticeKind(models.TextChoices):
    EXPIRED = "EXPIRED", _("Not paid in time")
    CANCELLED_BY_SUPPLIER = "CANCELLED_BY_SUPPLIER", _("Cancelled by the supplier")
    SCHEDULE_CHANGED = "SCHEDULE_CHANGED", _("Schedule changed")
    PAID = "PAID", _("Payment confirmed")
    RECOVERED = "RECOVERED", _("Booking recorded")


class BookingNotice(models.Model):
    """Something the supplier changed that the traveller must hear of: shown in the chat and on the notices page.
    `facts` hold what the text needs (numbers and times, never sentences): the text is composed in the reader's
    language when it is shown."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="booking_notices")
    booking = models.ForeignKey(BookingRecord, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=24, choices=NoticeKind.choices)
    facts = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notice_user_unread")]

    def __str__(self) -> str:
        return f"{self.booking.booking_id}: {self.get_kind_display()}"


class SupplierAccount(models.Model):
    """A traveller's key on the supplier platform. It goes into the CLI's environment only: never argv, logs,
    audit rows or API answers."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="supplier_account", verbose_name=_("traveller")
    )
    api_key = models.CharField(_("API key"), max_length=200)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # When this key last asked the supplier for an order (saveOrder): the reconciliation asks about such users even
    # when we hold no booking of theirs (recording it may have failed).
    ordered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("supplier account")
        verbose_name_plural = _("supplier accounts")

    def __str__(self) -> str:
        return f"supplier account of {self.user}"


class SupplierCall(models.Model):
    """One command run on the supplier platform (bookings.platform `_log`): what, how it ended, how long it took.

    `outcome` is "OK", "REJECTED:<the platform's code>" or an error code (TIMEOUT, UNAVAILABLE, INVALID_RESPONSE).
    `fault` is True for the errors and for a rejection whose code says the supplier itself is broken
    (PLATFORM_ERROR…, bookings.platform.SUPPLIER_SYSTEM_ERRORS); a business "no" is not a fault. Arguments are not
    kept (they are in the masked log line)."""

    product = models.CharField(_("product"), max_length=16)
    action = models.CharField(_("action"), max_length=32)
    outcome = models.CharField(_("outcome"), max_length=48)
    fault = models.BooleanField(
        _("fault"), default=False, help_text=_("Failed for a reason other than a business rejection.")
    )
    latency_ms = models.PositiveIntegerField(_("latency (ms)"), default=0)
    trace_id = models.CharField(_("trace id"), max_length=32, blank=True, db_index=True, default=current_trace_id)
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("supplier call")
        verbose_name_plural = _("supplier calls")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.product} {self.action} {self.outcome} {self.latency_ms}ms"
