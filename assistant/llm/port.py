"""The LLM port: the one interface behind which every model sits.

Two adapters implement it: `rules` (deterministic, offline, the default) and `openai` (any OpenAI-compatible
endpoint through the openai SDK). Callers get data to validate, never text to trust.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from assistant.llm.errors import MAX_USAGE, LLMError, Usage
from assistant.llm.preferences import PreferenceCandidate, PreferenceScores
from assistant.llm.schema import Intent
from assistant.llm.verdict import VerdictRequest, VerdictResult

__all__ = [
    "MAX_USAGE",
    "Answered",
    "ChatState",
    "LLMError",
    "LLMPort",
    "NextCallFunction",
    "UnderstandContext",
    "Understanding",
    "Usage",
]


@dataclass
class Understanding:
    """What the port understood of one sentence, and what it cost."""

    intent: Intent
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class UnderstandContext:
    """What the port may know besides the sentence: today's date, the conversation's open question, and the
    catalogue's place names (which the `rules` engine adds to its gazetteer; the caller reads them, so the port
    imports no app)."""

    today: date
    pending_intent: str | None = None
    places: tuple[str, ...] = ()


# One tool call of this request and the envelope that answered it: (tool name, arguments, envelope).
Answered = tuple[str, dict[str, Any], dict[str, Any]]
# The caller's own flow: given the calls answered so far in this request (in order), the next call to make
# (tool name, arguments), or None when the flow needs no more.
NextCallFunction = Callable[[list[Answered]], tuple[str, dict[str, Any]] | None]


@dataclass(frozen=True)
class ChatState:
    """What the caller hands `chat(messages, tools, state=...)` out of band, never in the prompt. A model reads the
    conversation from its messages and ignores this. The offline `rules` adapter, which stands in for a model, is a
    function model (pydantic-ai's `FunctionModel`): it asks `next_call` which call comes next, and the caller
    answers with its own flow (channel 1's, replayed over the calls answered so far)."""

    next_call: NextCallFunction | None = None


class LLMPort(Protocol):
    provider: str
    model: str

    def understand(self, text: str, *, context: UnderstandContext) -> Understanding:
        """Turn one sentence into an intent. Raises LLMError when no usable answer came."""
        ...

    def verdict(self, request: "VerdictRequest") -> "VerdictResult":
        """Judge one refund or return against the policy passages. Raises LLMError when no usable answer came."""
        ...

    def preference_scores(self, text: str, candidates: "list[PreferenceCandidate]") -> "PreferenceScores":
        """Score each travel candidate 0..100 by how well it fits the preferences stated in `text` (50 neutral;
        a missing id counts as 50). Raises LLMError when no usable answer came."""
        ...


def release_db_connection() -> None:
    """Give this thread's database connections back before it waits on a remote model.

    A model takes seconds; a request that held its PostgreSQL connection meanwhile would let a hundred waiting
    users take a hundred connections (PostgreSQL's default max_connections), and with a pool it would starve the
    other threads. Django opens a connection again on the next query. A connection inside a transaction (an atomic
    block, or autocommit turned off) is kept: closing it would lose the transaction. Adapters that answer in
    process (`rules`) never call this.
    """
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and conn.autocommit and not conn.in_atomic_block:
            conn.close()
