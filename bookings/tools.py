"""What the agent may call about bookings: thin over `bookings.services` and `bookings.selectors`. Each returns
the envelope of DESIGN.md (with `data["kind"]`, ok and fail alike) and never raises."""

import datetime as dt
import logging
from decimal import Decimal
from typing import Annotated, Literal, NotRequired

from django.utils import translation
from pydantic import Field
from typing_extensions import TypedDict

from bookings.hooks import BookingPersistenceHook
from bookings.options import BookingWants, first_in_order
from bookings.platform import READ_ACTIONS, PlatformError, parse_command
from bookings.selectors import booking_facts, bookings_active_first, bookings_for_user
from bookings.services.cancel import booking_cancel, booking_cancel_preview
from bookings.services.command import platform_command_for_traveller, platform_command_preview
from bookings.services.create import booking_create, booking_option_preview
from bookings.services.errors import BookingError
from bookings.services.pay import booking_pay, booking_pay_preview
from bookings.services.rebook import booking_rebook, booking_rebook_preview
from bookings.services.search import booking_options, options_described
from bookings.sync import bookings_refresh_for_user
from bookings.vocabulary import names_shown
from core.envelope import Code, fail, ok
from core.ids import normalise_booking_id
from core.tools import Risk, ToolContext, tool

logger = logging.getLogger(__name__)

KIND_PLATFORM = "platform"
KIND_CANCEL = "booking_cancel"
KIND_BOOKINGS = "bookings"
KIND_OPTIONS = "booking_options"
KIND_CREATED = "booking_created"
KIND_REBOOK = "rebook"
KIND_PAY = "booking_pay"
KIND_DESCRIBED = "options_described"
MAX_LISTED = 20
OPTION_REF = Field(max_length=200, description="An option's `ref`, exactly as find_booking_options returned it")


def booking_summary(booking) -> dict:
    """A booking as envelopes carry it; `facts` are what a card shows (number, times, stay, passengers), `in_english`
    its names in English (airline or hotel, route, city, seat), so a model replying in English can name them."""
    facts = booking_facts(booking)
    with translation.override("en"):
        in_english = names_shown(facts, booking.biz_type)
    return {
        "booking_id": booking.booking_id,
        "biz_type": booking.biz_type,
        "status": booking.status,
        "amount": str(booking.amount),
        "external_order_no": booking.external_order_no,
        "details": booking.details,
        "facts": facts,
        "in_english": in_english,
        "created_at": booking.created_at.isoformat(),
        "pay_deadline": booking.pay_deadline.isoformat() if booking.pay_deadline else None,
        "paid_at": booking.paid_at.isoformat() if booking.paid_at else None,
    }


def platform_command_risk(arguments: dict) -> Risk:
    """search and queryOrder only read; anything else (saveOrder, or a command that will be refused) counts as a
    write, so the per-turn write cap counts every call that could change something."""
    command = arguments.get("command") if isinstance(arguments, dict) else None
    try:
        action = parse_command(command).action
    except PlatformError:
        return Risk.WRITE
    return Risk.READ if action in READ_ACTIONS else Risk.WRITE


def _shown(exc: BookingError, booking_id: str) -> str | None:
    """The booking id a refusal echoes: none for a number that is not the traveller's (unknown or someone else's),
    so both answer alike."""
    return None if exc.code == Code.BOOKING_NOT_FOUND else (normalise_booking_id(booking_id) or booking_id)


def _refusing_as(kind: str):
    """A preview's refusal carries the tool's kind (and the asked booking id), so its presenter answers it."""

    def wrap(preview):
        def run(context: ToolContext, arguments: dict) -> dict:
            try:
                return preview(context, arguments)
            except BookingError as exc:
                extra = {"option_ref": arguments.get("option_ref")} if "option_ref" in arguments else {}
                if "booking_id" in arguments:
                    extra["booking_id"] = _shown(exc, arguments["booking_id"])
                data = {**(exc.data or {}), **extra, "kind": kind}
                raise BookingError(exc.code, exc.message, data) from None

        return run

    return wrap


def _platform_preview(context: ToolContext, arguments: dict) -> dict:
    return platform_command_preview(user=context.user, command=arguments["command"], language=context.language)


