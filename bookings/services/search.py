"""Options: the best few on the supplier for a route or a stay, and the option a ref names, each read again from the
supplier (the model only understands: which options exist, what they cost and when they leave is read from the
supplier each time, never from a caller)."""

import datetime as dt
import logging

from django.utils import timezone

from bookings import conf
from bookings.models import BizType
from bookings.options import (
    BookingWants,
    OptionRef,
    option_for_ref,
    options_from_supplier,
    parse_option_ref,
    rank_options,
)
from bookings.platform import PlatformCommand, PlatformError, platform_run
from bookings.services.errors import BookingError
from bookings.services.passengers import MAX_PASSENGERS
from core.envelope import Code

logger = logging.getLogger(__name__)


PRODUCT_OF = {BizType.FLIGHT: "flight", BizType.HOTEL: "hotel", BizType.TRAIN: "train"}


# Supplier codes that say the request itself was wrong (not that the supplier is broken).
SUPPLIER_REQUEST_ERRORS = frozenset({"INVALID_PARAM", "PRICE_CHANGED", "SOLD_OUT"})


def _product(biz_type: object) -> str:
    biz = str(biz_type or "").strip().upper()
    if biz not in BizType.values:
        raise BookingError(Code.INVALID_PARAM, "what to book: a flight, a hotel or a train", {"missing": ["biz_type"]})
    return biz


def _search_arguments(
    biz: str, *, origin, destination, city, date: dt.date | None, check_out: dt.date | None
) -> dict[str, str]:
    """The supplier search for a product; INVALID_PARAM naming what is missing (`data.missing`)."""
    missing = []
    if biz == BizType.HOTEL:
        if not city:
            missing.append("city")
        if not date:
            missing.append("check_in")
        if not check_out:
            missing.append("check_out")
    else:
        if not origin or not destination:
            missing.append("origin" if destination else "destination" if origin else "route")
        if not date:
            missing.append("date")
    if missing:
        raise BookingError(Code.INVALID_PARAM, f"still needed to search: {', '.join(missing)}", {"missing": missing})
    if date < timezone.localdate():
        raise BookingError(Code.INVALID_PARAM, f"{date.isoformat()} is in the past", {"invalid": ["date"]})
    if biz == BizType.HOTEL:
        if check_out <= date:
            raise BookingError(Code.INVALID_PARAM, "check-out must be after check-in", {"invalid": ["check_out"]})
        return {"city": str(city).strip(), "checkInDate": date.isoformat(), "checkOutDate": check_out.isoformat()}
    if str(origin).strip() == str(destination).strip():
        raise BookingError(Code.INVALID_PARAM, "origin and destination are the same city", {"invalid": ["route"]})
    return {"from": str(origin).strip(), "to": str(destination).strip(), "date": date.isoformat()}


def _supplier_search(*, user, biz: str, arguments: dict) -> dict:
    """A READ on the supplier. Raises BookingError INVALID_PARAM (the supplier refused the request) or
    PLATFORM_UNAVAILABLE (it failed, timed out or answered garbage)."""
    try:
        return platform_run(PlatformCommand(PRODUCT_OF[biz], "search", arguments), user=user)
    except PlatformError as exc:
        if exc.code == PlatformError.REJECTED and exc.platform_code in SUPPLIER_REQUEST_ERRORS:
            raise BookingError(Code.INVALID_PARAM, f"the supplier refused the search: {exc.message}") from None
        logger.warning("supplier search failed", extra={"product": PRODUCT_OF[biz], "code": exc.code})
        raise BookingError(
            Code.PLATFORM_UNAVAILABLE,
            "the supplier platform did not answer the search; nothing was booked",
            {"platform_code": exc.platform_code},
        ) from None


