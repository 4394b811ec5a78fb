"""Activities: search, recommend, greetings / thanks / help, and the refusal of what is out of scope.

Search and recommend run the same tools channel 2 offers the model (`itinerary.tools`), presented by
`assistant.presenters.activities`; only the clarifying question (a search without a place) is asked here.
A sentence that is only social (`Intent.social`: 你好, 谢谢, help, 再见) is answered kindly with what the assistant
can do and a few examples to tap; anything else out of scope keeps the refusal.
"""

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from assistant.handlers.base import answer_mapped, answer_with
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.presenters.activities import clarify_destination
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip
from itinerary.refs import activity_of

DETAIL_TOOL = "activity_detail"


def _picked_activity(context: TurnContext) -> int | None:
    """The activity the traveller picked among those the previous reply showed ("第一个的详情", "the second one")."""
    pick = context.intent.pick
    if not pick or not 1 <= pick <= len(context.offered):
        return None
    found = activity_of(context.offered[pick - 1])
    return found[0] if found else None


def _details(context: TurnContext, activity_id: int) -> Reply:
    """The picked activity's details card (nothing is booked; the list stays on screen: `conversation_state.remembered`)."""
    return answer_with(context, DETAIL_TOOL, activity_id=activity_id)


@handles(IntentName.SEARCH_ACTIVITIES)
def search_activities(context: TurnContext) -> Reply:
    intent = context.intent
    if (picked := _picked_activity(context)) is not None:
        return _details(context, picked)
    call = tool_call_for(intent)
    if call is None:  # no place yet
        return clarify_destination(
            context, date_start=intent.date_start, date_end=intent.date_end, max_price=intent.max_price
        )
    return answer_mapped(context, call)


@handles(IntentName.RECOMMEND)
def recommend(context: TurnContext) -> Reply:
    if (picked := _picked_activity(context)) is not None:
        return _details(context, picked)
    return answer_mapped(context, tool_call_for(context.intent))


# Examples to tap, in the reply's language (as a traveller would type them, so the understanding reads them).
SOCIAL_EXAMPLES = (
    gettext_noop("Activities in Dali"),
    gettext_noop("Weather in Hangzhou tomorrow"),
    gettext_noop("Plan a 3-day trip to Lijiang"),
    gettext_noop("Where is my refund?"),
)
OUT_OF_SCOPE_EXAMPLES = (
    gettext_noop("Recommend popular activities"),
    gettext_noop("Activities in Dali"),
    gettext_noop("Where is my refund?"),
)
SOCIAL_KINDS = ("GREETING", "THANKS", "HELP", "GOODBYE")


def _chips(examples: tuple[str, ...], language: str) -> list[dict]:
    with translation.override(language):
        return [chip(_(example), fresh=True) for example in examples]


def social_reply(social: str, language: str) -> Reply:
    """A friendly answer to a greeting, thanks, a call for help or a goodbye: what the assistant can do and a few
    examples to tap (fresh: they start a new request, without remembered slots)."""
    chips = [] if social == "GOODBYE" else _chips(SOCIAL_EXAMPLES, language)
    return Reply(compose("social", language, social=social), "ANSWERED", suggestions=chips)


@handles(IntentName.OUT_OF_SCOPE)
def out_of_scope(context: TurnContext) -> Reply:
    social = context.intent.social
    if social in SOCIAL_KINDS:
        return social_reply(social, context.language)
    return Reply(
        compose("out_of_scope", context.language),
        "REFUSED",
        suggestions=_chips(OUT_OF_SCOPE_EXAMPLES, context.language),
    )
