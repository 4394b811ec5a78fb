"""The LLM port: the one interface behind which every model sits.

Two adapters implement it: `rules` (deterministic, offline, the default) and `openai` (any OpenAI-compatible
endpoint through the openai SDK). Callers get data to validate, never text to trust.
"""

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Protocol

from assistant.llm.schema import Intent

if TYPE_CHECKING:  # verdict.py imports Usage from here
    from assistant.llm.verdict import VerdictRequest, VerdictResult


class LLMError(Exception):
    """The model could not give a usable answer. `kind` is TIMEOUT, INVALID or ERROR."""

    def __init__(self, kind: str, message: str, usage: "Usage | None" = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.usage = usage or Usage()


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int = 0


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
