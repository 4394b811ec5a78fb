"""The tool calling of the `rules` adapter (channel 2, `RulesLLM.chat`): a function model, in the spirit of
pydantic-ai's `FunctionModel`. It has no flow of its own: the caller hands it one (`ChatState.next_call`, channel
1's flow replayed by the assistant's agent turn), and it answers in the shape a model answers (`ChatResult` with
`tool_calls`), so the agent loop, the hooks, the cap and the audit are the same whichever adapter runs.

Each turn it reads, from the messages the loop sends, the tool calls of this request (those after the last user
message) and the envelopes that answered them, asks the caller's function for the next call, and calls it; when the
function has none (or there is no function: `chat` called without a state) it ends, with a short English summary for
the audit as its content. Callers compose the traveller's reply from the envelopes and their own templates, never
from this text. Only offered tools are called.
"""

import json
import logging
import time
from typing import Any

from assistant.llm.messages import ChatResult, ToolCall
from assistant.llm.port import Answered, ChatState, LLMError, Usage

logger = logging.getLogger(__name__)


def next_turn(messages: list[dict], tools: list[dict], *, state: ChatState | None = None) -> ChatResult:
    """The next step for this conversation: one tool call, or the end (content only). Raises LLMError when the
    caller's function fails."""
    started = time.perf_counter()
    answered, calls_so_far = read_turn(messages)
    try:
        wanted = state.next_call(answered) if state is not None and state.next_call is not None else None
    except Exception:
        logger.exception("the caller's flow failed on a conversation")
        raise LLMError("ERROR", "the caller's flow could not decide", Usage(latency_ms=_ms(started))) from None
    usage = Usage(latency_ms=_ms(started))
    offered = _offered(tools)
    if wanted is None or wanted[0] not in offered:
        text = _summary(answered) if wanted is None else f"The {wanted[0]} tool is not offered here: stopped."
        return ChatResult(content=text, tool_calls=[], usage=usage, finish_reason="stop")
    name, arguments = wanted
    raw = json.dumps(arguments, ensure_ascii=False)
    call = ToolCall(id=f"rules_call_{calls_so_far + 1}", name=name, arguments=arguments, raw_arguments=raw)
    return ChatResult(content=None, tool_calls=[call], usage=usage, finish_reason="tool_calls")


def read_turn(messages: list[dict]) -> tuple[list[Answered], int]:
    """The tool calls after the last user message with the envelopes that answered them (an empty one when none
    did), in order; and how many tool calls the whole conversation holds (the next call's id)."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    calls: dict[str, tuple[str, dict]] = {}
    envelopes: dict[str, dict] = {}
    calls_so_far = 0
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            for raw in message.get("tool_calls") or []:
                calls_so_far += 1
                if index > last_user:
                    call_id, name, arguments = _tool_call(raw)
                    calls[call_id] = (name, arguments)
        elif role == "tool" and index > last_user:
            envelopes[str(message.get("tool_call_id"))] = _envelope(message.get("content"))
    return [(name, arguments, envelopes.get(i) or {}) for i, (name, arguments) in calls.items()], calls_so_far


def _summary(answered: list[Answered]) -> str:
    if not answered:
        return "No tool call: the flow needs none for this request."
    said = ", ".join(f"{name} {'ok' if envelope.get('ok') else envelope.get('code') or 'no answer'}"
                     for name, _, envelope in answered)  # fmt: skip
    return f"Done: {said}."


def _offered(tools: list[dict]) -> set[str]:
    names = set()
    for schema in tools or []:
        function = schema.get("function") if isinstance(schema, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _tool_call(raw: Any) -> tuple[str, str, dict]:
    raw = raw if isinstance(raw, dict) else {}
    function = raw.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    return str(raw.get("id")), str(function.get("name") or ""), arguments if isinstance(arguments, dict) else {}


def _envelope(content: Any) -> dict | None:
    if isinstance(content, dict):
        return content
    try:
        value = json.loads(_text(content))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))
