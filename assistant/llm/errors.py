"""What every model call reports: its usage (clamped) and, when no usable answer came, an LLMError."""

from dataclasses import dataclass


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
