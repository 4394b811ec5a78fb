"""The deterministic after-sale verdict of the `rules` adapter: the demo policies, written as code.

It reads the order's facts and the moment of the request, never free text, so its answer is a policy decision
rather than an opinion. The rules (see aftersale/demo.py for the policy wording):

- an order already refunded, returned, cancelled or completed → REJECTED;
- goods RETURN: delivered at most 7 days ago (the 7th day included) → PASS, later → REJECTED; not delivered yet →
  UNCERTAIN (a refund would be the right request: a human decides);
- goods REFUND: paid and not delivered → PASS; delivered → REJECTED (ask for a return);
- activity REFUND: the start (00:00 of the service date, site time zone) more than 48 hours away → PASS; within
  48 hours or past → REJECTED;
- anything else → UNCERTAIN.

Each answer cites the passages it rests on, when they were retrieved: a passage is recognised by its wording.
"""

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from assistant.llm.verdict import PASS, REJECTED, UNCERTAIN, VerdictRequest

RETURN_WINDOW_DAYS = 7
REFUND_NOTICE = timedelta(hours=48)
CLOSED_STATUSES = {"REFUNDED", "RETURNED", "CANCELLED", "COMPLETED"}

# How a passage is recognised (lower-cased title + text contains one of the markers).
NO_REASON_RETURN = ("无理由", "no-reason")
GOODS_REFUND_AFTER_RETURN = ("退货商品", "returned goods")
ACTIVITY_48_HOURS = ("48小时以上", "more than 48 hours")
CLOSED_ORDERS = ("已完成", "orders that are completed")


def decide(request: VerdictRequest) -> tuple[str, str, list[Any]]:
    """(verdict, reason, cited policy ids) for one request. Raises nothing on odd facts: they are UNCERTAIN."""
    order = request.order
    action = str(request.action).upper()
    status = str(order.get("status") or "").upper()
    category = str(order.get("category") or "").upper()

    if status in CLOSED_STATUSES:
        return (
            REJECTED,
            f"The order is already {status.lower()}: nothing is left to {action.lower()}.",
            _cite(request, CLOSED_ORDERS),
        )
    if category == "GOODS" and action == "RETURN":
        return _goods_return(request, status)
    if category == "GOODS" and action == "REFUND":
        return _goods_refund(request, status)
    if category == "ACTIVITY" and action == "REFUND":
        return _activity_refund(request, status)
    return UNCERTAIN, f"No rule covers a {action.lower()} of this {category.lower() or 'unknown'} order.", []


def _goods_return(request: VerdictRequest, status: str) -> tuple[str, str, list[Any]]:
    delivered = _local_date(request.order.get("delivered_at"))
    if status != "DELIVERED" or delivered is None:
        return (
            UNCERTAIN,
            "The goods have not been delivered yet: a refund, not a return, is the right request.",
            [],
        )
    days = (request.today - delivered).days
    cited = _cite(request, NO_REASON_RETURN)
    if days < 0:
        return UNCERTAIN, f"The delivery date {delivered.isoformat()} is after today.", cited
    if days <= RETURN_WINDOW_DAYS:
        return (
            PASS,
            f"Delivered {days} day(s) ago ({delivered.isoformat()}): inside the 7-day no-reason return window.",
            cited,
        )
    return (
        REJECTED,
        f"Delivered {days} days ago ({delivered.isoformat()}): past the 7-day no-reason return window.",
        cited,
    )


def _goods_refund(request: VerdictRequest, status: str) -> tuple[str, str, list[Any]]:
    if status == "PAID" and not request.order.get("delivered_at"):
        return PASS, "Paid and not delivered yet: the order can be refunded.", []
    if status == "DELIVERED":
        return (
            REJECTED,
            "The goods were delivered: ask for a return; the refund follows once the return is received.",
            _cite(request, GOODS_REFUND_AFTER_RETURN),
        )
    return UNCERTAIN, f"A goods order in status {status or 'unknown'} has no refund rule.", []


def _activity_refund(request: VerdictRequest, status: str) -> tuple[str, str, list[Any]]:
    service_date = _date(request.order.get("service_date"))
    if service_date is None or status not in {"PAID", "DELIVERED"}:
        return UNCERTAIN, "The order has no service date or an unexpected status.", []
    start = datetime.combine(service_date, time(0), tzinfo=ZoneInfo(settings.TIME_ZONE))
    left = start - request.now
    hours = left.total_seconds() / 3600
    cited = _cite(request, ACTIVITY_48_HOURS)
    when = f"The activity starts {start:%Y-%m-%d %H:%M}"
    if left > REFUND_NOTICE:
        return PASS, f"{when}, {hours:.0f} hours from now: more than 48 hours ahead, a full refund.", cited
    if left <= timedelta(0):
        return REJECTED, f"{when}: it has already started.", cited
    return REJECTED, f"{when}, {hours:.0f} hours from now: within 48 hours, no refund.", cited


def _cite(request: VerdictRequest, markers: tuple[str, ...]) -> list[Any]:
    for passage in request.policies:
        words = f"{passage.get('title', '')} {passage.get('text', '')}".lower()
        if any(marker.lower() in words for marker in markers):
            return [passage.get("id")]
    return []


def _date(value: Any) -> date | None:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _local_date(value: Any) -> date | None:
    """The site-local calendar day of an ISO datetime (a naive one is taken as site time)."""
    if not value:
        return None
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        return None
    site = ZoneInfo(settings.TIME_ZONE)
    return (moment.astimezone(site) if moment.tzinfo else moment.replace(tzinfo=site)).date()
