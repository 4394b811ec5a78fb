"""The audit of model calls, written by the port itself: one LLMCall row and one log line per call, whatever its
outcome. Callers wrap the port once (`audited(port, user=…)`) and never write audit rows themselves.

Provider, model, purpose, tokens, latency and outcome are kept (tokens cut to what one call can use, the row saying
when they were: `Usage.within_call_limits`); the API key and the prompt never are.
The rows a wrapped port wrote are in `calls`, so a chat turn can link them to its Turn row. A chat turn's port is
`deferred`: its rows are kept in memory and inserted with the Turn row, in the turn's one transaction (`calls_save`),
instead of one transaction (and one commit) per call; a turn that fails saves them on its way out.
"""

import logging
from typing import Any

from django.db import transaction

from assistant.llm.port import LLMError, Usage
from assistant.models import LLMCall
from core import metrics
from core.text import storable_text

logger = logging.getLogger("assistant.turn")


class AuditedPort:
    """The LLM port with every call recorded. Purposes: understand, agent, verdict, preference."""

    def __init__(self, inner: Any, *, user: Any = None, fallback: bool = False, deferred: bool = False) -> None:
        self.inner = inner
        self.user = user if getattr(user, "pk", None) else None
        self.fallback = fallback  # this port stands in for a model that failed: its rows say so
        self.deferred = deferred  # rows are inserted by `calls_save`, not one by one
        self.calls: list[LLMCall] = []

    @property
    def provider(self) -> str:
        return self.inner.provider

    @property
    def model(self) -> str:
        return self.inner.model

    def understand(self, text: str, *, context: Any) -> Any:
        return self._call("understand", self.inner.understand, text, context=context)

    def chat(self, messages: list[dict], tools: list[dict], *, state: Any = None) -> Any:
        return self._call("agent", self.inner.chat, messages, tools, state=state)

    def verdict(self, request: Any) -> Any:
        return self._call("verdict", self.inner.verdict, request)

    def preference_scores(self, text: str, candidates: list) -> Any:
        return self._call("preference", self.inner.preference_scores, text, candidates)

    def _call(self, purpose: str, method, *args, **kwargs) -> Any:
        try:
            answer = method(*args, **kwargs)
        except LLMError as exc:
            self._record(purpose, exc.usage, exc.kind, str(exc))
            raise
        except Exception as exc:  # an adapter bug is still an audited failure, and still the port's error
            logger.exception("the %s adapter raised %s (%s)", self.provider, type(exc).__name__, purpose)
            error = LLMError("ERROR", f"the model call failed ({type(exc).__name__})")
            self._record(purpose, error.usage, error.kind, str(error))
            raise error from None
        self._record(purpose, getattr(answer, "usage", None) or Usage(), "OK")
        return answer

    def _record(self, purpose: str, usage: Usage, outcome: str, error: str = "") -> None:
        reported = Usage(usage.prompt_tokens, usage.completion_tokens, usage.latency_ms)  # sane ints, to be sure
        usage, clamped = reported.within_call_limits()
        if clamped:
            logger.warning(
                "the %s model reported more tokens than one call can use (%d prompt, %d completion): recorded %d and %d",
                self.provider,
                reported.prompt_tokens,
                reported.completion_tokens,
                usage.prompt_tokens,
                usage.completion_tokens,
            )
        metrics.llm_call_observed(
            provider=self.provider,
            purpose=purpose,
            outcome=outcome,
            latency_ms=usage.latency_ms,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
        )
        call = LLMCall(
            user=self.user,
            purpose=purpose,
            provider=self.provider,
            model=self.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            latency_ms=usage.latency_ms,
            outcome=outcome,
            error=storable_text(error)[:500],  # an endpoint's own words may be in it
            fallback=self.fallback,
            tokens_clamped=clamped,
        )
        if not self.deferred:
            try:
                with transaction.atomic():  # a savepoint: a failed insert never spoils the caller's transaction
                    call.save(force_insert=True)
            except Exception:  # the audit is a side effect: it never fails the call it records
                logger.exception("could not record an LLM call (%s, %s)", purpose, outcome)
                return
        self.calls.append(call)
        logger.info(
            "llm call",
            extra={
                "provider": self.provider,
                "model": self.model,
                "purpose": purpose,
                "outcome": outcome,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "latency_ms": usage.latency_ms,
            },
        )


def audited(port: Any, *, user: Any = None, fallback: bool = False, deferred: bool = False) -> AuditedPort:
    """`port` with its calls audited for `user` (a port that is already audited is returned as it is); `fallback`:
    the port stands in for a model that failed this turn; `deferred`: its rows wait for `calls_save`."""
    if isinstance(port, AuditedPort):
        return port
    return AuditedPort(port, user=user, fallback=fallback, deferred=deferred)


def calls_save(calls: list[LLMCall], *, turn: Any = None) -> None:
    """Insert the rows of `calls` not saved yet (a deferred port's) in one statement, linked to `turn`, and link
    the saved ones to it; a savepoint of the caller's transaction when there is one."""
    saved = [call.pk for call in calls if call.pk is not None]
    unsaved = [call for call in calls if call.pk is None]
    for call in unsaved:
        call.turn = turn
    LLMCall.objects.bulk_create(unsaved)
    if saved and turn is not None:
        LLMCall.objects.filter(pk__in=saved).update(turn=turn)
