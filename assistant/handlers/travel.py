"""Weather and day-by-day travel plans (QUERY_WEATHER, MAKE_TRAVEL_PLAN).

Both run the same tools channel 2 offers the model (`weather_report`, `make_travel_plan` in `itinerary.tools`),
presented by `assistant.presenters.travel`; only the clarifying question (no place) is asked here.
"""

import datetime as dt

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from assistant.handlers.base import answer_mapped
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip

# What a traveller might answer, as chips (in the reply's language, so the engine reads them as typed).
PLACE_EXAMPLES = (gettext_noop("Sanya"), gettext_noop("Dali"), gettext_noop("Harbin"))
PLAN_EXAMPLES = (gettext_noop("3 days in Dali"), gettext_noop("5 days in Sanya"), gettext_noop("4 days in Harbin"))


def _clarify(context: TurnContext, template: str, examples: tuple[str, ...]) -> Reply:
    with translation.override(context.language):
        shown = [_(example) for example in examples]
    return Reply(
        compose(template, context.language, examples=shown),
        "CLARIFY",
        suggestions=[chip(e) for e in shown],
        awaiting="destination",
    )


@handles(IntentName.QUERY_WEATHER)
def query_weather(context: TurnContext) -> Reply:
    intent = context.intent
    if intent.day_shift and not intent.date_start:
        # "and the day after?" after a weather with no day of its own: counted from today (the dialogue counts
        # from the day shown when there was one)
        day = context.today + dt.timedelta(days=intent.day_shift)
        intent = intent.model_copy(update={"date_start": day, "date_end": day})
    call = tool_call_for(intent)
    return answer_mapped(context, call) if call else _clarify(context, "weather_clarify", PLACE_EXAMPLES)


@handles(IntentName.MAKE_TRAVEL_PLAN)
def make_travel_plan(context: TurnContext) -> Reply:
    call = tool_call_for(context.intent)
    return answer_mapped(context, call) if call else _clarify(context, "travel_plan_clarify", PLAN_EXAMPLES)
