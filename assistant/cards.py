"""Typed cards: what a reply shows besides its text, built from real rows only.

Each card is a JSON-ready dict with a `type`; the page renders `assistant/partials/card_<type>.html`, the API
returns the dict as it is.
"""

from collections.abc import Mapping

from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy, pgettext

from aftersale.models import TicketAction, TicketStatus
from aftersale.selectors import ticket_facts
from bookings.formatting import duration_text, times_text
from bookings.models import BizType
from bookings.selectors import booking_cancelled_by_supplier, booking_facts, booking_payable
from bookings.vocabulary import names_shown
from itinerary.models import Activity
from itinerary.tools import activity_facts
from itinerary.words import activity_description, activity_title


def activity_url(activity_id: int) -> str:
    return reverse("itinerary:activity-detail", args=[activity_id])


# The interests of `itinerary.tagging.SYSTEM_TAGS` as a traveller reads them ("你常选徒步" / "you often choose hiking").
INTERESTS = {
    "hiking": gettext_lazy("hiking"),
    "photography": gettext_lazy("photography"),
    "family": gettext_lazy("family outings"),
    "food": gettext_lazy("food"),
    "culture": gettext_lazy("culture"),
    "skiing": gettext_lazy("skiing"),
    "cycling": gettext_lazy("cycling"),
    "beach": gettext_lazy("the beach"),
    "snow": gettext_lazy("snow and ice"),
    "lake": gettext_lazy("lakes"),
    "ancient_town": gettext_lazy("old towns"),
    "hot_spring": gettext_lazy("hot springs"),
    "nature": gettext_lazy("nature"),
    "adventure": gettext_lazy("adventure"),
    "nightlife": gettext_lazy("nightlife"),
    "shopping": gettext_lazy("shopping"),
}


def suggested_for_text(interest: str | None) -> str:
    """Why a personalised card was suggested, in the active language ("你常选徒步"); "" when nothing personal."""
    if not interest or interest not in INTERESTS:
        return ""
    return gettext("you often choose %(interest)s") % {"interest": INTERESTS[interest]}


def activity_card(activity: Activity | Mapping, *, language: str | None = None) -> dict:
    """An activity card, from a row or from the facts a tool put in its envelope (`itinerary.tools.activity_facts`):
    its picture, and in `language` (the reply's) its title and why it was suggested to this traveller when their
    interests put it first."""
    facts = activity if isinstance(activity, Mapping) else activity_facts(activity)
    reading = language or translation.get_language()
    with translation.override(reading):
        why = suggested_for_text(facts.get("suggested_for"))
    return {
        "type": "activity",
        "id": facts["id"],
        "title": activity_title(facts, reading),
        "city": facts["city"],
        "province": facts["province"],
        "price": facts["price"],
        "start_date": facts["start_date"],
        "end_date": facts["end_date"],
        "tags": list(facts.get("tags") or [])[:5],
        "url": activity_url(facts["id"]),
        "cover_image_url": facts.get("cover_image_url", ""),
        "suggested_for": facts.get("suggested_for"),
        "why": why,
        "language": language,
    }


def activity_detail_card(facts: Mapping, *, language: str | None = None) -> dict:
    """One activity in full (the `activity_detail` tool's facts): the activity card with its description and
    who may join."""
    return {
        **activity_card(facts, language=language),
        "type": "activity_detail",
        "tags": list(facts.get("tags") or []),
        "description": activity_description(facts, language or translation.get_language()),
        "min_age": facts.get("min_age"),
        "max_age": facts.get("max_age"),
        "gender_restriction": facts.get("gender_restriction", "NONE"),
    }


def _in_chinese(label: str, *, context: str | None = None) -> str:
    """An English label's Chinese, for the reply templates that still take both (the page translates the English
    label itself, in its own language)."""
    with translation.override("zh-hans"):
        return pgettext(context, label) if context else gettext(label)


def booking_card(booking, *, language: str | None = None) -> dict:
    """A booking as the traveller sees it: what (number, airline or hotel, route), when (departure and arrival
    with +1 when it lands the next day; check-in, check-out and nights), who, how much, in which state. Names,
    places and the seat are in `language` (the reply's; the active one by default)."""
    facts = booking_facts(booking)
    with translation.override("en"):  # the English labels (the Chinese ones are beside them): one card, any page
        english = {"biz_type": str(booking.get_biz_type_display()), "status": str(booking.get_status_display())}
    with translation.override(language or translation.get_language()):
        names = names_shown(facts, booking.biz_type)
    route = names["route"]
    if booking.biz_type == "HOTEL":
        stay = f"{facts['check_in']} → {facts['check_out']}" if facts["check_in"] and facts["check_out"] else ""
        summary_parts = [names["name"] or facts["number"], names["city"], stay]
    else:
        times = times_text(facts["depart"], facts["arrive"]) if facts["depart"] else ""
        summary_parts = [
            names["name"] if booking.biz_type == "FLIGHT" else "",
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
        "biz_type_label_zh": _in_chinese(english["biz_type"]),
        "status": booking.status,
        "status_label": english["status"],
        "status_label_zh": _in_chinese(english["status"]),
        "amount": str(booking.amount),
        "external_order_no": booking.external_order_no,
        "summary": " ".join(p for p in summary_parts if p),
        "number": facts["number"],
        "name": names["name"],
        "route": route,
        "city": names["city"],
        "date": facts["date"],
        "depart_time": str(facts["depart"] or "")[11:16],
        "arrive_time": str(facts["arrive"] or "")[11:16],
        "overnight_days": facts["overnight_days"],
        "seat": names["seat"],
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
        names = names_shown(option, option["biz_type"])
    with translation.override("en"):
        english = names_shown(option, option["biz_type"])
    return {
        "type": "option",
        "index": index,
        "ref": option["ref"],
        "biz_type": option["biz_type"],
        "biz_type_label_zh": _in_chinese(_english_label(BizType, option["biz_type"])),
        "number": option["number"],
        "name": names["name"],
        # The English names whatever the page's language, for a model replying in English (OPTIONS ON SCREEN).
        "name_en": english["name"],
        "route_en": english["route"],
        "title": names["title"],
        "route": names["route"],
        "city": names["city"],
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


# How a requester reads where their ticket stands (an approver reads the model's own labels in the admin).
TICKET_STATUS_CONTEXT = "ticket status, as the traveller reads it"


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
        "action_label": _english_label(TicketAction, action),
        "action_label_zh": _in_chinese(_english_label(TicketAction, action)),
        "entity": facts.get("entity"),
        "amount": facts.get("amount"),
        "approved_amount": facts.get("approved_amount")
        if facts.get("approved_amount") != facts.get("amount")
        else None,
        "status": status,
        "status_label": _english_label(TicketStatus, status),
        "status_label_zh": _in_chinese(_english_label(TicketStatus, status), context=TICKET_STATUS_CONTEXT),
        "created_at": facts.get("created_at"),
        "decided_at": facts.get("decided_at"),
        "decision_reason": facts.get("decision_reason")
        or "",  # ticket_facts keeps it only for a "no" or a smaller refund
        "url": reverse("aftersale:requests"),
    }


def _label(choices, value: str) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return value


def _english_label(choices, value: str) -> str:
    with translation.override("en"):
        return _label(choices, value)
