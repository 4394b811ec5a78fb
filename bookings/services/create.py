"""Booking an option: the confirmation card (`booking_option_preview`, every fact re-read from the supplier) and
`booking_create` (the supplier's saveOrder, then our record)."""

import logging
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from bookings.formatting import cancel_terms, option_rows, option_title
from bookings.models import BizType, BookingRecord
from bookings.platform import (
    SUPPLIER_SYSTEM_ERRORS,
    PlatformCommand,
    PlatformError,
    mask_mobiles,
    order_number,
    platform_run,
)
from bookings.services.cancel import cancel_needs_approval
from bookings.services.errors import BookingError
from bookings.services.passengers import passengers_checked
from bookings.services.recording import booking_record_create, order_amount
from bookings.services.search import PRODUCT_OF, option_lookup
from core.envelope import Code

logger = logging.getLogger(__name__)


def _priced(option: dict, people: list[dict]) -> dict:
    """The option's total for these passengers (a hotel is one room: per night × nights)."""
    if option["biz_type"] == BizType.HOTEL:
        return option
    return {**option, "total": str(Decimal(option["unit_price"]) * len(people))}


def booking_option_preview(*, user, option_ref: object, passengers: object, language: str = "zh-hans") -> dict:
    """What booking this option will do, for the confirmation card: `{"title", "rows", "amount", "terms",
    "subject"}`, every fact re-read from the supplier. Books nothing.

    Raises BookingError INVALID_PARAM (not an option the supplier offers; a missing name or mobile, named in the
    message and `data.missing`), PLATFORM_UNAVAILABLE.
    """
    people = passengers_checked(passengers)
    _ref_, option = option_lookup(user=user, option_ref=option_ref, passengers=len(people))
    option = _priced(option, people)
    with translation.override(language):
        return {
            "title": option_title(option),
            "rows": option_rows(option, people),
            "amount": option["total"],
            "terms": " ".join(
                (
                    _("Booked pending payment."),
                    cancel_terms(
                        option["biz_type"],
                        needs_approval=cancel_needs_approval(amount=Decimal(option["total"]), paid=True),
                    ),
                )
            ),
            "subject": {
                "action": "book",
                "option_ref": option["ref"],
                "option": option,
                "passengers": [{"name": p["name"], "mobile": mask_mobiles(p["mobile"] or "")} for p in people],
            },
        }


def _save_arguments(option: dict, people: list[dict], raw_price: Any) -> dict:
    def person(p: dict) -> dict:
        return {"name": p["name"], **({"mobile": p["mobile"]} if p.get("mobile") else {})}

    contact = person(people[0])
    if option["biz_type"] == BizType.FLIGHT:
        return {
            "flightNo": option["number"],
            "date": str(option["depart"])[:10],
            "from": option["origin"],
            "to": option["destination"],
            "contactTourist": contact,
            "passengers": [person(p) for p in people],
        }
    if option["biz_type"] == BizType.TRAIN:
        return {
            "trainNo": option["number"],
            "date": str(option["depart"])[:10],
            "from": option["origin"],
            "to": option["destination"],
            "resources": [
                {"seatType": option["seat_class"], "adultPrice": raw_price, "passengers": [person(p) for p in people]}
            ],
            "contact": contact,
        }
    return {
        "hotelId": option["number"],
        "city": option["city"],
        "checkInDate": option["check_in"],
        "checkOutDate": option["check_out"],
        "guests": [person(p) for p in people],
        "rooms": 1,
    }


def _plain_price(value: str) -> int | float:
    number = Decimal(value)
    return int(number) if number == number.to_integral_value() else float(number)


def _details(option: dict, people: list[dict], extra: dict | None) -> dict:
    """What the record keeps of what was booked: our facts (read back as `bookings.facts.BookingFacts`), and the
    supplier's own names as the API and the admin have always shown them."""
    details = {
        "ref": option["ref"],
        "number": option["number"],
        "name": option["name"],
        "origin": option["origin"],
        "destination": option["destination"],
        "city": option["city"],
        "depart": option["depart"],
        "arrive": option["arrive"],
        "overnight_days": option["overnight_days"],
        "duration_minutes": option["duration_minutes"],
        "seat": option["seat_class"],
        "star": option["star"],
        "check_in": option["check_in"],
        "check_out": option["check_out"],
        "nights": option["nights"],
        "unit_price": option["unit_price"],
        "passengers": [p["name"] for p in people],
        # The supplier's English names, so pages and cards name them in English ever after.
        **{k: option[k] for k in ("name_en", "origin_en", "destination_en", "city_en") if option.get(k)},
        **({"seat_en": option["seat_class_en"]} if option.get("seat_class_en") else {}),
    }
    if option["biz_type"] == BizType.HOTEL:
        details |= {"hotelId": option["number"], "hotelName": option["name"]}
        details |= {"checkInDate": option["check_in"], "checkOutDate": option["check_out"]}
    else:
        key = "flightNo" if option["biz_type"] == BizType.FLIGHT else "trainNo"
        details |= {key: option["number"], "from": option["origin"], "to": option["destination"]}
        details |= {"date": str(option["depart"])[:10]}
    return details | (extra or {})


def booking_create(
    *,
    user,
    option_ref: object,
    passengers: object,
    scope: str | None = None,
    reason: str = "Booked on the supplier platform after the traveller confirmed.",
    extra_details: dict | None = None,
) -> BookingRecord:
    """Book an option for the passengers: the supplier's saveOrder (keyed by `scope`: the same confirmed action
    replayed is the supplier's first order), then our record with its creation event. A repeat returns the first
    record. Nothing of ours is written when the supplier did not book.

    Raises BookingError INVALID_PARAM (see `booking_option_preview`), PLATFORM_REJECTED (the supplier said no,
    e.g. the price changed), PLATFORM_UNAVAILABLE.
    """
    people = passengers_checked(passengers)
    _ref_, option = option_lookup(user=user, option_ref=option_ref, passengers=len(people))
    option = _priced(option, people)
    product = PRODUCT_OF[option["biz_type"]]
    arguments = _save_arguments(option, people, _plain_price(option["unit_price"]))
    try:
        answer = platform_run(PlatformCommand(product, "saveOrder", arguments), user=user, idempotency_scope=scope)
    except PlatformError as exc:
        business_no = exc.code == PlatformError.REJECTED and exc.platform_code not in SUPPLIER_SYSTEM_ERRORS
        code = Code.PLATFORM_REJECTED if business_no else Code.PLATFORM_UNAVAILABLE
        logger.warning("supplier saveOrder failed", extra={"product": product, "code": exc.code})
        raise BookingError(
            code, f"the supplier did not book it: {exc.message}", {"platform_code": exc.platform_code}
        ) from None
    number = order_number(answer)
    if not number:
        logger.error("saveOrder answer has no order number", extra={"product": product})
        raise BookingError(Code.PLATFORM_UNAVAILABLE, "the supplier's answer has no order number")
    contact = {**people[0], "travellers": people}
    amount = order_amount(answer) if order_amount(answer) > 0 else Decimal(option["total"])
    try:
        return booking_record_create(
            user=user,
            biz_type=option["biz_type"],
            external_order_no=number,
            amount=amount,
            contact=contact,
            details=_details(option, people, extra_details),
            raw=answer,
            reason=reason,
        )
    except Exception:  # the supplier booked: never hide its order behind our own failure
        logger.exception("the supplier booked order %s but recording it failed", number, extra={"product": product})
        raise BookingError(
            Code.INTERNAL_ERROR,
            f"the supplier booked order {number}, but TripDesk could not record it yet",
            {"unrecorded_order_no": number},
        ) from None
