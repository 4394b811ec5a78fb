from django.contrib import admin

from aftersale.models import BizOrder, HitlTicket, OrderEvent, Policy, TicketEvent


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class OrderEventInline(ReadOnlyInline):
    model = OrderEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "actor", "reason")


class TicketEventInline(ReadOnlyInline):
    model = TicketEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "actor", "reason")


@admin.register(BizOrder)
class BizOrderAdmin(admin.ModelAdmin):
    list_display = ("order_id", "user", "category", "amount", "status", "paid_at", "delivered_at")
    list_filter = ("category", "status")
    search_fields = ("order_id", "user__username")
    raw_id_fields = ("user", "activity")
    inlines = [OrderEventInline]
    list_per_page = 50
    show_full_result_count = False


@admin.register(Policy)
class PolicyAdmin(admin.ModelAdmin):
    list_display = ("title", "category", "is_active")
    list_filter = ("category", "is_active")
    search_fields = ("title", "text")


@admin.register(HitlTicket)
class HitlTicketAdmin(admin.ModelAdmin):
    list_display = ("ticket_no", "kind", "action", "entity", "requested_by", "status", "verdict", "flagged", "deadline")
    list_filter = ("status", "kind", "flagged", "action")
    search_fields = ("ticket_no", "entity", "requested_by__username")
    raw_id_fields = ("requested_by", "order", "decided_by")
    inlines = [TicketEventInline]
    list_per_page = 50
    show_full_result_count = False
