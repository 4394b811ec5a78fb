"""Business reconciliation: before money moves, does the approved ticket still match the order as it is NOW?

An approver decided on the facts of the moment the ticket was opened; hours may have passed. The executor calls
`reconcile` on the order row it has just read (or None when the order is gone) and executes only when the list of
mismatches is empty. Pure: it reads the two rows it is given and queries nothing.
"""

from aftersale.models import ORDER_TRANSITIONS, BizOrder, HitlTicket, OrderStatus, TicketAction

# What a successful ticket does to its order (paid back in full; see `order_target_status` for partial refunds).
ORDER_TARGET_STATUS: dict[str, str] = {
    TicketAction.REFUND: OrderStatus.REFUNDED,
    TicketAction.RETURN: OrderStatus.RETURNED,
}


def order_target_status(ticket: HitlTicket) -> str | None:
    """The status the ticket's order ends in: REFUNDED, or PART_REFUNDED when an approver refunded less than the
    amount asked; RETURNED for a return whatever was paid back (the goods came back; `refunded_amount` says how
    much). None for an action that pays nothing back."""
    if ticket.action == TicketAction.REFUND and ticket.is_partial:
        return OrderStatus.PART_REFUNDED
    return ORDER_TARGET_STATUS.get(ticket.action)


def reconcile(ticket: HitlTicket, order: BizOrder | None) -> list[str]:
    """The reasons the ticket must not be executed against `order`; an empty list means it may be.

    Checked: the order exists, is the ticket's order, still belongs to the requester, is not being refunded by
    another ticket (`refund_claim`, held by the ticket number: named without a query), may still move to the status
    the action leads to (ORDER_TRANSITIONS), its amount equals the amount the ticket asked, nothing was paid back
    on it yet, and the approved amount is more than nothing and at most the amount asked.
    """
    target = order_target_status(ticket)
    if target is None:
        return [f"action {ticket.action} does not refund an order"]
    if order is None:
        return [f"order {ticket.entity} no longer exists"]
    mismatches = []
    if order.order_id != ticket.entity or (ticket.order_id is not None and ticket.order_id != order.pk):
        mismatches.append(f"order {order.order_id} is not the ticket's order {ticket.entity}")
    if order.user_id != ticket.requested_by_id:
        mismatches.append(f"order {order.order_id} no longer belongs to the requester")
    if order.refund_claim_id is not None and order.refund_claim_id != ticket.ticket_no:
        mismatches.append(f"{order.order_id} is being refunded by ticket {order.refund_claim_id}")
    if target not in ORDER_TRANSITIONS.get(order.status, set()):
        mismatches.append(f"order {order.order_id} is {order.status}, it cannot become {target}")
    if ticket.amount is None or ticket.amount != order.amount:
        mismatches.append(f"amounts differ: ticket ¥{ticket.amount}, order ¥{order.amount}")
    if order.refunded_amount:
        mismatches.append(f"order {order.order_id} already got ¥{order.refunded_amount} back")
    paid_back = ticket.refund_amount
    if paid_back is None or paid_back <= 0 or (ticket.amount is not None and paid_back > ticket.amount):
        mismatches.append(f"the approved amount ¥{paid_back} is not within ¥0–¥{ticket.amount}")
    return mismatches
