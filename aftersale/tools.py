"""What the agent (and channel 1, through the same registry) may call about after-sale: thin over the services.

Each tool returns the envelope of DESIGN.md with `data["kind"]` (`aftersale`, `progress`) and everything the
presenter needs, ok or fail, and never raises. The traveller is always the context's user; no tool takes a user id
from its arguments.
"""

from typing import Annotated, Literal

from django.utils import translation
from pydantic import Field

from aftersale.selectors import aftersale_open_progress, aftersale_progress, ticket_facts
from aftersale.services.request_preview import aftersale_request_preview
from aftersale.services.transitions import AftersaleError
from aftersale.services.workflow import CONFIRMED_IN_CHAT, aftersale_request_submit
from core.envelope import Code, fail, ok
from core.ids import normalise_order_id
from core.tools import Risk, ToolContext, tool

AFTERSALE_KIND = "aftersale"
PROGRESS_KIND = "progress"
MESSAGES = {
    "SUBMITTED": "submitted, waiting for review",
    "REUSED": "already submitted, still waiting for review",
    "ALREADY_DONE": "already decided: it will not be done twice",
}


def _preview(context: ToolContext, arguments: dict) -> dict:
    """The confirmation card of a request (`aftersale_request_preview`); a refusal carries what the presenter
    needs to answer it (the kind, the order unless it is not the traveller's, the action, the cited policies)."""
    action = arguments["action"]
    try:
        return aftersale_request_preview(
            user=context.user,
            order_id=arguments["order_id"],
            action=action,
            reason=arguments.get("reason") or "",
            reason_kind=arguments.get("reason_kind"),
            language=context.language,
        )
    except AftersaleError as exc:
        data = dict(exc.data or {})
        asked = normalise_order_id(arguments["order_id"])
        data.setdefault("order_id", asked)
        data.setdefault("policies", [])
        status = data.get("outcome") if exc.code == Code.TICKET_PENDING else "REJECTED"
        data |= {"kind": AFTERSALE_KIND, "outcome": status, "action": action, "reason": exc.message}
        data["reason_kind"] = arguments.get("reason_kind")
        raise AftersaleError(exc.code, exc.message, data) from None


# A request writes a ticket that an approver may turn into money: like a booking, it runs only once the traveller
# confirmed the card with the order, the amount, the action and their reason (a model can only show the card).
@tool(risk=Risk.WRITE, tags=("aftersale",), preview=_preview)
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
            description="Why, in the traveller's own words (e.g. 鞋子开胶了, 行程有变); required: when they gave "
            "none, the call is refused and they are asked",
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
    """Ask for a refund or a return of one of the traveller's orders, with their reason. Nothing is filed before
    the traveller confirms the card this call shows (the order, the amount, the action, their reason); an order
    that is not theirs, a request the after-sale policy rules out, or one already under review is answered at once
    instead. Once confirmed, it is checked against the policy for its reason and submitted to a human reviewer;
    it returns at once with the ticket. Asking again for the same order and action returns the same ticket."""
    # Time limits count from the real clock, not from a date the conversation may have pinned. The policy's reason
    # is worded in the language of the reply it goes into (the turn's), not the page's. The ticket keeps the
    # pending action the traveller confirmed (set only by the confirmation service, checked by the registry).
    with translation.override(context.language):
        outcome = aftersale_request_submit(
            user=context.user,
            order_id=order_id,
            action=action,
            port=context.port,
            reason=reason,
            reason_kind=reason_kind,
            confirmed_via=CONFIRMED_IN_CHAT if context.confirmed_action else "",
            confirmed_action=context.confirmed_action,
        )
    data = {
        "kind": AFTERSALE_KIND,
        "outcome": outcome.status,
        "order_id": outcome.ticket.entity if outcome.ticket else normalise_order_id(order_id),
        "action": action,
        "reason": outcome.reason or "",
        "reason_kind": reason_kind,
        "reason_code": outcome.reason_code if not outcome.ok else "",
        "reason_facts": outcome.reason_facts if not outcome.ok else {},
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
    """Where the traveller's own after-sale requests (refunds, returns, paused cancellations) stand, newest first:
    all the tickets of one order; with no order, the requests still open (`open`), and when none is, the latest
    decided one (`latest`)."""
    try:
        with translation.override(context.language):
            if order_id:
                tickets, latest = aftersale_progress(user=context.user, order_id=order_id), None
            else:
                tickets, latest = aftersale_open_progress(user=context.user)
    except AftersaleError as exc:
        return fail(exc.code, exc.message, {"kind": PROGRESS_KIND, "order_id": None, "tickets": []})
    data = {"kind": PROGRESS_KIND, "order_id": normalise_order_id(order_id) if order_id else None}
    data["tickets"] = [ticket_facts(t) for t in tickets]
    if not order_id:
        data |= {"open": True, "latest": ticket_facts(latest) if latest else None}
    return ok(data)


TOOLS = [request_aftersale, query_progress]
