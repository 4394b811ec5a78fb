"""Presenters of the round-trip comparison (kind `round_trip`, the `compare_round_trip` tool) and of booking one of
its plans (kind `plan_booking`, the `book_plan` tool): the same text and cards in both channels.

Everything shown comes from the envelopes' facts (the supplier's prices and times, the engine's plans, what the
preference reader understood, the bookings made); the words come from the .po file through the reply templates
(plan_result, plan_empty, plan_unavailable, plan_need, plan_booked) and the sentences built here under the reply's
language. A traveller reads facts, never the engine's scores: each plan says in one line why it is worth a look
(cheapest, fastest, closest to what they asked for, or the best balance) with the fact behind it.
"""

import datetime as dt

from django.utils import translation
from django.utils.translation import gettext as _

from assistant import cards
from assistant.presenters.base import Presenter, merge_replies
from assistant.presenters.legs import hotel_sentence, hotel_words, leg_sentence, leg_words
from assistant.presenters.travel import place_label
from assistant.replies import compose, format_day, format_range
from assistant.turn import Reply, TurnContext, chip
from bookings.formatting import duration_text
from bookings.selectors import bookings_for_user
from core.envelope import Code

CARD = "plan_comparison"
# The form field a plan card's book button sends, "<plan id>|<plan name>" (read by the PLAN_ITINERARY handler).
CHOICE_SEPARATOR = "|"


def present_round_trip(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_present_one(envelope, context) for envelope in envelopes)


def _present_one(envelope: dict, context: TurnContext) -> Reply:
    data = envelope["data"]
    language = context.language
    trip = data.get("trip") or {}
    words = {
        "origin": place_label(str(trip.get("origin") or ""), language),
        "destination": place_label(str(trip.get("destination") or ""), language),
        "depart": _day(trip.get("depart_date"), language),
        "back": _day(trip.get("return_date"), language),
    }
    failed = data.get("failures") or []
    words["failed_text"] = compose("plan_failed", language, failed=failed) if failed else ""
    status = data.get("status")
    if status == "invalid":
        text = compose("plan_need", language, missing=data.get("problems") or [], **words)
        return Reply(text, "CLARIFY")
    if status == "unavailable":
        return Reply(compose("plan_unavailable", language, failed=failed, **words), "DEGRADED")
    comparison = data.get("comparison")
    if not comparison:
        no_plan = data.get("no_plan")
        text = compose(
            "plan_empty",
            language,
            lacking=data.get("lacking") or [],
            no_legal=no_plan == "no_legal",
            unusable=no_plan == "unusable",
            **words,
        )
        return Reply(text, "EMPTY")

    preferences = data.get("preferences") or {}
    read, stated = bool(preferences.get("read")), list(preferences.get("stated") or [])
    card = comparison_card(comparison, language=language, stated=stated, read=read, max_price=data.get("max_price"))
    text = compose(
        "plan_result",
        language,
        card=card,
        shown=[plan for plan in card["plans"] if plan["shown"]],
        best=_plan(card, "best_overall"),
        shared=_shared(card),
        stated=stated,
        read=read,
        failed=failed,
        max_price=data.get("max_price"),
        **words,
    )
    outcome = "ANSWERED" if read and not failed else "DEGRADED"
    return Reply(text, outcome, cards=[card])


def _day(value: str | None, language: str) -> str:
    return format_day(dt.date.fromisoformat(value), language) if value else ""


def _plan(card: dict, name: str) -> dict | None:
    return next((p for p in card["plans"] if p["name"] == name), None)


# --- the comparison card ------------------------------------------------------------------------------------------


def label_name(name: str) -> str:
    """A plan's title as a traveller reads it (in the active language)."""
    return {
        "best_overall": _("Best overall"),
        "cheapest": _("Cheapest"),
        "fastest": _("Fastest"),
        "best_preference": _("Best match for you"),
    }[name]


def _quoted(names: list[str]) -> str:
    return _(", ").join(_('"%(label)s"') % {"label": label_name(n)} for n in names)


