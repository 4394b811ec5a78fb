"""The deterministic tool-calling policy of the `rules` adapter (channel 2, `RulesLLM.chat`).

It reads the conversation the agent loop sends, decides the next tool call or the end, and answers in the same
shape as a model would (`ChatResult` with `tool_calls`), so the loop, the hooks and the audit are the same whichever
adapter runs. Each turn it starts again from the messages: what was understood, and which tool results are already
there (only those after the last user message count: they belong to this request).

What was understood comes from the first system message when the dispatcher put it there:

    <the skill document>
    UNDERSTOOD: {"intent": "BOOK", "biz_type": "FLIGHT", "origin": "上海", ...}
    TODAY: 2026-12-01

otherwise the engine understands the last user message itself (today: the TODAY line, else the system date). The
contact (name and mobile) and the preferences (cheapest, earliest, fastest, a flight or train number, a seat, a hotel
star level) are read from the user's own words.

One flow per intent, with the arguments channel 1's handlers pass for the same intent (so both channels show the
same cards; dates as YYYY-MM-DD, empty values left out):
- SEARCH_ACTIVITIES → `search_activities(keywords, province/city when there are no keywords, dates, max_price)`;
  RECOMMEND → `recommend_activities(dates)`.
- QUERY_WEATHER → `weather_report(place, city, dates)`; MAKE_TRAVEL_PLAN → `make_travel_plan(destination, keywords,
  city/province when there are no keywords, days, dates, max_price)` (the place: the first destination keyword,
  else the city, else the province; the weather's `city` goes with a keyword).
- PLAN_ITINERARY → `compare_round_trip(origin, destination, depart_date, return_date, max_price)`.
- BOOK: `execute_platform_command` search → choose from the result → saveOrder (the fields of
  bookings/skills/booking.md) → the end. Missing facts, an empty or failed search, or no match → the end, no order.
- CANCEL_BOOKING: `cancel_booking` with the booking id; without one, `list_my_bookings` and cancel the only active
  booking of the asked type, if there is exactly one.
- AFTERSALE → `request_aftersale(order_id, action)`; QUERY_PROGRESS → `query_progress(order_id)`.
- OUT_OF_SCOPE, or a fact the flow cannot work without (a place, a route, an order id) → the end, no call.

A request in two parts ("帮我规划三天丽江行程，顺便查天气": the intent's `also`) runs the flow of each part in turn,
one tool call per answer; a part whose envelope failed is over, and the next part still runs (as in channel 1).

The closing `content` is a short English summary for the audit: callers compose the user's reply from the tool
envelopes and their own templates, never from this text. No tool is called twice with the same arguments in one
request, and only offered tools are called.
"""

import json
import logging
import re
import shlex
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any, Protocol

from pydantic import ValidationError

from assistant.llm.messages import ChatResult, ToolCall
from assistant.llm.port import LLMError, UnderstandContext, Understanding, Usage
from assistant.llm.rules import dates as dates_mod
from assistant.llm.rules.ids import PHONE_RE
from assistant.llm.rules.numbers import cn_to_int
from assistant.llm.rules.text import normalise
from assistant.llm.schema import Intent
from assistant.llm.tool_calls import missing_for, tool_call_for
from core.ids import normalise_booking_id

logger = logging.getLogger(__name__)

PLATFORM_TOOL = "execute_platform_command"
CANCEL_TOOL = "cancel_booking"
LIST_BOOKINGS_TOOL = "list_my_bookings"
PLATFORM_KIND = "platform"  # the kind of the platform tool's envelope, whose data holds the supplier's `answer`
# The program name of the command grammar in bookings/skills/booking.md.
PLATFORM_CLI = "supplier"

UNDERSTOOD_RE = re.compile(r"^\s*UNDERSTOOD:\s*(\{.*\})\s*$", re.M)
TODAY_RE = re.compile(r"^\s*TODAY:\s*(\d{4}-\d{2}-\d{2})\s*$", re.M)

