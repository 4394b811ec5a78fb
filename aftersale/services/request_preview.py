"""What a refund or return request would file, for the traveller to confirm before anything is filed: the workflow's
mechanical checks (`aftersale.services.workflow`'s first nodes), the live ticket that already answers it, and the
policy's own assessment, then the confirmation card. Files nothing and asks no model."""

import contextlib
from datetime import datetime
from typing import Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from aftersale.models import (
    TicketAction,
    TicketStatus,
    Verdict,
    item_name,
)
from aftersale.policy import (
    REASON_KINDS,
    PolicyFinding,
    policy_finding,
    policy_passages,
)
from aftersale.selectors import (
    ticket_facts,
)
from aftersale.services import workflow
from aftersale.services.transitions import AftersaleError
from core import metrics
from core.envelope import Code


def aftersale_request_preview(
    *,
    user,
    order_id: str,
    action: str,
    reason: str = "",
    reason_kind: str | None = None,
    now: datetime | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """What a refund or return request would file, for the traveller to confirm: the confirmation card
    `{"title", "rows", "amount", "terms", "subject"}` (the order, what it is, the action, the amount and their
    reason), after the checks that tell them first whether it can succeed. Files nothing and asks no model: the
    verdict runs once, when the confirmed request is submitted. Worded in `language` (default: the active one).

    Raises AftersaleError, with data for the answer:
    - INVALID_PARAM: not an order number, or neither a refund nor a return; `data["missing"] == "reason"` when the
      traveller gave no reason (ask them: the reviewer reads it, and it picks the policy);
    - PERMISSION_DENIED: nobody signed in;
    - ORDER_NOT_FOUND: an unknown order or someone else's, alike (the same words, no number echoed);
    - TICKET_PENDING: a live ticket answers this order and action already (`data["outcome"]` REUSED while it
      waits for review, ALREADY_DONE once decided; `data["ticket"]` its requester-facing facts);
    - INELIGIBLE: the policy's own deterministic assessment says no (`data["policies"]`, the cited ones first).
      Without a reason the request is refused only when no reason could make it eligible; else the reason is asked.
    """
    with translation.override(language) if language else contextlib.nullcontext():
        return _preview(user=user, order_id=order_id, action=action, reason=reason, reason_kind=reason_kind, now=now)


def _preview(*, user, order_id, action, reason, reason_kind, now) -> dict[str, Any]:
    now = now or timezone.now()
    state, problem = workflow._asked(
        user=user, order_id=order_id, action=action, reason=reason, reason_kind=reason_kind, port=None, now=now
    )
    if problem:
        raise AftersaleError(Code.INVALID_PARAM, problem, None if state.order_id else {"order_id": None})
    for node in (workflow.query_user, workflow.query_order):
        if node(state) == "rejected":
            hidden = {"order_id": None} if state.code == Code.ORDER_NOT_FOUND else None
            raise AftersaleError(state.code, state.reason, hidden)
    live = workflow._live_ticket(state.idempotency_key)
    if live is not None:
        waiting = live.status == TicketStatus.PENDING
        raise AftersaleError(
            Code.TICKET_PENDING,
            _("Request %(ticket)s for this order is already %(status)s.")
            % {"ticket": live.ticket_no, "status": live.get_status_display().lower()},
            {"outcome": workflow.REUSED if waiting else workflow.ALREADY_DONE, "ticket": ticket_facts(live)},
        )
    state.policies = policy_passages(order=state.order, action=state.action, reason_kind=state.reason_kind)
    finding = _finding(state, state.reason_kind)
    if not state.request_reason:
        if all(_finding(state, kind).verdict == Verdict.REJECTED for kind in (None, *REASON_KINDS)):
            _refuse(state, finding)  # no reason could make it eligible: say so before asking why
        raise AftersaleError(
            Code.INVALID_PARAM,
            _("Tell us in a few words why you ask: the reviewer reads it."),
            {"missing": workflow.MISSING_REASON, "order_id": state.order_id},
        )
    if finding.verdict == Verdict.REJECTED:
        _refuse(state, finding)
    return _card(state, finding)


def _finding(state: workflow.WorkflowState, reason_kind: str | None) -> PolicyFinding:
    return policy_finding(
        action=state.action,
        order=state.facts,
        policies=state.policies,
        today=state.today,
        now=state.now,
        reason_kind=reason_kind,
    )


def _refuse(state: workflow.WorkflowState, finding: PolicyFinding) -> None:
    """The policy says no: INELIGIBLE, its reason, the passages it cites first."""
    cited = [p for p in state.policies if p.get("id") in finding.policy_ids] or list(state.policies)
    policies = [{"id": p.get("id"), "title": p.get("title", "")} for p in cited]
    metrics.business_rejection(reason=f"aftersale:{Code.INELIGIBLE.value}")
    # The reason as its code and facts too, so a reply words it in its own language when it shows it.
    reason = {"reason_code": finding.code, "reason_facts": dict(finding.facts)}
    raise AftersaleError(Code.INELIGIBLE, finding.reason, {"policies": policies, "order_id": state.order_id, **reason})


def _card(state: workflow.WorkflowState, finding: PolicyFinding) -> dict[str, Any]:
    """The confirmation card of a request that can go to a reviewer: every fact from the order row."""
    order = state.order
    names = []
    for item in order.items or []:
        if name := item_name(item):
            qty = item.get("qty")
            names.append(f"{name} ×{qty}" if isinstance(qty, int) and qty > 1 else name)
    rows = [
        [_("Order"), order.order_id],
        [_("What"), pgettext("list separator", ", ").join(names) or order.get_category_display()],
    ]
    if order.service_date:
        rows.append([_("Date"), order.service_date.isoformat()])
    rows += [
        [_("Request"), str(TicketAction(state.action).label)],
        [_("Amount"), f"¥{order.amount}"],
        [_("Your reason"), state.request_reason],
    ]
    title = _("Refund order %(order)s") if state.action == "REFUND" else _("Return order %(order)s")
    # The policy's own check, told before they confirm: what the reviewer will read first.
    terms = _("A reviewer decides on it; nothing is paid back before they approve. %(policy)s") % {
        "policy": finding.reason
    }
    return {
        "title": title % {"order": order.order_id},
        "rows": rows,
        "amount": None,  # the amount is a row: what is asked back, not a total to pay
        "terms": terms.strip(),
        "subject": {
            "action": "aftersale",
            "order_id": order.order_id,
            "request": state.action,
            "reason_kind": state.reason_kind or "",
            "amount": str(order.amount),
        },
    }
