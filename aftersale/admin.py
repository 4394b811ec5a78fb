"""The approval console: approvers read a ticket's evidence and approve (in full or in part), reject or retry it.

Deciding is a permission (`aftersale.decide_ticket`, held by the "approvers" group), never a superuser check.
Tickets, orders and events are evidence: nobody edits or deletes them through forms; every change goes through
the after-sale services, which lock the row, check the transition and write an event row. Errors the services
raise are reported per ticket with `message_user`.

Everything here follows the admin's active language (gettext), and every moment is shown in the site's time zone
(TIME_ZONE) without fractions of a second; the evidence a ticket keeps as data is shown as tables
(`aftersale.evidence`), never as raw JSON.
"""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Case, DateTimeField, F, IntegerField, Value, When
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from aftersale import evidence as shown
from aftersale.models import (
    AftersaleNotice,
    BizOrder,
    HitlTicket,
    OrderEvent,
    OrderStatus,
    Policy,
    TicketEvent,
    TicketKind,
    TicketStatus,
)
from aftersale.reasons import event_reason_text
from aftersale.services.decisions import (
    ticket_bulk_refusal,
    ticket_decide,
    ticket_item_received,
    ticket_retry,
    tickets_approve_bulk,
)
from aftersale.services.transitions import AftersaleError
from core.admin import BoundedSearchMixin, ReadOnlyAdmin, ReadOnlyInline, object_change_url, object_view_url
from core.languages import bilingual

DECIDE_PERMISSION = "aftersale.decide_ticket"
CONFIRMATION_TEMPLATE = "admin/aftersale/hitlticket/decide_confirmation.html"
EMPTY = shown.EMPTY
REASON_LIST_CHARS = 28
# Classes of the evidence sections on a ticket's page: the first one (the traveller's words) marks where the
# evidence starts.
EVIDENCE_START, EVIDENCE = ("ticket-evidence",), ("ticket-section",)


# -- read-only building blocks ----------------------------------------------------------------------------------


class EventInline(ReadOnlyInline):
    """Who changed what, when (local time, to the second) and why."""

    fields = readonly_fields = ("when", "from_label", "to_label", "who", "why")

    @admin.display(description=gettext_lazy("when"))
    def when(self, event) -> str:
        return shown.moment(event.created_at)

    @admin.display(description=gettext_lazy("from"))
    def from_label(self, event) -> str:
        return shown.status_label(self.status_choices, event.from_status) if event.from_status else EMPTY

    @admin.display(description=gettext_lazy("to"))
    def to_label(self, event) -> str:
        return shown.status_label(self.status_choices, event.to_status)

    @admin.display(description=gettext_lazy("who"))
    def who(self, event) -> str:
        return event.actor.get_username() if event.actor_id else _("the system")

    @admin.display(description=gettext_lazy("why"))
    def why(self, event) -> str:
        return event_reason_text(event.reason) or EMPTY


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


class DecisionForm(forms.Form):
    """The approver's words on the confirmation page (required to reject, and to refund less than was asked) and,
    approving one refund or return, the amount to pay back (the amount asked unless lowered). Bounds and the
    reason rule are the service's (`ticket_decide`); its refusal is shown on this form, and nothing changes."""

    amount = forms.DecimalField(
        label=gettext_lazy("Amount to refund (¥)"), required=False, max_digits=10, decimal_places=2, min_value=0
    )
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 80}), max_length=1000)

    def __init__(self, *args, approve: bool, ticket: HitlTicket | None = None, **kwargs) -> None:
        pays_back = approve and ticket is not None and shown.pays_back(ticket)
        initial = {"amount": ticket.amount} if pays_back else {}
        super().__init__(*args, initial=initial, **kwargs)
        if not pays_back:
            del self.fields["amount"]
        else:
            self.fields["amount"].help_text = _(
                "The amount asked is ¥%(asked)s. To refund less (a partial refund), lower it and give the reason "
                "below: the traveller reads it."
            ) % {"asked": ticket.amount}
            self.fields["amount"].widget.attrs.update({"step": "0.01", "min": "0.01", "max": str(ticket.amount)})
        field = self.fields["reason"]
        field.required = not approve
        if not approve:
            field.label = _("Reason for rejecting (required)")
            field.help_text = _("Saved with the decision; the traveller reads it.")
            field.error_messages["required"] = _("A reason is required to reject tickets.")
        elif pays_back:
            field.label = _("Reason (required to refund less than was asked)")
            field.help_text = _(
                "A reason for a partial refund is shown to the traveller; a note on a full approval is for the team."
            )
        else:
            field.label = _("Note (optional)")
            field.help_text = _("Saved with the decision and shown to the team.")


