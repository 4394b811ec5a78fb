"""Typed cards: what a reply shows besides its text, built from real rows only.

Each card is a JSON-ready dict with a `type`; the page renders `assistant/partials/card_<type>.html`, the API
returns the dict as it is.
"""

from django.urls import reverse

from itinerary.models import Activity


def activity_card(activity: Activity) -> dict:
    return {
        "type": "activity",
        "id": activity.pk,
        "title": activity.title,
        "city": activity.city,
        "province": activity.province,
        "price": str(activity.price),
        "start_date": activity.start_date.isoformat(),
        "end_date": activity.end_date.isoformat(),
        "tags": list(activity.tags or [])[:5],
        "url": reverse("itinerary:activity-detail", args=[activity.pk]),
        "cover_image_url": activity.cover_image_url,
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
    verdict, the evidence or the flag: those are for approvers."""
    return {
        "type": "ticket",
        "ticket_no": ticket.ticket_no,
        "action": ticket.action,
        "action_label": ticket.get_action_display(),
        "action_label_zh": TICKET_ACTION_ZH.get(ticket.action, ticket.action),
        "entity": ticket.entity,
        "amount": str(ticket.amount) if ticket.amount is not None else None,
        "status": ticket.status,
        "status_label": ticket.get_status_display(),
        "status_label_zh": TICKET_STATUS_ZH.get(ticket.status, ticket.status),
        "created_at": ticket.created_at.isoformat(),
        "decided_at": ticket.decided_at.isoformat() if ticket.decided_at else None,
        "decision_reason": ticket.decision_reason if ticket.status == "REJECTED" else "",
        "url": reverse("aftersale:requests"),
    }
