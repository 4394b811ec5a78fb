from django import forms
from django.contrib import admin

from bookings.models import BookingEvent, BookingRecord, SupplierAccount


class BookingEventInline(admin.TabularInline):
    model = BookingEvent
    extra = 0
    can_delete = False
    readonly_fields = ("from_status", "to_status", "actor", "reason", "created_at")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(BookingRecord)
class BookingRecordAdmin(admin.ModelAdmin):
    list_display = ("booking_id", "user", "biz_type", "status", "amount", "external_order_no", "created_at")
    list_filter = ("biz_type", "status")
    search_fields = ("booking_id", "external_order_no", "user__username")
    raw_id_fields = ("user",)
    list_select_related = ("user",)
    inlines = [BookingEventInline]
    list_per_page = 50
    show_full_result_count = False


class SupplierAccountForm(forms.ModelForm):
    api_key = forms.CharField(
        widget=forms.PasswordInput(render_value=False), help_text="Write-only: never shown again."
    )

    class Meta:
        model = SupplierAccount
        fields = ["user", "api_key"]


@admin.register(SupplierAccount)
class SupplierAccountAdmin(admin.ModelAdmin):
    """Keys are written here and never displayed: not in lists, forms or logs."""

    form = SupplierAccountForm
    list_display = ("user", "created_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    list_select_related = ("user",)
    list_per_page = 50
    show_full_result_count = False
