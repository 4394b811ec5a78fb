"""What the agent may call about after-sale. Each returns the envelope of DESIGN.md and never raises.

The traveller is always the context's user; no tool takes a user id from its arguments.
"""

from typing import Annotated, Any, Literal

from pydantic import Field

from aftersale.hooks import HOOKS as CHECKPOINT_HOOKS
from aftersale.models import HitlTicket
from aftersale.selectors import tickets_for_order, tickets_for_user
from aftersale.services.workflow import aftersale_request_submit
from core.envelope import Code, fail, ok
from core.ids import normalise_order_id
from core.tools import Risk, ToolContext, tool

PROGRESS_LIMIT = 20
MESSAGES = {
    "SUBMITTED": "submitted, waiting for review",
    "REUSED": "already submitted, still waiting for review",
    "ALREADY_DONE": "already decided: it will not be done twice",
}


def ticket_summary(ticket: HitlTicket) -> dict[str, Any]:
    """What a traveller may see of a ticket (never the approver's flag or the evidence)."""
    return {
        "ticket_no": ticket.ticket_no,
        "action": ticket.action,
        "order_id": ticket.entity,
        "amount": str(ticket.amount) if ticket.amount is not None else None,
        "status": ticket.status,
        "created_at": ticket.created_at.isoformat(),
        "deadline": ticket.deadline.isoformat(),
        "decided_at": ticket.decided_at.isoformat() if ticket.decided_at else None,
        "executed_at": ticket.executed_at.isoformat() if ticket.executed_at else None,
    }


@tool(risk=Risk.WRITE, tags=("aftersale",))
def request_aftersale(
    context: ToolContext,
    order_id: Annotated[str, Field(max_length=32, description="The order number, like ORD-001")],
    action: Annotated[
        Literal["REFUND", "RETURN"],
        Field(
            description="REFUND (money back, e.g. an activity ticket or goods not delivered yet) or RETURN "
            "(send delivered goods back)"
        ),
    ],
) -> dict:
    """Ask for a refund or a return of one of the traveller's orders. The request is checked against the
    after-sale policies and submitted to a human reviewer; it returns at once with the ticket. Asking again for
    the same order and action returns the same ticket."""
    # Time limits count from the real clock, not from a date the conversation may have pinned.
    outcome = aftersale_request_submit(user=context.user, order_id=order_id, action=action)
    if not outcome.ok:
        data = {
            "order_id": normalise_order_id(order_id),
            "reason": outcome.reason,
            "policies": [{"id": p["id"], "title": p["title"]} for p in outcome.cited_policies]
            if outcome.code == Code.INELIGIBLE
            else [],
        }
        return fail(outcome.code, outcome.reason, data)
    data = ticket_summary(outcome.ticket) | {"outcome": outcome.status}
    return ok(data, MESSAGES[outcome.status])


@tool(risk=Risk.READ, tags=("aftersale",))
def query_progress(
    context: ToolContext,
    order_id: Annotated[
        str | None, Field(max_length=32, description="Only the tickets of this order, like ORD-001")
    ] = None,
) -> dict:
    """List the traveller's own after-sale tickets (refunds, returns, paused cancellations) with their status,
    newest first, optionally only those of one order."""
    if order_id:
        normalised = normalise_order_id(order_id)
        if normalised is None:
            return fail(Code.INVALID_PARAM, "Give an order number like ORD-001.")
        tickets = tickets_for_order(user=context.user, order_id=normalised)
    else:
        tickets = tickets_for_user(user=context.user)
    return ok({"tickets": [ticket_summary(t) for t in tickets[:PROGRESS_LIMIT]]})


TOOLS = [request_aftersale, query_progress]
HOOKS = CHECKPOINT_HOOKS  # HIGH-risk tool calls are paused into tickets for an approver
