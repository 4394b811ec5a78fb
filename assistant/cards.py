"""Typed cards: what a reply shows besides its text, built from real rows only.

Each card is a JSON-ready dict with a `type`; the page renders `assistant/partials/card_<type>.html`, the API
returns the dict as it is.
"""

from collections.abc import Mapping

from django.urls import reverse
from django.utils import timezone, translation

from aftersale.models import TicketAction, TicketStatus
from aftersale.selectors import ticket_facts
from bookings.selectors import booking_cancelled_by_supplier, booking_facts, booking_payable
from bookings.services import duration_text, option_title, times_text
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


BOOKING_STATUS_ZH = {"PENDING_PAYMENT": "待支付", "CONFIRMED": "已确认", "CANCELLED": "已取消", "EXPIRED": "已过期"}
BIZ_TYPE_ZH = {"FLIGHT": "机票", "HOTEL": "酒店", "TRAIN": "火车票"}


def booking_card(booking) -> dict:
    """A booking as the traveller sees it: what (number, airline or hotel, route), when (departure and arrival
    with +1 when it lands the next day; check-in, check-out and nights), who, how much, in which state."""
    facts = booking_facts(booking)
    with translation.override("en"):  # the English labels (the Chinese ones are beside them): one card, any page
        english = {"biz_type": str(booking.get_biz_type_display()), "status": str(booking.get_status_display())}
    route = " → ".join(x for x in (facts["origin"], facts["destination"]) if x)
    if booking.biz_type == "HOTEL":
        stay = f"{facts['check_in']} → {facts['check_out']}" if facts["check_in"] and facts["check_out"] else ""
        summary_parts = [facts["name"] or facts["number"], facts["city"], stay]
    else:
        times = times_text(facts["depart"], facts["arrive"]) if facts["depart"] else ""
        summary_parts = [
            facts["name"] if booking.biz_type == "FLIGHT" else "",
            facts["number"],
            route,
            facts["date"],
            times,
        ]
    return {
        "type": "booking",
        "booking_id": booking.booking_id,
        "biz_type": booking.biz_type,
        "biz_type_label": english["biz_type"],
        "biz_type_label_zh": BIZ_TYPE_ZH.get(booking.biz_type, booking.biz_type),
        "status": booking.status,
        "status_label": english["status"],
        "status_label_zh": BOOKING_STATUS_ZH.get(booking.status, booking.status),
        "amount": str(booking.amount),
        "external_order_no": booking.external_order_no,
        "summary": " ".join(p for p in summary_parts if p),
        "number": facts["number"],
        "name": facts["name"],
        "route": route,
        "city": facts["city"],
        "date": facts["date"],
        "depart_time": str(facts["depart"] or "")[11:16],
        "arrive_time": str(facts["arrive"] or "")[11:16],
        "overnight_days": facts["overnight_days"],
        "seat": facts["seat"],
        "star": facts["star"],
        "check_in": facts["check_in"],
        "check_out": facts["check_out"],
        "nights": facts["nights"],
        "passengers": facts["passengers"],
        "url": reverse("bookings:list"),
        **booking_life(booking),
    }


def booking_life(booking) -> dict:
    """Where a booking is in its life: until when it may be paid (and whether it still may), whether the supplier
    cancelled it, the departure it had before the supplier changed it."""
    deadline = booking.pay_deadline
    changed = (booking.details or {}).get("schedule_change") or {}
    return {
        "pay_deadline": deadline.isoformat() if deadline else None,
        "pay_deadline_label": timezone.localtime(deadline).strftime("%m-%d %H:%M") if deadline else "",
        "payable": booking_payable(booking),
        "cancelled_by_supplier": booking_cancelled_by_supplier(booking),
        "previous_depart_time": str(changed.get("previous_depart") or "")[11:16],
        "previous_arrive_time": str(changed.get("previous_arrive") or "")[11:16],
    }


def option_card(option: Mapping, *, index: int, language: str, pick_message: str) -> dict:
    """One bookable option (`bookings.options`), numbered as the reply lists it; `pick_message` is what the
    traveller sends to pick it ("选第1个")."""
    with translation.override(language):
        duration = duration_text(option.get("duration_minutes"))
    return {
        "type": "option",
        "index": index,
        "ref": option["ref"],
        "biz_type": option["biz_type"],
        "biz_type_label_zh": BIZ_TYPE_ZH.get(option["biz_type"], option["biz_type"]),
        "number": option["number"],
        "name": option["name"],
        "title": option_title(dict(option)),
        "route": " → ".join(x for x in (option.get("origin"), option.get("destination")) if x),
        "city": option.get("city") or "",
        "date": str(option.get("depart") or option.get("check_in") or "")[:10],
        "depart_time": str(option.get("depart") or "")[11:16],
        "arrive_time": str(option.get("arrive") or "")[11:16],
        "overnight_days": option.get("overnight_days") or 0,
        "duration": duration,
        "seat_class": option.get("seat_class") or "",
        "star": option.get("star"),
        "nights": option.get("nights"),
        "check_in": option.get("check_in"),
        "check_out": option.get("check_out"),
        "unit_price": option.get("unit_price"),
        "total": option.get("total"),
        "pick_message": pick_message,
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
