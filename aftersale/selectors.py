"""Reads of the after-sale app: orders, their facts as data, and the tickets a traveller may see."""

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket


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


def _moment(value) -> str | None:
    return timezone.localtime(value).isoformat() if value else None
