"""Channel 2: the model calls tools in a ReAct loop over the OpenAI tool-calling protocol.

Each turn: the port gets the conversation and the tool schemas; every tool call it asks for runs through the
registry (validation, hooks, envelope), and the loop appends the assistant message with its `tool_calls` and one
`tool` message per call, matched by `tool_call_id`. It stops when the model answers without tool calls, when the
model fails (`error`), or at `max_iterations` model calls that all asked for tools (`capped`): it then stops asking
and hands back what was done. It never raises for the model's or a tool's sake.

What the model writes (`final_text`) is kept for the audit only: replies are composed by code from the steps'
envelopes and their cards.
"""

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from assistant.agent.registry import ToolRegistry
from assistant.llm.messages import ChatResult, ToolCall, tool_result_message
from assistant.llm.port import LLMError, Usage
from core.envelope import Code, fail
from core.tools import Risk, ToolContext

logger = logging.getLogger("assistant.agent")

OK = "OK"
ERROR = "ERROR"


@dataclass(frozen=True)
class AgentStep:
    """One tool call the model asked for and the envelope it got back."""

    tool: str
    arguments: dict[str, Any]
    envelope: dict[str, Any]
    call_id: str

    @property
    def ok(self) -> bool:
        return bool(self.envelope.get("ok"))


@dataclass(frozen=True)
class LLMCallRecord:
    """One model call, for its audit row: usage, outcome (OK, TIMEOUT, INVALID, ERROR) and the error if any."""

    usage: Usage
    outcome: str
    error: str = ""


@dataclass
class AgentResult:
    """What one run of the loop did. `final_text` is the model's last words: audit only, never shown as fact."""

    steps: list[AgentStep] = field(default_factory=list)
    final_text: str | None = None
    iterations: int = 0
    capped: bool = False
    error: LLMError | None = None
    usage: Usage = field(default_factory=Usage)
    llm_calls: list[LLMCallRecord] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """True when the model itself ended the loop (no cap, no error)."""
        return not self.capped and self.error is None

    def _record(self, usage: Usage, outcome: str, error: str = "") -> None:
        self.llm_calls.append(LLMCallRecord(usage=usage, outcome=outcome, error=error))
        self.usage = Usage(
            prompt_tokens=self.usage.prompt_tokens + usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens + usage.completion_tokens,
            latency_ms=self.usage.latency_ms + usage.latency_ms,
        )


def run_agent(
    *,
    port: Any,
    registry: ToolRegistry,
    context: ToolContext,
    messages: list[dict[str, Any]],
    max_iterations: int,
) -> AgentResult:
    """Run the tool-calling loop from `messages` (not modified; the full transcript is in `result.messages`)."""
    result = AgentResult(messages=list(messages))
    tools = registry.schemas()
    writes_done: dict[tuple[str, str], dict] = {}
    for _ in range(max(0, max_iterations)):
        result.iterations += 1
        try:
            answer: ChatResult = port.chat(result.messages, tools)
        except LLMError as exc:
            result._record(exc.usage, exc.kind, str(exc))
            result.error = exc
            break
        except Exception as exc:  # an adapter bug: still an audited, degraded end, never a crash
            logger.exception("the LLM port raised %s in the agent loop", type(exc).__name__)
            error = LLMError(ERROR, f"the model call failed ({type(exc).__name__})")
            result._record(error.usage, ERROR, str(error))
            result.error = error
            break
        result._record(answer.usage, OK)
        if answer.content:
            result.final_text = answer.content
        result.messages.append(answer.assistant_message())
        if not answer.tool_calls:
            break
        for call in answer.tool_calls:
            envelope = _envelope(registry, context, call, writes_done)
            result.steps.append(AgentStep(tool=call.name, arguments=call.arguments, envelope=envelope, call_id=call.id))
            result.messages.append(tool_result_message(call, envelope))
    else:
        result.capped = max_iterations > 0
        if result.capped:
            logger.info("agent loop stopped at the cap of %d model calls", max_iterations)
    return result


def _envelope(
    registry: ToolRegistry, context: ToolContext, call: ToolCall, writes_done: dict[tuple[str, str], dict]
) -> dict:
    if call.arguments_error:
        return fail(Code.INVALID_PARAM, f"{call.name}: {call.arguments_error}")
    tool = registry.get(call.name)
    key = (call.name, json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str))
    if tool is not None and tool.risk != Risk.READ and key in writes_done:
        # A write repeated word for word in one turn (a second saveOrder) would act twice: answer, don't act.
        return fail(
            Code.DUPLICATE_CALL,
            f"{call.name} was already called with these arguments in this turn; it was not run again",
            data={"previous": writes_done[key]},
        )
    envelope = registry.call(call.name, call.arguments, context, call_id=call.id)
    if tool is not None and tool.risk != Risk.READ:
        writes_done[key] = envelope
    return envelope


def collect_cards(result: AgentResult) -> list[dict]:
    """The cards that successful tool calls put in `envelope["data"]["cards"]`, in call order."""
    cards: list[dict] = []
    for step in result.steps:
        data = step.envelope.get("data") if step.ok else None
        found = data.get("cards") if isinstance(data, dict) else None
        if isinstance(found, list):
            cards.extend(card for card in found if isinstance(card, dict))
    return cards
