"""What one tool-calling turn of the model (channel 2) gives back, independent of the adapter.

The agent loop sends OpenAI-style messages (`system`, `user`, `assistant` with `tool_calls`, `tool` with
`tool_call_id`) and gets a `ChatResult`. The two helpers build the messages the loop appends after a turn, so
the `tool_call_id` round trip is the same whichever adapter answered.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.port import Usage


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


def tool_result_message(call: ToolCall, result: Any) -> dict[str, Any]:
    """The `tool` message answering `call`; a non-string result (the tool envelope) is sent as JSON."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    return {"role": "tool", "tool_call_id": call.id, "content": content}
