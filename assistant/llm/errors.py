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

# What one model call of this site can use, and so the most its audit row records (the excess is cut and the row
# says so: `LLMCall.tokens_clamped`); an endpoint that reports more is wrong or hostile, and would inflate the cost
# on the operations page (10^8 tokens: US$200 a call at the default price).
# Prompt: the longest prompt the site sends is the agent loop's last round (system prompt, the skill document, 17
# tool schemas, four earlier turns, the tool results of the rounds before); measured 41 KB of UTF-8 in the test
# suite, and a token is at least a byte, so 200,000 leaves it room to grow five times.
MAX_PROMPT_TOKENS_PER_CALL = 200_000
# Completion: the site asks for an intent, a verdict or scores as JSON, or for tool calls: well under 1,000 tokens.
# 32,768 also covers what a reasoning model may spend thinking before it answers.
MAX_COMPLETION_TOKENS_PER_CALL = 32_768


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

    def within_call_limits(self) -> "tuple[Usage, bool]":
        """This usage with each count cut to what one call can use, and whether a count was cut."""
        prompt = min(self.prompt_tokens, MAX_PROMPT_TOKENS_PER_CALL)
        completion = min(self.completion_tokens, MAX_COMPLETION_TOKENS_PER_CALL)
        clamped = (prompt, completion) != (self.prompt_tokens, self.completion_tokens)
        return Usage(prompt, completion, self.latency_ms), clamped

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.latency_ms + other.latency_ms,
        )
