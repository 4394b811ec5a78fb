"""The approval console: approvers read a ticket's evidence and approve (in full or in part), reject or retry it.

Deciding is a permission (`aftersale.decide_ticket`, held by the "approvers" group), never a superuser check.
Tickets, orders and events are evidence: nobody edits or deletes them through forms; every change goes through
the after-sale services, which lock the row, check the transition and write an event row. Errors the services
raise are reported per ticket with `message_user`. The deciding (the list's actions, the confirmation page, one
ticket's buttons) is `aftersale.admin_decisions`.

Everything here follows the admin's active language (gettext), and every moment is shown in the site's time zone
(TIME_ZONE) without fractions of a second; the evidence a ticket keeps as data is shown as tables
(`aftersale.evidence`), never as raw JSON.
"""

from django import forms
from django.contrib import admin
from django.db.models import Case, DateTimeField, F, IntegerField, Value, When
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aftersale import evidence as shown
from aftersale.admin_decisions import TicketDecisionsMixin
from aftersale.models import (
    AftersaleNotice,
    ApprovalLimit,
    BizOrder,
    HitlTicket,
    OrderEvent,
    OrderStatus,
    Policy,
    StaffAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
)
from aftersale.reasons import event_reason_text
from aftersale.services import limits
from aftersale.services.limits import limit_setting_refusal
from core.admin import BoundedSearchMixin, ReadOnlyAdmin, ReadOnlyInline, ReadOnlyMixin
from core.languages import bilingual

DECIDE_PERMISSION = "aftersale.decide_ticket"
EMPTY = shown.EMPTY
REASON_LIST_CHARS = 28
# Classes of the evidence sections on a ticket's page: the first one (the traveller's words) marks where the
# evidence starts.
EVIDENCE_START, EVIDENCE = ("ticket-evidence",), ("ticket-section",)


# -- read-only building blocks ----------------------------------------------------------------------------------


class EventColumns:
    """An event's columns: when (local time, to the second), from and to (by the labels of `status_choices`), who and
    why; for a subject's history (`EventInline`) and for the staff actions list."""

    status_choices = None

    @admin.display(description=gettext_lazy("when"), ordering="created_at")
    def when(self, event) -> str:
        return shown.moment(event.created_at)

    @admin.display(description=gettext_lazy("from"))
    def from_label(self, event) -> str:
        return shown.status_label(self.status_choices, event.from_status) if event.from_status else EMPTY

    @admin.display(description=gettext_lazy("to"))
    def to_label(self, event) -> str:
        return shown.status_label(self.status_choices, event.to_status)

    @admin.display(description=gettext_lazy("who"), ordering="actor__username")
    def who(self, event) -> str:
        return event.actor.get_username() if event.actor_id else _("the system")

    @admin.display(description=gettext_lazy("why"))
    def why(self, event) -> str:
        return event_reason_text(event.reason) or EMPTY


class EventInline(EventColumns, ReadOnlyInline):
    """Who changed what, when, why and from which address."""

    fields = readonly_fields = ("when", "from_label", "to_label", "who", "why", "client_address")


class OrderEventInline(EventInline):
    model = OrderEvent
    status_choices = OrderStatus


class TicketEventInline(EventInline):
    model = TicketEvent
    status_choices = TicketStatus


class OrderTicketInline(ReadOnlyInline):
    model = HitlTicket
    fk_name = "order"
    fields = readonly_fields = ("ticket_no", "action", "status", "verdict", "flagged", "submitted")
    show_change_link = True
    verbose_name_plural = gettext_lazy("requests about this order")

    @admin.display(description=gettext_lazy("submitted at"))
    def submitted(self, ticket: HitlTicket) -> str:
        return shown.moment(ticket.created_at)


# -- orders and policies ------------------------------------------------------------------------------------------