PRODUCTS = {"FLIGHT": "flight", "HOTEL": "hotel", "TRAIN": "train"}
RESULT_KEYS = {"FLIGHT": "flights", "HOTEL": "hotels", "TRAIN": "trains"}
NUMBER_KEYS = {"FLIGHT": "flightNo", "TRAIN": "trainNo"}
ORDER_NUMBER_KEYS = ("orderId", "orderNo", "mainOrderNo")
DEFAULT_SEAT = "二等座"
INACTIVE_BOOKING_STATUSES = {"CANCELLED", "CANCELED", "FAILED", "REFUNDED", "EXPIRED", "COMPLETED", "CLOSED"}


class Understander(Protocol):
    def understand(self, text: str, *, context: UnderstandContext | None = None) -> Understanding: ...


# -- the answer --------------------------------------------------------------------------------------------------


def next_turn(engine: Understander, messages: list[dict], tools: list[dict]) -> ChatResult:
    """The next step for this conversation: one tool call, or the end (content only). Raises LLMError on a bug."""
    started = time.perf_counter()
    try:
        turn = read_turn(engine, messages, tools)
        decision = decide(turn)
    except Exception:
        logger.exception("rules policy failed on a conversation")
        raise LLMError("ERROR", "the rules policy could not decide", Usage(latency_ms=_ms(started))) from None
    usage = Usage(latency_ms=_ms(started))
    if isinstance(decision, End):
        return ChatResult(content=decision.text, tool_calls=[], usage=usage, finish_reason="stop")
    raw = json.dumps(decision.arguments, ensure_ascii=False)
    call = ToolCall(
        id=f"rules_call_{turn.calls_so_far + 1}", name=decision.name, arguments=decision.arguments, raw_arguments=raw
    )
    return ChatResult(content=None, tool_calls=[call], usage=usage, finish_reason="tool_calls")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class End:
    text: str


Decision = Call | End


# -- reading the conversation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Done:
    """A tool call of this request and the envelope that answered it (None when nothing answered)."""

    name: str
    arguments: dict[str, Any]
    envelope: dict | None

    @property
    def ok(self) -> bool:
        return isinstance(self.envelope, dict) and self.envelope.get("ok") is True

    @property
    def data(self) -> Any:
        """The envelope's data; for the platform tool, the supplier's own answer inside it."""
        if not isinstance(self.envelope, dict):
            return None
        data = self.envelope.get("data")
        if isinstance(data, dict) and "answer" in data and data.get("kind") == PLATFORM_KIND:
            data = data["answer"]
        return _payload(data)


@dataclass(frozen=True)
class Turn:
    intent: Intent
    user_texts: tuple[str, ...]  # normalised, newest first
    today: date
    done: tuple[Done, ...]
    offered: dict[str, dict]  # tool name → its parameters schema
    calls_so_far: int

    def already_called(self, name: str, arguments: dict) -> bool:
        return any(d.name == name and _same(d.arguments, arguments) for d in self.done)

    def platform_calls(self, product: str, action: str) -> list[Done]:
        return [d for d in self.done if d.name == PLATFORM_TOOL and parse_command(d.arguments) == (product, action)]

    def calls(self, name: str) -> list[Done]:
        return [d for d in self.done if d.name == name]

    def find(self, pattern: re.Pattern) -> re.Match | None:
        """The pattern in the newest user message that has it."""
        for text in self.user_texts:
            match = pattern.search(text)
            if match:
                return match
        return None