@admin.register(HitlTicket)
class HitlTicketAdmin(BoundedSearchMixin, admin.ModelAdmin):
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
    list_select_related = ("requested_by", "decided_by", "order")
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

    # -- permissions: the form never edits a ticket; deciding is its own permission ------------------------------

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

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
            (_("Decision"), {"fields": (("decided_by", "decided_at_display"), "decision_reason")}),
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

    # -- actions: each ticket goes through the services; errors are reported per ticket ---------------------------

    @admin.action(description=gettext_lazy("Approve selected tickets whose verdict passed…"), permissions=["decide"])
    def approve_tickets(self, request, queryset):
        return self._decide(request, list(queryset.select_related("requested_by").order_by("pk")), approve=True)

    @admin.action(description=gettext_lazy("Reject selected tickets…"), permissions=["decide"])
    def reject_tickets(self, request, queryset):
        return self._decide(request, list(queryset.select_related("requested_by").order_by("pk")), approve=False)

    @admin.action(description=gettext_lazy("Retry execution of selected failed tickets"), permissions=["decide"])
    def retry_tickets(self, request, queryset):
        self._each(request, queryset, ticket_retry, "retrying")

    @admin.action(
        description=gettext_lazy("Mark the returned items of selected tickets received (refunds them)"),
        permissions=["decide"],
    )
    def mark_items_received(self, request, queryset):
        self._each(request, queryset, ticket_item_received, "received")

    def _each(self, request, queryset, act, done_as: str) -> None:
        """`act` (a service taking `ticket_id` and `actor`) on each selected ticket: one message per refusal, one
        for those it did."""
        done = []
        for ticket in queryset.order_by("pk"):
            try:
                act(ticket_id=ticket.pk, actor=request.user)
            except AftersaleError as exc:
                self.message_user(request, _ticket_error(ticket, exc), messages.ERROR)
            else:
                done.append(ticket.ticket_no)
        if done:
            self.message_user(request, _counted(done_as, done), messages.SUCCESS)

    def _decide(self, request, tickets: list[HitlTicket], *, approve: bool, single: HitlTicket | None = None):
        """The confirmation page, or (on `apply`) the decisions: one ticket's through `ticket_decide`, a bulk
        approval through `tickets_approve_bulk`, a bulk rejection through `ticket_decide` per ticket.

        Returns a response to show, or None when the decisions were made (the caller redirects).
        """
        applying = "apply" in request.POST
        form = DecisionForm(request.POST if applying else None, approve=approve, ticket=single)
        if applying and form.is_valid():
            if self._apply(request, tickets, form, approve=approve, single=single):
                return None
        elif applying:
            for error in form.errors.get("reason", []):
                self.message_user(request, error, messages.ERROR)
        bulk = approve and single is None
        skipped = [(t, ticket_bulk_refusal(t)) for t in tickets] if bulk else []
        eligible = [t for t, refusal in skipped if refusal is None] if bulk else tickets
        context = {
            **self.admin_site.each_context(request),
            "title": _title(approve=approve, count=len(eligible), single=single),
            "opts": self.opts,
            "tickets": eligible,
            "skipped": [(t, refusal) for t, refusal in skipped if refusal is not None],
            "approve": approve,
            "bulk": bulk,
            "verb": _("Approve") if approve else _("Reject"),
            "confirm_label": _confirm_label(approve=approve, count=len(eligible)),
            "form": form,
            "single": single,
            "action_name": None if single else ("approve_tickets" if approve else "reject_tickets"),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "decision": "approve" if approve else "reject",
            "media": self.media + form.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, CONFIRMATION_TEMPLATE, context)

    def _apply(self, request, tickets, form, *, approve: bool, single: HitlTicket | None) -> bool:
        """Make the decisions; False when the single ticket's decision was refused for its input (the form shows
        why, nothing changed), True otherwise (outcomes reported as messages)."""
        reason = form.cleaned_data["reason"]
        if single is not None:
            try:
                ticket_decide(
                    ticket_id=single.pk,
                    approver=request.user,
                    approve=approve,
                    reason=reason,
                    amount=form.cleaned_data.get("amount"),
                )
            except AftersaleError as exc:
                if exc.code == "INVALID_PARAM":
                    form.add_error(None, exc.message)
                    return False
                self.message_user(request, _ticket_error(single, exc), messages.ERROR)
                return True
            single.refresh_from_db()
            self.message_user(request, _decided_message(single, approve=approve), messages.SUCCESS)
            return True
        if approve:
            outcome = tickets_approve_bulk(ticket_ids=[t.pk for t in tickets], approver=request.user, reason=reason)
            for ticket, why in outcome.skipped:
                self.message_user(request, _("Skipped %(why)s") % {"why": _ticket_error(ticket, why)}, messages.WARNING)
            if outcome.approved:
                self.message_user(
                    request, _counted("approved", [t.ticket_no for t in outcome.approved]), messages.SUCCESS
                )
            return True
        rejected = []
        for ticket in tickets:
            try:
                ticket_decide(ticket_id=ticket.pk, approver=request.user, approve=False, reason=reason)
            except AftersaleError as exc:
                self.message_user(request, _ticket_error(ticket, exc), messages.ERROR)
            else:
                rejected.append(ticket.ticket_no)
        if rejected:
            self.message_user(request, _counted("rejected", rejected), messages.SUCCESS)
        return True

    # -- one ticket's approve / reject buttons on its change page ---------------------------------------------------

    def get_urls(self):
        return [object_view_url(self, "decide", self.decide_view), *super().get_urls()]

    def decide_view(self, request, object_id):
        """The confirmation page for one ticket (`decision` = approve / reject), then its decision on `apply`."""
        if not self.has_decide_permission(request):
            raise PermissionDenied
        ticket = self.get_object(request, unquote(object_id))
        if ticket is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        change_url = object_change_url(self, ticket)
        decision = request.POST.get("decision") or request.GET.get("decision")
        if decision not in ("approve", "reject"):
            self.message_user(request, _("Choose to approve or to reject the ticket."), messages.ERROR)
            return HttpResponseRedirect(change_url)
        response = self._decide(request, [ticket], approve=decision == "approve", single=ticket)
        return response or HttpResponseRedirect(change_url)


