"""Channel 1: code dispatches an understood intent to the handler that answers it.

Every handler answers from rows (selectors and services of the other apps) and composes its text from reply
templates; the model's only part was the intent.
"""

from dataclasses import replace

from assistant.handlers import HANDLERS
from assistant.llm.schema import IntentName
from assistant.presenters.base import merge_replies
from assistant.turn import Reply, TurnContext


def dispatch(context: TurnContext) -> Reply:
    """The reply of the intent's handler; a request in two parts (`intent.also`) then runs each other part's
    handler with the same slots, and the replies are merged. A clarifying question of the main part is the whole
    reply (the other parts wait until it is answered); only the main part's question is remembered, or a booking's
    asked after a question that asks nothing ("北京明天天气怎么样，顺便帮我订张去北京的火车票": the booking is the
    conversation's task then, `assistant.conversation_state`)."""
    intent = context.intent
    main = HANDLERS[intent.intent](context)  # every intent of the schema has a handler
    if not intent.also or main.awaiting:
        return main
    replies = [main]
    for name in intent.also:
        part = replace(context, intent=intent.model_copy(update={"intent": name, "also": []}))
        reply = HANDLERS[name](part)
        if name != IntentName.BOOK:
            reply.awaiting = None
        replies.append(reply)
    return merge_replies(replies)
