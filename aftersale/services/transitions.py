"""Writes of the after-sale app. Every status change of a ticket or an order goes through the two transition
services here: they lock the row, check the declared transition table, and write an event row."""

from django.db import transaction
from django.utils import timezone

from aftersale.models import (
    ORDER_TRANSITIONS,
    TICKET_TRANSITIONS,
    BizOrder,
    HitlTicket,
    OrderEvent,
    TicketEvent,
)


class AftersaleError(Exception):
    """A request that cannot be done; `code` is one of the envelope codes of DESIGN.md."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@transaction.atomic
def ticket_transition(*, ticket_id: int, to_status: str, actor=None, reason: str = "", **fields) -> HitlTicket:
    """Move a ticket to `to_status` under a row lock, with an event row; extra `fields` are saved with it.

    Raises AftersaleError("INVALID_TRANSITION") when the table does not allow the move.
    """
    ticket = HitlTicket.objects.select_for_update().get(pk=ticket_id)
    if to_status not in TICKET_TRANSITIONS[ticket.status]:
        raise AftersaleError(
            "INVALID_TRANSITION", f"ticket {ticket.ticket_no} is {ticket.status}, not movable to {to_status}"
        )
    TicketEvent.objects.create(
        ticket=ticket, from_status=ticket.status, to_status=to_status, actor=actor, reason=reason[:500]
    )
    ticket.status = to_status
    for name, value in fields.items():
        setattr(ticket, name, value)
    ticket.save(update_fields=["status", "updated_at", *fields])
    return ticket


@transaction.atomic
def order_transition(*, order_id: str, to_status: str, actor=None, reason: str = "") -> BizOrder:
    """Move an order to `to_status` under a row lock, with an event row."""
    order = BizOrder.objects.select_for_update().get(order_id=order_id)
    if to_status not in ORDER_TRANSITIONS[order.status]:
        raise AftersaleError("INELIGIBLE", f"order {order.order_id} is {order.status}, not movable to {to_status}")
    OrderEvent.objects.create(
        order=order, from_status=order.status, to_status=to_status, actor=actor, reason=reason[:500]
    )
    order.status = to_status
    order.save(update_fields=["status", "updated_at"])
    return order


def ticket_number() -> str:
    """A human-readable ticket number: T + the site's local date and time + 6 random digits (a clash needs two
    tickets in the same second drawing the same number; the unique column refuses it if it ever happens)."""
    import secrets

    return f"T{timezone.localtime():%y%m%d%H%M%S}{secrets.randbelow(10**6):06d}"
