"""The approval console: approvers read a ticket's evidence and approve, reject or retry it here.

Deciding is a permission (`aftersale.decide_ticket`, held by the "approvers" group), never a superuser check.
Tickets, orders and events are evidence: nobody edits or deletes them through forms; every change goes through
the after-sale services, which lock the row, check the transition and write an event row. Errors the services
raise are reported per ticket with `message_user`.
"""

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Case, DateTimeField, F, IntegerField, Value, When
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from aftersale.models import BizOrder, HitlTicket, OrderEvent, Policy, TicketEvent, TicketKind, TicketStatus
from aftersale.services.execution import ticket_decide, ticket_retry
from aftersale.services.transitions import AftersaleError
from core.admin import BoundedSearchMixin

DECIDE_PERMISSION = "aftersale.decide_ticket"
CONFIRMATION_TEMPLATE = "admin/aftersale/hitlticket/decide_confirmation.html"
EMPTY = "—"

# Keys of a ticket's evidence that get their own section; everything else is listed after them as it is.
ORDER_KEYS = ("order", "order_facts")
BOOKING_KEYS = ("booking",)
POLICY_KEYS = ("policies", "policy_passages", "passages")
VERDICT_KEYS = ("verdict",)
ASSESSMENT_KEYS = ("assessment",)
SUMMARY_KEYS = ("summary",)
REQUEST_KEYS = ("request",)
REASON_LIST_CHARS = 40
PATH_KEYS = ("path",)
POLICY_TEXT_KEYS = ("text", "passage", "excerpt", "content")
POLICY_TITLE_KEYS = ("title", "name")


# -- read-only building blocks ----------------------------------------------------------------------------------


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only services change: the admin shows them and never edits, adds or deletes them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class OrderEventInline(ReadOnlyInline):
    model = OrderEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "actor", "reason")


class TicketEventInline(ReadOnlyInline):
    model = TicketEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "actor", "reason")


class OrderTicketInline(ReadOnlyInline):
    model = HitlTicket
    fk_name = "order"
    fields = readonly_fields = ("ticket_no", "kind", "action", "status", "verdict", "flagged", "created_at")
    show_change_link = True
    verbose_name_plural = "tickets about this order"


# -- orders and policies ------------------------------------------------------------------------------------------


@admin.register(BizOrder)
class BizOrderAdmin(BoundedSearchMixin, ReadOnlyAdmin):
    """Orders are read here, never edited: status, owner and amount change only through `order_transition` (an
    event row each), so the admin has no change, add or delete permission on them, whoever is signed in."""

    list_display = ("order_id", "user", "category", "amount", "status", "paid_at", "delivered_at")
    list_filter = ("category", "status")
    search_fields = ("order_id", "user__username")
    list_select_related = ("user",)
    inlines = [OrderEventInline, OrderTicketInline]
    list_per_page = 50
    show_full_result_count = False


@admin.register(Policy)
class PolicyAdmin(BoundedSearchMixin, admin.ModelAdmin):
    """Policies are content: those with the change permission edit them; approvers read them."""

    list_display = ("title", "category", "is_active")
    list_filter = ("category", "is_active")
    search_fields = ("title", "text")


# -- tickets --------------------------------------------------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """PENDING tickets whose deadline has passed (the timeout sweep has not reached them yet)."""

    title = "deadline"
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return (("yes", "Overdue (pending past deadline)"), ("no", "Not overdue"))

    def queryset(self, request, queryset):
        overdue = {"status": TicketStatus.PENDING, "deadline__lt": timezone.now()}
        if self.value() == "yes":
            return queryset.filter(**overdue)
        if self.value() == "no":
            return queryset.exclude(**overdue)
        return queryset


