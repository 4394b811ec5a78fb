"""Booking a compared plan: its outbound, its hotel and its return, each one booking on the supplier, after the
traveller confirmed the one card that lists them all.

    preview = plan_booking_preview(user=alice, plan_id=pid, plan="cheapest", passengers=people, language="en")
    outcome = plan_book(user=alice, plan_id=pid, plan="cheapest", passengers=people, scope="turn:action-…")

- The plan is read back from the plan store (`itinerary.round_trip.store.plan_load`), for its owner only: an expired or
  someone else's plan is PLAN_NOT_FOUND (compare again), a store that is down PLAN_STORE_UNAVAILABLE.
- Each part becomes the option ref `bookings` books by; every fact shown or booked is read again from the supplier
  by `bookings.services` (times, prices, names never come from the caller or the stored plan).
- The parts are booked one after the other, in the order the card lists them. The first part the supplier does not
  book stops the rest: nothing more is spent on a plan that no longer holds, and the outcome names what was booked,
  what failed and why, and what was not tried. Each part has its own idempotency scope (`{scope}:{part}`), so a
  confirmation carried out again books nothing twice.
"""

import datetime as dt
import logging
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from bookings.formatting import duration_text, option_title, times_text
from bookings.models import BookingRecord
from bookings.options import option_ref
from bookings.platform import mask_mobiles
from bookings.services.create import booking_create, booking_option_preview
from bookings.services.errors import BookingError
from bookings.services.passengers import passengers_checked
from bookings.vocabulary import names_shown, place_name
from core.envelope import Code
from core.errors import ApplicationError
from itinerary.round_trip.plan_types import PLAN_NAMES
from itinerary.round_trip.store import PlanStoreError, plan_load

logger = logging.getLogger(__name__)

PARTS = ("outbound", "hotel", "return")


class PlanBookingError(ApplicationError):
    """A plan that cannot be booked (or previewed); `data["part"]` names the part when one is the reason."""


@dataclass(frozen=True)
class PlanPart:
    part: str  # one of PARTS
    option_ref: str
    biz_type: str


@dataclass
class PartOutcome:
    """What became of one part: its booking, or why not (`code`, `message`), or not tried after an earlier one
    failed."""

    part: str
    option_ref: str
    booking: BookingRecord | None = None
    code: str = ""
    message: str = ""
    tried: bool = True
    unrecorded_order_no: str = ""  # the supplier booked it, but our record of it failed (logged)

    @property
    def booked(self) -> bool:
        return self.booking is not None


@dataclass
class PlanBookingOutcome:
    plan_id: str
    plan: str
    parts: list[PartOutcome] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return all(p.booked for p in self.parts)

    @property
    def failure(self) -> PartOutcome | None:
        return next((p for p in self.parts if p.tried and not p.booked), None)


def _date(value: object) -> dt.date:
    return dt.date.fromisoformat(str(value)[:10])


def _leg_ref(leg: dict, *, origin: str, destination: str) -> tuple[str, str]:
    meta = leg.get("meta") or {}
    ref = option_ref(
        biz_type=leg["mode"],
        number=leg["number"],
        date=_date(leg["depart"]),
        origin=str(meta.get("from") or origin),
        destination=str(meta.get("to") or destination),
        seat=leg.get("seat_class") or "",
    )
    return ref, str(leg["mode"])


def plan_parts(*, user, plan_id: str, plan: str) -> list[PlanPart]:
    """The parts of one named plan of a stored comparison, as option refs (outbound, hotel, return).

    Raises PlanBookingError PLAN_NOT_FOUND (unknown, expired or not the user's plan; not a plan name),
    PLAN_STORE_UNAVAILABLE.
    """
    if plan not in PLAN_NAMES:
        raise PlanBookingError(Code.INVALID_PARAM, f"{plan!r} is not a plan name ({', '.join(PLAN_NAMES)})")
    try:
        stored = plan_load(plan_id, owner_id=getattr(user, "pk", None))
    except PlanStoreError:
        raise PlanBookingError(
            Code.PLAN_STORE_UNAVAILABLE, "compared plans cannot be read right now; nothing was booked"
        ) from None
    chosen = (stored or {}).get("plans", {}).get(plan)
    details = (chosen or {}).get("details")
    if not details:
        raise PlanBookingError(
            Code.PLAN_NOT_FOUND,
            "that comparison has expired (or is not yours): compare the trip again; nothing was booked",
            {"reason": "plan_expired"},
        )
    inputs = stored.get("inputs") or {}
    origin, destination = str(inputs.get("origin") or ""), str(inputs.get("destination") or "")
    hotel = details["hotel"]
    try:
        outbound = _leg_ref(details["outbound"], origin=origin, destination=destination)
        back = _leg_ref(details["return"], origin=destination, destination=origin)
        stay = option_ref(
            biz_type="HOTEL",
            number=str((hotel.get("meta") or {}).get("hotel_id") or hotel["id"].split(":", 1)[-1]),
            date=_date(inputs["depart_date"]),
            check_out=_date(inputs["return_date"]),
            city=destination,
        )
    except (KeyError, TypeError, ValueError) as exc:  # a stored plan from an older shape
        logger.warning("a stored plan could not be read for booking: %s", exc)
        raise PlanBookingError(
            Code.PLAN_NOT_FOUND, "that comparison cannot be booked: compare the trip again", {"reason": "plan_expired"}
        ) from None
    return [
        PlanPart("outbound", outbound[0], outbound[1]),
        PlanPart("hotel", stay, "HOTEL"),
        PlanPart("return", back[0], back[1]),
    ]