@tool(
    risk=Risk.WRITE,
    risk_of=platform_command_risk,
    tags=("booking",),
    preview=_refusing_as(KIND_PLATFORM)(_platform_preview),
)
def execute_platform_command(
    context: ToolContext,
    command: Annotated[
        str,
        Field(
            max_length=4000,
            description="One supplier command line: supplier call <product> <action> -a '<json object>'",
        ),
    ],
) -> dict:
    """Run one command of the supplier platform for the signed-in traveller, as the booking skill document
    describes: search, saveOrder or queryOrder for flight, hotel or train (and order queryOrder). cancelOrder and
    refund are refused: a cancellation goes through cancel_booking. Returns the platform's answer."""
    try:
        done = platform_command_for_traveller(user=context.user, command=command, scope=context.scope)
    except BookingError as exc:
        return fail(exc.code, exc.message, {"kind": KIND_PLATFORM, **(exc.data or {})})
    data = {
        "kind": KIND_PLATFORM,
        "product": done.product,
        "action": done.action,
        "order_no": done.order_no,
        "arguments": done.arguments,
        "answer": done.answer,
    }
    return ok(data, f"{done.product} {done.action} done")


def _refused_about(exc: BookingError, kind: str, booking_id: str) -> dict:
    """The refusal of a call about one booking, with the booking id asked about (see `_shown`)."""
    return exc.envelope(kind=kind, booking_id=_shown(exc, booking_id))


def _cancel_preview(context: ToolContext, arguments: dict) -> dict:
    return booking_cancel_preview(user=context.user, booking_id=arguments["booking_id"], language=context.language)


@tool(risk=Risk.WRITE, tags=("booking",), preview=_refusing_as(KIND_CANCEL)(_cancel_preview))
def cancel_booking(
    context: ToolContext,
    booking_id: Annotated[str, Field(max_length=32, description="TripDesk booking id, like BK20261201001")],
) -> dict:
    """Cancel one of the traveller's bookings by its TripDesk booking id. Nothing happens before the traveller
    confirms the card this call shows. Flights and trains are cancelled on the platform first; hotels are marked
    cancelled and the traveller must call the hotel. A cancel above the approval amount waits for an approver.
    Safe to repeat."""
    try:
        outcome = booking_cancel(user=context.user, booking_id=booking_id)
    except BookingError as exc:
        return _refused_about(exc, KIND_CANCEL, booking_id)
    data = booking_summary(outcome.booking) | {
        "kind": KIND_CANCEL,
        "already_cancelled": outcome.already_cancelled,
        "call_the_hotel": outcome.call_the_hotel,
    }
    return ok(data, "already cancelled" if outcome.already_cancelled else "cancelled")


# --- options, booking one, rebooking -----------------------------------------------------------------------------


class Passenger(TypedDict):
    """One traveller: the name on the ticket or room, and a mobile (the first passenger is the contact)."""

    name: Annotated[str, Field(max_length=40)]
    mobile: NotRequired[Annotated[str | None, Field(max_length=20)]]


def _passengers(value) -> list[dict]:
    people = []
    for person in value or []:
        if isinstance(person, dict):
            people.append({"name": str(person.get("name") or "").strip(), "mobile": person.get("mobile") or None})
    return people


@tool(risk=Risk.READ, tags=("booking",))
def find_booking_options(
    context: ToolContext,
    biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"],
    origin: Annotated[str | None, Field(max_length=40, description="Flights and trains: from this city")] = None,
    destination: Annotated[str | None, Field(max_length=40, description="Flights and trains: to this city")] = None,
    city: Annotated[str | None, Field(max_length=40, description="Hotels: the city")] = None,
    date: Annotated[dt.date | None, Field(description="Departure date, or the hotel's check-in date")] = None,
    check_out: Annotated[dt.date | None, Field(description="Hotels: the check-out date")] = None,
    time_band: Literal["MORNING", "NOON", "AFTERNOON", "EVENING", "RED_EYE"] | None = None,
    avoid_time_band: Annotated[
        Literal["MORNING", "NOON", "AFTERNOON", "EVENING", "RED_EYE"] | None,
        Field(description="A time of day the traveller does not want to leave in (不要晚上的)"),
    ] = None,
    sort: Literal["CHEAPEST", "FASTEST", "EARLIEST", "LATEST"] | None = None,
    direct: bool | None = None,
    seat_class: Literal["ECONOMY", "SECOND", "FIRST", "BUSINESS", "SLEEPER", "HARD_SEAT"] | None = None,
    star: Annotated[int | None, Field(ge=1, le=5, description="Hotels: star level")] = None,
    star_or_above: Annotated[bool, Field(description="Hotels: this star level or above")] = False,
    vendor: Annotated[
        str | None, Field(max_length=40, description="Airline or hotel name (东航, 国航, 希尔顿)")
    ] = None,
    avoid_vendor: Annotated[
        str | None, Field(max_length=40, description="An airline or hotel the traveller does not want (不要东航的)")
    ] = None,
    number: Annotated[
        str | None, Field(max_length=12, description="A flight or train number the traveller named")
    ] = None,
    max_price: Annotated[Decimal | None, Field(gt=0, le=1_000_000, description="Per person, or per night")] = None,
    passengers: Annotated[int, Field(ge=1, le=9)] = 1,
) -> dict:
    """Search the supplier for flights, trains or hotels and rank them by what the traveller wants (time of day,
    cheapest/fastest/earliest/latest, direct, seat class, star level, airline or hotel name, flight or train
    number, price cap). Returns the best few options, each with a `ref` to book with book_option. When nothing
    matches every want, `matched` is false, `unmet` names the wants that could not be met and the options are the
    nearest ones. Books nothing."""
    wants = BookingWants(
        time_band=time_band,
        avoid_time_band=avoid_time_band,
        sort=sort,
        direct=direct,
        seat_class=seat_class,
        star=star,
        star_or_above=star_or_above,
        vendor=vendor,
        avoid_vendor=avoid_vendor,
        number=number,
        max_price=max_price,
    )
    try:
        found = booking_options(
            user=context.user,
            biz_type=biz_type,
            origin=origin,
            destination=destination,
            city=city,
            date=date,
            check_out=check_out,
            wants=wants,
            passengers=passengers,
        )
    except BookingError as exc:
        return fail(exc.code, exc.message, {"biz_type": biz_type, **(exc.data or {}), "kind": KIND_OPTIONS})
    message = f"{len(found['options'])} option(s)" + ("" if found["matched"] else "; none matches every want")
    return ok({"kind": KIND_OPTIONS, **found}, message)