def read_turn(engine: Understander, messages: list[dict], tools: list[dict]) -> Turn:
    system = next((m for m in messages if m.get("role") == "system"), None)
    system_text = _text(system.get("content")) if system else ""
    today_match = TODAY_RE.search(system_text)
    today = date.fromisoformat(today_match.group(1)) if today_match else date.today()

    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user_texts = tuple(
        normalise(_text(m.get("content"))) for m in reversed(messages[: last_user + 1]) if m.get("role") == "user"
    )
    intent = _understood(system_text)
    if intent is None:
        text = user_texts[0] if user_texts else ""
        intent = engine.understand(text, context=UnderstandContext(today=today)).intent

    calls: dict[str, tuple[str, dict]] = {}
    answers: dict[str, dict | None] = {}
    order: list[str] = []
    calls_so_far = 0
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            for raw in message.get("tool_calls") or []:
                calls_so_far += 1
                if index > last_user:
                    call_id, name, arguments = _tool_call(raw)
                    calls[call_id] = (name, arguments)
                    order.append(call_id)
        elif role == "tool" and index > last_user:
            answers[str(message.get("tool_call_id"))] = _envelope(message.get("content"))
    done = tuple(Done(name=calls[i][0], arguments=calls[i][1], envelope=answers.get(i)) for i in order)
    offered = {}
    for schema in tools or []:
        function = schema.get("function") if isinstance(schema, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            offered[function["name"]] = function.get("parameters") or {}
    return Turn(
        intent=intent, user_texts=user_texts, today=today, done=done, offered=offered, calls_so_far=calls_so_far
    )


def _understood(system_text: str) -> Intent | None:
    match = UNDERSTOOD_RE.search(system_text)
    if not match:
        return None
    try:
        data = json.loads(match.group(1))
        if isinstance(data, dict) and isinstance(data.get("intent"), str):
            data["intent"] = data["intent"].strip().upper()
        return Intent.model_validate(data)
    except (ValueError, ValidationError):
        logger.warning("the UNDERSTOOD line of the system message is not a valid intent; understanding the text")
        return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _tool_call(raw: Any) -> tuple[str, str, dict]:
    raw = raw if isinstance(raw, dict) else {}
    function = raw.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    return str(raw.get("id")), str(function.get("name") or ""), arguments if isinstance(arguments, dict) else {}


def _envelope(content: Any) -> dict | None:
    if isinstance(content, dict):
        return content
    try:
        value = json.loads(_text(content))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# -- deciding -----------------------------------------------------------------------------------------------------


def decide(turn: Turn) -> Decision:
    """The next call of the first part of the request that still has one; else the end, summing up every part."""
    notes = []
    for name in (turn.intent.intent, *turn.intent.also):
        flow = FLOWS.get(name)
        if flow is None:
            notes.append(f"No tool fits the intent {name}.")
            continue
        part = (
            turn
            if name == turn.intent.intent
            else replace(turn, intent=turn.intent.model_copy(update={"intent": name}))
        )
        decision = flow(part)
        if isinstance(decision, Call) and turn.already_called(decision.name, decision.arguments):
            decision = End(f"Stopped: {decision.name} was already called with these arguments.")
        if isinstance(decision, Call):
            return decision
        notes.append(decision.text)
    return End(" ".join(notes))


def _not_offered(name: str) -> End:
    return End(f"The {name} tool is not available here.")


# BOOK


def _book(turn: Turn) -> Decision:
    intent = turn.intent
    biz = intent.biz_type
    if biz is None:
        return End("Missing: what to book (flight, hotel or train).")
    if PLATFORM_TOOL not in turn.offered:
        return _not_offered(PLATFORM_TOOL)
    product = PRODUCTS[biz]
    saved = turn.platform_calls(product, "saveOrder")
    if saved:  # one booking per request
        return End(_order_summary(product, saved[-1]))

    contact = find_contact(turn.user_texts)
    facts = _booking_facts(turn)
    missing = list(facts.missing)
    if not contact.name:
        missing.append("name")
    if not contact.mobile:
        missing.append("mobile")
    if missing:
        return End(f"Missing: {', '.join(missing)}.")

    searches = turn.platform_calls(product, "search")
    if not searches:
        return Call(PLATFORM_TOOL, {"command": platform_command(product, "search", facts.search)})
    search = searches[-1]
    if not search.ok or _supplier_failed(search.data):
        return End(f"The {product} search failed: {_reason(search)}. Nothing was booked.")
    items = _items(search.data, RESULT_KEYS[biz])
    if not items:
        return End(f"The {product} search found nothing for {facts.describe}. Nothing was booked.")
    choice = choose(biz, items, turn)
    if isinstance(choice, End):
        return choice
    order = _order_arguments(biz, choice, facts, contact)
    return Call(PLATFORM_TOOL, {"command": platform_command(product, "saveOrder", order)})


@dataclass(frozen=True)
class BookingFacts:
    search: dict[str, Any]
    date: str | None
    check_out: str | None
    describe: str
    missing: tuple[str, ...]


def _booking_facts(turn: Turn) -> BookingFacts:
    intent = turn.intent
    start = intent.date_start
    missing: list[str] = []
    if intent.biz_type == "HOTEL":
        city = intent.city or next(iter(intent.destination_keywords), None)
        if not city:
            missing.append("city")
        if start is None or start < turn.today:
            missing.append("check-in date")
            return BookingFacts({}, None, None, "", tuple(missing))
        check_out = _check_out(start, intent.date_end, turn)
        search = {"city": city, "checkInDate": start.isoformat(), "checkOutDate": check_out.isoformat()}
        return BookingFacts(
            search, start.isoformat(), check_out.isoformat(), f"{city} {start}–{check_out}", tuple(missing)
        )
    origin = intent.origin
    destination = intent.city or next((k for k in intent.destination_keywords if k != origin), None)
    if not origin or not destination or origin == destination:
        missing.append("route")
    if start is None or start < turn.today:
        missing.append("date")
    if missing:
        return BookingFacts({}, None, None, "", tuple(missing))
    search = {"from": origin, "to": destination, "date": start.isoformat()}
    return BookingFacts(search, start.isoformat(), None, f"{origin}–{destination} on {start}", ())


def _check_out(start: date, end: date | None, turn: Turn) -> date:
    """The check-out day: the understood end, else check-in + the nights the user said, else one night."""
    if end is not None and end > start:
        return end
    for text in turn.user_texts:
        nights = dates_mod._nights(text)
        if nights:
            return start + timedelta(days=nights)
    return start + timedelta(days=1)


def _order_arguments(biz: str, choice: "Choice", facts: BookingFacts, contact: "Contact") -> dict[str, Any]:
    person = {"name": contact.name, "mobile": contact.mobile}
    item = choice.item
    if biz == "FLIGHT":
        return {"flightNo": item.get("flightNo"), "date": facts.date, "contactTourist": person}
    if biz == "TRAIN":
        seat = choice.seat or {}
        return {
            "trainNo": item.get("trainNo"),
            "date": facts.date,
            "resources": [{"seatType": seat.get("seatType"), "adultPrice": seat.get("price"), "passengers": [person]}],
            "contact": dict(person),
        }
    return {
        "hotelId": item.get("hotelId"),
        "checkInDate": facts.date,
        "checkOutDate": facts.check_out,
        "guests": [person],
    }


def _order_summary(product: str, saved: Done) -> str:
    if not saved.ok or _supplier_failed(saved.data):
        return f"The {product} order was not placed: {_reason(saved)}."
    data = saved.data if isinstance(saved.data, dict) else {}
    inner = data.get("data") if isinstance(data.get("data"), dict) else {}
    number = next((str(d[k]) for d in (data, inner) for k in ORDER_NUMBER_KEYS if d.get(k)), "unknown")
    total = data.get("totalPrice", inner.get("totalPrice"))
    price = f", total {total}" if total is not None else ""
    return f"The {product} order {number} was placed{price}; it is pending payment."


# choosing from a search result

PREF_NUMBER_RE = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9]\s?\d{3,4}|[GDCZTKYLgdcztkyl]\d{1,5})(?![A-Za-z0-9])")
PREF_EARLIEST_RE = re.compile(r"最早|早一点|早点|越早越好|\b(?:earliest|first (?:flight|train)|as early as)\b", re.I)
PREF_LATEST_RE = re.compile(r"最晚|晚一点|越晚越好|\b(?:latest|last (?:flight|train))\b", re.I)
PREF_FASTEST_RE = re.compile(r"最快|用时最短|时间最短|耗时最短|最短|\b(?:fastest|quickest|shortest)\b", re.I)
SEATS = (
    ("商务座", re.compile(r"商务座|\bbusiness(?: class| seat)\b", re.I)),
    ("一等座", re.compile(r"一等座|\b(?:first|1st)[ -]class\b", re.I)),
    ("二等座", re.compile(r"二等座|\b(?:second|2nd|standard)[ -]class\b", re.I)),
    ("软卧", re.compile(r"软卧|\bsoft sleeper\b", re.I)),
    ("硬卧", re.compile(r"硬卧|\bhard sleeper\b", re.I)),
    ("硬座", re.compile(r"硬座|\bhard seat\b", re.I)),
)
STAR_ZH_RE = re.compile(r"(?P<n>[一二三四五1-5])\s*星(?:级)?(?P<up>\s*(?:及以上|或以上|以上))?")
STAR_EN_RE = re.compile(
    r"\b(?P<n>[1-5]|one|two|three|four|five)[ -]?stars?\b(?P<up>\s*(?:or above|and above|or more|\+))?", re.I
)
EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


