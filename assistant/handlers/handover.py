"""A request for a person in channel 1: the same tool channel 2 offers (`hand_over_to_person`), presented alike."""

from assistant.handlers.base import answer_with
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.turn import Reply, TurnContext


@handles(IntentName.HANDOVER)
def hand_over(context: TurnContext) -> Reply:
    return answer_with(context, "hand_over_to_person", complaint=context.intent.complaint or None)
