"""Activities: search, recommend, and the refusal of what is out of scope.

Search and recommend run the same tools channel 2 offers the model (`itinerary.tools`), presented by
`assistant.presenters.activities`; only the clarifying question (a search without a place) is asked here.
"""

from assistant.handlers.base import answer_mapped
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.presenters.activities import clarify_destination
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip


@handles(IntentName.SEARCH_ACTIVITIES)
def search_activities(context: TurnContext) -> Reply:
    intent = context.intent
    call = tool_call_for(intent)
    if call is None:  # no place yet
        return clarify_destination(
            context, date_start=intent.date_start, date_end=intent.date_end, max_price=intent.max_price
        )
    return answer_mapped(context, call)


@handles(IntentName.RECOMMEND)
def recommend(context: TurnContext) -> Reply:
    return answer_mapped(context, tool_call_for(context.intent))


@handles(IntentName.OUT_OF_SCOPE)
def out_of_scope(context: TurnContext) -> Reply:
    zh = context.language == "zh-hans"
    examples = (
        ["推荐热门活动", "大理有什么活动", "我的退款到哪一步了"]
        if zh
        else ["Recommend something fun", "Activities in Dali", "Where is my refund?"]
    )
    return Reply(
        compose("out_of_scope", context.language), "REFUSED", suggestions=[chip(e, fresh=True) for e in examples]
    )