class DecisionForm(forms.Form):
    """The approver's words on the confirmation page: required to reject, optional to approve."""

    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 80}), max_length=1000)

    def __init__(self, *args, approve: bool, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["reason"]
        field.required = not approve
        field.label = "Note (optional)" if approve else "Reason for rejecting (required)"
        field.help_text = (
            "Saved with the decision and shown to the team."
            if approve
            else "Saved with the decision; the traveller is told the request was rejected."
        )
        field.error_messages["required"] = "A reason is required to reject tickets."


@admin.register(HitlTicket)
class HitlTicketAdmin(BoundedSearchMixin, admin.ModelAdmin):
    change_form_template = "admin/aftersale/hitlticket/change_form.html"
    list_display = (
        "ticket_no",
        "kind",
        "action",
        "entity",
        "requester",
        "reason_short",
        "amount_display",
        "status_badge",
        "verdict",
        "flagged_icon",
        "deadline_display",
        "decided_by",
    )
    list_filter = ("status", "kind", "flagged", "action", OverdueFilter)
    search_fields = ("ticket_no", "entity", "requested_by__username")
    list_select_related = ("requested_by", "decided_by")
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
    actions = ["approve_tickets", "reject_tickets", "retry_tickets"]
    readonly_fields = (
        "ticket_no",
        "kind",
        "action",
        "status_badge",
        "entity",
        "order",
        "requested_by",
        "reason_display",
        "amount_display",
        "flagged_icon",
        "deadline_display",
        "created_at",
        "verdict",
        "verdict_reason",
        "evidence_display",
        "paused_call",
        "decided_by",
        "decided_at",
        "decision_reason",
        "attempts",
        "execution_started_at",
        "executed_at",
        "execution_display",
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
        fieldsets = [
            (
                "Ticket",
                {
                    "fields": (
                        ("ticket_no", "status_badge", "flagged_icon"),
                        ("kind", "action"),
                        ("entity", "order"),
                        ("requested_by", "amount_display"),
                        "reason_display",
                        ("created_at", "deadline_display"),
                    )
                },
            ),
            ("Evidence", {"fields": ("verdict", "verdict_reason", "evidence_display")}),
        ]
        if obj is not None and obj.kind == TicketKind.CHECKPOINT:
            fieldsets.append(("Paused tool call", {"fields": ("paused_call",)}))
        fieldsets += [
            ("Decision", {"fields": ("decided_by", "decided_at", "decision_reason")}),
            (
                "Execution",
                {"fields": ("attempts", "execution_started_at", "executed_at", "execution_display")},
            ),
        ]
        return fieldsets

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "can_decide": self.has_decide_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context=extra_context)

    @admin.display(description="requester", ordering="requested_by__username")
    def requester(self, ticket: HitlTicket) -> str:
        return ticket.requested_by.get_username()

    @admin.display(description="traveller's reason")
    def reason_short(self, ticket: HitlTicket) -> str:
        text = ticket.request_reason or ""
        if len(text) > REASON_LIST_CHARS:
            text = text[: REASON_LIST_CHARS - 1] + "…"
        kind = ticket.get_reason_kind_display() if ticket.reason_kind else ""
        return " · ".join(part for part in (kind, text) if part) or EMPTY

    @admin.display(description="traveller's reason")
    def reason_display(self, ticket: HitlTicket) -> SafeString:
        """The traveller's own words (escaped) and the reason as understood, which picked the policy."""
        if not ticket.request_reason and not ticket.reason_kind:
            return format_html("{}", EMPTY)
        kind = ticket.get_reason_kind_display() if ticket.reason_kind else "not stated (the action decided)"
        return format_html(
            '<blockquote class="ticket-reason">{}</blockquote><p>Understood as: {}</p>',
            ticket.request_reason or EMPTY,
            kind,
        )

    @admin.display(description="amount", ordering="amount")
    def amount_display(self, ticket: HitlTicket) -> str:
        return EMPTY if ticket.amount is None else f"¥{ticket.amount}"

    @admin.display(description="status", ordering="status")
    def status_badge(self, ticket: HitlTicket) -> SafeString:
        # Colours per status in static/css/console.css: the CSP allows no style attribute.
        return format_html(
            '<span class="ticket-status ticket-status-{}">{}</span>', ticket.status.lower(), ticket.get_status_display()
        )

    @admin.display(description="flagged", ordering="flagged")
    def flagged_icon(self, ticket: HitlTicket) -> SafeString | str:
        if not ticket.flagged:
            return ""
        return format_html(
            '<span class="ticket-flagged" title="{}">⚑ flagged</span>',
            "Review closely: the verdict failed, was uncertain or disagreed with the policy",
        )

    @admin.display(description="deadline", ordering="deadline")
    def deadline_display(self, ticket: HitlTicket) -> SafeString:
        when = date_format(timezone.localtime(ticket.deadline), "SHORT_DATETIME_FORMAT")
        if ticket.status == TicketStatus.PENDING and ticket.deadline < timezone.now():
            return format_html('{} <strong class="ticket-overdue">overdue</strong>', when)
        return format_html("{}", when)

    @admin.display(description="evidence")
    def evidence_display(self, ticket: HitlTicket) -> SafeString:
        return render_evidence(ticket)

    @admin.display(description="arguments of the paused call")
    def paused_call(self, ticket: HitlTicket) -> SafeString:
        saved = ticket.arguments or {}
        tool = saved.get("tool") if isinstance(saved, dict) else None
        arguments = saved.get("arguments") if isinstance(saved, dict) else None
        if not tool and not arguments:
            return _value(saved)
        return format_html(
            "<p>Tool <code>{}</code></p>{}", tool or EMPTY, _facts(arguments if isinstance(arguments, dict) else {})
        )

    @admin.display(description="execution result")
    def execution_display(self, ticket: HitlTicket) -> SafeString:
        result = ticket.execution_result
        if not result:
            return format_html("{}", EMPTY)
        return _facts(result) if isinstance(result, dict) else _value(result)

    # -- actions: each ticket goes through the services; errors are reported per ticket ---------------------------

    @admin.action(description="Approve selected tickets", permissions=["decide"])
    def approve_tickets(self, request, queryset):
        return self._decide(request, list(queryset.select_related("requested_by").order_by("pk")), approve=True)

    @admin.action(description="Reject selected tickets", permissions=["decide"])
    def reject_tickets(self, request, queryset):
        return self._decide(request, list(queryset.select_related("requested_by").order_by("pk")), approve=False)

    @admin.action(description="Retry execution of selected failed tickets", permissions=["decide"])
    def retry_tickets(self, request, queryset):
        retried = []
        for ticket in queryset.order_by("pk"):
            try:
                ticket_retry(ticket_id=ticket.pk, actor=request.user)
            except AftersaleError as exc:
                self.message_user(request, _ticket_error(ticket, exc), messages.ERROR)
            else:
                retried.append(ticket.ticket_no)
        if retried:
            self.message_user(request, f"Retrying {_count(len(retried))}: {', '.join(retried)}.", messages.SUCCESS)

    def _decide(self, request, tickets: list[HitlTicket], *, approve: bool, single: HitlTicket | None = None):
        """The confirmation page, or (on `apply`) the decision of each ticket through `ticket_decide`.

        Returns a response to show, or None when the decisions were made (the caller redirects).
        """
        applying = "apply" in request.POST
        form = DecisionForm(request.POST if applying else None, approve=approve)
        if applying:
            if form.is_valid():
                self._apply_decisions(request, tickets, approve=approve, reason=form.cleaned_data["reason"])
                return None
            for error in form.errors.get("reason", []):
                self.message_user(request, error, messages.ERROR)
        verb = "Approve" if approve else "Reject"
        context = {
            **self.admin_site.each_context(request),
            "title": f"{verb} {_count(len(tickets))}",
            "opts": self.opts,
            "tickets": tickets,
            "approve": approve,
            "verb": verb,
            "form": form,
            "single": single,
            "action_name": None if single else ("approve_tickets" if approve else "reject_tickets"),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "decision": "approve" if approve else "reject",
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, CONFIRMATION_TEMPLATE, context)

    def _apply_decisions(self, request, tickets: list[HitlTicket], *, approve: bool, reason: str) -> None:
        decided = []
        for ticket in tickets:
            try:
                ticket_decide(ticket_id=ticket.pk, approver=request.user, approve=approve, reason=reason)
            except AftersaleError as exc:
                self.message_user(request, _ticket_error(ticket, exc), messages.ERROR)
            else:
                decided.append(ticket.ticket_no)
        if decided:
            verb = "Approved" if approve else "Rejected"
            self.message_user(request, f"{verb} {_count(len(decided))}: {', '.join(decided)}.", messages.SUCCESS)

    # -- one ticket's approve / reject buttons on its change page ---------------------------------------------------

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<path:object_id>/decide/",
                self.admin_site.admin_view(self.decide_view),
                name="{}_{}_decide".format(*info),
            ),
            *super().get_urls(),
        ]

    def decide_view(self, request, object_id):
        """The confirmation page for one ticket (`decision` = approve / reject), then its decision on `apply`."""
        if not self.has_decide_permission(request):
            raise PermissionDenied
        ticket = self.get_object(request, unquote(object_id))
        if ticket is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        change_url = reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
            args=[ticket.pk],
            current_app=self.admin_site.name,
        )
        decision = request.POST.get("decision") or request.GET.get("decision")
        if decision not in ("approve", "reject"):
            self.message_user(request, "Choose to approve or to reject the ticket.", messages.ERROR)
            return HttpResponseRedirect(change_url)
        response = self._decide(request, [ticket], approve=decision == "approve", single=ticket)
        return response or HttpResponseRedirect(change_url)


