"""The audit of model calls: one LLMCall row and one log line per call, whatever its outcome.

Provider, model, purpose, tokens, latency and outcome are kept; the API key and the prompt never are.
"""

import logging

from assistant.llm.port import LLMError, LLMPort, UnderstandContext, Understanding, Usage
from assistant.models import LLMCall

logger = logging.getLogger("assistant.turn")


def llm_call_record(*, port: LLMPort, purpose: str, usage: Usage, outcome: str, error: str = "", user=None) -> LLMCall:
    """One audit row per model call: provider, model, tokens, latency, outcome. Never the key or the prompt."""
    call = LLMCall.objects.create(
        user=user,
        purpose=purpose,
        provider=port.provider,
        model=port.model,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        latency_ms=usage.latency_ms,
        outcome=outcome,
        error=error[:500],
    )
    logger.info(
        "llm call",
        extra={
            "provider": port.provider,
            "model": port.model,
            "purpose": purpose,
            "outcome": outcome,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "latency_ms": usage.latency_ms,
        },
    )
    return call


def understand_audited(
    *, port: LLMPort, text: str, context: UnderstandContext, user=None
) -> tuple[Understanding | None, LLMError | None, LLMCall]:
    """Ask the port to understand, recording the call whatever happens."""
    try:
        understanding = port.understand(text, context=context)
    except LLMError as exc:
        call = llm_call_record(
            port=port, purpose="understand", usage=exc.usage, outcome=exc.kind, error=str(exc), user=user
        )
        return None, exc, call
    call = llm_call_record(port=port, purpose="understand", usage=understanding.usage, outcome="OK", user=user)
    return understanding, None, call
