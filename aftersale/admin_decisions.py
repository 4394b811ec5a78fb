"""The approval console's decisions: the approve, reject, retry and item-received actions on the ticket list, the
confirmation page they lead to (the approver's words and, for one refund, the amount), and one ticket's approve /
reject buttons on its change page. Every decision goes through the after-sale services (`aftersale.services.decisions`);
their refusals are reported per ticket with `message_user`."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from aftersale import evidence as shown
from aftersale.models import HitlTicket, TicketStatus
from aftersale.services import limits
from aftersale.services.decisions import (
    ticket_bulk_refusals,
    ticket_decide,
    ticket_item_received,
    ticket_retry,
    tickets_approve_bulk,
)
from aftersale.services.transitions import AftersaleError
from core.admin import object_change_url, object_view_url

CONFIRMATION_TEMPLATE = "admin/aftersale/hitlticket/decide_confirmation.html"


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
        first = ticket.first_approved_amount if pays_back and ticket.first_approved_by_id else None
        initial = {"amount": first if first is not None else ticket.amount} if pays_back else {}
        super().__init__(*args, initial=initial, **kwargs)
        if not pays_back:
            del self.fields["amount"]
        else:
            self.fields["amount"].help_text = _(
                "The amount asked is ¥%(asked)s. To refund less (a partial refund), lower it and give the reason "
                "below: the traveller reads it."
            ) % {"asked": ticket.amount}
            if first is not None:
                self.fields["amount"].help_text = _(
                    "%(who)s gave the first approval, for ¥%(amount)s: a second approval is for that amount."
                ) % {"who": ticket.first_approved_by.get_username(), "amount": first}
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


class TicketDecisionsMixin:
    """The deciding part of `HitlTicketAdmin` (a ModelAdmin with `has_decide_permission`)."""

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
        skipped = ticket_bulk_refusals(tickets, request.user) if bulk else []
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
            "four_eyes": limits.approval_outlook(single, request.user) if approve and single is not None else "",
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
    if ticket.status == TicketStatus.PENDING:  # four eyes: the first of two approvals
        return (
            _("Your approval of %(ticket)s is recorded as the first: it runs once a second approver approves.") % values
        )
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