def _book_preview(context: ToolContext, arguments: dict) -> dict:
    return booking_option_preview(
        user=context.user,
        option_ref=arguments["option_ref"],
        passengers=_passengers(arguments.get("passengers")),
        language=context.language,
    )


@tool(risk=Risk.WRITE, tags=("booking",), preview=_refusing_as(KIND_CREATED)(_book_preview))
def book_option(
    context: ToolContext,
    option_ref: Annotated[str, OPTION_REF],
    passengers: Annotated[
        list[Passenger],
        Field(max_length=9, description="Who travels or stays: name and mobile each (the first is the contact)"),
    ],
) -> dict:
    """Book one option that find_booking_options returned, for these passengers. The traveller is first shown a
    confirmation card with the supplier's facts (times, hotel and nights, passengers, total) and nothing is booked
    until they confirm. The booking is created pending payment."""
    try:
        booking = booking_create(
            user=context.user,
            option_ref=option_ref,
            passengers=_passengers(passengers),
            scope=context.scope,
        )
    except BookingError as exc:
        return exc.envelope(kind=KIND_CREATED, option_ref=option_ref)
    return ok({"kind": KIND_CREATED, **booking_summary(booking)}, f"booked {booking.booking_id}")


def _rebook_preview(context: ToolContext, arguments: dict) -> dict:
    return booking_rebook_preview(
        user=context.user,
        booking_id=arguments["booking_id"],
        option_ref=arguments["option_ref"],
        language=context.language,
    )


@tool(risk=Risk.WRITE, tags=("booking",), preview=_refusing_as(KIND_REBOOK)(_rebook_preview))
def rebook_booking(
    context: ToolContext,
    booking_id: Annotated[str, Field(max_length=32, description="The TripDesk booking to change, like BK2026…")],
    option_ref: Annotated[str, OPTION_REF],
) -> dict:
    """Change (改签) one of the traveller's flight or train bookings to another option from find_booking_options:
    after the traveller confirms, the new one is booked for the same passengers, then the old one is cancelled. If
    the old one cannot be cancelled, both stay and the answer says so."""
    try:
        outcome = booking_rebook(
            user=context.user,
            booking_id=booking_id,
            option_ref=option_ref,
            scope=context.scope,
        )
    except BookingError as exc:
        return _refused_about(exc, KIND_REBOOK, booking_id)
    data = {
        "kind": KIND_REBOOK,
        "new": booking_summary(outcome.new),
        "old": booking_summary(outcome.old),
        "old_cancelled": outcome.old_cancelled,
        "cancel_error": outcome.cancel_error,
        "cancel_code": outcome.cancel_code,
        "money": outcome.money,
    }
    message = "rebooked" if outcome.old_cancelled else "new booking made; the old one is not cancelled"
    return ok(data, message)


def _pay_preview(context: ToolContext, arguments: dict) -> dict:
    return booking_pay_preview(user=context.user, booking_id=arguments["booking_id"], language=context.language)


