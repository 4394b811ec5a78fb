"""What channel-1 handlers share: run an app's tool with the understood slots, and present its envelope.

A handler asks its one clarifying question when a slot is missing; otherwise it runs the same tool channel 2 offers
the model (same validation, same guards, same service) and hands the envelope to the same presenter.
"""

from assistant.agent import default_registry
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
    """Call one tool of the registry with the given arguments (None values are left out: the tool's defaults)."""
    given = {key: value for key, value in arguments.items() if value is not None}
    return default_registry().call(name, given, tool_context(context))


def answer_with(context: TurnContext, name: str, **arguments) -> Reply:
    """Run one tool and present its envelope: the whole of a channel-1 handler once its slots are there."""
    return present([run_tool(context, name, **arguments)], context)


def answer_mapped(context: TurnContext, call: ToolCallPlan) -> Reply:
    """Run the call `assistant.llm.tool_calls` maps the intent to (the one channel 2's rules policy makes too)."""
    return answer_with(context, call.name, **call.arguments)
