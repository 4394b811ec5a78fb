"""Channel 2: the model calls tools in a ReAct loop over the OpenAI tool-calling protocol.

Each turn: the port gets the conversation and the tool schemas; every tool call it asks for runs through the
registry (validation, what the call needs, hooks, envelope), and the loop appends the assistant message with its
`tool_calls` and one `tool` message per call, matched by `tool_call_id`. It stops when the model answers without
tool calls, when the model fails (`error`), or at `max_iterations` model calls that all asked for tools (`capped`):
it then stops asking and hands back what was done. It never raises for the model's or a tool's sake.

Calls that change something (a tool whose effective risk for those arguments is not READ) are capped per run at
`max_writes` (settings.ASSISTANT_AGENT_MAX_WRITES_PER_TURN); the calls over the cap are answered WRITE_LIMIT and not
run, and a change repeated word for word is answered DUPLICATE_CALL. A call that only became a pending action (the
traveller must confirm it, CONFIRMATION_REQUIRED) changed nothing and is not counted as a write, but it is the run's
one change: any further change in the run is answered WRITE_LIMIT, so one message never leaves two confirmation
cards of which the first is already superseded. The port is expected to be audited
(`assistant.llm.audit.audited`): it writes one LLMCall row per model call, so the loop keeps no audit of its own.

Every call the model asked for (run or refused) is recorded as a step of the turn, with its model round
(`assistant.agent.steps`; stored as AgentStep rows with the Turn).

What the model writes (`final_text`) is kept for the audit only: replies are composed by code from the steps'
envelopes and their cards.
"""

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant import conf
from assistant.agent.registry import PreparedCall, ToolRegistry
from assistant.agent.steps import step_record
from assistant.llm.messages import ChatResult, ToolCall, tool_result_message
from assistant.llm.port import ChatState, LLMError, Usage
from core.envelope import Code, fail
from core.tools import ToolContext

logger = logging.getLogger("assistant.agent")

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

    @property
    def duplicate(self) -> bool:
        """A repeat the loop answered without running anything (its envelope says what the first call got)."""
        return self.envelope.get("code") == Code.DUPLICATE_CALL


@dataclass
class AgentResult:
    """What one run of the loop did. `final_text` is the model's last words: audit only, never shown as fact."""

    steps: list[AgentStep] = field(default_factory=list)
    final_text: str | None = None
    iterations: int = 0
    capped: bool = False
    error: LLMError | None = None
    usage: Usage = field(default_factory=Usage)
    writes: int = 0  # calls that change something which were given to their tool
    pending: int = 0  # calls that became a pending action waiting for the traveller's confirmation (0 or 1)
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """True when the model itself ended the loop (no cap, no error)."""
        return not self.capped and self.error is None


@dataclass
class _Turn:
    """What one run remembers between calls: the changes made so far and what each got."""

    max_writes: int
    writes: int = 0
    pending: int = 0
    done: dict[tuple[str, str], dict] = field(default_factory=dict)


def run_agent(
    *,
    port: Any,
    registry: ToolRegistry,
    context: ToolContext,
    messages: list[dict[str, Any]],
    max_iterations: int,
    max_writes: int | None = None,
    state: ChatState | None = None,
    on_start: Callable[[str, dict], None] | None = None,
    on_done: Callable[[str, dict], None] | None = None,
) -> AgentResult:
    """Run the tool-calling loop from `messages` (not modified; the full transcript is in `result.messages`).
    `state`: what the caller hands every `port.chat` out of band, never in the prompt (the offline adapter's flow).
    `on_start(name, arguments)` and `on_done(name, envelope)`: told of each call as it starts and ends (a turn's
    progress on the page, `assistant.progress`)."""
    result = AgentResult(messages=list(messages))
    tools = registry.schemas()
    turn = _Turn(max_writes=conf.agent_max_writes_per_turn() if max_writes is None else max_writes)
    for _ in range(max(0, max_iterations)):
        result.iterations += 1
        try:
            answer: ChatResult = port.chat(result.messages, tools, state=state)
        except LLMError as exc:
            result.usage += exc.usage
            result.error = exc
            break
        except Exception as exc:  # an adapter bug (an unaudited port): still a degraded end, never a crash
            logger.exception("the LLM port raised %s in the agent loop", type(exc).__name__)
            result.error = LLMError(ERROR, f"the model call failed ({type(exc).__name__})")
            break
        result.usage += answer.usage
        if answer.content:
            result.final_text = answer.content
        result.messages.append(answer.assistant_message())
        if not answer.tool_calls:
            break
        for call in answer.tool_calls:
            started = time.perf_counter()
            if on_start is not None:
                on_start(call.name, call.arguments if isinstance(call.arguments, dict) else {})
            envelope = _envelope(registry, context, call, turn)
            if on_done is not None:
                on_done(call.name, envelope)
            step_record(
                tool=call.name,
                arguments=call.arguments,
                envelope=envelope,
                started=started,
                iteration=result.iterations,
            )
            result.steps.append(AgentStep(tool=call.name, arguments=call.arguments, envelope=envelope, call_id=call.id))
            result.messages.append(tool_result_message(call, envelope))
    else:
        result.capped = max_iterations > 0
        if result.capped:
            logger.info("agent loop stopped at the cap of %d model calls", max_iterations)
    result.writes = turn.writes
    result.pending = turn.pending
    return result


def _envelope(registry: ToolRegistry, context: ToolContext, call: ToolCall, turn: _Turn) -> dict:
    if call.arguments_error:
        return fail(Code.INVALID_PARAM, f"{call.name[:64]}: {call.arguments_error}")
    prepared = registry.prepare(call.name, call.arguments)
    if not isinstance(prepared, PreparedCall):
        return prepared  # unknown tool, invalid or oversized arguments: refused before anything ran
    if not prepared.changes_something:
        return registry.call_prepared(prepared, context, call_id=call.id)

    key = (prepared.tool.name, json.dumps(prepared.arguments, sort_keys=True, ensure_ascii=False, default=str))
    if key in turn.done:
        # A change repeated word for word in one turn (a second saveOrder) would act twice: answer, don't act.
        return fail(
            Code.DUPLICATE_CALL,
            f"{prepared.tool.name} was already called with these arguments in this turn; it was not run again",
            data={"previous": turn.done[key]},
        )
    if turn.pending:
        return fail(
            Code.WRITE_LIMIT,
            f"{prepared.tool.name} was not run: an earlier change of this turn waits for the traveller's confirmation",
            data={"max_writes": turn.max_writes},
        )
    if turn.writes >= turn.max_writes:
        logger.warning(
            "agent call %s over the cap of %d changes per turn; not run", prepared.tool.name, turn.max_writes
        )
        return fail(
            Code.WRITE_LIMIT,
            f"{prepared.tool.name} was not run: at most {turn.max_writes} changes may be made in one turn",
            data={"max_writes": turn.max_writes},
        )
    turn.writes += 1
    envelope = registry.call_prepared(prepared, context, call_id=call.id)
    if envelope.get("code") == Code.CONFIRMATION_REQUIRED:
        turn.writes -= 1  # nothing changed: it waits for the traveller
        turn.pending += 1
    turn.done[key] = envelope
    return envelope
