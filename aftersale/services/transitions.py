"""The one way a ticket or an order changes status: its lock helper, its declared table, the shared transition
helper (`core.transitions.transition`) and an event row saying who, when, from, to and why."""

import secrets

from django.db import transaction
from django.utils import timezone

from aftersale.models import (
    ORDER_TRANSITIONS,
    TICKET_TRANSITIONS,
    BizOrder,
    HitlTicket,
    OrderEvent,
    TicketEvent,
    TicketStatus,
)
from aftersale.services.notices import ticket_notice_record
from core import metrics
from core.errors import ApplicationError
from core.transitions import transition


class AftersaleError(ApplicationError):
    """A request of the after-sale app that cannot be done; `code` is one of the envelope codes of DESIGN.md."""


def ticket_lock(*, ticket_id: int) -> HitlTicket | None:
    """The ticket row, locked until the end of the caller's transaction (None when there is no such ticket)."""
    return HitlTicket.objects.select_for_update().filter(pk=ticket_id).first()


def order_lock(*, order_id: str) -> BizOrder | None:
    """The order row (by its normalised id), locked until the end of the caller's transaction, or None."""
    return BizOrder.objects.select_for_update().filter(order_id=order_id).first()


@transaction.atomic
def ticket_transition(*, ticket_id: int, to_status: str, actor=None, reason: str = "", **fields) -> HitlTicket:
    """Move a ticket to `to_status` under its row lock, with an event row; extra `fields` are saved with it. A
    decision or an outcome the traveller must hear of (approved, rejected, done, failed, timed out) leaves them a
    notice in the same transaction.

    Raises AftersaleError TICKET_NOT_FOUND, or INVALID_TRANSITION when the table does not allow the move.
    """
    ticket = ticket_lock(ticket_id=ticket_id)
    if ticket is None:
        raise AftersaleError("TICKET_NOT_FOUND", f"no ticket {ticket_id}")
    ticket = transition(
        ticket,
        to_status=to_status,
        table=TICKET_TRANSITIONS,
        event_model=TicketEvent,
        actor=actor,
        reason=reason,
        fields=fields,
        error=AftersaleError,
        error_code="INVALID_TRANSITION",
    )
    ticket_notice_record(ticket=ticket)
    ticket_counted(ticket)
    return ticket


def ticket_counted(ticket: HitlTicket) -> None:
    """Count the ticket's new status (core.metrics): a decision with how long it waited since submission, an
    execution with how long it took since the approval. Called by `ticket_transition`, by the execution's claim and
    where a ticket is opened (PENDING). Counted as the change is made, like a log line: the only work a change leaves
    to after its commit is a task to enqueue (a transaction rolled back after it would count it once too often)."""
    decision_seconds = execution_seconds = None
    if ticket.status in (TicketStatus.APPROVED, TicketStatus.REJECTED) and ticket.decided_at and ticket.created_at:
        decision_seconds = (ticket.decided_at - ticket.created_at).total_seconds()
    if ticket.status == TicketStatus.EXECUTED and ticket.executed_at and ticket.decided_at:
        execution_seconds = (ticket.executed_at - ticket.decided_at).total_seconds()
    metrics.ticket_entered(
        kind=ticket.kind,
        status=ticket.status,
        decision_seconds=decision_seconds,
        execution_seconds=execution_seconds,
    )


@transaction.atomic
def order_transition(*, order_id: str, to_status: str, actor=None, reason: str = "", **fields) -> BizOrder:
    """Move an order to `to_status` under its row lock, with an event row; extra `fields` are saved with it.

    Raises AftersaleError ORDER_NOT_FOUND, or INELIGIBLE when the table does not allow the move.
    """
    order = order_lock(order_id=order_id)
    if order is None:
        raise AftersaleError("ORDER_NOT_FOUND", f"There is no order {order_id}.")
    return transition(
        order,
        to_status=to_status,
        table=ORDER_TRANSITIONS,
        event_model=OrderEvent,
        actor=actor,
        reason=reason,
        fields=fields,
        error=AftersaleError,
        error_code="INELIGIBLE",
    )


def ticket_number() -> str:
    """A human-readable ticket number: T + the site's local date and time + 6 random digits (a clash needs two
    tickets in the same second drawing the same number; the unique column refuses it if it ever happens)."""
    return f"T{timezone.localtime():%y%m%d%H%M%S}{secrets.randbelow(10**6):06d}"