def comparison_card(comparison: dict, *, language: str, stated: list[str], read: bool, max_price=None) -> dict:
    """The `plan_comparison` card: each plan's facts in words (names, +1, durations, check-in and check-out), the
    plan's number among the distinct plans, the one line of why, and what its book button sends. The engine's
    scores stay in the data for API clients; the card's template never shows them."""
    with translation.override(language):
        plans = [dict(p) for p in comparison["plans"]]
        numbers = {}
        for plan in plans:
            if plan["labels"][0] == plan["name"]:
                numbers[plan["name"]] = len(numbers) + 1
        cheapest, fastest = _by_name(plans, "cheapest"), _by_name(plans, "fastest")
        for plan in plans:
            number = numbers.get(plan["labels"][0], 0)
            plan.update(
                outbound=leg_words(plan["outbound"], language),
                hotel=hotel_words(plan["hotel"], language),
                **{"return": leg_words(plan["return"], language)},
            )
            plan.update(
                number=number,
                shown=plan["labels"][0] == plan["name"],
                titles=[{"name": n, "title": label_name(n)} for n in plan["labels"]],
                titles_text=_quoted(plan["labels"]),
                transit=duration_text(int(plan["transit_minutes"])),
                why=plan_why(plan, cheapest=cheapest, fastest=fastest, stated=stated),
                over_budget=bool(max_price and plan.get("violations")),
                book_message=_("Book plan %(number)s (¥%(total)s)") % {"number": number, "total": plan["total_price"]},
            )
            plan["summary"] = _("%(outbound)s, %(hotel)s, %(back)s, ¥%(total)s in all") % {
                "outbound": plan["outbound"]["number"],
                "hotel": plan["hotel"]["name"],
                "back": plan["return"]["number"],
                "total": plan["total_price"],
            }
            plan["lines"] = {
                "outbound": leg_sentence(plan["outbound"]),
                "hotel": hotel_sentence(plan["hotel"]),
                "return": leg_sentence(plan["return"]),
            }
        start, end = (dt.date.fromisoformat(comparison[k]) for k in ("depart_date", "return_date"))
        return {
            "type": CARD,
            **comparison,
            "plans": plans,
            "language": language,
            "origin_label": place_label(comparison["origin"], language),
            "destination_label": place_label(comparison["destination"], language),
            "dates": format_range(start, end, language),
            "preferences": stated,
            "preferences_read": read,
            "max_price": max_price,
            "bookable": bool(comparison.get("plan_id")),
        }


def _by_name(plans: list[dict], name: str) -> dict | None:
    return next((p for p in plans if p["name"] == name), None)


def _minutes(plan: dict) -> int:
    return int(plan["transit_minutes"])


def _yuan(value: float) -> int | float:
    value = round(float(value), 2)
    return int(value) if value == int(value) else value


def _preference_facts(plan: dict, stated: list[str]) -> list[str]:
    """What in the plan meets each preference the traveller stated."""
    modes = [plan["outbound"]["mode"], plan["return"]["mode"]]
    facts = []
    for name in stated:
        if name in ("train", "flight"):
            mode = "TRAIN" if name == "train" else "FLIGHT"
            count = modes.count(mode)
            if count == 2:
                facts.append(_("by train both ways") if mode == "TRAIN" else _("by air both ways"))
            elif count == 1:
                facts.append(_("by train one way") if mode == "TRAIN" else _("by air one way"))
        elif name == "cheap":
            facts.append(_("¥%(total)s in all") % {"total": plan["total_price"]})
        elif name == "fast":
            facts.append(_("%(duration)s on the way") % {"duration": duration_text(_minutes(plan))})
        elif name in ("luxury", "budget_hotel"):
            facts.append(_("a %(star)s-star hotel") % {"star": plan["hotel"]["star"]})
    return facts


def plan_why(plan: dict, *, cheapest: dict | None, fastest: dict | None, stated: list[str]) -> str:
    """One line, in words, of why this plan is shown: the title it won and the fact behind it."""
    labels, reasons = plan["labels"], []
    if "cheapest" in labels:
        saving = _yuan(fastest["total_price"] - plan["total_price"]) if fastest else 0
        if saving > 0:
            reasons.append(_("the lowest total price, ¥%(saving)s less than the fastest plan") % {"saving": saving})
        else:
            reasons.append(_("the lowest total price of every combination"))
    if "fastest" in labels:
        saved = _minutes(cheapest) - _minutes(plan) if cheapest else 0
        words = {"duration": duration_text(_minutes(plan)), "saved": duration_text(saved)}
        if saved > 0:
            reasons.append(_("the least time on the way (%(duration)s), %(saved)s less than the cheapest plan") % words)
        else:
            reasons.append(_("the least time on the way (%(duration)s)") % words)
    if "best_preference" in labels and stated:
        facts = _preference_facts(plan, stated)
        if facts:
            reasons.append(_("closest to what you asked for: %(facts)s") % {"facts": _(", ").join(facts)})
    if not reasons and "best_overall" in labels and cheapest:
        more = _yuan(plan["total_price"] - cheapest["total_price"])
        saved = _minutes(cheapest) - _minutes(plan)
        if more > 0 and saved > 0:
            words = {"saved": duration_text(saved), "more": more}
            reasons.append(
                _("the best balance: %(saved)s less on the way than the cheapest plan for ¥%(more)s more") % words
            )
        else:
            reasons.append(_("the best balance of time, price and what you asked for"))
    if not reasons:  # the best match when nothing was stated: every option counted the same
        reasons.append(_("you named no preference, so this is the best balance of time and price"))
    return _("; ").join(reasons)


