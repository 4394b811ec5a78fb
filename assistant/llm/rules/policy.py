"""The deterministic tool-calling policy of the `rules` adapter (channel 2, `RulesLLM.chat`).

It reads the conversation the agent loop sends, decides the next tool call or the end, and answers in the same
shape as a model would (`ChatResult` with `tool_calls`), so the loop, the hooks and the audit are the same whichever
adapter runs. Each turn it starts again from the messages: what was understood, and which tool results are already
there (only those after the last user message count: they belong to this request).

What was understood comes from the code's own state, handed over out of band (`ChatState`, never the prompt): the
dialogue's reading of the turn and the option refs the previous reply offered. Without it the engine understands the
last user message itself (today: the TODAY line of the system message, else the system date). The passengers are
the understood ones, else the contact (name and mobile) read from the user's own words.

One flow per intent, with the arguments channel 1's handlers pass for the same intent (so both channels show the
same cards; dates as YYYY-MM-DD, empty values left out):
- SEARCH_ACTIVITIES → `search_activities(keywords, province/city when there are no keywords, dates, max_price)`;
  RECOMMEND → `recommend_activities(dates)`.
- QUERY_WEATHER → `weather_report(place, city, dates)`; MAKE_TRAVEL_PLAN → `make_travel_plan(destination, keywords,
  city/province when there are no keywords, days, dates, max_price)` (the place: the first destination keyword,
  else the city, else the province; the weather's `city` goes with a keyword).
- PLAN_ITINERARY → `compare_round_trip(origin, destination, depart_date, return_date, max_price)`.
- BOOK: `find_booking_options` (route or city and stay, date, the preference slots: `booking_search`) → the option
  picked (`pick`, among the refs on screen; or the one kept alone on screen while the contact was asked), else the
  best one when it matched → `book_option(option_ref, passengers)`, which only prepares
  the booking: it waits for the traveller's confirmation (with the contact incomplete the tool refuses, naming what
  is missing). No match or a failed search → the end, with the options shown and nothing prepared. Which option is best is `bookings.options`' rule, never this policy's.
- BOOK with `rebook`: `list_my_bookings` → the booking to change (`booking_target`) → `find_booking_options` on the
  new date for its route → `rebook_booking(booking_id, option_ref)`, again waiting for the confirmation.
- BOOK with `pay`: `pay_booking` with the booking id (it asks for the confirmation); without one,
  `list_my_bookings(status=PENDING_PAYMENT)` and pay the only booking waiting for payment (of the asked type, on the
  named day), if there is exactly one (`payment_target`).
- CANCEL_BOOKING: `cancel_booking` with the booking id (it asks for the confirmation); without one,
  `list_my_bookings` and cancel the only active booking of the asked type, if there is exactly one.
- AFTERSALE → `request_aftersale(order_id, action, reason_kind, reason)`, the reason being the traveller's own words
  as the dialogue kept them; like a booking it only prepares the request: the confirmation card (without a reason
  the tool refuses, and the traveller is asked why). QUERY_PROGRESS → `query_progress(order_id)`, or with
  `booking_status` `check_my_bookings(biz_type, booking_id)`.
- OUT_OF_SCOPE, or a fact the flow cannot work without (a place, a route, an order id) → the end, no call; a
  booking that does not say what to book asks through `ask_traveller` (what channel 1's booking question names).

What to search, which option and which booking is meant, and who travels are bookings' rules (`bookings.requests`,
`bookings.targets`), asked through `assistant.booking_wants` exactly as channel 1's handlers ask them.

A message that only answers the booking asked for earlier in the conversation ("张三 13800000000", "第二个",
"要早上的") continues it: its slots go over those of the earlier request (the user messages of the history).

A request in two parts ("帮我规划三天丽江行程，顺便查天气": the intent's `also`) runs the flow of each part in turn,
one tool call per answer; a part whose envelope failed is over, and the next part still runs (as in channel 1).

The closing `content` is a short English summary for the audit: callers compose the user's reply from the tool
envelopes and their own templates, never from this text. No tool is called twice with the same arguments in one
request, and only offered tools are called.
"""

