"""Typed cards: what a reply shows besides its text, built from real rows only.

Each card is a JSON-ready dict with a `type`; the page renders `assistant/partials/card_<type>.html`, the API
returns the dict as it is.
"""

from collections.abc import Mapping

from django.urls import reverse

from aftersale.models import TicketAction, TicketStatus
from aftersale.selectors import ticket_facts
from itinerary.models import Activity
from itinerary.tools import activity_facts


def activity_url(activity_id: int) -> str:
    return reverse("itinerary:activity-detail", args=[activity_id])


def activity_card(activity: Activity | Mapping) -> dict:
    """An activity card, from a row or from the facts a tool put in its envelope (`itinerary.tools.activity_facts`)."""
    facts = activity if isinstance(activity, Mapping) else activity_facts(activity)
    return {
        "type": "activity",
        "id": facts["id"],
        "title": facts["title"],
        "city": facts["city"],
        "province": facts["province"],
        "price": facts["price"],
        "start_date": facts["start_date"],
        "end_date": facts["end_date"],
        "tags": list(facts.get("tags") or [])[:5],
        "url": activity_url(facts["id"]),
        "cover_image_url": facts.get("cover_image_url", ""),
    }


def activity_detail_card(facts: Mapping) -> dict:
    """One activity in full (the `activity_detail` tool's facts): the activity card with its description and
    who may join."""
    return {
        **activity_card(facts),
        "type": "activity_detail",
        "tags": list(facts.get("tags") or []),
        "description": facts.get("description", ""),
        "min_age": facts.get("min_age"),
        "max_age": facts.get("max_age"),
        "gender_restriction": facts.get("gender_restriction", "NONE"),
    }


BOOKING_STATUS_ZH = {"PENDING_PAYMENT": "待支付", "CONFIRMED": "已确认", "CANCELLED": "已取消"}
BIZ_TYPE_ZH = {"FLIGHT": "机票", "HOTEL": "酒店", "TRAIN": "火车票"}


def booking_card(booking) -> dict:
    """A booking as the traveller sees it: what, when, how much, in which state, and the platform's number."""
    details = booking.details or {}
    route = " → ".join(x for x in (details.get("from"), details.get("to")) if x)
    summary_parts = [
        details.get("flightNo") or details.get("trainNo") or details.get("hotelName") or details.get("hotelId"),
        route,
        details.get("date") or details.get("checkInDate"),
        f"→ {details['checkOutDate']}" if details.get("checkOutDate") else "",
    ]
    return {
        "type": "booking",
        "booking_id": booking.booking_id,
        "biz_type": booking.biz_type,
        "biz_type_label": booking.get_biz_type_display(),
        "biz_type_label_zh": BIZ_TYPE_ZH.get(booking.biz_type, booking.biz_type),
        "status": booking.status,
        "status_label": booking.get_status_display(),
        "status_label_zh": BOOKING_STATUS_ZH.get(booking.status, booking.status),
        "amount": str(booking.amount),
        "external_order_no": booking.external_order_no,
        "summary": " ".join(p for p in summary_parts if p),
        "url": reverse("bookings:list"),
    }


TICKET_STATUS_ZH = {
    "PENDING": "等待审核",
    "APPROVED": "已批准，处理中",
    "REJECTED": "已驳回",
    "TIMEOUT": "已超时",
    "EXECUTING": "处理中",
    "EXECUTED": "已完成",
    "FAILED": "处理失败，等待重试",
}
TICKET_ACTION_ZH = {"REFUND": "退款", "RETURN": "退货", "CANCEL_BOOKING": "取消预订"}


def ticket_card(ticket) -> dict:
    """A ticket as its requester sees it: what, for which order, how much, where it stands. Never the
    verdict, the evidence or the flag: those are for approvers.

    `ticket` is a HitlTicket row or its requester-facing facts (`aftersale.selectors.ticket_facts`, what the
    after-sale tools put in their envelopes); both give the same card.
    """
    facts = ticket if isinstance(ticket, Mapping) else ticket_facts(ticket)
    action, status = str(facts.get("action") or ""), str(facts.get("status") or "")
    return {
        "type": "ticket",
        "ticket_no": facts.get("ticket_no"),
        "action": action,
        "action_label": _label(TicketAction, action),
        "action_label_zh": TICKET_ACTION_ZH.get(action, action),
        "entity": facts.get("entity"),
        "amount": facts.get("amount"),
        "status": status,
        "status_label": _label(TicketStatus, status),
        "status_label_zh": TICKET_STATUS_ZH.get(status, status),
        "created_at": facts.get("created_at"),
        "decided_at": facts.get("decided_at"),
        "decision_reason": (facts.get("decision_reason") or "") if status == TicketStatus.REJECTED else "",
        "url": reverse("aftersale:requests"),
    }


def _label(choices, value: str) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return value