# -- messages ---------------------------------------------------------------------------------------------------------


def _ticket_error(ticket: HitlTicket, exc: Any) -> str:
    message = str(getattr(exc, "message", exc))
    return message if ticket.ticket_no in message else f"{ticket.ticket_no}: {message}"


def _counted(what: str, numbers: list[str]) -> str:
    values = {"count": len(numbers), "tickets": ", ".join(numbers)}
    if what == "approved":
        return (
            ngettext(
                "Approved %(count)d ticket: %(tickets)s.", "Approved %(count)d tickets: %(tickets)s.", len(numbers)
            )
            % values
        )
    if what == "rejected":
        return (
            ngettext(
                "Rejected %(count)d ticket: %(tickets)s.", "Rejected %(count)d tickets: %(tickets)s.", len(numbers)
            )
            % values
        )
    if what == "received":
        return (
            ngettext(
                "Item received back, refund started for %(count)d ticket: %(tickets)s.",
                "Items received back, refunds started for %(count)d tickets: %(tickets)s.",
                len(numbers),
            )
            % values
        )
    return (
        ngettext("Retrying %(count)d ticket: %(tickets)s.", "Retrying %(count)d tickets: %(tickets)s.", len(numbers))
        % values
    )


def _decided_message(ticket: HitlTicket, *, approve: bool) -> str:
    values = {"ticket": ticket.ticket_no, "paid": ticket.approved_amount, "asked": ticket.amount}
    if not approve:
        return _("Rejected %(ticket)s.") % values
    if ticket.is_partial:
        return _("Approved %(ticket)s for ¥%(paid)s of the ¥%(asked)s asked (a partial refund).") % values
    return _("Approved %(ticket)s.") % values


def _title(*, approve: bool, count: int, single: HitlTicket | None) -> str:
    if single is not None:
        return (_("Approve %(ticket)s") if approve else _("Reject %(ticket)s")) % {"ticket": single.ticket_no}
    if approve:
        return ngettext("Approve %(count)d ticket", "Approve %(count)d tickets", count) % {"count": count}
    return ngettext("Reject %(count)d ticket", "Reject %(count)d tickets", count) % {"count": count}


def _confirm_label(*, approve: bool, count: int) -> str:
    if approve:
        return ngettext("Confirm: approve %(count)d ticket", "Confirm: approve %(count)d tickets", count) % {
            "count": count
        }
    return ngettext("Confirm: reject %(count)d ticket", "Confirm: reject %(count)d tickets", count) % {"count": count}
