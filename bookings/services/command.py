"""The traveller's own platform command (search, saveOrder, queryOrder): read once and checked before anything runs,
run with their platform key, and the confirmation card of one that changes something."""

import datetime as dt
from dataclasses import dataclass

from bookings.options import option_ref
from bookings.platform import (
    READ_ACTIONS,
    SUPPLIER_SYSTEM_ERRORS,
    PlatformCommand,
    PlatformError,
    order_number,
    parse_command,
    platform_run,
)
from bookings.services.create import booking_option_preview
from bookings.services.errors import BookingError
from bookings.services.search import parse_option_ref_safe
from core.envelope import Code

# What a traveller's own platform command may do, per product. Cancelling goes through `booking_cancel`, refunds
# through the after-sale workflow: neither is ever a command the model composes.
TRAVELLER_ACTIONS: dict[str, frozenset[str]] = {
    "flight": frozenset({"search", "saveOrder", "queryOrder"}),
    "hotel": frozenset({"search", "saveOrder", "queryOrder"}),
    "train": frozenset({"search", "saveOrder", "queryOrder"}),
    "order": frozenset({"queryOrder"}),
}


SERVICE_ONLY_ACTIONS = frozenset({"cancelOrder", "refund", "pay"})


@dataclass(frozen=True)
class PlatformOutcome:
    """What one of the traveller's platform commands did: the command, the supplier's answer, its order number."""

    product: str
    action: str
    arguments: dict
    answer: dict
    order_no: str | None

    @property
    def changes_something(self) -> bool:
        return self.action not in READ_ACTIONS


def platform_command_read(command: str) -> PlatformCommand:
    """The traveller's command, read once and checked before anything runs.

    Raises BookingError INVALID_PARAM (outside the grammar, or an action the product has not), PERMISSION_DENIED
    (cancelOrder and refund: a cancellation goes through cancel_booking, a refund through the after-sale desk).
    """
    try:
        parsed = parse_command(command)
    except PlatformError as exc:
        raise BookingError(Code.INVALID_PARAM, f"command refused: {exc.message}") from None
    where = {"product": parsed.product, "action": parsed.action}
    if parsed.action in SERVICE_ONLY_ACTIONS:
        raise BookingError(
            Code.PERMISSION_DENIED,
            f"command refused: `{parsed.product} {parsed.action}` is not run as a platform command; "
            "a cancellation goes through cancel_booking and a refund through the after-sale desk",
            where,
        )
    if parsed.action not in TRAVELLER_ACTIONS[parsed.product]:
        raise BookingError(
            Code.INVALID_PARAM, f"command refused: `{parsed.product} {parsed.action}` is not allowed", where
        )
    return parsed


def platform_command_for_traveller(*, user, command: str, scope: str | None = None) -> PlatformOutcome:
    """Run one of the traveller's platform commands (search, saveOrder, queryOrder) with their platform key.

    Raises BookingError: INVALID_PARAM / PERMISSION_DENIED (see `platform_command_read`; nothing runs),
    PLATFORM_REJECTED (the supplier said no), PLATFORM_UNAVAILABLE (it failed, timed out or answered garbage);
    the error's data names product, action and the supplier's own code.
    """
    parsed = platform_command_read(command)
    try:
        # `scope` (the chat turn) keys what the command changes: a redelivered saveOrder answers the first order.
        answer = platform_run(parsed, user=user, idempotency_scope=scope)
    except PlatformError as exc:
        business_no = exc.code == PlatformError.REJECTED and exc.platform_code not in SUPPLIER_SYSTEM_ERRORS
        code = Code.PLATFORM_REJECTED if business_no else Code.PLATFORM_UNAVAILABLE
        data = {"product": parsed.product, "action": parsed.action, "platform_code": exc.platform_code}
        raise BookingError(code, str(exc), data) from None
    number = order_number(answer) if parsed.action != "search" else None
    return PlatformOutcome(parsed.product, parsed.action, parsed.arguments, answer, number)


def platform_command_preview(*, user, command: str, language: str = "zh-hans") -> dict:
    """The confirmation card of a platform command that changes something (saveOrder): the item re-read from a
    supplier search, as `booking_option_preview` shows it. Refuses (BookingError INVALID_PARAM) an item the
    supplier does not list and a command that names no route or city to look it up by; PERMISSION_DENIED /
    INVALID_PARAM for commands outside what a traveller may run (`platform_command_read`)."""
    parsed = platform_command_read(command)
    if parsed.action != "saveOrder":
        raise BookingError(Code.INVALID_PARAM, f"`{parsed.product} {parsed.action}` changes nothing to confirm")
    args = parsed.arguments
    text = lambda name: str(args.get(name) or "").strip()  # noqa: E731
    try:
        if parsed.product == "hotel":
            ref = option_ref(
                biz_type="HOTEL",
                number=text("hotelId"),
                date=dt.date.fromisoformat(text("checkInDate")),
                check_out=dt.date.fromisoformat(text("checkOutDate")),
                city=text("city"),
            )
            people = [g for g in args.get("guests") or [] if isinstance(g, dict)]
        else:
            number = text("flightNo") if parsed.product == "flight" else text("trainNo")
            resources = [r for r in args.get("resources") or [] if isinstance(r, dict)]
            seat = str(resources[0].get("seatType") or "") if resources else ""
            ref = option_ref(
                biz_type=parsed.product.upper(),
                number=number,
                date=dt.date.fromisoformat(text("date")),
                origin=text("from"),
                destination=text("to"),
                seat=seat,
            )
            contact = args.get("contactTourist") or args.get("contact")
            others = args.get("passengers") or [p for r in resources for p in r.get("passengers") or []]
            people = [p for p in [contact, *others] if isinstance(p, dict)]
    except ValueError:
        raise BookingError(Code.INVALID_PARAM, "saveOrder needs the item's number and its dates (YYYY-MM-DD)") from None
    # The contact first, then everyone else once.
    seen, unique = set(), []
    for person in people:
        name = str(person.get("name") or "").strip()
        if name in seen:
            continue
        seen.add(name)
        unique.append(person)
    if not (parse_option_ref_safe(ref)):
        raise BookingError(
            Code.INVALID_PARAM, "saveOrder must name the route (from, to) or the hotel's city, as the search did"
        )
    preview = booking_option_preview(user=user, option_ref=ref, passengers=unique, language=language)
    return {
        **preview,
        "subject": {**preview["subject"], "action": "platform_save", "command": parsed.display(masked=True)},
    }