def booking_options(
    *,
    user,
    biz_type: str,
    origin: str | None = None,
    destination: str | None = None,
    city: str | None = None,
    date: dt.date | None = None,
    check_out: dt.date | None = None,
    wants: BookingWants | None = None,
    passengers: int = 1,
) -> dict:
    """The best few options on the supplier for a route or a stay, ranked by the traveller's wants
    (`bookings.options`): `{"biz_type", "query", "options", "matched", "unmet"}`. Books nothing.

    Raises BookingError INVALID_PARAM (something missing or wrong: `data.missing` / `data.invalid`),
    PLATFORM_UNAVAILABLE (the supplier failed).
    """
    biz = _product(biz_type)
    wants = wants or BookingWants()
    passengers = min(MAX_PASSENGERS, max(1, int(passengers or 1)))
    arguments = _search_arguments(
        biz, origin=origin, destination=destination, city=city, date=date, check_out=check_out
    )
    answer = _supplier_search(user=user, biz=biz, arguments=arguments)
    found = options_from_supplier(
        biz, answer, passengers=passengers, seat_class=wants.seat_class, check_in=date, check_out=check_out
    )
    ranked = rank_options(biz, found, wants, limit=conf.options_shown())
    query = {
        "origin": arguments.get("from"),
        "destination": arguments.get("to"),
        "city": arguments.get("city"),
        "date": date.isoformat(),
        "check_out": check_out.isoformat() if biz == BizType.HOTEL else None,
        "nights": (check_out - date).days if biz == BizType.HOTEL else None,
        "passengers": passengers,
        **wants.given(biz),
    }
    return {
        "biz_type": biz,
        "query": {k: v for k, v in query.items() if v is not None},
        "options": ranked.options,
        "matched": ranked.matched,
        "unmet": ranked.unmet,
        "found": len(found),
    }


def option_ref_checked(option_ref: object) -> OptionRef:
    try:
        return parse_option_ref(option_ref)
    except ValueError as exc:
        raise BookingError(
            Code.INVALID_PARAM, f"{exc}; book one of the options find_booking_options offered", {"invalid": ["option"]}
        ) from None


def _ref_search(ref: OptionRef) -> dict:
    """The supplier search that offers the option a ref names (its route and day, or its city and stay)."""
    if ref.biz_type == BizType.HOTEL:
        return {"city": ref.city, "checkInDate": ref.date.isoformat(), "checkOutDate": ref.check_out.isoformat()}
    return {"from": ref.origin, "to": ref.destination, "date": ref.date.isoformat()}


def options_described(*, user, option_refs: list[object]) -> list[dict]:
    """The options these refs name, in the order given, each read again from the supplier (one search per route or
    city and day): what a question about the options on screen is answered from, never the caller's words. A ref
    the supplier no longer offers (or a day gone by) is left out. Books nothing.

    Raises BookingError INVALID_PARAM (not a ref), PLATFORM_UNAVAILABLE.
    """
    refs = [option_ref_checked(raw) for raw in option_refs]
    answers: dict[tuple, dict] = {}
    found = []
    for ref in refs:
        if ref.date < timezone.localdate():
            continue
        arguments = _ref_search(ref)
        key = (ref.biz_type, *sorted(arguments.items()))
        if key not in answers:
            answers[key] = _supplier_search(user=user, biz=ref.biz_type, arguments=arguments)
        option = option_for_ref(answers[key], ref)
        if option is not None:
            found.append(option)
    return found


def option_lookup(*, user, option_ref: object, passengers: int = 1) -> tuple[OptionRef, dict]:
    """The option a ref names, read again from the supplier (facts never come from the caller).

    Raises BookingError INVALID_PARAM (not a ref, or the supplier does not offer it), PLATFORM_UNAVAILABLE.
    """
    ref = option_ref_checked(option_ref)
    if ref.date < timezone.localdate():
        raise BookingError(Code.INVALID_PARAM, f"{ref.date.isoformat()} is in the past", {"invalid": ["date"]})
    answer = _supplier_search(user=user, biz=ref.biz_type, arguments=_ref_search(ref))
    option = option_for_ref(answer, ref, passengers=passengers)
    if option is None:
        where = ref.city if ref.biz_type == BizType.HOTEL else f"{ref.origin}→{ref.destination}"
        seat = f" ({ref.seat})" if ref.seat else ""
        raise BookingError(
            Code.INVALID_PARAM,
            f"the supplier does not offer {ref.number}{seat} for {where} on {ref.date.isoformat()}; nothing was booked",
            {"invalid": ["option"], "number": ref.number},
        )
    return ref, option


def parse_option_ref_safe(ref: str) -> bool:
    try:
        parse_option_ref(ref)
    except ValueError:
        return False
    return True
