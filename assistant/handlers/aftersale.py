"""After-sale: refund and return requests run the fixed workflow; progress reads the user's tickets.

The request returns at once: a ticket waits for a human in the admin; nothing here waits for a decision.
"""

from assistant import cards
from assistant.dispatcher import Reply, TurnContext, chip, handles
from assistant.llm.schema import IntentName
from assistant.replies import compose

ACTION_ZH = {"REFUND": "退款", "RETURN": "退货"}
ACTION_EN = {"REFUND": "refund", "RETURN": "return"}


@handles(IntentName.AFTERSALE)
def aftersale_request(context: TurnContext) -> Reply:
    from aftersale.selectors import orders_for_user
    from aftersale.services.workflow import aftersale_request_submit

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

    outcome = aftersale_request_submit(
        user=context.user, order_id=intent.order_id, action=intent.aftersale_action, port=context.port
    )
    ticket = outcome.ticket
    card = cards.ticket_card(ticket) if ticket else None
    policy = (outcome.policies or [{}])[0].get("title", "") if outcome.status == "REJECTED" else ""
    text = compose(
        "aftersale_result",
        language,
        status=outcome.status,
        code=outcome.code,
        order_id=intent.order_id,
        ticket=card,
        ticket_status_zh=card["status_label_zh"] if card else "",
        ticket_status_en=card["status_label"].lower() if card else "",
        reason=outcome.reason,
        policy=policy,
        action_zh=ACTION_ZH[intent.aftersale_action],
        action_en=ACTION_EN[intent.aftersale_action],
    )
    reply_outcome = "ANSWERED" if outcome.status != "REJECTED" else "REJECTED"
    return Reply(text, reply_outcome, cards=[card] if card else [])


@handles(IntentName.QUERY_PROGRESS)
def progress(context: TurnContext) -> Reply:
    from aftersale.selectors import tickets_for_user

    tickets = tickets_for_user(user=context.user)
    if context.intent.order_id:
        tickets = tickets.filter(entity=context.intent.order_id)
    ticket_cards = [cards.ticket_card(t) for t in tickets[:10]]
    text = compose(
        "progress", context.language, count=len(ticket_cards), tickets=ticket_cards, order_id=context.intent.order_id
    )
    return Reply(text, "ANSWERED" if ticket_cards else "EMPTY", cards=ticket_cards)
