"""Channel 2 (ASSISTANT_AGENT_ENABLED): the model calls tools; code composes the reply from what they returned.

Same tools, same guards (validation and bounds, what a call needs, the cap on changes, hooks, the services' own
checks), same presenters and cards as channel 1: the reply is `present()` over the envelopes of the calls, so several
tools in one request give one merged reply. The model's own words are kept for the audit, never shown as facts.
"""

import json
import logging
from dataclasses import replace
from functools import cache

from django.conf import settings
from django.utils import timezone

from assistant.agent import default_registry, run_agent
from assistant.dispatcher import dispatch
from assistant.handlers.base import tool_context
from assistant.llm.schema import IntentName
from assistant.presenters import present_run
from assistant.selectors import conversation_history
from assistant.turn import Reply, TurnContext
from bookings.selectors import booking_skill_document

logger = logging.getLogger("assistant.agent")

PROMPT_FILE = settings.BASE_DIR / "assistant" / "llm" / "prompts" / "agent_system.md"
HISTORY_TURNS = 4
# What the UNDERSTOOD line is: the conversation's state as the offline engine reads it (assistant.dialogue).
STATE_NOTE = (
    "What the conversation is about, as TripDesk's offline reader understood it with the earlier turns "
    "(a hint: the traveller's own words come first):"
)


@cache
def _system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8") + "\n\n" + booking_skill_document()


def agent_messages(context: TurnContext) -> list[dict]:
    """The system prompt (with the skill document and today), the last turns of the conversation, the message."""
    history = []
    for turn in conversation_history(user=context.user, conversation_id=context.conversation_id, limit=HISTORY_TURNS):
        history += [{"role": "user", "content": turn.message}, {"role": "assistant", "content": turn.reply}]
    state = json.dumps(context.intent.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False)
    system = f"{_system_prompt()}\nTODAY: {context.today}\n{STATE_NOTE}\nUNDERSTOOD: {state}"
    return [
        {"role": "system", "content": system},
        *history,
        {"role": "user", "content": context.request_text},
    ]


def agent_turn(context: TurnContext) -> Reply:
    """Run the agent over every registered tool for one message, then tell the user what the tools did. When the
    model fails before anything changed, channel 1 answers the turn from the offline reading (`context.intent`):
    the traveller gets the answer the code can give, not "nothing was done"."""
    context = replace(context, started=context.started or timezone.now())
    result = run_agent(
        port=context.port,
        registry=default_registry(),
        context=tool_context(context),
        messages=agent_messages(context),
        max_iterations=settings.ASSISTANT_AGENT_MAX_ITERATIONS,
    )
    if result.error is not None and result.writes == 0 and not result.pending:
        logger.warning("the agent's model failed (%s): channel 1 answers this turn", result.error.kind)
        return replace(dispatch(context), fallback=True)
    if not result.steps and context.intent.intent != IntentName.OUT_OF_SCOPE:
        # No tool was called for a travel request (a slot is missing, or the model only talked): channel 1 answers
        # from the offline reading, so the traveller gets the same question or answer in both channels.
        return dispatch(context)
    return present_run(result, context)