import json
import logging
import re
import time
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Protocol

from assistant.booking_wants import booking_wants, passengers_of
from assistant.llm.messages import ChatResult, ToolCall
from assistant.llm.port import ChatState, LLMError, UnderstandContext, Understanding, Usage
from assistant.llm.rules.confirm import confirmation_answer
from assistant.llm.rules.ids import PHONE_RE
from assistant.llm.rules.text import normalise
from assistant.llm.schema import Intent
from assistant.llm.tool_calls import missing_for, tool_call_for
from bookings.models import BookingStatus
from bookings.requests import NEEDS_BIZ_TYPE, PREFERENCE_ARGUMENTS, booking_search, option_choice, rebook_search
from bookings.targets import booking_target, payment_target
from bookings.tools import BOOK_TOOL, CANCEL_TOOL, LIST_BOOKINGS_TOOL, OPTIONS_TOOL, PAY_TOOL, REBOOK_TOOL
from core.ids import normalise_booking_id

logger = logging.getLogger(__name__)

ASK_TOOL = "ask_traveller"  # assistant.tools: the traveller is asked what is missing
# The code of a write's envelope that only became a pending action (core.envelope.Code.CONFIRMATION_REQUIRED).
CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"

TODAY_RE = re.compile(r"^\s*TODAY:\s*(\d{4}-\d{2}-\d{2})\s*$", re.M)

PRODUCTS = {"FLIGHT": "flight", "HOTEL": "hotel", "TRAIN": "train"}


class Understander(Protocol):
    def understand(self, text: str, *, context: UnderstandContext | None = None) -> Understanding: ...


# -- the answer --------------------------------------------------------------------------------------------------


def next_turn(
    engine: Understander, messages: list[dict], tools: list[dict], *, state: ChatState | None = None
) -> ChatResult:
    """The next step for this conversation: one tool call, or the end (content only). Raises LLMError on a bug."""
    started = time.perf_counter()
    try:
        turn = read_turn(engine, messages, tools, state=state)
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
        """The envelope's data."""
        if not isinstance(self.envelope, dict):
            return None
        return _payload(self.envelope.get("data"))


@dataclass(frozen=True)
class Turn:
    intent: Intent
    user_texts: tuple[str, ...]  # normalised, newest first
    today: date
    done: tuple[Done, ...]
    offered: dict[str, dict]  # tool name → its parameters schema
    calls_so_far: int
    on_screen: tuple[str, ...] = ()  # the option refs the previous reply offered, in the order shown

    def already_called(self, name: str, arguments: dict) -> bool:
        return any(d.name == name and _same(d.arguments, arguments) for d in self.done)

    def calls(self, name: str) -> list[Done]:
        return [d for d in self.done if d.name == name]

    def find(self, pattern: re.Pattern) -> re.Match | None:
        """The pattern in the newest user message that has it."""
        for text in self.user_texts:
            match = pattern.search(text)
            if match:
                return match
        return None


def read_turn(engine: Understander, messages: list[dict], tools: list[dict], *, state: ChatState | None = None) -> Turn:
    system = next((m for m in messages if m.get("role") == "system"), None)
    system_text = _text(system.get("content")) if system else ""
    today_match = TODAY_RE.search(system_text)
    today = date.fromisoformat(today_match.group(1)) if today_match else date.today()

    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user_texts = tuple(
        normalise(_text(m.get("content"))) for m in reversed(messages[: last_user + 1]) if m.get("role") == "user"
    )
    intent = state.intent if state is not None else None
    if intent is None:
        text = user_texts[0] if user_texts else ""
        intent = engine.understand(text, context=UnderstandContext(today=today)).intent
        intent = continued(engine, intent, user_texts, today)

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
        intent=intent,
        user_texts=user_texts,
        today=today,
        done=done,
        offered=offered,
        calls_so_far=calls_so_far,
        on_screen=tuple(state.offered) if state is not None else (),
    )


