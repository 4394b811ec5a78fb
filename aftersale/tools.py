"""What the agent (and channel 1, through the same registry) may call about after-sale: thin over the services.

Each tool returns the envelope of DESIGN.md with `data["kind"]` (`aftersale`, `progress`) and everything the
presenter needs, ok or fail, and never raises. The traveller is always the context's user; no tool takes a user id
from its arguments.
"""

from typing import Annotated, Literal

from django.utils import translation
from pydantic import Field

from aftersale.selectors import aftersale_progress, ticket_facts
from aftersale.services.transitions import AftersaleError
from aftersale.services.workflow import aftersale_request_submit
from core.envelope import Code, fail, ok
from core.ids import normalise_order_id
from core.tools import Needs, Risk, ToolContext, tool

AFTERSALE_KIND = "aftersale"
PROGRESS_KIND = "progress"
MESSAGES = {
    "SUBMITTED": "submitted, waiting for review",
    "REUSED": "already submitted, still waiting for review",
    "ALREADY_DONE": "already decided: it will not be done twice",
}


# Opening a request writes a ticket, but moves no money: a human approver decides every one, so the call itself
# needs nothing more (no confirmation card in front of a request for review).
@tool(risk=Risk.WRITE, needs=Needs.NOTHING, tags=("aftersale",))
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
    reason: Annotated[
        str,
        Field(
            max_length=2000,
            description="Why, in the traveller's own words (e.g. 鞋子开胶了); empty: their message is kept",
        ),
    ] = "",
    reason_kind: Annotated[
        Literal["QUALITY", "NO_REASON", "TICKET", "NOT_RECEIVED"] | None,
        Field(
            description="QUALITY (broken, defective, not as described), NO_REASON (changed their mind, does not "
            "fit), TICKET (an activity ticket they cannot use), NOT_RECEIVED (never arrived); picks the policy"
        ),
    ] = None,
) -> dict:
    """Ask for a refund or a return of one of the traveller's orders. The request is checked against the
    after-sale policy for its reason (a quality problem, a no-reason return, a ticket refund) and submitted to a
    human reviewer with the traveller's reason; it returns at once with the ticket. Asking again for the same order
    and action returns the same ticket."""
    # Time limits count from the real clock, not from a date the conversation may have pinned. The reason kept for
    # the approver: the one the call gives, else the traveller's own message of the turn. The policy's reason is
    # worded in the language of the reply it goes into (the turn's), not the page's.
    with translation.override(context.language):
        outcome = aftersale_request_submit(
            user=context.user,
            order_id=order_id,
            action=action,
            port=context.port,
            reason=reason or context.request_text,
            reason_kind=reason_kind,
        )
    data = {
        "kind": AFTERSALE_KIND,
        "outcome": outcome.status,
        "order_id": outcome.ticket.entity if outcome.ticket else normalise_order_id(order_id),
        "action": action,
        "reason": outcome.reason or "",
        "reason_kind": reason_kind,
    }
    if not outcome.ok:
        if outcome.code == Code.ORDER_NOT_FOUND:
            data["order_id"] = None  # unknown or someone else's, alike: a number that is not theirs is not echoed
        cited = outcome.cited_policies if outcome.code == Code.INELIGIBLE else []
        data["policies"] = [{"id": p.get("id"), "title": p.get("title", "")} for p in cited]
        return fail(outcome.code, outcome.reason, data)
    facts = ticket_facts(outcome.ticket)
    # The policy the request was judged under, when the verdict cites one (a quality problem → the quality policy).
    cited = [p for p in outcome.policies if p.get("id") in outcome.policy_ids]
    data["policy"] = {"id": cited[0].get("id"), "title": cited[0].get("title", "")} if cited else None
    return ok({**facts, **data, "ticket": facts}, MESSAGES[outcome.status])


@tool(risk=Risk.READ, tags=("aftersale",))
def query_progress(
    context: ToolContext,
    order_id: Annotated[
        str | None, Field(max_length=32, description="Only the tickets of this order, like ORD-001")
    ] = None,
) -> dict:
    """List the traveller's own after-sale tickets (refunds, returns, paused cancellations) with their status,
    newest first, optionally only those of one order."""
    try:
        with translation.override(context.language):
            tickets = aftersale_progress(user=context.user, order_id=order_id)
    except AftersaleError as exc:
        return fail(exc.code, exc.message, {"kind": PROGRESS_KIND, "order_id": None, "tickets": []})
    wanted = normalise_order_id(order_id) if order_id else None
    return ok({"kind": PROGRESS_KIND, "order_id": wanted, "tickets": [ticket_facts(t) for t in tickets]})


TOOLS = [request_aftersale, query_progress]