@dataclass(frozen=True)
class Choice:
    item: dict
    seat: dict | None = None


def choose(biz: str, items: list[dict], turn: Turn) -> "Choice | End":
    """The item the traveller asked for: a given number, a seat, a star level; then earliest, latest, fastest or
    (by default) the cheapest. Ties go to the supplier's order."""
    candidates = [Choice(item) for item in items if _available(item)]
    number_key = NUMBER_KEYS.get(biz)
    if number_key:
        wanted = _wanted_number(turn, {_code(i.get(number_key)) for i in items})
        if wanted:
            candidates = [c for c in candidates if _code(c.item.get(number_key)) == wanted]
            if not candidates:
                return End(f"{wanted} is not among the results (or is sold out). Nothing was booked.")
    if biz == "TRAIN":
        seat_type = next((name for name, pattern in SEATS if turn.find(pattern)), DEFAULT_SEAT)
        candidates = [Choice(c.item, seat) for c in candidates if (seat := _seat(c.item, seat_type))]
        if not candidates:
            return End(f"No train in the results has {seat_type} seats left. Nothing was booked.")
    if biz == "HOTEL":
        star = _wanted_star(turn)
        if star:
            level, or_above = star
            candidates = [c for c in candidates if _star_ok(c.item.get("star"), level, or_above)]
            if not candidates:
                return End(f"No {level}-star hotel in the results. Nothing was booked.")
    if not candidates:
        return End("Everything in the results is sold out. Nothing was booked.")

    if biz != "HOTEL" and turn.find(PREF_EARLIEST_RE):
        return min(candidates, key=lambda c: str(c.item.get("departTime") or "~"))
    if biz != "HOTEL" and turn.find(PREF_LATEST_RE):
        return max(reversed(candidates), key=lambda c: str(c.item.get("departTime") or ""))
    if biz != "HOTEL" and turn.find(PREF_FASTEST_RE):
        return min(candidates, key=lambda c: _number(c.item.get("durationMinutes")))
    return min(candidates, key=lambda c: _price(biz, c))