def continued(engine: Understander, intent: Intent, user_texts: tuple[str, ...], today: date) -> Intent:
    """The booking an earlier user message asked for, when the newest one only answers it (a contact, a pick, a
    preference: "张三 13800000000", "第二个", "要早上的"): the earlier request's slots with the new ones over them.
    Anything else is its own request. The search goes back past other answers, and stops at a confirmation (that
    booking is done) or at another request."""
    if not _only_answers(intent, user_texts[0] if user_texts else ""):
        return intent
    newer, pick = intent.slots(), intent.pick
    for text in user_texts[1:]:
        if _confirms(text):
            return intent
        earlier = engine.understand(text, context=UnderstandContext(today=today)).intent
        if earlier.intent == "BOOK" and earlier.biz_type:
            merged = {**earlier.slots(), **newer}
            flags = {"rebook": earlier.rebook or intent.rebook, "original_date": earlier.original_date}
            return Intent.model_validate({"intent": "BOOK", **merged, **flags, "pick": pick})
        if not _only_answers(earlier, text):
            return intent
        newer, pick = {**earlier.slots(), **newer}, pick or earlier.pick
    return intent


def _only_answers(intent: Intent, text: str) -> bool:
    """Whether a sentence only answers a booking question: no request of its own (or a BOOK without what to book),
    and a pick, passengers, a mobile, a preference or a follow-up in it."""
    if intent.rebook:
        return False
    if intent.follow_up and not (intent.destination_keywords or intent.city or intent.province):
        return True  # "最便宜的" / "要早上的": it changes the task at hand, whichever that was
    if intent.intent not in ("OUT_OF_SCOPE", "BOOK") or (intent.intent == "BOOK" and intent.biz_type):
        return False  # a request of its own
    preferences = any(getattr(intent, name, None) not in (None, False) for name in PREFERENCE_ARGUMENTS)
    return bool(intent.pick or intent.passengers or PHONE_RE.search(text) or intent.follow_up or preferences)


def _confirms(text: str) -> bool:
    """A yes or no to a confirmation card: what came before it was decided."""
    return confirmation_answer(text) is not None


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


# BOOK (and rebooking: a BOOK with `rebook`)


def _book(turn: Turn) -> Decision:
    intent = turn.intent
    if intent.rebook:
        return _rebook(turn)
    if intent.pay:
        return _pay(turn)
    if intent.biz_type is None:  # asked as channel 1 asks it: the `booking_need` question, for all that is missing
        missing = booking_search(booking_wants(intent), today=turn.today).missing or (NEEDS_BIZ_TYPE,)
        return _ask(turn, "Missing: what to book (flight, hotel or train).", missing=list(missing))
    for name in (OPTIONS_TOOL, BOOK_TOOL):
        if name not in turn.offered:
            return _not_offered(name)
    prepared = turn.calls(BOOK_TOOL)
    if prepared:  # one booking per request; it waits for the traveller's confirmation
        return End(_write_summary(prepared[-1]))
    passengers = passengers_of(intent, turn.user_texts)
    picked = _picked(turn)
    search = booking_search(booking_wants(intent), today=turn.today)
    if search.missing and picked:  # nothing to search again: the option picked is prepared as it was offered
        return Call(BOOK_TOOL, {"option_ref": picked, "passengers": passengers})
    found = turn.calls(OPTIONS_TOOL)
    if not found:  # with facts missing too: the tool names what the search still needs (the traveller is asked)
        return Call(OPTIONS_TOOL, search.arguments)
    answer = found[-1]
    if not answer.ok:
        return End(f"The search failed: {_reason(answer)}. Nothing was prepared.")
    data = answer.data if isinstance(answer.data, dict) else {}
    option, why = option_choice(data, intent.pick, intent.accept_nearest)
    options = {o.get("ref"): o for o in data.get("options") or [] if isinstance(o, dict)}
    if picked and picked not in options:  # the options offered before are not found again: the one picked, as offered
        return Call(BOOK_TOOL, {"option_ref": picked, "passengers": passengers})
    option = options.get(picked or _kept(turn)) or option
    if option is None:
        return End(f"Nothing was prepared: {why}.")
    # Without the full contact the call is still made: the tool refuses it naming what is missing, nothing pending.
    return Call(BOOK_TOOL, {"option_ref": option["ref"], "passengers": passengers})


