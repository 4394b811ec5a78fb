"""Weather and day-by-day travel plans (QUERY_WEATHER, MAKE_TRAVEL_PLAN).

Both run the same tools channel 2 offers the model (`weather_report`, `make_travel_plan` in `itinerary.tools`),
presented by `assistant.presenters.travel`; only the clarifying question (no place) is asked here.
"""

from assistant.handlers.base import answer_mapped
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip

PLACE_EXAMPLES = {"zh-hans": ["三亚", "大理", "哈尔滨"], "en": ["Sanya", "Dali", "Harbin"]}
PLAN_EXAMPLES = {"zh-hans": ["大理3天", "三亚5天", "哈尔滨4天"], "en": ["3 days in Dali", "5 days in Sanya"]}


def _clarify(context: TurnContext, template: str, examples: dict[str, list[str]]) -> Reply:
    shown = examples.get(context.language, examples["en"])
    return Reply(
        compose(template, context.language, examples=shown),
        "CLARIFY",
        suggestions=[chip(e) for e in shown],
        awaiting="destination",
    )


@handles(IntentName.QUERY_WEATHER)
def query_weather(context: TurnContext) -> Reply:
    call = tool_call_for(context.intent)
    return answer_mapped(context, call) if call else _clarify(context, "weather_clarify", PLACE_EXAMPLES)


@handles(IntentName.MAKE_TRAVEL_PLAN)
def make_travel_plan(context: TurnContext) -> Reply:
    call = tool_call_for(context.intent)
    return answer_mapped(context, call) if call else _clarify(context, "travel_plan_clarify", PLAN_EXAMPLES)