def _wanted_number(turn: Turn, numbers_in_results: set[str]) -> str | None:
    """A flight or train number the traveller named (upper-cased, no spaces)."""
    for text in turn.user_texts:
        for match in PREF_NUMBER_RE.finditer(text):
            code = _code(match.group(1))
            # "mu5101" counts when the search found it; an unknown number counts only when written as one ("MU5101").
            if code in numbers_in_results or match.group(1)[:2].isupper():
                return code
    return None


def _wanted_star(turn: Turn) -> tuple[int, bool] | None:
    for text in turn.user_texts:
        match = STAR_ZH_RE.search(text) or STAR_EN_RE.search(text)
        if match:
            raw = match.group("n").lower()
            level = EN_NUMBERS.get(raw) or (int(raw) if raw.isdigit() else cn_to_int(raw))
            if level:
                return level, bool(match.group("up"))
    return None


def _star_ok(value: Any, level: int, or_above: bool) -> bool:
    star = _number(value)
    return star >= level if or_above else star == level


def _seat(item: dict, seat_type: str) -> dict | None:
    for seat in item.get("seats") or []:
        if isinstance(seat, dict) and seat.get("seatType") == seat_type and _available(seat):
            return seat
    return None


def _available(item: dict) -> bool:
    if item.get("soldOut") is True or item.get("available") is False:
        return False
    left = item.get("remaining", item.get("seatsLeft"))
    return not (isinstance(left, int | float) and left <= 0)