def _ask(turn: Turn, note: str, **arguments: Any) -> Decision:
    """Ask the traveller through the ask tool (the question is composed by code), once; the end when it is not
    offered or was asked already."""
    if ASK_TOOL not in turn.offered or turn.calls(ASK_TOOL):
        return End(note)
    return Call(ASK_TOOL, arguments)


def _picked(turn: Turn) -> str | None:
    """The option the traveller picked among those the previous reply offered ("第二个", a chip)."""
    pick = turn.intent.pick
    return turn.on_screen[pick - 1] if pick and 1 <= pick <= len(turn.on_screen) else None


def _kept(turn: Turn) -> str | None:
    """The option chosen before the contact was asked: the previous reply then offered it alone."""
    return turn.on_screen[0] if not turn.intent.pick and len(turn.on_screen) == 1 else None


def _write_summary(done: Done) -> str:
    envelope = done.envelope or {}
    if envelope.get("code") == CONFIRMATION_REQUIRED:
        return f"{done.name} is waiting for the traveller's confirmation; nothing was done yet."
    if done.ok:
        return f"{done.name} done."
    return f"{done.name} was not prepared: {_reason(done)}."


# Rebooking: the traveller's active booking, options on the new date for the same route, then rebook_booking.


def _rebook(turn: Turn) -> Decision:
    intent = turn.intent
    for name in (LIST_BOOKINGS_TOOL, OPTIONS_TOOL, REBOOK_TOOL):
        if name not in turn.offered:
            return _not_offered(name)
    prepared = turn.calls(REBOOK_TOOL)
    if prepared:
        return End(_write_summary(prepared[-1]))
    if intent.date_start is None:
        return End("Missing: the new date.")
    listed = _listed_bookings(turn, biz_type=intent.biz_type)
    if not isinstance(listed, list):
        return listed
    booking, candidates = booking_target(listed, booking_wants(intent))
    if booking is None:
        if not candidates:
            return End("There is no active booking to change.")
        ids = ", ".join(str(b.get("booking_id")) for b in candidates)
        return End(f"There are {len(candidates)} active bookings ({ids}): which one? Missing: booking id.")
    search = rebook_search(booking, booking_wants(intent))
    if search.missing:
        return End(f"Missing: {', '.join(search.missing)}.")
    found = turn.calls(OPTIONS_TOOL)
    if not found:
        return Call(OPTIONS_TOOL, search.arguments)
    if not found[-1].ok:
        return End(f"The search failed: {_reason(found[-1])}. Nothing was prepared.")
    data = found[-1].data if isinstance(found[-1].data, dict) else {}
    option, why = option_choice(data, intent.pick, intent.accept_nearest)
    if option is None:
        return End(f"Nothing was prepared: {why}.")
    return Call(REBOOK_TOOL, {"booking_id": str(booking.get("booking_id")), "option_ref": option["ref"]})


def _listed_bookings(turn: Turn, **wanted: Any) -> list[dict] | Decision:
    """The traveller's bookings `list_my_bookings` answered this request (the given filters, those it takes), or
    the call to make first, or the end when it failed or is not offered."""
    if LIST_BOOKINGS_TOOL not in turn.offered:
        return _not_offered(LIST_BOOKINGS_TOOL)
    listed = turn.calls(LIST_BOOKINGS_TOOL)
    if not listed:
        properties = turn.offered[LIST_BOOKINGS_TOOL].get("properties") or {}
        return Call(LIST_BOOKINGS_TOOL, {k: v for k, v in wanted.items() if v and k in properties})
    if not listed[-1].ok:
        return End(f"Your bookings could not be listed: {_reason(listed[-1])}.")
    return _items(listed[-1].data, "bookings")