def _shared(card: dict) -> list[dict]:
    """The plans that won several titles, each once: which titles, and which plan (its number and summary)."""
    return [
        {"titles": plan["titles_text"], "number": plan["number"], "summary": plan["summary"]}
        for plan in card["plans"]
        if plan["shown"] and len(plan["labels"]) > 1
    ]


# --- booking a plan ---------------------------------------------------------------------------------------------


def part_name(part: str) -> str:
    return {"outbound": _("Outbound"), "hotel": _("Hotel"), "return": _("Return journey")}[part]


def _why_not(part: dict) -> str:
    """Why a part was not booked, in words (never the supplier's own message, which is not in the reader's
    language)."""
    code = part.get("code")
    if part.get("unrecorded_order_no"):
        return _("the supplier booked order %(order_no)s, but TripDesk could not record it yet") % {
            "order_no": part["unrecorded_order_no"]
        }
    if code == Code.PLATFORM_UNAVAILABLE:
        return _("the supplier is not answering")
    if code == Code.PLATFORM_REJECTED:
        return _("the supplier would not book it (sold out, or the price changed)")
    if code == Code.INVALID_PARAM:
        return _("the supplier no longer offers it")
    return _("it could not be booked")


def _data(envelope: dict) -> dict:
    data = envelope.get("data")
    return data if isinstance(data, dict) else {}


def present_plan_booking(envelopes: list[dict], context: TurnContext) -> Reply:
    """What booking a plan did: a booking card per part booked; when a part failed, which parts were booked, which
    one failed and why, which were not tried (with a chip to cancel each booked one); before anything was booked,
    the question for who travels, or why the plan cannot be booked."""
    envelope, language = envelopes[-1], context.language
    data = _data(envelope)
    parts = [p for p in data.get("parts") or [] if isinstance(p, dict)]
    if not parts:
        return _not_booked(envelope, context)
    wanted = [(p.get("booking") or {}).get("booking_id") for p in parts if p.get("booked")]
    rows = bookings_for_user(user=context.user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    booking_cards = [cards.booking_card(rows[b], language=context.language) for b in wanted if b in rows]
    with translation.override(language):
        shown = [
            {
                "name": part_name(p["part"]),
                "booked": bool(p.get("booked")),
                "tried": bool(p.get("tried")),
                "booking_id": (p.get("booking") or {}).get("booking_id") or "",
                "why_not": "" if p.get("booked") or not p.get("tried") else _why_not(p),
            }
            for p in parts
        ]
    complete = all(p["booked"] for p in shown)
    total = sum(float(c["amount"]) for c in booking_cards)
    text = compose(
        "plan_booked",
        language,
        complete=complete,
        parts=shown,
        total=f"{total:.2f}",
        deadline=booking_cards[0]["pay_deadline_label"] if booking_cards else "",
    )
    verb = _cancel_verb(language)
    chips = [] if complete else [chip(f"{verb} {p['booking_id']}", fresh=True) for p in shown if p["booked"]]
    outcome = "ANSWERED" if complete else "DEGRADED"
    return Reply(text, outcome, cards=booking_cards, suggestions=chips)


def _cancel_verb(language: str) -> str:
    return compose("cancel_verb", language)


def _not_booked(envelope: dict, context: TurnContext) -> Reply:
    """Nothing was booked: the contact is missing (one question), the comparison expired, or a part is no longer
    offered or the supplier is down."""
    data, code, language = _data(envelope), envelope.get("code"), context.language
    missing = [m for m in data.get("missing") or [] if m in ("name", "mobile")]
    with translation.override(language):
        part = part_name(data["part"]) if data.get("part") in ("outbound", "hotel", "return") else ""
        reason = _why_not({"code": code, "unrecorded_order_no": data.get("unrecorded_order_no")})
    text = compose(
        "plan_book_refused",
        language,
        missing=missing,
        expired=code in (Code.PLAN_NOT_FOUND,),
        store_down=code == Code.PLAN_STORE_UNAVAILABLE,
        part=part,
        reason=reason,
    )
    if code == Code.INVALID_PARAM and missing:
        return Reply(text, "CLARIFY")
    return Reply(text, "DEGRADED" if code in (Code.PLATFORM_UNAVAILABLE, Code.PLAN_STORE_UNAVAILABLE) else "REJECTED")


PRESENTERS: dict[str, Presenter] = {"round_trip": present_round_trip, "plan_booking": present_plan_booking}