def _price(biz: str, choice: Choice) -> float:
    if biz == "TRAIN":
        return _number((choice.seat or {}).get("price"))
    if biz == "HOTEL":
        total = _number(choice.item.get("totalPrice"))
        return total if total != float("inf") else _number(choice.item.get("pricePerNight"))
    return _number(choice.item.get("price"))


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return float("inf")
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


def _code(value: Any) -> str:
    return re.sub(r"\s+", "", str(value or "")).upper()


# CANCEL_BOOKING


def _cancel(turn: Turn) -> Decision:
    intent = turn.intent
    if CANCEL_TOOL not in turn.offered:
        return _not_offered(CANCEL_TOOL)
    cancelled = turn.calls(CANCEL_TOOL)
    if cancelled:
        last = cancelled[-1]
        booking_id = last.arguments.get("booking_id")
        if last.ok:
            data = last.data if isinstance(last.data, dict) else {}
            done = "was already cancelled" if data.get("already_cancelled") else "was cancelled"
            hotel = "; the traveller must call the hotel" if data.get("call_the_hotel") else ""
            return End(f"Booking {booking_id} {done}{hotel}.")
        return End(f"Booking {booking_id} was not cancelled: {_reason(last)}.")
    if intent.booking_id:
        return Call(CANCEL_TOOL, {"booking_id": intent.booking_id})
    if intent.biz_type is None:
        return End("Missing: booking id.")
    if LIST_BOOKINGS_TOOL not in turn.offered:
        return _not_offered(LIST_BOOKINGS_TOOL)
    listed = turn.calls(LIST_BOOKINGS_TOOL)
    if not listed:
        properties = turn.offered[LIST_BOOKINGS_TOOL].get("properties") or {}
        arguments = {"biz_type": intent.biz_type} if "biz_type" in properties else {}
        return Call(LIST_BOOKINGS_TOOL, arguments)
    if not listed[-1].ok:
        return End(f"Your bookings could not be listed: {_reason(listed[-1])}.")
    bookings = _items(listed[-1].data, "bookings")
    active = [
        booking_id
        for b in bookings
        if _booking_type(b) in (None, intent.biz_type)
        and str(b.get("status") or "").upper() not in INACTIVE_BOOKING_STATUSES
        and (booking_id := normalise_booking_id(b.get("booking_id") or b.get("bookingId") or b.get("id")))
    ]
    product = PRODUCTS[intent.biz_type]
    if len(active) == 1:
        return Call(CANCEL_TOOL, {"booking_id": active[0]})
    if not active:
        return End(f"There is no active {product} booking to cancel.")
    return End(
        f"There are {len(active)} active {product} bookings ({', '.join(active)}): which one? Missing: booking id."
    )


def _booking_type(booking: dict) -> str | None:
    value = booking.get("biz_type") or booking.get("bizType")
    return str(value).upper() if value else None


# SEARCH_ACTIVITIES, RECOMMEND, QUERY_WEATHER, MAKE_TRAVEL_PLAN, PLAN_ITINERARY, AFTERSALE, QUERY_PROGRESS