@tool(risk=Risk.WRITE, tags=("booking",), preview=_refusing_as(KIND_PAY)(_pay_preview))
def pay_booking(
    context: ToolContext,
    booking_id: Annotated[str, Field(max_length=32, description="TripDesk booking id, like BK20261201001")],
) -> dict:
    """Pay one of the traveller's bookings that waits for payment (待支付), before its payment deadline. Nothing is
    paid before the traveller confirms the card this call shows (the exact amount). Pays once however often it is
    asked; the booking is then CONFIRMED. A booking past its deadline is expired and cannot be paid."""
    try:
        outcome = booking_pay(user=context.user, booking_id=booking_id)
    except BookingError as exc:
        return _refused_about(exc, KIND_PAY, booking_id)
    data = booking_summary(outcome.booking) | {"kind": KIND_PAY, "already_paid": outcome.already_paid}
    return ok(data, "paid already" if outcome.already_paid else "paid")


BookingStatusName = Literal["PENDING_PAYMENT", "CONFIRMED", "CANCELLED", "EXPIRED"]


@tool(risk=Risk.READ, tags=("booking",))
def list_my_bookings(
    context: ToolContext,
    biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"] | None = None,
    status: BookingStatusName | None = None,
) -> dict:
    """List the traveller's own bookings, newest first, optionally of one type or status, as last recorded."""
    bookings = bookings_for_user(user=context.user, biz_type=biz_type, status=status)[:MAX_LISTED]
    return ok({"kind": KIND_BOOKINGS, "bookings": [booking_summary(b) for b in bookings]})


@tool(risk=Risk.READ, tags=("booking",))
def check_my_bookings(
    context: ToolContext,
    biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"] | None = None,
    booking_id: Annotated[str | None, Field(max_length=32, description="One booking, like BK20261201001")] = None,
) -> dict:
    """The traveller's bookings as they stand on the supplier now (paid, waiting for payment and until when,
    expired, cancelled by the supplier, schedule changed), those still to travel on first: asks the supplier first and
    records what changed. For questions like "我的订单付款了吗", "my booking status" or "what have I booked". Changes
    nothing the traveller did."""
    report = bookings_refresh_for_user(user=context.user)
    bookings = bookings_active_first(user=context.user, biz_type=biz_type)
    asked = normalise_booking_id(booking_id) if booking_id else None
    if booking_id and not asked:
        return fail(Code.INVALID_PARAM, "that is not a booking id (like BK20261201001)", {"kind": KIND_BOOKINGS})
    if asked:
        bookings = bookings.filter(booking_id=asked)
    data = {
        "kind": KIND_BOOKINGS,
        "bookings": [booking_summary(b) for b in bookings[:MAX_LISTED]],
        "checked": True,
        "supplier_answered": report is None or report.ok,
    }
    return ok(data)


@tool(risk=Risk.READ)
def describe_options(
    context: ToolContext,
    option_refs: Annotated[list[Annotated[str, OPTION_REF]], Field(min_length=1, max_length=10)],
    facts: Annotated[
        list[Literal["PRICE", "DURATION", "DEPARTURE", "ARRIVAL", "VENDOR", "SEAT_CLASS", "DIRECT", "STAR"]],
        Field(max_length=8, description="What the traveller asks of them (empty: everything)"),
    ] = [],  # noqa: B006 (a schema default, never mutated)
    order: Annotated[
        Literal["CHEAPEST", "FASTEST", "EARLIEST", "LATEST"] | None,
        Field(description="The traveller asks which of them comes first in this order (哪个最便宜 / which is fastest)"),
    ] = None,
) -> dict:
    """Answer a question about options already on screen ("第一个多少钱？", "is the second one direct?", "which is
    the cheapest?"): pass the refs of the options asked about (all of them for a "which" question) and what is
    asked. Every fact is read again from the supplier. Books nothing and changes no choice."""
    try:
        options = options_described(user=context.user, option_refs=list(option_refs))
    except BookingError as exc:
        return exc.envelope(kind=KIND_DESCRIBED)
    first = first_in_order(options, order) if order else None
    data = {"kind": KIND_DESCRIBED, "options": options, "facts": list(facts), "order": order}
    data["first"] = first["ref"] if first else None
    return ok(data, f"{len(options)} option(s) described")


TOOLS = [
    find_booking_options,
    describe_options,
    book_option,
    rebook_booking,
    execute_platform_command,
    cancel_booking,
    pay_booking,
    list_my_bookings,
    check_my_bookings,
]
HOOKS = [BookingPersistenceHook()]

# The names the booking flows call these tools by (channel 1's handlers, the offline provider's channel 2).
OPTIONS_TOOL = find_booking_options.name
DESCRIBE_TOOL = describe_options.name
BOOK_TOOL = book_option.name
REBOOK_TOOL = rebook_booking.name
CANCEL_TOOL = cancel_booking.name
PAY_TOOL = pay_booking.name
LIST_BOOKINGS_TOOL = list_my_bookings.name