def part_label(part: str) -> str:
    """The part as a confirmation card or a reply names it (in the active language)."""
    return {"outbound": _("Outbound"), "hotel": _("Hotel"), "return": _("Return journey")}[part]


def _day(value: object) -> str:
    return date_format(_date(value), "MONTH_DAY_FORMAT")


def _part_row(part: str, option: dict) -> list[str]:
    """One line per part, in the active language: what (airline, number, route; the hotel and its stars), when
    (the day, the times with +1; check-in and check-out), how long, which seat, the price."""
    if option["biz_type"] == "HOTEL":
        stay = ngettext(
            "check-in %(check_in)s, check-out %(check_out)s, %(nights)s night",
            "check-in %(check_in)s, check-out %(check_out)s, %(nights)s nights",
            option["nights"],
        ) % {"check_in": _day(option["check_in"]), "check_out": _day(option["check_out"]), "nights": option["nights"]}
        value = " · ".join((option_title(option), stay, _("¥%(price)s a night") % {"price": option["unit_price"]}))
        return [part_label(part), value]
    names = names_shown(option, option["biz_type"])
    what = " ".join(p for p in (names["name"] if option["biz_type"] == "FLIGHT" else "", option["number"]) if p)
    pieces = [
        f"{what} {names['route']}",
        f"{_day(option['depart'])} {times_text(option['depart'], option['arrive'])}",
        duration_text(option.get("duration_minutes")),
        names["seat"],
        _("¥%(price)s each") % {"price": option["unit_price"]},
    ]
    return [part_label(part), " · ".join(p for p in pieces if p)]


def _refused(part: PlanPart, exc: BookingError) -> PlanBookingError:
    return PlanBookingError(exc.code, exc.message, {**(exc.data or {}), "part": part.part})


def plan_booking_preview(*, user, plan_id: str, plan: str, passengers: object, language: str = "zh-hans") -> dict:
    """What booking the plan will do, for the one confirmation card: every part with the supplier's facts now, who
    travels, the total (`amount`) and the terms. Books nothing.

    Raises PlanBookingError: PLAN_NOT_FOUND (checked first); INVALID_PARAM with `data.missing` ("name", "mobile")
    before anything is searched; or a part the supplier no longer offers / cannot be searched (`data.part`).
    """
    parts = plan_parts(user=user, plan_id=plan_id, plan=plan)
    try:
        people = passengers_checked(passengers)
    except BookingError as exc:
        raise PlanBookingError(exc.code, exc.message, exc.data) from None
    options, amount = [], Decimal("0")
    for part in parts:
        try:
            preview = booking_option_preview(
                user=user, option_ref=part.option_ref, passengers=people, language=language
            )
        except BookingError as exc:
            raise _refused(part, exc) from None
        options.append((part, preview["subject"]["option"]))
        amount += Decimal(str(preview["amount"]))
    with translation.override(language):
        rows = [_part_row(part.part, option) for part, option in options]
        who = "、".join(f"{p['name']} {mask_mobiles(p['mobile'])}" if p.get("mobile") else p["name"] for p in people)
        rows.append([_("Travellers"), who])
        terms = _(
            "Each part is booked on its own, pending payment, in the order shown; if one cannot be booked, the ones "
            "after it are not booked and you are told which. Hotels cannot be cancelled online: to cancel, you call "
            "the hotel."
        )
        title = _("Book this plan: %(origin)s ⇄ %(destination)s") % {
            "origin": place_name(options[0][1].get("origin") or ""),
            "destination": place_name(options[0][1].get("destination") or ""),
        }
    return {
        "title": title,
        "rows": rows,
        "amount": str(amount),
        "terms": terms,
        "subject": {
            "action": "book_plan",
            "plan_id": plan_id,
            "plan": plan,
            "parts": [{"part": part.part, "option_ref": part.option_ref} for part in parts],
            "passengers": [{"name": p["name"], "mobile": mask_mobiles(p["mobile"] or "")} for p in people],
        },
    }


def plan_book(*, user, plan_id: str, plan: str, passengers: object, scope: str | None = None) -> PlanBookingOutcome:
    """Book every part of the plan for the passengers, in order, each through `bookings.services.create.booking_create`
    (the supplier first, then our record). Stops at the first part not booked; the outcome says what happened to
    each part. Raises PlanBookingError before anything is booked (missing contact, an expired plan)."""
    parts = plan_parts(user=user, plan_id=plan_id, plan=plan)
    try:
        people = passengers_checked(passengers)
    except BookingError as exc:
        raise PlanBookingError(exc.code, exc.message, exc.data) from None
    outcome = PlanBookingOutcome(plan_id=plan_id, plan=plan)
    stopped = False
    for part in parts:
        if stopped:
            outcome.parts.append(PartOutcome(part.part, part.option_ref, tried=False))
            continue
        try:
            booking = booking_create(
                user=user,
                option_ref=part.option_ref,
                passengers=people,
                scope=f"{scope}:{part.part}" if scope else None,
                reason="Booked on the supplier platform as part of a compared plan, after the traveller confirmed.",
                extra_details={"plan": {"plan_id": plan_id, "name": plan, "part": part.part}},
            )
        except BookingError as exc:
            logger.warning("a part of a plan was not booked", extra={"part": part.part, "code": exc.code})
            unrecorded = str((exc.data or {}).get("unrecorded_order_no") or "")
            outcome.parts.append(
                PartOutcome(
                    part.part, part.option_ref, code=exc.code, message=exc.message, unrecorded_order_no=unrecorded
                )
            )
            stopped = True
            continue
        outcome.parts.append(PartOutcome(part.part, part.option_ref, booking=booking))
    return outcome