def _mapped(turn: Turn) -> Decision:
    """The call `assistant.llm.tool_calls` maps the intent to, exactly as channel 1's handler makes it; a missing slot
    ends this part (channel 1 would ask for it)."""
    call = tool_call_for(turn.intent)
    if call is None:
        return End(f"Missing: {missing_for(turn.intent)}.")
    return _once(turn, call.name, **call.arguments)


def _once(turn: Turn, name: str, **arguments: Any) -> Decision:
    """Call `name` once with the given arguments (empty ones left out, dates as YYYY-MM-DD); once it answered, this
    part is over."""
    if name not in turn.offered:
        return _not_offered(name)
    done = turn.calls(name)
    if done:
        return End(_answered(done[-1]))
    properties = turn.offered[name].get("properties")
    call = {
        key: value.isoformat() if isinstance(value, date) else value
        for key, value in arguments.items()
        if value not in (None, [], "") and (not isinstance(properties, dict) or key in properties)
    }
    return Call(name, call)


def _answered(done: Done) -> str:
    if not done.ok:
        return f"{done.name} failed: {_reason(done)}."
    data = done.data if isinstance(done.data, dict) else {}
    items = _items(data, "activities") or _items(data, "tickets") or _items(data, "days")
    return f"{done.name} answered ({data.get('kind') or 'no kind'}, {len(items)} item(s))."


# Every other intent is one tool call, mapped as channel 1 maps it.
MAPPED = (
    "SEARCH_ACTIVITIES",
    "RECOMMEND",
    "QUERY_WEATHER",
    "MAKE_TRAVEL_PLAN",
    "PLAN_ITINERARY",
    "AFTERSALE",
    "QUERY_PROGRESS",
)
FLOWS = {"BOOK": _book, "CANCEL_BOOKING": _cancel, **dict.fromkeys(MAPPED, _mapped)}


# -- the supplier's answers --------------------------------------------------------------------------------------


def platform_command(product: str, action: str, arguments: dict[str, Any]) -> str:
    """`supplier call <product> <action> -a '<json>'`, quoted so that the tool's argv split gives the JSON back."""
    return f"{PLATFORM_CLI} call {product} {action} -a {shlex.quote(json.dumps(arguments, ensure_ascii=False))}"


def parse_command(arguments: dict) -> tuple[str, str] | None:
    """(product, action) of an execute_platform_command call, or None."""
    command = arguments.get("command")
    if not isinstance(command, str):
        return None
    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    if "call" not in parts:
        return None
    at = parts.index("call")
    if len(parts) < at + 3:
        return None
    return parts[at + 1].lower(), parts[at + 2]


def _payload(value: Any) -> Any:
    """The supplier's JSON whatever its wrapping: a JSON string, MCP `content` text parts."""
    for _ in range(4):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return value
            continue
        if isinstance(value, dict) and isinstance(value.get("content"), list):
            texts = [p.get("text") for p in value["content"] if isinstance(p, dict) and isinstance(p.get("text"), str)]
            if texts:
                value = texts[0]
                continue
        return value
    return value


def _items(data: Any, key: str) -> list[dict]:
    """The list under `key` (or under data.`key`, result.`key`); a bare list is the list."""
    data = _payload(data)
    if isinstance(data, list):
        return [i for i in data if isinstance(i, dict)]
    if not isinstance(data, dict):
        return []
    for holder in (data, _payload(data.get("data")), _payload(data.get("result"))):
        if isinstance(holder, dict) and isinstance(holder.get(key), list):
            return [i for i in holder[key] if isinstance(i, dict)]
        if holder is not data and isinstance(holder, list):
            return [i for i in holder if isinstance(i, dict)]
    return []


def _supplier_failed(data: Any) -> bool:
    return isinstance(data, dict) and data.get("success") is False


def _reason(done: Done) -> str:
    envelope = done.envelope or {}
    data = done.data
    if isinstance(data, dict) and data.get("success") is False:
        return f"{data.get('errorCode') or 'ERROR'} {data.get('errorMessage') or ''}".strip()
    if not envelope:
        return "no answer"
    return f"{envelope.get('code')} {envelope.get('message') or ''}".strip()


