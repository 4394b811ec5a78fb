"""Activities: search, recommend, greetings / thanks / help, and the refusal of what is out of scope.

Search and recommend run the same tools channel 2 offers the model (`itinerary.tools`), presented by
`assistant.presenters.activities`; only the clarifying question (a search without a place) is asked here.
A sentence that is only social (`Intent.social`: 你好, 谢谢, help, 再见) is answered kindly with what the assistant
can do and a few examples to tap; anything else out of scope keeps the refusal.
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


SOCIAL_EXAMPLES = {
    "zh-hans": ["大理有什么活动", "明天杭州天气怎么样", "帮我规划三天丽江行程", "我的退款到哪一步了"],
    "en": ["Activities in Dali", "Weather in Hangzhou tomorrow", "Plan a 3-day trip to Lijiang", "Where is my refund?"],
}
SOCIAL_KINDS = ("GREETING", "THANKS", "HELP", "GOODBYE")


def social_reply(social: str, language: str) -> Reply:
    """A friendly answer to a greeting, thanks, a call for help or a goodbye: what the assistant can do and a few
    examples to tap (fresh: they start a new request, without remembered slots)."""
    examples = SOCIAL_EXAMPLES.get(language, SOCIAL_EXAMPLES["en"])
    chips = [] if social == "GOODBYE" else [chip(example, fresh=True) for example in examples]
    return Reply(compose("social", language, social=social), "ANSWERED", suggestions=chips)


@handles(IntentName.OUT_OF_SCOPE)
def out_of_scope(context: TurnContext) -> Reply:
    social = context.intent.social
    if social in SOCIAL_KINDS:
        return social_reply(social, context.language)
    zh = context.language == "zh-hans"
    examples = (
        ["推荐热门活动", "大理有什么活动", "我的退款到哪一步了"]
        if zh
        else ["Recommend something fun", "Activities in Dali", "Where is my refund?"]
    )
    return Reply(
        compose("out_of_scope", context.language), "REFUSED", suggestions=[chip(e, fresh=True) for e in examples]
    )