@admin.register(BizOrder)
class BizOrderAdmin(ReadOnlyAdmin):
    """Orders are read here, never edited: status, owner and amount change only through `order_transition` (an
    event row each), so the admin has no change, add or delete permission on them, whoever is signed in."""

    list_display = ("order_id", "user", "category", "amount", "refunded_amount", "status", "paid", "delivered")
    list_filter = ("category", "status")
    search_fields = ("order_id", "user__username")
    list_select_related = ("user",)
    inlines = [OrderEventInline, OrderTicketInline]
    list_per_page = 50
    show_full_result_count = False
    fields = (
        ("order_id", "user"),
        ("category", "status"),
        ("amount", "refunded_amount"),
        "items_table",
        ("activity", "service_date"),
        ("paid", "delivered"),
    )
    readonly_fields = tuple(name for line in fields for name in (line if isinstance(line, tuple) else (line,)))

    @admin.display(description=gettext_lazy("paid at"), ordering="paid_at")
    def paid(self, order: BizOrder) -> str:
        return shown.moment(order.paid_at, short=True)

    @admin.display(description=gettext_lazy("delivered at"), ordering="delivered_at")
    def delivered(self, order: BizOrder) -> str:
        return shown.moment(order.delivered_at, short=True)

    @admin.display(description=gettext_lazy("items"))
    def items_table(self, order: BizOrder) -> SafeString:
        return shown.items_table(order.items)


@admin.register(Policy)
class PolicyAdmin(BoundedSearchMixin, admin.ModelAdmin):
    """Policies are content: those with the change permission edit them; approvers read them."""

    list_display = ("title_display", "category", "is_active")
    list_filter = ("category", "is_active")
    search_fields = ("title", "text")

    @admin.display(description=gettext_lazy("title"), ordering="title")
    def title_display(self, policy: Policy) -> str:
        """The reader's half of a bilingual title ("中文 / English"); the form edits both."""
        return bilingual(policy.title)


@admin.register(AftersaleNotice)
class AftersaleNoticeAdmin(ReadOnlyAdmin):
    """What travellers were told of the decisions about their requests, and whether they have seen it."""

    list_display = ("ticket", "user", "kind", "sent", "seen")
    list_filter = ("kind",)
    list_select_related = ("ticket", "user")
    list_per_page = 50
    show_full_result_count = False

    @admin.display(description=gettext_lazy("sent at"), ordering="created_at")
    def sent(self, notice: AftersaleNotice) -> str:
        return shown.moment(notice.created_at, short=True)

    @admin.display(description=gettext_lazy("seen at"), ordering="read_at")
    def seen(self, notice: AftersaleNotice) -> str:
        return shown.moment(notice.read_at, short=True)


# -- who may approve what, and what staff did ------------------------------------------------------------------------


class ApprovalLimitForm(forms.ModelForm):
    """A limit for a person or a group; nobody sets a limit that applies to themselves (`limit_setting_refusal`)."""

    editor = None  # the signed-in user, set by ApprovalLimitAdmin.get_form

    class Meta:
        model = ApprovalLimit
        fields = ("user", "group", "max_amount")

    def clean(self):
        cleaned = super().clean()
        if bool(cleaned.get("user")) == bool(cleaned.get("group")):
            raise forms.ValidationError(_("Set the limit for one approver or for one group."))
        refusal = limit_setting_refusal(self.editor, user=cleaned.get("user"), group=cleaned.get("group"))
        if refusal:
            raise forms.ValidationError(refusal)
        return cleaned


@admin.register(ApprovalLimit)
class ApprovalLimitAdmin(BoundedSearchMixin, admin.ModelAdmin):
    """How much each approver or group may approve alone (aftersale.services.limits)."""

    form = ApprovalLimitForm
    list_display = ("holder", "max_amount", "updated")
    search_fields = ("user__username", "group__name")
    list_select_related = ("user", "group")
    autocomplete_fields = ("user", "group")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"editor": request.user})

    @admin.display(description=gettext_lazy("approver or group"))
    def holder(self, limit: ApprovalLimit) -> str:
        if limit.user_id:
            return limit.user.get_username()
        return _("group %(name)s") % {"name": limit.group.name}

    @admin.display(description=gettext_lazy("updated at"), ordering="updated_at")
    def updated(self, limit: ApprovalLimit) -> str:
        return shown.moment(limit.updated_at, short=True)


@admin.register(StaffAction)
class StaffActionAdmin(EventColumns, ReadOnlyAdmin):
    """Every ticket event staff made: who, when, from which address, on which ticket, from what to what, why."""

    status_choices = TicketStatus
    list_display = ("when", "who", "client_address", "ticket_link", "from_label", "to_label", "why")
    list_filter = ("to_status", ("actor", admin.RelatedOnlyFieldListFilter))
    search_fields = ("ticket__ticket_no", "actor__username", "client_address")
    list_select_related = ("ticket", "actor")
    list_per_page = 50
    show_full_result_count = False
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).filter(actor__is_staff=True)

    @admin.display(description=gettext_lazy("ticket"), ordering="ticket__ticket_no")
    def ticket_link(self, event) -> SafeString:
        url = reverse("admin:aftersale_hitlticket_change", args=[event.ticket_id], current_app=self.admin_site.name)
        return format_html('<a href="{}">{}</a>', url, event.ticket.ticket_no)


