"""The data of one chat turn, shared by the dispatcher, the handlers, the presenters and channel 2: what a handler
may know (`TurnContext`), what it answers (`Reply`), and a suggestion chip."""

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.port import LLMPort
from assistant.llm.schema import Intent


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
    turn_id: str = ""  # one id per turn (the supplier's idempotency scope for what the turn books)
    started: dt.datetime | None = None  # when the turn began (what a booking agent created since then is its work)
    offered: list[str] = field(default_factory=list)  # option refs the previous reply offered ("第二个" picks one)
    # What a card's button chose this turn (a compared plan: "<plan id>|<plan name>"), never from the model.
    choice: str = ""


@dataclass
class Reply:
    text: str
    outcome: str  # assistant.models.TurnOutcome
    cards: list[dict] = field(default_factory=list)
    suggestions: list[dict] = field(default_factory=list)
    awaiting: str | None = None  # what the reply asks for, remembered for the next turn
    llm_calls: list = field(default_factory=list)  # model calls the handler made (audit rows)
    offered: list[str] = field(default_factory=list)  # option refs this reply offers, in the order shown
    fallback: bool = False  # the model failed and channel 1 answered instead (channel 2)
    channel: int = 1  # who composed it: 1 the dispatcher's handlers, 2 the agent loop's tool calls (the API's meta)


def chip(label: str, message: str | None = None, *, fresh: bool = False) -> dict:
    """A suggestion chip: a message the user can send with one tap; `fresh` starts without remembered slots."""
    return {"label": label, "message": message or label, "fresh": fresh}
