"""Weather and day-by-day travel plans (QUERY_WEATHER, MAKE_TRAVEL_PLAN).

Both run the same tools channel 2 offers the model (`weather_report`, `make_travel_plan` in `itinerary.tools`),
presented by `assistant.presenters.travel`; only the clarifying question (no place) is asked here.
"""

from assistant.handlers.base import answer_with
from assistant.handlers.registry import handles
from assistant.llm.schema import Intent, IntentName
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip
from itinerary.tools import MAX_REQUESTED_DAYS

PLACE_EXAMPLES = {"zh-hans": ["三亚", "大理", "哈尔滨"], "en": ["Sanya", "Dali", "Harbin"]}
PLAN_EXAMPLES = {"zh-hans": ["大理3天", "三亚5天", "哈尔滨4天"], "en": ["3 days in Dali", "5 days in Sanya"]}


def _place(intent: Intent) -> tuple[str | None, str | None]:
    """(the place meant, the city it lies in): the first destination keyword and its city (the station a scenic
    spot stands for), else the city, else the province. A province never stands in for a place inside it."""
    if intent.destination_keywords:
        return intent.destination_keywords[0], intent.city
    return intent.city or intent.province, None


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
    intent = context.intent
    place, city = _place(intent)
    if not place:
        return _clarify(context, "weather_clarify", PLACE_EXAMPLES)
    return answer_with(
        context, "weather_report", place=place, city=city, date_start=intent.date_start, date_end=intent.date_end
    )


@handles(IntentName.MAKE_TRAVEL_PLAN)
def make_travel_plan(context: TurnContext) -> Reply:
    intent = context.intent
    destination, _ = _place(intent)
    if not destination:
        return _clarify(context, "travel_plan_clarify", PLAN_EXAMPLES)
    return answer_with(
        context,
        "make_travel_plan",
        destination=destination,
        keywords=intent.destination_keywords or None,
        city=intent.city,
        province=intent.province,
        days=min(intent.days, MAX_REQUESTED_DAYS) if intent.days else None,
        date_start=intent.date_start,
        date_end=intent.date_end,
        max_price=intent.max_price,
    )