# -- evidence rendering: everything escaped, JSON made readable -------------------------------------------------------


def render_evidence(ticket: HitlTicket) -> SafeString:
    """A ticket's evidence as HTML: summary, order (or booking) facts, policy passages, the verdict, the rest."""
    evidence: Any = ticket.evidence or {}
    if not isinstance(evidence, dict):
        return _value(evidence)
    sections: list[tuple[str, SafeString]] = []
    used: set[str] = set()

    summary = _first(evidence, SUMMARY_KEYS, used)
    if summary:
        sections.append(("Request", format_html("<p>{}</p>", summary)))
    asked = _first(evidence, REQUEST_KEYS, used)
    if asked:
        sections.append(("Traveller's reason", _facts(asked) if isinstance(asked, dict) else _value(asked)))
    order = _first(evidence, ORDER_KEYS, used)
    if order:
        sections.append(("Order facts", _facts(order) if isinstance(order, dict) else _value(order)))
    booking = _first(evidence, BOOKING_KEYS, used)
    if booking:
        sections.append(("Booking facts", _facts(booking) if isinstance(booking, dict) else _value(booking)))
    recorded_verdict = _first(evidence, VERDICT_KEYS, used)
    cited = recorded_verdict.get("policy_ids") if isinstance(recorded_verdict, dict) else None
    policies = _first(evidence, POLICY_KEYS, used)
    if policies:
        sections.append(("Policy passages", _policies(policies, cited=cited if isinstance(cited, list) else [])))
    assessment = _first(evidence, ASSESSMENT_KEYS, used)
    if assessment:
        sections.append(
            ("Policy assessment (code)", _facts(assessment) if isinstance(assessment, dict) else _value(assessment))
        )
    sections.append(("Verdict", _verdict(ticket, recorded_verdict)))
    path = _first(evidence, PATH_KEYS, used)
    if path:
        steps = path if isinstance(path, list) else [path]
        sections.append(("Workflow path", format_html("<p>{}</p>", " → ".join(str(step) for step in steps))))
    rest = {key: value for key, value in evidence.items() if key not in used}
    if rest:
        sections.append(("Other evidence", _facts(rest)))

    return format_html(
        '<div class="ticket-evidence">{}</div>',
        format_html_join("", "<h3>{}</h3>{}", sections),
    )


