"""Deciding after-sale tickets: an approver's approve or reject (of one ticket, or many at once), staff marking a
returned item received, and a retry of a failed execution. Each locks the ticket row, moves it through
`ticket_transition` and, where money is to move, enqueues its execution on commit (`aftersale.services.execution`
says how an execution happens exactly once)."""

import logging
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from aftersale.models import (
    MONEY_ACTIONS,
    HitlTicket,
    TicketEvent,
    TicketKind,
    TicketStatus,
    Verdict,
)
from aftersale.selectors import ticket_confirmation
from aftersale.services import limits
from aftersale.services.transitions import (
    AftersaleError,
    ticket_lock,
    ticket_transition,
)

logger = logging.getLogger("aftersale.execution")


DECIDE_PERMISSION = "aftersale.decide_ticket"
EXECUTE_TASK = "aftersale.tasks.execute_ticket"


# --- deciding ----------------------------------------------------------------------------------------------------


def _require_approver(user) -> None:
    if user is None or not user.has_perm(DECIDE_PERMISSION):
        raise AftersaleError("PERMISSION_DENIED", _("You may not decide refund and return requests."))


def _locked_ticket(ticket_id: int) -> HitlTicket:
    ticket = ticket_lock(ticket_id=ticket_id)
    if ticket is None:
        raise AftersaleError("TICKET_NOT_FOUND", f"no ticket {ticket_id}")
    return ticket


def _already_decided(ticket: HitlTicket) -> str:
    values = {"ticket": ticket.ticket_no}
    if ticket.status == TicketStatus.TIMEOUT:
        values["deadline"] = f"{timezone.localtime(ticket.deadline):%Y-%m-%d %H:%M}"
        return _("%(ticket)s timed out at its deadline %(deadline)s.") % values
    values["who"] = ticket.decided_by.get_username() if ticket.decided_by else "?"
    values["when"] = f"{timezone.localtime(ticket.decided_at):%Y-%m-%d %H:%M}" if ticket.decided_at else "?"
    if ticket.status == TicketStatus.REJECTED:
        return _("%(ticket)s was already rejected by %(who)s at %(when)s.") % values
    return _("%(ticket)s was already approved by %(who)s at %(when)s.") % values


CENT = Decimal("0.01")