# -- tickets --------------------------------------------------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """PENDING tickets whose deadline has passed (the timeout sweep has not reached them yet)."""

    title = gettext_lazy("deadline")
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return (("yes", _("Overdue (pending past deadline)")), ("no", _("Not overdue")))

    def queryset(self, request, queryset):
        overdue = {"status": TicketStatus.PENDING, "deadline__lt": timezone.now()}
        if self.value() == "yes":
            return queryset.filter(**overdue)
        if self.value() == "no":
            return queryset.exclude(**overdue)
        return queryset


@admin.register(HitlTicket)
class HitlTicketAdmin(TicketDecisionsMixin, ReadOnlyMixin, BoundedSearchMixin, admin.ModelAdmin):
    change_form_template = "admin/aftersale/hitlticket/change_form.html"
    # Six narrow columns that fit 1366 px with both sidebars open: what is asked and by whom in one, where it
    # stands with the verdict and its flag in one, and the decision in one: its deadline while pending (overdue
    # marked), who decided and when once decided (static/css/console.css keeps them narrow).
    list_display = (
        "ticket_no",
        "request_display",
        "reason_short",
        "amount_display",
        "standing_display",
        "decision_display",
    )
    list_filter = ("status", "verdict", "flagged", "kind", "action", OverdueFilter)
    search_fields = ("ticket_no", "entity", "requested_by__username")
    list_select_related = ("requested_by", "decided_by", "first_approved_by", "order")
    # Open work first: pending tickets, flagged ones first, oldest first; then the rest, newest first.
    ordering = (
        Case(When(status=TicketStatus.PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()).asc(),
        "-flagged",
        Case(When(status=TicketStatus.PENDING, then=F("created_at")), output_field=DateTimeField()).asc(),
        "-created_at",
    )
    list_per_page = 50
    show_full_result_count = False
    inlines = [TicketEventInline]
    actions = ["approve_tickets", "reject_tickets", "retry_tickets", "mark_items_received"]
    readonly_fields = (
        "ticket_no",
        "kind",
        "action",
        "status_badge",
        "entity",
        "order",
        "requested_by",
        "amount_display",
        "flagged_icon",
        "submitted_display",
        "deadline_display",
        "words_display",
        "order_display",
        "cancel_display",
        "verdict_display",
        "verdict_detail",
        "policies_display",
        "paused_call",
        "other_evidence",
        "first_approval_display",
        "decided_by",
        "decided_at_display",
        "decision_reason",
        "item_received_at",
        "attempts",
        "execution_started_display",
        "executed_at_display",
        "execution_display",
        "trace_id",
    )

    # -- permissions: the form never edits a ticket (ReadOnlyMixin); deciding is its own permission ---------------

    def has_decide_permission(self, request) -> bool:
        return request.user.has_perm(DECIDE_PERMISSION)

    # -- the change page: evidence, read only ---------------------------------------------------------------------

    def get_fieldsets(self, request, obj=None):
        checkpoint = obj is not None and obj.kind == TicketKind.CHECKPOINT
        fieldsets = [
            (
                _("Request"),
                {
                    "fields": (
                        ("ticket_no", "status_badge", "flagged_icon"),
                        ("kind", "action"),
                        ("entity", "order"),
                        ("requested_by", "amount_display"),
                        ("submitted_display", "deadline_display"),
                    )
                },
            ),
            (_("The traveller's own words"), {"fields": ("words_display",), "classes": EVIDENCE_START}),
        ]
        if checkpoint:
            fieldsets.append((_("What would be cancelled"), {"fields": ("cancel_display",), "classes": EVIDENCE}))
            fieldsets.append((_("What an approval lets run"), {"fields": ("paused_call",), "classes": EVIDENCE}))
        else:
            fieldsets.append((_("Order facts"), {"fields": ("order_display",), "classes": EVIDENCE}))
            fieldsets.append(
                (
                    _("Policy passages and verdict"),
                    {"fields": ("verdict_display", "verdict_detail", "policies_display"), "classes": EVIDENCE},
                )
            )
        fieldsets += [
            (_("Other evidence"), {"fields": ("other_evidence", "trace_id"), "classes": ("collapse",)}),
            (
                _("Decision"),
                {"fields": ("first_approval_display", ("decided_by", "decided_at_display"), "decision_reason")},
            ),
            *(
                [(_("Item sent back"), {"fields": ("item_received_at",)})]
                if obj is not None and obj.sends_item_back
                else []
            ),
            (
                _("Execution"),
                {"fields": (("attempts", "execution_started_display", "executed_at_display"), "execution_display")},
            ),
        ]
        return fieldsets

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "can_decide": self.has_decide_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context=extra_context)

    @admin.display(description=gettext_lazy("request"), ordering="entity")
    def request_display(self, ticket: HitlTicket) -> SafeString:
        """What is asked, about what, by whom (and that it is an action awaiting approval, for a checkpoint)."""
        kind = (
            format_html(' · <span class="ticket-kind">{}</span>', _("awaiting approval"))
            if (ticket.kind == TicketKind.CHECKPOINT)
            else ""
        )
        return format_html(
            '<span class="ticket-request"><strong>{}</strong> <span class="ticket-entity">{}</span></span>'
            '<br><span class="ticket-by">{}{}</span>',
            ticket.get_action_display(),
            ticket.entity,
            ticket.requested_by.get_username(),
            kind,
        )

    @admin.display(description=gettext_lazy("traveller's reason"))
    def reason_short(self, ticket: HitlTicket) -> SafeString | str:
        text = Truncator(ticket.request_reason or "").chars(REASON_LIST_CHARS)
        kind = ticket.get_reason_kind_display() if ticket.reason_kind else ""
        if not text and not kind:
            return EMPTY
        return format_html(
            '<span class="ticket-reason-short" title="{}">{}</span>{}',
            ticket.request_reason,
            text or kind,
            format_html('<br><span class="ticket-by">{}</span>', kind) if text and kind else "",
        )

    @admin.display(description=gettext_lazy("amount"), ordering="amount")
    def amount_display(self, ticket: HitlTicket) -> SafeString | str:
        if ticket.amount is None:
            return EMPTY
        if ticket.is_partial:
            return format_html(
                '<span class="ticket-partial" title="{}">¥{}</span><br><span class="ticket-by">/ ¥{}</span>',
                _("approved / asked: a partial refund"),
                ticket.approved_amount,
                ticket.amount,
            )
        return f"¥{ticket.amount}"

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_badge(self, ticket: HitlTicket) -> SafeString:
        # Colours per status in static/css/console.css: the CSP allows no style attribute.
        return format_html(
            '<span class="ticket-status ticket-status-{}">{}</span>', ticket.status.lower(), ticket.get_status_display()
        )

    @admin.display(description=gettext_lazy("status / verdict"), ordering="status")
    def standing_display(self, ticket: HitlTicket) -> SafeString:
        if ticket.status == TicketStatus.APPROVED and ticket.awaits_item:  # staff mark it received when it arrives
            return format_html(
                '{} <span class="ticket-awaits-item" data-awaits-item>{}</span><br>{}',
                self.status_badge(ticket),
                _("waiting for the item"),
                self.verdict_display(ticket),
            )
        return format_html("{}<br>{}", self.status_badge(ticket), self.verdict_display(ticket))

    @admin.display(description=gettext_lazy("verdict"), ordering="verdict")
    def verdict_display(self, ticket: HitlTicket) -> SafeString | str:
        verdict = ticket.get_verdict_display() if ticket.verdict else EMPTY
        return format_html(
            '<span class="ticket-verdict ticket-verdict-{}">{}</span>{}',
            (ticket.verdict or "none").lower(),
            verdict,
            self.flagged_icon(ticket),
        )

    @admin.display(description=gettext_lazy("flagged"), ordering="flagged")
    def flagged_icon(self, ticket: HitlTicket) -> SafeString | str:
        if not ticket.flagged:
            return ""
        return format_html(
            ' <span class="ticket-flagged" data-flagged title="{}">⚑<span class="ticket-flag-word"> {}</span></span>',
            _("Review closely: the verdict failed, was uncertain or disagreed with the policy"),
            _("flagged"),
        )

    @admin.display(description=gettext_lazy("deadline"), ordering="deadline")
    def deadline_display(self, ticket: HitlTicket) -> SafeString:
        when = shown.moment(ticket.deadline, short=True)
        if ticket.status == TicketStatus.PENDING and ticket.deadline < timezone.now():
            return format_html('{} <strong class="ticket-overdue">{}</strong>', when, _("overdue"))
        return format_html("{}", when)

    @admin.display(description=gettext_lazy("deadline / decided by"), ordering="deadline")
    def decision_display(self, ticket: HitlTicket) -> SafeString:
        """Pending: when it must be decided by (overdue marked). Decided: who decided, and when. Timed out: when."""
        if ticket.decided_by is None and ticket.first_approved_by is not None:  # four eyes: one of two given
            return format_html(
                '<span class="ticket-first-approver" data-first-approval>{}</span><br>{}',
                _("1 of 2 approvals: %(who)s") % {"who": ticket.first_approved_by.get_username()},
                self.deadline_display(ticket),
            )
        if ticket.decided_by is not None:
            return format_html(
                '<span class="ticket-decider">{}</span><br><span class="ticket-by">{}</span>',
                ticket.decided_by.get_username(),
                shown.moment(ticket.decided_at, short=True),
            )
        return format_html(
            '<span class="ticket-by">{}</span><br>{}',
            _("due") if ticket.status == TicketStatus.PENDING else _("deadline"),
            self.deadline_display(ticket),
        )

    @admin.display(description=gettext_lazy("first approval"))
    def first_approval_display(self, ticket: HitlTicket) -> SafeString | str:
        """Four eyes: who gave the first approval, when, for how much, in their words (or that none is needed)."""
        if ticket.first_approved_by_id is None:
            return EMPTY
        values = {
            "who": ticket.first_approved_by.get_username(),
            "when": shown.moment(ticket.first_approved_at),
            "amount": limits.moved_amount(ticket, ticket.first_approved_amount),
        }
        waiting = ticket.status == TicketStatus.PENDING
        return format_html(
            '<span id="ticket-first-approval">{}</span>{}{}',
            _("%(who)s approved ¥%(amount)s at %(when)s.") % values,
            format_html(" <strong>{}</strong>", _("A second approver must approve it.")) if waiting else "",
            format_html("<br>{}", ticket.first_approval_reason) if ticket.first_approval_reason else "",
        )

    @admin.display(description=gettext_lazy("submitted at"))
    def submitted_display(self, ticket: HitlTicket) -> str:
        return shown.moment(ticket.created_at)

    @admin.display(description=gettext_lazy("decided at"))
    def decided_at_display(self, ticket: HitlTicket) -> str:
        return shown.moment(ticket.decided_at)

    @admin.display(description=gettext_lazy("execution started at"))
    def execution_started_display(self, ticket: HitlTicket) -> str:
        return shown.moment(ticket.execution_started_at)

    @admin.display(description=gettext_lazy("executed at"))
    def executed_at_display(self, ticket: HitlTicket) -> str:
        return shown.moment(ticket.executed_at)

    @admin.display(description=gettext_lazy("traveller's reason"))
    def words_display(self, ticket: HitlTicket) -> SafeString:
        return shown.traveller_words(ticket)

    @admin.display(description=gettext_lazy("order"))
    def order_display(self, ticket: HitlTicket) -> SafeString:
        return shown.order_section(ticket)

    @admin.display(description=gettext_lazy("booking"))
    def cancel_display(self, ticket: HitlTicket) -> SafeString:
        return shown.cancel_section(ticket)

    @admin.display(description=gettext_lazy("why"))
    def verdict_detail(self, ticket: HitlTicket) -> SafeString:
        return shown.verdict_section(ticket)

    @admin.display(description=gettext_lazy("policy passages"))
    def policies_display(self, ticket: HitlTicket) -> SafeString:
        return shown.policies_section(ticket)

    @admin.display(description=gettext_lazy("the paused action"))
    def paused_call(self, ticket: HitlTicket) -> SafeString:
        return shown.paused_call(ticket)

    @admin.display(description=gettext_lazy("more"))
    def other_evidence(self, ticket: HitlTicket) -> SafeString:
        return shown.other_evidence(ticket)

    @admin.display(description=gettext_lazy("execution result"))
    def execution_display(self, ticket: HitlTicket) -> SafeString:
        return shown.execution_section(ticket)
