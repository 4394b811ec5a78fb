"""The LLM port: the one interface behind which every model sits.

Two adapters implement it: `rules` (deterministic, offline, the default) and `openai` (any OpenAI-compatible
endpoint through the openai SDK). Callers get data to validate, never text to trust.
"""

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Protocol

from assistant.llm.schema import Intent

if TYPE_CHECKING:  # verdict.py and preferences.py import Usage from here
    from assistant.llm.preferences import PreferenceCandidate, PreferenceScores
    from assistant.llm.verdict import VerdictRequest, VerdictResult


class LLMError(Exception):
    """The model could not give a usable answer. `kind` is TIMEOUT, INVALID or ERROR."""

    def __init__(self, kind: str, message: str, usage: "Usage | None" = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.usage = usage or Usage()


# A model's usage numbers are data to validate: whatever it reports is clamped into this range, so an absurd or
# negative count can never fail the audit (or the turn) after something was done.
MAX_USAGE = 100_000_000


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if value != value:  # NaN
        return 0
    return int(min(max(value, 0), MAX_USAGE))


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int = 0

    def __post_init__(self) -> None:
        self.prompt_tokens = _count(self.prompt_tokens)
        self.completion_tokens = _count(self.completion_tokens)
        self.latency_ms = _count(self.latency_ms)

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.latency_ms + other.latency_ms,
        )


@dataclass
class Understanding:
    """What the port understood of one sentence, and what it cost."""

    intent: Intent
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class UnderstandContext:
    """What the port may know besides the sentence: today's date, the conversation's open question."""

    today: date
    pending_intent: str | None = None


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
