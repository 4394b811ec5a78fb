"""Reads of the after-sale app: orders, their facts as data, and the tickets a traveller may see."""

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aftersale.models import AftersaleNotice, BizOrder, HitlTicket, TicketStatus
from aftersale.services.transitions import AftersaleError
from core.envelope import Code
from core.ids import normalise_order_id

PROGRESS_LIMIT = 20
# Requests the traveller still waits on: not yet decided, approved and not yet carried out, or failed and retried.
OPEN_TICKET_STATUSES = (TicketStatus.PENDING, TicketStatus.APPROVED, TicketStatus.EXECUTING, TicketStatus.FAILED)
# The ways a traveller confirms a request (`aftersale.services.workflow` records one on every ticket it files).
CONFIRMATION_CHANNELS = ("chat", "page", "api")
# What a traveller hears about an order number that is not theirs, unknown or someone else's alike: the same code
# (ORDER_NOT_FOUND) and words everywhere, and not the number, so no answer tells whether an order exists.
ORDER_NOT_FOUND_MESSAGE = gettext_lazy("You have no order with that number.")


def order_get(*, order_id: str) -> BizOrder | None:
    """The order with this (already normalised) id, or None."""
    return BizOrder.objects.select_related("user").filter(order_id=order_id).first()


def orders_for_user(*, user) -> QuerySet[BizOrder]:
    """This user's orders, most recently paid first."""
    return BizOrder.objects.filter(user=user).order_by("-paid_at", "-id")


def order_facts(order: BizOrder) -> dict[str, Any]:
    """The order's facts as JSON-ready data: what the verdict judges, what a ticket keeps as evidence, and what
    an execution compares the order with before it moves money. The one reader of an order row for all three.

    Money is a decimal string ("1200.00"), moments are ISO 8601 in the site time zone, dates are YYYY-MM-DD.
    """
    return {
        "order_id": order.order_id,
        "category": order.category,
        "status": order.status,
        "amount": str(order.amount),
        "items": list(order.items or []),
        "paid_at": _moment(order.paid_at),
        "delivered_at": _moment(order.delivered_at),
        "service_date": order.service_date.isoformat() if order.service_date else None,
    }


def tickets_for_user(*, user) -> QuerySet[HitlTicket]:
    """The tickets this user asked for, newest first."""
    return HitlTicket.objects.filter(requested_by=user).select_related("order").order_by("-created_at", "-id")


def ticket_for_user(*, user, ticket_no: str) -> HitlTicket | None:
    """One of this user's tickets by its number, or None (also when it is someone else's)."""
    return tickets_for_user(user=user).filter(ticket_no=ticket_no.strip().upper()).first()


def tickets_for_order(*, user, order_id: str) -> QuerySet[HitlTicket]:
    """This user's tickets about one order (by its normalised id), newest first."""
    return tickets_for_user(user=user).filter(entity=order_id)


def ticket_facts(ticket: HitlTicket) -> dict[str, Any]:
    """What a requester may see of a ticket, as JSON-ready data: never the verdict, the evidence or the flag (those
    are for approvers); the approver's words only as `HitlTicket.reason_for_traveller` allows."""
    return {
        "ticket_no": ticket.ticket_no,
        "kind": ticket.kind,
        "action": ticket.action,
        "entity": ticket.entity,
        "order_id": ticket.entity,
        "amount": str(ticket.amount) if ticket.amount is not None else None,
        "approved_amount": str(ticket.approved_amount) if ticket.approved_amount is not None else None,
        "status": ticket.status,
        "created_at": ticket.created_at.isoformat(),
        "deadline": ticket.deadline.isoformat(),
        "decided_at": ticket.decided_at.isoformat() if ticket.decided_at else None,
        "executed_at": ticket.executed_at.isoformat() if ticket.executed_at else None,
        "decision_reason": ticket.reason_for_traveller,
    }


def ticket_confirmation(ticket: HitlTicket) -> dict[str, str] | None:
    """How the traveller confirmed a refund or return request, as its evidence records it: `{"via": chat | page |
    api, "action": the confirmed pending action's id (chat), "at": ISO moment}`; None when nothing says they did
    (a chat confirmation counts only with the action's id). Such a ticket is never approved in bulk."""
    evidence = ticket.evidence if isinstance(ticket.evidence, dict) else {}
    request = evidence.get("request") if isinstance(evidence.get("request"), dict) else {}
    via = request.get("confirmed_via")
    action = str(request.get("confirmed_action") or "")
    if via not in CONFIRMATION_CHANNELS or (via == "chat" and not action):
        return None
    return {"via": via, "action": action, "at": str(request.get("confirmed_at") or "")}


def aftersale_notices_for_user(*, user, unread: bool = False) -> QuerySet[AftersaleNotice]:
    """The user's after-sale notices (the decisions about their requests), newest first; `unread`: not yet shown.
    Shown with `aftersale/partials/notices.html` (context variable `aftersale_notices`)."""
    notices = AftersaleNotice.objects.filter(user=user).select_related("ticket")
    if unread:
        notices = notices.filter(read_at__isnull=True)
    return notices.order_by("-created_at", "-id")


def aftersale_progress(*, user, order_id: str | None = None, limit: int = PROGRESS_LIMIT) -> list[HitlTicket]:
    """Where the user's own requests stand: their tickets (refunds, returns, paused cancellations), newest first,
    at most `limit`, only those of one order when `order_id` is given (normalised here).

    Raises AftersaleError PERMISSION_DENIED (nobody signed in), INVALID_PARAM (an order id that is not one),
    ORDER_NOT_FOUND (no order of the user's and no request of theirs has that id: someone else's order reads the
    same as an unknown one, so nothing is said about it).
    """
    if user is None or not getattr(user, "is_authenticated", False):
        raise AftersaleError(Code.PERMISSION_DENIED, _("Sign in to see your requests."))
    if order_id is None or (isinstance(order_id, str) and not order_id.strip()):
        return list(tickets_for_user(user=user)[:limit])
    return _order_progress(user=user, order_id=order_id, limit=limit)


def aftersale_open_progress(*, user, limit: int = PROGRESS_LIMIT) -> tuple[list[HitlTicket], HitlTicket | None]:
    """Where the user's requests stand when they name no order ("我的退款怎么样了"): the requests still open, newest
    first (one is the answer; several are for the traveller to choose from), and, when none is open, the latest
    decided one (so "has my refund gone through?" hears how it ended), else None.

    Raises AftersaleError PERMISSION_DENIED (nobody signed in).
    """
    if user is None or not getattr(user, "is_authenticated", False):
        raise AftersaleError(Code.PERMISSION_DENIED, _("Sign in to see your requests."))
    tickets = tickets_for_user(user=user)
    open_ones = list(tickets.filter(status__in=OPEN_TICKET_STATUSES)[:limit])
    return open_ones, None if open_ones else tickets.first()


def _order_progress(*, user, order_id: str, limit: int) -> list[HitlTicket]:
    normalised = normalise_order_id(order_id)
    if normalised is None:
        raise AftersaleError(Code.INVALID_PARAM, _("Give an order number like ORD-001."), {"order_id": None})
    tickets = list(tickets_for_order(user=user, order_id=normalised)[:limit])
    if not tickets and not BizOrder.objects.filter(user=user, order_id=normalised).exists():
        raise AftersaleError(Code.ORDER_NOT_FOUND, str(ORDER_NOT_FOUND_MESSAGE), {"order_id": None})
    return tickets


def _moment(value) -> str | None:
    return timezone.localtime(value).isoformat() if value else None
