"""After-sale in channel 1: ask which order and which action when the sentence did not say, then run the same
tools channel 2 offers (`request_aftersale`, `query_progress`) and present their envelopes.

The request returns at once: a ticket waits for a human in the admin; nothing here waits for a decision.
"""

from aftersale.selectors import orders_for_user
from assistant.handlers.base import answer_mapped
from assistant.handlers.registry import handles
from assistant.llm.schema import IntentName
from assistant.llm.tool_calls import tool_call_for
from assistant.presenters.aftersale import ACTION_EN, ACTION_ZH
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip


@handles(IntentName.AFTERSALE)
def aftersale_request(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    zh = language == "zh-hans"
    if not intent.order_id:
        orders = list(orders_for_user(user=context.user)[:5])
        verb = (
            ACTION_ZH.get(intent.aftersale_action or "", "退款")
            if zh
            else ACTION_EN.get(intent.aftersale_action or "", "refund")
        )
        chips = [chip(f"订单{o.order_id}申请{verb}" if zh else f"{verb} order {o.order_id}") for o in orders]
        return Reply(
            compose("aftersale_need", language, need="order", orders=orders),
            "CLARIFY",
            suggestions=chips,
            awaiting="order",
        )
    if not intent.aftersale_action:
        chips = [
            chip(f"订单{intent.order_id}退款" if zh else f"refund order {intent.order_id}"),
            chip(f"订单{intent.order_id}退货" if zh else f"return order {intent.order_id}"),
        ]
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
