"""The bookings admin: bookings are read here, never edited. Status moves only through an action that calls
`booking_transition` (an event row with the staff user as actor); owner, amount, type, order number and the
platform's payloads are read-only, and bookings are added only by the platform."""

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from bookings.models import BookingEvent, BookingRecord, BookingStatus, SupplierAccount, SupplierCall
from bookings.reasons import booking_event_reason_text
from bookings.services.errors import BookingError
from bookings.services.transitions import booking_transition
from core.admin import BoundedSearchMixin, ReadOnlyAdmin, ReadOnlyInline


class BookingEventInline(ReadOnlyInline):
    """Who changed what, when and why: statuses by their labels, the reason in the reader's language."""

    model = BookingEvent
    fields = readonly_fields = ("from_label", "to_label", "source", "actor", "why", "trace_id", "created_at")

    @admin.display(description=_("from"))
    def from_label(self, event: BookingEvent) -> str:
        return _status_word(event.from_status) or "—"

    @admin.display(description=_("to"))
    def to_label(self, event: BookingEvent) -> str:
        return _status_word(event.to_status)

    @admin.display(description=_("why"))
    def why(self, event: BookingEvent) -> str:
        return booking_event_reason_text(event.reason) or "—"


def _status_word(code: str) -> str:
    return str(BookingStatus(code).label) if code in BookingStatus.values else code


@admin.register(BookingRecord)
class BookingRecordAdmin(BoundedSearchMixin, admin.ModelAdmin):
    list_display = ("booking_id", "user", "biz_type", "status", "amount", "external_order_no", "created_at")
    list_filter = ("biz_type", "status")
    search_fields = ("booking_id", "external_order_no", "user__username")
    list_select_related = ("user",)
    inlines = [BookingEventInline]
    list_per_page = 50
    show_full_result_count = False
    fields = (
        "booking_id",
        "user",
        "biz_type",
        "status",
        "amount",
        "external_order_no",
        "contact",
        "details",
        "raw_payload",
        "remark",
        "pay_deadline",
        "paid_at",
        "cancel_claimed_until",
        "created_at",
        "updated_at",
    )
    readonly_fields = tuple(name for name in fields if name != "remark")
    actions = ["mark_confirmed"]

    def has_add_permission(self, request):
        return False  # bookings are made on the supplier platform, never typed in

    def has_delete_permission(self, request, obj=None):
        return False  # a booking's history stays; cancelling is a transition

    @admin.action(description=_("Mark selected bookings confirmed (payment received)"))
    def mark_confirmed(self, request, queryset):
        done = 0
        for booking_id in queryset.values_list("booking_id", flat=True):
            try:
                booking_transition(
                    booking_id=booking_id,
                    to_status=BookingStatus.CONFIRMED,
                    actor=request.user,
                    reason="Marked confirmed in the admin.",
                )
            except BookingError as exc:
                self.message_user(request, f"{booking_id}: {exc.message}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext("%(count)d booking confirmed.", "%(count)d bookings confirmed.", done) % {"count": done},
                messages.SUCCESS,
            )


class SupplierAccountForm(forms.ModelForm):
    api_key = forms.CharField(
        widget=forms.PasswordInput(render_value=False), help_text=_("Write-only: never shown again.")
    )

    class Meta:
        model = SupplierAccount
        fields = ["user", "api_key"]


@admin.register(SupplierAccount)
class SupplierAccountAdmin(BoundedSearchMixin, admin.ModelAdmin):
    """Keys are written here and never displayed: not in lists, forms or logs."""

    form = SupplierAccountForm
    list_display = ("user", "created_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    list_select_related = ("user",)
    list_per_page = 50
    show_full_result_count = False


@admin.register(SupplierCall)
class SupplierCallAdmin(ReadOnlyAdmin):
    """Every command run on the supplier platform: read only (written by bookings.platform). Filter by `fault` for
    the failures; a business rejection (outcome REJECTED:…) is an answer, not a fault."""

    list_display = ("created_at", "product", "action", "outcome", "fault", "latency_ms", "trace_id")
    list_filter = ("fault", "product", "action", "outcome")
    search_fields = ("=trace_id",)
    date_hierarchy = "created_at"
    fields = readonly_fields = ("product", "action", "outcome", "fault", "latency_ms", "trace_id", "created_at")
    list_per_page = 50
    show_full_result_count = False