def _amount_of(value: Any) -> Decimal | None:
    """The amount an approver typed, as yuan and fen; None when none was given. INVALID_PARAM for anything that
    is not a finite amount with at most two decimals."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        amount = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise AftersaleError("INVALID_PARAM", _("The amount must be a number of yuan, like 120.50.")) from None
    if not amount.is_finite() or amount != amount.quantize(CENT):
        raise AftersaleError("INVALID_PARAM", _("The amount must be a number of yuan, like 120.50."))
    return amount.quantize(CENT)


def _approved_amount(ticket: HitlTicket, amount: Decimal | None, reason: str) -> Decimal | None:
    """What an approval pays back: the amount asked, or the approver's smaller amount (which needs a reason).

    Raises AftersaleError INVALID_PARAM for an amount on a ticket that pays nothing back, an amount not above
    zero or above the amount asked, or a smaller amount without a reason."""
    pays_back = ticket.kind == TicketKind.WORKFLOW and ticket.action in MONEY_ACTIONS and ticket.amount is not None
    if not pays_back:
        if amount is not None:
            raise AftersaleError(
                "INVALID_PARAM",
                _("%(ticket)s pays nothing back: approve it without an amount.") % {"ticket": ticket.ticket_no},
            )
        return None
    if amount is None:
        return ticket.amount
    values = {"ticket": ticket.ticket_no, "asked": ticket.amount}
    if amount <= 0:
        raise AftersaleError("INVALID_PARAM", _("%(ticket)s: the amount to refund must be more than ¥0.") % values)
    if amount > ticket.amount:
        raise AftersaleError(
            "INVALID_PARAM", _("%(ticket)s: the amount to refund cannot be more than the ¥%(asked)s asked.") % values
        )
    if amount < ticket.amount and not reason:
        raise AftersaleError(
            "INVALID_PARAM",
            _("%(ticket)s: refunding less than the ¥%(asked)s asked needs a reason the traveller can read.") % values,
        )
    return amount


def enqueue_execution(ticket_id: int, *, retry: bool = False) -> None:
    """Send the execution task; if the broker cannot take it, the stalled-ticket sweep will resume the ticket.

    The task is looked up by name in the Celery app's registry (the tasks module calls these services, so the
    services name the task rather than import it)."""
    try:
        current_app.tasks[EXECUTE_TASK].delay(ticket_id, retry=retry)
    except Exception:
        logger.exception("could not enqueue the execution of ticket %s; the sweep will resume it", ticket_id)


def ticket_decide(
    *, ticket_id: int, approver, approve: bool, reason: str, amount: Decimal | str | None = None
) -> HitlTicket:
    """Approve or reject a PENDING ticket, once. An approval enqueues its execution after the commit.

    `amount` (approvals of refunds and returns only): pay back this much instead of the amount asked, a partial
    refund; more than 0, at most the amount asked, and less than it only with a `reason` (the traveller reads it).
    Without it a refund or return is approved for the amount asked. The ticket records `approved_amount`.

    The money an approval moves (`limits.moved_amount`) must be within the approver's limit
    (`limits.approval_limit`). Above the four-eyes amount the first approval is only recorded (`first_approved_*`,
    an event row; the ticket stays PENDING and nothing runs); the second, by another approver, approves the amount
    the first approved (given or not) and executes. A rejection needs one approver, before or after a first approval.

    Raises AftersaleError: PERMISSION_DENIED (no `aftersale.decide_ticket`, deciding one's own request, an amount
    above the approver's limit, or a second approval by the first approver), INVALID_PARAM (a rejection without a
    reason; an amount out of bounds, not an amount, on a ticket that pays nothing back, smaller without a reason, or
    another than the first approval's), TICKET_NOT_FOUND, TICKET_DECIDED (decided before, by anyone, or timed out),
    TICKET_EXPIRED (its deadline passed; the sweep will time it out). Nothing changes when it raises.
    """
    _require_approver(approver)
    reason = (reason or "").strip()
    if not approve and not reason:
        raise AftersaleError("INVALID_PARAM", _("A rejection needs a reason the traveller can read."))
    wanted = _amount_of(amount) if approve else None
    limit = limits.approval_limit(approver) if approve else None
    now = timezone.now()
    with transaction.atomic():
        ticket = _locked_ticket(ticket_id)  # every decision of this ticket queues here, one after the other
        if ticket.requested_by_id == approver.pk:
            raise AftersaleError("PERMISSION_DENIED", _("Nobody may decide their own request."))
        if ticket.status != TicketStatus.PENDING:
            raise AftersaleError("TICKET_DECIDED", _already_decided(ticket))
        if ticket.deadline <= now:
            raise AftersaleError(
                "TICKET_EXPIRED",
                _("%(ticket)s passed its deadline; the traveller may ask again.") % {"ticket": ticket.ticket_no},
            )
        if not approve:
            return _decided(ticket, approver, TicketStatus.REJECTED, now, reason, reason)
        second = ticket.first_approved_by_id is not None
        if second:
            wanted, reason = _second_approval(ticket, approver, wanted, reason)
        approved = _approved_amount(ticket, wanted, reason)
        moved = limits.moved_amount(ticket, approved)
        if limits.over_limit(moved, limit):
            raise AftersaleError("PERMISSION_DENIED", limits.over_limit_message(ticket, moved, limit))
        if limits.needs_four_eyes(moved) and not second:
            return _first_approval(ticket, approver, now, approved, reason)
        event_reason = reason or "approved"
        if approved is not None and approved < ticket.amount:
            event_reason = f"partial refund ¥{approved} of ¥{ticket.amount}: {reason}"
        if second:
            event_reason = f"second approval (first by {ticket.first_approved_by.get_username()}): {event_reason}"
        ticket = _decided(ticket, approver, TicketStatus.APPROVED, now, reason, event_reason, approved_amount=approved)
        if not ticket.awaits_item:  # a return of goods is refunded once the item is back
            ticket_pk = ticket.pk
            transaction.on_commit(lambda: enqueue_execution(ticket_pk))
    return ticket


def _decided(ticket: HitlTicket, approver, status: str, now, reason: str, event_reason: str, **fields) -> HitlTicket:
    return ticket_transition(
        ticket_id=ticket.pk,
        to_status=status,
        actor=approver,
        reason=event_reason,
        decided_by=approver,
        decided_at=now,
        decision_reason=reason,
        **fields,
    )


def _second_approval(ticket: HitlTicket, approver, wanted: Decimal | None, reason: str) -> tuple[Decimal, str]:
    """The amount and words of a four-eyes ticket's second approval: the first approval's (another amount is
    refused), by anyone but the first approver."""
    values = {
        "ticket": ticket.ticket_no,
        "who": ticket.first_approved_by.get_username(),
        "amount": ticket.first_approved_amount,
    }
    if ticket.first_approved_by_id == approver.pk:
        raise AftersaleError("PERMISSION_DENIED", limits.own_second_approval_message(ticket))
    if wanted is not None and wanted != ticket.first_approved_amount:
        raise AftersaleError(
            "INVALID_PARAM",
            _("%(who)s approved %(ticket)s for ¥%(amount)s: approve that amount, or reject the ticket.") % values,
        )
    return ticket.first_approved_amount, reason or ticket.first_approval_reason


def _first_approval(ticket: HitlTicket, approver, now, approved: Decimal | None, reason: str) -> HitlTicket:
    """Record a four-eyes ticket's first approval: who, when, the amount and their words, with an event row; the
    ticket stays PENDING and nothing executes."""
    ticket.first_approved_by = approver
    ticket.first_approved_at = now
    ticket.first_approved_amount = approved
    ticket.first_approval_reason = reason
    ticket.save(
        update_fields=[
            "first_approved_by",
            "first_approved_at",
            "first_approved_amount",
            "first_approval_reason",
            "updated_at",
        ]
    )
    TicketEvent.objects.create(
        ticket=ticket,
        from_status=TicketStatus.PENDING,
        to_status=TicketStatus.PENDING,
        actor=approver,
        reason=f"first approval ¥{limits.moved_amount(ticket, approved)}; a second approver must approve",
    )
    return ticket


def _noted_then_executed(ticket: HitlTicket, status: str, actor, reason: str, *, retry: bool = False) -> None:
    """An event on the ticket that leaves its status as it is (why it is executed now), and its execution enqueued
    once the transaction commits."""
    TicketEvent.objects.create(ticket=ticket, from_status=status, to_status=status, actor=actor, reason=reason)
    ticket_pk = ticket.pk
    transaction.on_commit(lambda: enqueue_execution(ticket_pk, retry=retry))


def ticket_item_received(*, ticket_id: int, actor) -> HitlTicket:
    """Staff received the item of an approved return of goods back: record when (and who, in an event row, status
    unchanged), then execute its refund on a worker after the commit, like an approval of a refund does. Once only.

    Raises AftersaleError: PERMISSION_DENIED (no `aftersale.decide_ticket`, or one's own request), TICKET_NOT_FOUND,
    INVALID_TRANSITION (not an approved return of goods waiting for its item).
    """
    _require_approver(actor)
    with transaction.atomic():
        ticket = _locked_ticket(ticket_id)
        if ticket.requested_by_id == actor.pk:
            raise AftersaleError("PERMISSION_DENIED", _("Nobody may push their own request."))
        if ticket.status != TicketStatus.APPROVED or not ticket.awaits_item:
            raise AftersaleError(
                "INVALID_TRANSITION",
                _("Only an approved return waiting for its item can be marked received; %(ticket)s is %(status)s.")
                % {"ticket": ticket.ticket_no, "status": ticket.get_status_display()},
            )
        ticket.item_received_at = timezone.now()
        ticket.save(update_fields=["item_received_at", "updated_at"])
        _noted_then_executed(ticket, TicketStatus.APPROVED, actor, "item received back; refund started")
    return ticket


@dataclass
class BulkApproval:
    """What a bulk approval did: the tickets it approved, and those it skipped with why (in the active language)."""

    approved: list[HitlTicket] = field(default_factory=list)
    skipped: list[tuple[HitlTicket, str]] = field(default_factory=list)


def ticket_bulk_refusals(tickets, approver) -> list[tuple[HitlTicket, str | None]]:
    """Each ticket with why `approver` may not approve it in bulk, or None when they may: only pending refund and
    return requests that the traveller confirmed (`ticket_confirmation`), whose verdict passed, that are not flagged,
    whose amount is within the approver's limit and not above the four-eyes amount. Anything else is decided on its
    own page, after reading its evidence."""
    limit = limits.approval_limit(approver)
    return [(ticket, _bulk_refusal(ticket, limit)) for ticket in tickets]


def _bulk_refusal(ticket: HitlTicket, limit: Decimal | None) -> str | None:
    values = {
        "ticket": ticket.ticket_no,
        "status": ticket.get_status_display(),
        "verdict": ticket.get_verdict_display(),
    }
    if ticket.status != TicketStatus.PENDING:
        return _("%(ticket)s is not pending (%(status)s).") % values
    if ticket.kind != TicketKind.WORKFLOW:
        return _("%(ticket)s is an action awaiting approval: decide it on its own page.") % values
    if ticket_confirmation(ticket) is None:
        return _("%(ticket)s: no confirmation by the traveller is on record: decide it on its own page.") % values
    if ticket.verdict != Verdict.PASS:
        values["verdict"] = values["verdict"] or "—"
        return _("%(ticket)s: the verdict is not a pass (%(verdict)s): decide it on its own page.") % values
    if ticket.flagged:
        return _("%(ticket)s is flagged for close review: decide it on its own page.") % values
    moved = limits.moved_amount(ticket, None)
    if limits.needs_four_eyes(moved) or ticket.first_approved_by_id is not None:
        return limits.four_eyes_message(ticket)
    if limits.over_limit(moved, limit):
        return limits.over_limit_message(ticket, moved, limit)
    return None


def tickets_approve_bulk(*, ticket_ids: list[int], approver, reason: str = "") -> BulkApproval:
    """Approve, each for the amount asked, those of the tickets that may be approved in bulk
    (`ticket_bulk_refusals`), one by one through `ticket_decide`, so each is decided exactly as a single approval
    is; the others are skipped, each with why (as is one that `ticket_decide` refuses, e.g. decided meanwhile).

    Raises AftersaleError PERMISSION_DENIED (not an approver); otherwise never raises for a ticket.
    """
    _require_approver(approver)
    outcome = BulkApproval()
    tickets = HitlTicket.objects.filter(pk__in=list(ticket_ids)).order_by("pk")
    for ticket, refusal in ticket_bulk_refusals(tickets, approver):
        if refusal is not None:
            outcome.skipped.append((ticket, refusal))
            continue
        try:
            decided = ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason=reason)
        except AftersaleError as exc:
            outcome.skipped.append((ticket, exc.message))
        else:
            outcome.approved.append(decided)
    return outcome


def ticket_retry(*, ticket_id: int, actor) -> HitlTicket:
    """Run a FAILED ticket's execution again (on a worker, after the commit), e.g. once the supplier is back.

    The ticket stays FAILED until the worker claims it (FAILED → EXECUTING); the request itself is an event row
    (FAILED → FAILED, "retry requested") so the history says who asked. The execution first asks the supplier
    whether the earlier attempt refunded after all. Raises AftersaleError: PERMISSION_DENIED, TICKET_NOT_FOUND,
    INVALID_TRANSITION (the ticket is not FAILED).
    """
    _require_approver(actor)
    with transaction.atomic():
        ticket = _locked_ticket(ticket_id)
        if ticket.requested_by_id == actor.pk:
            raise AftersaleError("PERMISSION_DENIED", _("Nobody may push their own request."))
        if ticket.status != TicketStatus.FAILED:
            raise AftersaleError(
                "INVALID_TRANSITION",
                _("Only a failed ticket can be retried; %(ticket)s is %(status)s.")
                % {"ticket": ticket.ticket_no, "status": ticket.get_status_display()},
            )
        _noted_then_executed(ticket, TicketStatus.FAILED, actor, "retry requested", retry=True)
    return ticket
