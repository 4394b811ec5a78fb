"""Channel 1: code dispatches an understood intent to the service that answers it.

Every handler answers from rows (selectors and services of the other apps) and composes its text from reply
templates; the model's only part was the intent.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.port import LLMPort
from assistant.llm.schema import Intent, IntentName
from assistant.replies import compose


@dataclass
class TurnContext:
    """What a handler may know: the understood intent (slots merged), who asks, today, the reply language."""

    intent: Intent
    user: Any
    today: dt.date
    language: str
    port: LLMPort | None = None
    conversation_id: str | None = None
    request_text: str = ""  # what the user asked, including an earlier question's answer


@dataclass
class Reply:
    text: str
    outcome: str  # assistant.models.TurnOutcome
    cards: list[dict] = field(default_factory=list)
    suggestions: list[dict] = field(default_factory=list)
    awaiting: str | None = None  # what the reply asks for, remembered for the next turn
    llm_calls: list = field(default_factory=list)  # model calls the handler made (audit rows)


Handler = Callable[[TurnContext], Reply]
HANDLERS: dict[str, Handler] = {}


def handles(*intents: IntentName) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in intents:
            HANDLERS[name.value] = handler
        return handler

    return register


def dispatch(context: TurnContext) -> Reply:
    from assistant import handlers  # noqa: F401 - importing the package registers every handler

    handler = HANDLERS.get(context.intent.intent, _not_available)
    return handler(context)


def chip(label: str, message: str | None = None, *, fresh: bool = False) -> dict:
    """A suggestion chip: a message the user can send with one tap; `fresh` starts without remembered slots."""
    return {"label": label, "message": message or label, "fresh": fresh}


_WHAT = {
    "zh-hans": {
        "QUERY_WEATHER": "查天气",
        "MAKE_TRAVEL_PLAN": "做一份行程",
        "PLAN_ITINERARY": "比较往返交通和酒店方案",
        "BOOK": "预订",
        "CANCEL_BOOKING": "取消预订",
        "AFTERSALE": "办理退款或退货",
        "QUERY_PROGRESS": "查询申请进度",
    },
    "en": {
        "QUERY_WEATHER": "check the weather",
        "MAKE_TRAVEL_PLAN": "get a day-by-day plan",
        "PLAN_ITINERARY": "compare round-trip options",
        "BOOK": "make a booking",
        "CANCEL_BOOKING": "cancel a booking",
        "AFTERSALE": "ask for a refund or return",
        "QUERY_PROGRESS": "check a request's progress",
    },
}


def _not_available(context: TurnContext) -> Reply:
    what = _WHAT.get(context.language, _WHAT["en"]).get(context.intent.intent, "")
    return Reply(compose("not_available", context.language, what=what), "REFUSED")
