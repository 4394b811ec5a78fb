"""What channel-1 handlers share: run an app's tool with the understood slots, and present its envelope.

A handler asks its one clarifying question when a slot is missing; otherwise it runs the same tool channel 2 offers
the model (same validation, same guards, same service) and hands the envelope to the same presenter.

`run_tool` is the one place a handler calls a tool, so a flow can also be replayed (`next_call`): the offline
`rules` adapter of channel 2 asks, call by call, what channel 1's flow would call next given the envelopes the agent
loop already got, and the loop makes that call. Handlers read the database but write nothing themselves (every
change is a tool's), so a replay has no effect besides the calls it names.
"""

import json
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from assistant import progress
from assistant.agent import default_registry
from assistant.llm.port import Answered
from assistant.llm.tool_calls import ToolCallPlan
from assistant.presenters import present
from assistant.turn import Reply, TurnContext
from core.tools import ToolContext


def tool_context(context: TurnContext) -> ToolContext:
    """The tool context of a turn: who asks, where, in which language; the model never sees it."""
    return ToolContext(
        user=context.user,
        conversation_id=context.conversation_id,
        language=context.language,
        today=context.today,
        port=context.port,
        request_text=context.request_text,
        turn_id=context.turn_id,
    )


def run_tool(context: TurnContext, name: str, **arguments) -> dict:
    """Call one tool of the registry with the given arguments (None values are left out: the tool's defaults).
    Inside a replay (`next_call`) nothing runs: the recorded envelope of this call is returned, or the flow stops
    here with this call as its next one."""
    given = {key: value for key, value in arguments.items() if value is not None}
    replay = _replay.get()
    if replay is not None:
        return replay.answer(name, given)
    progress.step_started(name, given, context)
    envelope = default_registry().call(name, given, tool_context(context))
    progress.step_done(name, envelope, context)
    return envelope


def answer_with(context: TurnContext, name: str, **arguments) -> Reply:
    """Run one tool and present its envelope: the whole of a channel-1 handler once its slots are there."""
    return present([run_tool(context, name, **arguments)], context)


def answer_mapped(context: TurnContext, call: ToolCallPlan) -> Reply:
    """Run the call `assistant.llm.tool_calls` maps the intent to."""
    return answer_with(context, call.name, **call.arguments)


# -- replaying a flow ------------------------------------------------------------------------------------------------


class NextCall(BaseException):  # noqa: N818 - a signal, not an error; BaseException so no `except Exception` eats it
    """The first call of a replayed flow that no recorded envelope answers: the flow's next call."""

    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(name)
        self.name, self.arguments = name, arguments


@dataclass
class _Replay:
    answered: Sequence[Answered]
    position: int = 0

    def answer(self, name: str, arguments: dict[str, Any]) -> dict:
        """The i-th call's recorded envelope when it was this call (same tool, same arguments); else NextCall."""
        wanted = _as_json(arguments)
        if self.position < len(self.answered):
            done_name, done_arguments, envelope = self.answered[self.position]
            if done_name == name and _as_json(done_arguments) == wanted:
                self.position += 1
                return envelope if isinstance(envelope, dict) else {}
        raise NextCall(name, wanted)


_replay: ContextVar[_Replay | None] = ContextVar("assistant_flow_replay", default=None)


def next_call(flow: Callable[[], Reply], answered: Sequence[Answered]) -> tuple[str, dict[str, Any]] | None:
    """The call `flow` makes next when its first calls got the `answered` envelopes (in order): (tool name, its
    arguments as JSON values), or None when the flow ends (its reply made) without another call."""
    token = _replay.set(_Replay(answered))
    try:
        flow()
    except NextCall as call:
        return call.name, call.arguments
    finally:
        _replay.reset(token)
    return None


def _as_json(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as a tool call carries them (dates as YYYY-MM-DD)."""
    return json.loads(json.dumps(arguments, ensure_ascii=False, default=str))