# BOOK with `pay`: paying a booking that waits for payment


def _pay(turn: Turn) -> Decision:
    intent = turn.intent
    if PAY_TOOL not in turn.offered:
        return _not_offered(PAY_TOOL)
    paid = turn.calls(PAY_TOOL)
    if paid:
        return End(_write_summary(paid[-1]))
    if intent.booking_id:
        return Call(PAY_TOOL, {"booking_id": intent.booking_id})
    listed = _listed_bookings(turn, status=BookingStatus.PENDING_PAYMENT, biz_type=intent.biz_type)
    if not isinstance(listed, list):
        return listed
    booking, candidates = payment_target(listed, booking_wants(intent))
    if booking is not None:
        return Call(PAY_TOOL, {"booking_id": normalise_booking_id(booking.get("booking_id"))})
    if not candidates:
        return End("No booking waits for payment.")
    ids = ", ".join(str(b.get("booking_id")) for b in candidates)
    return End(f"{len(candidates)} bookings wait for payment ({ids}): which one? Missing: booking id.")


# CANCEL_BOOKING


def _cancel(turn: Turn) -> Decision:
    intent = turn.intent
    if CANCEL_TOOL not in turn.offered:
        return _not_offered(CANCEL_TOOL)
    cancelled = turn.calls(CANCEL_TOOL)
    if cancelled:
        last = cancelled[-1]
        booking_id = last.arguments.get("booking_id")
        if (last.envelope or {}).get("code") == CONFIRMATION_REQUIRED:
            return End(f"Cancelling booking {booking_id} waits for the traveller's confirmation; nothing changed yet.")
        if last.ok:
            data = last.data if isinstance(last.data, dict) else {}
            done = "was already cancelled" if data.get("already_cancelled") else "was cancelled"
            hotel = "; the traveller must call the hotel" if data.get("call_the_hotel") else ""
            return End(f"Booking {booking_id} {done}{hotel}.")
        return End(f"Booking {booking_id} was not cancelled: {_reason(last)}.")
    if intent.booking_id:
        return Call(CANCEL_TOOL, {"booking_id": intent.booking_id})
    if intent.biz_type is None and intent.date_start is None:
        return End("Missing: booking id.")
    listed = _listed_bookings(turn, biz_type=intent.biz_type)
    if not isinstance(listed, list):
        return listed
    booking, candidates = booking_target(listed, booking_wants(intent))
    if booking is not None:
        return Call(CANCEL_TOOL, {"booking_id": normalise_booking_id(booking.get("booking_id"))})
    product = PRODUCTS.get(intent.biz_type or "", "")
    if not candidates:
        return End(f"There is no active {product} booking to cancel.".replace("  ", " "))
    ids = ", ".join(str(b.get("booking_id")) for b in candidates)
    return End(f"There are {len(candidates)} active {product} bookings ({ids}): which one? Missing: booking id.")


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
    if (done.envelope or {}).get("code") == CONFIRMATION_REQUIRED:
        return f"{done.name} waits for the traveller's confirmation; nothing changed yet."
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


# -- the tools' answers ------------------------------------------------------------------------------------------


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


def _reason(done: Done) -> str:
    envelope = done.envelope or {}
    data = done.data
    if isinstance(data, dict) and data.get("success") is False:
        return f"{data.get('errorCode') or 'ERROR'} {data.get('errorMessage') or ''}".strip()
    if not envelope:
        return "no answer"
    return f"{envelope.get('code')} {envelope.get('message') or ''}".strip()


# -- small helpers -------------------------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, ensure_ascii=False, default=str) == json.dumps(
        b, sort_keys=True, ensure_ascii=False, default=str
    )


def _ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))