# -- the contact ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Contact:
    name: str | None
    mobile: str | None


_ZH_LABEL_RE = re.compile(r"乘机人|乘车人|乘客|旅客|入住人|住客|联系人|姓名|名字")
_ZH_NAME_RE = re.compile(r"\s*(?:[:：]|是|为|叫)?\s*(?P<name>[\u4e00-\u9fff·]{2,5})")
_ZH_NAME_STOP_RE = re.compile(r"电话|手机|号码|联系|的|和|及|先生|女士|订|预订|入住|坐|乘")
_EN_LABEL_RE = re.compile(
    r"\b(?:passengers?|guests?|travell?ers?|contact|name)\b\s*(?:[:：]|is\b|=)?\s*"
    r"(?P<name>[A-Za-z][A-Za-z.\-]*(?:\s+[A-Za-z][A-Za-z.\-]*){0,2})",
    re.I,
)
_EN_FOR_RE = re.compile(r"\bfor\s+(?P<name>[A-Z][A-Za-z.\-]*(?:\s+[A-Z][A-Za-z.\-]*){0,2})")
_EN_STOP_WORDS = {
    "mobile", "phone", "tel", "telephone", "cell", "number", "no", "and", "with", "on", "from", "to", "at", "in",
    "is", "the", "a", "please", "thanks", "thank", "contact", "name", "by", "via", "his", "her", "my",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
    "tonight", "next", "this", "me", "us", "two", "one", "nights", "night", "people", "adults", "house", "houses",
    "room", "rooms", "hotel", "flight", "flights", "train", "trains", "ticket", "tickets", "seat", "seats",
}  # fmt: skip
# A bare "张三 13800000000" (the answer to "who is travelling?"): a short name right before the mobile.
_ZH_BESIDE_MOBILE_RE = re.compile(
    r"(?:^|[\s,，:：;；])(?P<name>[\u4e00-\u9fff·]{2,4})\s*[,，]?\s*(?:手机号?|电话)?\s*[:：]?\s*(?=(?:\+?86)?1[3-9])"
)
_NOT_NAMES = re.compile(
    r"机票|航班|酒店|高铁|火车|动车|车票|电话|手机|联系|乘客|乘机|入住|订票|预订|帮我|谢谢|号码|客栈"
)


def find_contact(user_texts: Iterable[str]) -> Contact:
    """The traveller's name and mobile from the newest user message that gives each."""
    name = mobile = None
    for text in user_texts:
        if mobile is None:
            match = PHONE_RE.search(text)
            if match:
                digits = re.sub(r"\D", "", match.group())
                mobile = digits[-11:]
        if name is None:
            name = _name(text)
        if name and mobile:
            break
    return Contact(name=name, mobile=mobile)


def _name(text: str) -> str | None:
    for label in _ZH_LABEL_RE.finditer(text):
        match = _ZH_NAME_RE.match(text, label.end())
        if not match:
            continue
        raw = match.group("name")
        stop = _ZH_NAME_STOP_RE.search(raw)
        raw = raw[: stop.start()] if stop else raw[:4]
        if 2 <= len(raw) <= 4:
            return raw
    for pattern in (_EN_LABEL_RE, _EN_FOR_RE):
        for match in pattern.finditer(text):
            words = []
            for word in match.group("name").split():
                if word.lower().strip(".") in _EN_STOP_WORDS:
                    break
                words.append(word)
            if words:
                return " ".join(w.capitalize() if w.islower() else w for w in words)
    match = _ZH_BESIDE_MOBILE_RE.search(text)
    if match and not _NOT_NAMES.search(match.group("name")):
        return match.group("name")
    return None


# -- small helpers -------------------------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, ensure_ascii=False, default=str) == json.dumps(
        b, sort_keys=True, ensure_ascii=False, default=str
    )


def _ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))
