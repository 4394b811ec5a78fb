"""The tool calls of one turn, collected while it runs and stored with its Turn row (assistant.models.AgentStep).

    with steps_collected() as steps:    # chat_turn opens it around the whole turn
        ...                             # channel 2's loop and `ToolRegistry.call` each record their calls
    AgentStep.objects.bulk_create(step_rows(turn, steps))   # one insert, with the turn

Outside `steps_collected` nothing is kept (a task, a test calling a tool). The arguments are kept scrubbed
(`scrub_arguments`): mobile numbers masked, the values of keys, secrets, tokens and passwords removed, the configured
model key removed wherever it appears, long texts cut.
"""

import contextlib
import contextvars
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from assistant import conf
from bookings.platform import mask_mobiles
from core.tracing import current_trace_id

REDACTED = "[redacted]"
# Argument names whose value is never kept, whatever it is.
SECRET_NAME_RE = re.compile(r"api[_-]?key|secret|token|password|passwd|authori[sz]ation|credential|cookie", re.I)
MAX_TEXT_CHARS = 500
MAX_ITEMS = 50
MAX_DEPTH = 6
MAX_CODE_CHARS = 48
MAX_TOOL_CHARS = 64


@dataclass(frozen=True)
class StepRecord:
    """One tool call as it will be stored: `iteration` is the model round that asked for it (1: the first), 0 for a
    call made by code (channel 1's handlers, a confirmed action)."""

    iteration: int
    tool: str
    arguments: Any
    code: str
    ok: bool
    latency_ms: int
    trace_id: str


_collector: contextvars.ContextVar[list[StepRecord] | None] = contextvars.ContextVar("tripdesk_steps", default=None)


@contextlib.contextmanager
def steps_collected() -> Iterator[list[StepRecord]]:
    """Collect the tool calls made in this block (a nested block collects into the outer list)."""
    outer = _collector.get()
    if outer is not None:
        yield outer
        return
    steps: list[StepRecord] = []
    token = _collector.set(steps)
    try:
        yield steps
    finally:
        _collector.reset(token)


def steps_current() -> list[StepRecord]:
    """The calls collected so far in this turn ([] outside `steps_collected`)."""
    return list(_collector.get() or [])


def step_record(*, tool: str, arguments: Any, envelope: Any, started: float, iteration: int = 0) -> None:
    """Remember one call (`started`: its time.perf_counter() at the start) when a turn is collecting them."""
    steps = _collector.get()
    if steps is None:
        return
    envelope = envelope if isinstance(envelope, dict) else {}
    ok = bool(envelope.get("ok"))
    steps.append(
        StepRecord(
            iteration=max(0, min(int(iteration), 32767)),
            tool=str(tool)[:MAX_TOOL_CHARS],
            arguments=scrub_arguments(arguments),
            code="" if ok else str(envelope.get("code") or "")[:MAX_CODE_CHARS],
            ok=ok,
            latency_ms=max(0, min(round((time.perf_counter() - started) * 1000), 2_147_483_647)),
            trace_id=current_trace_id(),
        )
    )


def scrub_arguments(value: Any) -> Any:
    """`value` as JSON data safe to keep: see the module's docstring."""
    secrets = [s for s in (conf.llm_api_key(),) if len(s) >= 4]
    return _scrub(value, secrets, 0)


def _scrub(value: Any, secrets: list[str], depth: int) -> Any:
    if depth > MAX_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {
            str(key)[:MAX_TOOL_CHARS]: REDACTED if SECRET_NAME_RE.search(str(key)) else _scrub(item, secrets, depth + 1)
            for key, item in list(value.items())[:MAX_ITEMS]
        }
    if isinstance(value, list | tuple):
        return [_scrub(item, secrets, depth + 1) for item in list(value)[:MAX_ITEMS]]
    if value is None or isinstance(value, bool | float):
        return value
    if isinstance(value, int):  # a mobile number sent as a number is masked too
        return value if mask_mobiles(str(value)) == str(value) else mask_mobiles(str(value))
    text = str(value).replace("\x00", "")
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    text = mask_mobiles(text)
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS] + "…"
