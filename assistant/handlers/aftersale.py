"""After-sale in channel 1: ask which order and which action when the sentence did not say, then run the same
tools channel 2 offers (`request_aftersale`, `query_progress`) and present their envelopes.

The request returns at once: a ticket waits for a human in the admin; nothing here waits for a decision.
"""

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from aftersale.selectors import orders_for_user
from assistant.handlers.base import answer_mapped
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip

# What a traveller would type to ask for each action on an order (chips, read by the engine as typed).
ASK_FOR = {"REFUND": gettext_noop("refund order %(order)s"), "RETURN": gettext_noop("return order %(order)s")}


def _asking(action: str, order_id: str) -> str:
    return _(ASK_FOR[action]) % {"order": order_id}


@handles(IntentName.AFTERSALE)
def aftersale_request(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    if not intent.order_id:
        orders = list(orders_for_user(user=context.user)[:5])
        with translation.override(language):
            chips = [chip(_asking(intent.aftersale_action or "REFUND", o.order_id)) for o in orders]
        return Reply(
            compose("aftersale_need", language, need="order", orders=orders),
            "CLARIFY",
            suggestions=chips,
            awaiting="order",
        )
    if not intent.aftersale_action:
        with translation.override(language):
            chips = [chip(_asking(action, intent.order_id)) for action in ("REFUND", "RETURN")]
        return Reply(
            compose("aftersale_need", language, need="action", order_id=intent.order_id),
            "CLARIFY",
            suggestions=chips,
            awaiting="action",
        )
    return answer_mapped(context, tool_call_for(intent))


@handles(IntentName.QUERY_PROGRESS)
def progress(context: TurnContext) -> Reply:
    return answer_mapped(context, tool_call_for(context.intent))
