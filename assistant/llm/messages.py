"""What one tool-calling turn of the model (channel 2) gives back, independent of the adapter.

The agent loop sends OpenAI-style messages (`system`, `user`, `assistant` with `tool_calls`, `tool` with
`tool_call_id`) and gets a `ChatResult`. The two helpers build the messages the loop appends after a turn, so
the `tool_call_id` round trip is the same whichever adapter answered. `parse_tool_call` turns the model's argument
text into a `ToolCall`, refusing an oversized or too deeply nested text before it is parsed at all.

What is sent back to the model (the call's id and name, the argument text it wrote) is made storable text
(`core.text`): a lone surrogate cannot be encoded in the next request, which would end the loop before the model
reads why its call was refused. The arguments themselves are parsed as written, so the tool's validation refuses
them (`Tool.validate`).
"""

import json
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.port import Usage
from core.bounded_json import MAX_JSON_DEPTH, JSONTooDeep, bounded_loads
from core.text import storable_text
from core.tools import MAX_ARGUMENT_CHARS

# The longest argument text parsed. JSON escapes (a Chinese character as \uXXXX is six characters) make the text up
# to six times longer than the arguments it decodes to, which `Tool.validate` bounds to MAX_ARGUMENT_CHARS.
MAX_RAW_ARGUMENT_CHARS = 6 * MAX_ARGUMENT_CHARS


@dataclass(frozen=True)
class ToolCall:
    """One tool the model asked to call.

    `arguments` is always a dict: when the model's argument text is not a JSON object it is `{}` and
    `arguments_error` says why, so the loop can tell the model instead of calling the tool.
    `raw_arguments` is the text exactly as the model sent it (echoed back in the assistant message).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None
    raw_arguments: str = ""


@dataclass
class ChatResult:
    """The model's answer to one chat turn: text, tool calls, or both."""

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None

    def assistant_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation before the tool results."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.raw_arguments or json.dumps(call.arguments)},
                }
                for call in self.tool_calls
            ]
        return message


def parse_tool_call(call_id: str, name: str, text: str | None) -> ToolCall:
    """The tool call the model asked for, from its argument text (a JSON object). Text longer than
    MAX_RAW_ARGUMENT_CHARS is refused unparsed and is not echoed back to the model."""
    call_id, name, text = storable_text(call_id or ""), storable_text(name or ""), text or ""
    if len(text) > MAX_RAW_ARGUMENT_CHARS:
        error = f"arguments are {len(text)} characters long, more than {MAX_RAW_ARGUMENT_CHARS}; nothing was run"
        return ToolCall(id=call_id, name=name, arguments={}, arguments_error=error)
    echoed = storable_text(text)
    if not text.strip():
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=echoed)
    try:
        arguments = bounded_loads(text)
    except JSONTooDeep:
        # Not echoed back: a wall of brackets is no use to the model and only costs tokens.
        error = f"arguments nest deeper than {MAX_JSON_DEPTH} levels; nothing was run"
        return ToolCall(id=call_id, name=name, arguments={}, arguments_error=error)
    except ValueError as exc:
        where = f" ({exc.msg} at position {exc.pos})" if isinstance(exc, json.JSONDecodeError) else f" ({exc})"
        error = f"arguments are not valid JSON{where}"
        return ToolCall(id=call_id, name=name, arguments={}, arguments_error=error, raw_arguments=echoed)
    if not isinstance(arguments, dict):
        error = f"arguments must be a JSON object, got {type(arguments).__name__}"
        return ToolCall(id=call_id, name=name, arguments={}, arguments_error=error, raw_arguments=echoed)
    return ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=echoed)


def tool_result_message(call: ToolCall, result: Any) -> dict[str, Any]:
    """The `tool` message answering `call`; a non-string result (the tool envelope) is sent as JSON."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    return {"role": "tool", "tool_call_id": call.id, "content": storable_text(content)}