def _first(evidence: dict, keys: tuple[str, ...], used: set[str]) -> Any:
    for key in keys:
        if key in evidence:
            used.add(key)
            if evidence[key] not in (None, "", [], {}):
                return evidence[key]
    return None


def _value(value: Any) -> SafeString:
    if value is None or value == "":
        return format_html("{}", EMPTY)
    if isinstance(value, dict | list):
        return format_html(
            '<pre class="ticket-value">{}</pre>',
            json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str),
        )
    if isinstance(value, bool):
        return format_html("{}", "yes" if value else "no")
    return format_html('<span class="ticket-value">{}</span>', value)


def _facts(facts: dict) -> SafeString:
    if not facts:
        return format_html("{}", EMPTY)
    rows = format_html_join(
        "",
        "<tr><th>{}</th><td>{}</td></tr>",
        ((str(key).replace("_", " "), _value(value)) for key, value in facts.items()),
    )
    return format_html('<table class="ticket-facts">{}</table>', rows)


def _policies(policies: Any, *, cited: list) -> SafeString:
    """Each passage with its title; those the verdict cites are marked."""
    if not isinstance(policies, list):
        policies = [policies]
    items = []
    for policy in policies:
        if isinstance(policy, dict):
            title = next((policy[k] for k in POLICY_TITLE_KEYS if policy.get(k)), "")
            text = next((policy[k] for k in POLICY_TEXT_KEYS if policy.get(k)), "")
            shown = {*POLICY_TITLE_KEYS, *POLICY_TEXT_KEYS, "id"}
            extra = {k: v for k, v in policy.items() if k not in shown}
            mark = " (cited by the verdict)" if policy.get("id") is not None and policy.get("id") in cited else ""
            items.append(
                format_html(
                    '<li><strong>{}</strong>{}<blockquote class="policy-passage">{}</blockquote>{}</li>',
                    title,
                    mark,
                    text if isinstance(text, str) else _value(text),
                    _facts(extra) if extra else "",
                )
            )
        else:
            items.append(
                format_html(
                    '<li><blockquote class="policy-passage">{}</blockquote></li>',
                    _value(policy),
                )
            )
    return format_html("<ol>{}</ol>", format_html_join("", "{}", ((item,) for item in items)))


def _verdict(ticket: HitlTicket, recorded: Any) -> SafeString:
    facts: dict[str, Any] = {}
    if ticket.verdict:
        facts["verdict"] = ticket.get_verdict_display()
    if ticket.verdict_reason:
        facts["reason"] = ticket.verdict_reason
    if isinstance(recorded, dict):
        facts.update({key: value for key, value in recorded.items() if key not in facts or not facts[key]})
    elif recorded and "verdict" not in facts:
        facts["verdict"] = recorded
    if ticket.flagged:
        facts["flagged"] = "yes: review closely (the verdict failed, was uncertain or disagreed with the policy)"
    if not facts:
        return format_html("<p>{}</p>", "No verdict (a paused tool call is decided on its facts).")
    return _facts(facts)


def _ticket_error(ticket: HitlTicket, exc) -> str:
    message = getattr(exc, "message", str(exc))
    return message if ticket.ticket_no in message else f"{ticket.ticket_no}: {message}"


def _count(n: int) -> str:
    return f"{n} ticket" if n == 1 else f"{n} tickets"
