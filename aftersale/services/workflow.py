"""The after-sale workflow: one refund or return request through a fixed graph, ending in a ticket or a rejection.

    query_user → query_order → query_policy → validate → submit_ticket
        └────────────┴──────────────────────────┴──→ rejected

Mechanical facts (who asks, the order exists, the order is theirs) are checked in code and reject at once; an
order of someone else's is rejected exactly like an unknown one (ORDER_NOT_FOUND), logged as ORDER_NOT_OWNED.
The request keeps the traveller's own reason (their words, bounded, control characters removed) and the reason's
kind as understood (QUALITY, NO_REASON, TICKET, NOT_RECEIVED, or none): the kind picks the policy the request is
judged by (`aftersale.policy`), the words go into the ticket for the approver.
`query_policy` retrieves the passages and computes aftersale's deterministic assessment (`aftersale.policy`).
`validate` asks the LLM port (audited: one LLMCall row per call) for its three-state verdict, with the assessment
in the request, and combines the two by one rule (`verdict_combine`):

- the port answered with the assessment itself (the `rules` adapter, `from_policy`): the policy decides; its
  REJECTED ends the request at once, citing the policy; UNCERTAIN is a flagged ticket;
- a model answered: its verdict is one opinion. It agrees with the policy and says PASS → a ticket; it disagrees,
  or says REJECTED or UNCERTAIN → a flagged ticket for a human. The model alone never rejects or approves money;
- the port failed (error, timeout, an answer that is not a verdict) → UNCERTAIN, flagged.

`submit_ticket` is the gate on `wfa:{action}:{order_id}`: a live ticket answers a repeated request (PENDING → reuse
it, unless past its deadline: then it is timed out; APPROVED / EXECUTING / EXECUTED / FAILED → already done, never a
second execution); a REJECTED or TIMEOUT one does not stop a new ticket. When `query_order` already finds a live
ticket, the request goes straight to the gate: a repeated request asks the model nothing. Identical parallel
requests are settled by the partial unique constraint `ticket_one_live_per_key`, not in Python: the loser of the
race reads the winner's ticket.

The request returns at once; nothing waits for a human. The workflow is not one transaction on purpose: the verdict
may take seconds, and no row is locked or written while the model thinks.

Before a request is filed, the traveller confirms it (`aftersale.services.request_preview`: the checks that tell them first
whether it can succeed, then the card with the order, the amount, the action and their reason; no model is asked).
The ticket records how they confirmed (`evidence["request"]`: `confirmed_via` chat / page / api and, in the chat,
`confirmed_action`, the pending action they confirmed); `aftersale.selectors.ticket_confirmation` reads it back.
"""

import contextlib
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from aftersale import conf
from aftersale.models import (
    LIVE_TICKET_STATUSES,
    REQUEST_REASON_MAX_CHARS,
    BizOrder,
    HitlTicket,
    TicketEvent,
    TicketKind,
    TicketStatus,
    Verdict,
)
from aftersale.policy import (
    PolicyFinding,
    policy_finding,
    policy_passages,
    policy_reason_text,
    reason_kind_of,
    ticket_verdict_reason,
)
from aftersale.selectors import (
    CONFIRMATION_CHANNELS,
    ORDER_NOT_FOUND_MESSAGE,
    order_facts,
    order_get,
)
from aftersale.services.transitions import AftersaleError, ticket_counted, ticket_number, ticket_transition
from assistant.llm.audit import audited
from assistant.llm.factory import get_llm_port
from assistant.llm.port import LLMError, LLMPort
from assistant.llm.verdict import ACTIONS, VERDICTS, Assessment, VerdictRequest, VerdictResult
from core import metrics
from core.envelope import Code
from core.ids import normalise_order_id
from core.transitions import record_creation

logger = logging.getLogger("aftersale.workflow")

SUBMITTED, REUSED, ALREADY_DONE, REJECTED = "SUBMITTED", "REUSED", "ALREADY_DONE", "REJECTED"
# How the traveller confirmed a request (kept in the ticket's evidence): the chat's confirmation card (with the
# pending action's id), the requests page's form, or their own API call.
CONFIRMED_IN_CHAT, CONFIRMED_ON_PAGE, CONFIRMED_BY_API = CONFIRMATION_CHANNELS
# What a preview refused for want of the traveller's reason says in its data (`missing`): ask them why.
MISSING_REASON = "reason"
END = "end"
CREATE_ATTEMPTS = 3
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Decision:
    """What the workflow makes of the policy's assessment and the port's verdict: the verdict the ticket records,
    why, the passages cited, whether a human must look closely, whether the verdict agrees with the policy, and
    whether the request ends here (`reject`: the policy itself said no)."""

    verdict: str
    reason: str
    policy_ids: list[Any]
    flagged: bool
    agrees: bool
    reject: bool = False


def verdict_combine(assessment: Assessment, result: VerdictResult) -> Decision:
    """The workflow's one rule (see the module docstring): the policy's assessment and the port's answer."""
    if result.from_policy:
        return Decision(
            verdict=assessment.verdict,
            reason=assessment.reason,
            policy_ids=list(assessment.policy_ids),
            flagged=assessment.verdict != Verdict.PASS,
            agrees=True,
            reject=assessment.verdict == Verdict.REJECTED,
        )
    agrees = result.verdict == assessment.verdict
    return Decision(
        verdict=result.verdict,
        reason=result.reason,
        policy_ids=list(result.policy_ids or []),
        flagged=not agrees or result.verdict != Verdict.PASS,
        agrees=agrees,
    )


@dataclass
class WorkflowOutcome:
    """How a request ended.

    - `status`: SUBMITTED (a new ticket), REUSED (the pending one), ALREADY_DONE (approved or executed before),
      REJECTED (no ticket).
    - `code`: OK, or why it was rejected: INVALID_PARAM, PERMISSION_DENIED, ORDER_NOT_FOUND (unknown, or someone
      else's: the same answer), INELIGIBLE.
    - `ticket`: the ticket that answers the request (None when rejected).
    - `reason`, `verdict`, `policy_ids`, `flagged`: the verdict's evidence; `policies`: the retrieved passages,
      those the verdict cites first; `reason_code` and `reason_facts`: the reason as data when code gave it (the
      policy), to be worded in the reader's language (`aftersale.policy.policy_reason_text`).
    - `path`: the graph's nodes visited, in order.
    """

    status: str
    code: str = Code.OK.value
    ticket: HitlTicket | None = None
    reason: str = ""
    policies: list[dict[str, Any]] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    verdict: str = ""
    policy_ids: list[Any] = field(default_factory=list)
    flagged: bool = False
    reason_code: str = ""
    reason_facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status != REJECTED

    @property
    def cited_policies(self) -> list[dict[str, Any]]:
        """The passages the verdict rests on (all retrieved passages when it cited none)."""
        cited = [p for p in self.policies if p.get("id") in self.policy_ids]
        return cited or list(self.policies)


@dataclass
class WorkflowState:
    """What the nodes know so far; each node reads it, adds to it, and names the next node."""

    user: Any
    order_id: str
    action: str
    port: LLMPort | None
    today: date
    now: datetime
    request_reason: str = ""
    reason_kind: str | None = None
    confirmation: dict[str, str] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    order: BizOrder | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    policies: list[dict[str, Any]] = field(default_factory=list)
    assessment: Assessment | None = None
    finding: PolicyFinding | None = None
    verdict: str = ""
    reason: str = ""
    # The verdict's reason as a code with facts, when code gave it (the policy, or a failed verdict): the console
    # words it again in the approver's language. A model's own reason has none: its words are shown as they are.
    reason_code: str = ""
    reason_facts: dict[str, Any] = field(default_factory=dict)
    policy_ids: list[Any] = field(default_factory=list)
    flagged: bool = False
    verdict_source: dict[str, Any] = field(default_factory=dict)
    code: str = Code.OK.value
    outcome: WorkflowOutcome | None = None

    @property
    def idempotency_key(self) -> str:
        return f"wfa:{self.action}:{self.order_id}"


def aftersale_request_submit(
    *,
    user,
    order_id: str,
    action: str,
    port: LLMPort | None = None,
    today: date | None = None,
    now: datetime | None = None,
    reason: str = "",
    reason_kind: str | None = None,
    confirmed_via: str = "",
    confirmed_action: str = "",
) -> WorkflowOutcome:
    """Run one refund or return request through the workflow graph; return how it ended (never raises for a
    business outcome). `user` is the authenticated user; `port` defaults to the configured LLM port (either way
    its calls are audited for `user`); `today` and `now` default to the site's date and the current moment.
    `reason` is the traveller's own words (kept for the approver, bounded and cleaned here); `reason_kind` the
    reason as understood (QUALITY, NO_REASON, TICKET, NOT_RECEIVED; anything else is none: the action decides).
    `confirmed_via` says how the traveller confirmed the request (chat, page, api; `confirmed_action`: in the chat,
    the id of the pending action they confirmed): kept in the ticket's evidence; a ticket without it is never
    approved in bulk."""
    now = now or timezone.now()
    state, problem = _asked(
        user=user, order_id=order_id, action=action, reason=reason, reason_kind=reason_kind, port=port, now=now
    )
    state.today = today or state.today
    state.confirmation = _confirmation(confirmed_via, confirmed_action, now)
    return _run(state, _reject(state, Code.INVALID_PARAM, problem) if problem else "query_user")


def _asked(*, user, order_id, action, reason, reason_kind, port, now) -> tuple[WorkflowState, str | None]:
    """The request as the traveller asked it, cleaned and bounded, and what makes it no request at all (None:
    nothing): not an order number, or neither a refund nor a return."""
    normalised = normalise_order_id(order_id)
    action_name = action.strip().upper() if isinstance(action, str) else ""
    state = WorkflowState(
        user=user,
        order_id=normalised or "",
        action=action_name,
        port=port,
        today=timezone.localdate(now),
        now=now,
        request_reason=reason_text(reason),
        reason_kind=reason_kind_of(reason_kind),
    )
    if normalised is None:
        return state, _("Give an order number like ORD-001.")
    if action_name not in ACTIONS:
        return state, _("The request must be a refund or a return.")
    return state, None


def reason_text(value: object) -> str:
    """The traveller's reason as the ticket keeps it: text only, control and format characters gone, whitespace
    runs made one space, at most REQUEST_REASON_MAX_CHARS characters."""
    if not isinstance(value, str):
        return ""
    kept = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in value)
    text = _SPACES.sub(" ", kept).strip()
    if len(text) > REQUEST_REASON_MAX_CHARS:
        text = text[: REQUEST_REASON_MAX_CHARS - 1].rstrip() + "…"
    return text


def _confirmation(via: str, action_id: str, now: datetime) -> dict[str, str]:
    """How the traveller confirmed, as the ticket's evidence keeps it (nothing when no known way is named)."""
    via = str(via or "").strip().lower()
    if via not in CONFIRMATION_CHANNELS:
        return {}
    kept = {"confirmed_via": via, "confirmed_at": timezone.localtime(now).isoformat()}
    if str(action_id or "").strip():
        kept["confirmed_action"] = str(action_id).strip()[:64]
    return kept


# -- the nodes ---------------------------------------------------------------------------------------------------


def query_user(state: WorkflowState) -> str:
    """The requester is the authenticated user, never someone named in a body or by the model."""
    user = state.user
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return _reject(state, Code.PERMISSION_DENIED, _("Sign in to request a refund or a return."))
    return "query_order"


def query_order(state: WorkflowState) -> str:
    """The order exists and is the requester's; a live ticket for the same request goes straight to the gate."""
    order = order_get(order_id=state.order_id)
    if order is None or order.user_id != state.user.pk:
        if order is not None:
            # ORDER_NOT_OWNED stays an internal reason, for audit: the traveller is answered exactly as for an
            # unknown number (ORDER_NOT_FOUND, the same words, no id), so no answer tells whether an order exists.
            logger.warning(
                "aftersale request refused reason=%s order_id=%s user_id=%s",
                Code.ORDER_NOT_OWNED.value,
                state.order_id,
                state.user.pk,
                extra={"reason": Code.ORDER_NOT_OWNED.value, "order_id": state.order_id, "user_id": state.user.pk},
            )
        return _reject(state, Code.ORDER_NOT_FOUND, str(ORDER_NOT_FOUND_MESSAGE))
    state.order = order
    state.facts = order_facts(order)
    if _live_ticket(state.idempotency_key) is not None:
        return "submit_ticket"
    return "query_policy"


def query_policy(state: WorkflowState) -> str:
    """The policy passages the verdict reads and the ticket keeps, and the policy's own assessment of the request."""
    state.policies = policy_passages(order=state.order, action=state.action, reason_kind=state.reason_kind)
    state.finding = policy_finding(
        action=state.action,
        order=state.facts,
        policies=state.policies,
        today=state.today,
        now=state.now,
        reason_kind=state.reason_kind,
    )
    state.assessment = state.finding.assessment()
    return "validate"


def validate(state: WorkflowState) -> str:
    """The port's three-state verdict (audited), combined with the assessment by `verdict_combine`; a failure of
    the port is UNCERTAIN and flagged."""
    try:
        port = audited(state.port or get_llm_port(), user=state.user)
    except Exception as exc:  # a broken configuration is a fault of the verdict, not of the request
        return _verdict_failed(state, None, "ERROR", f"no LLM port ({type(exc).__name__}: {exc})")
    request = VerdictRequest(
        action=state.action,
        order=state.facts,
        policies=state.policies,
        today=state.today,
        now=timezone.localtime(state.now),  # the site's clock: the model reads it as written
        assessment=state.assessment,
    )
    try:
        result = port.verdict(request)
    except LLMError as exc:  # already audited by the port
        return _verdict_failed(state, port, exc.kind, str(exc))
    except Exception as exc:  # an adapter bug must not lose the request: a human decides
        logger.exception("aftersale verdict raised order_id=%s", state.order_id)
        return _verdict_failed(state, port, "ERROR", type(exc).__name__)
    verdict = str(result.verdict or "").upper()
    if verdict not in VERDICTS or not isinstance(result.reason, str):
        return _verdict_failed(state, port, "INVALID", f"the port answered an unknown verdict {verdict[:40]!r}")
    result.verdict = verdict
    decision = verdict_combine(state.assessment, result)

    state.verdict, state.reason, state.policy_ids = decision.verdict, decision.reason, decision.policy_ids
    state.flagged = decision.flagged
    state.verdict_source = {**_source(port), "agrees_with_policy": decision.agrees, "from_policy": result.from_policy}
    if result.from_policy and state.finding is not None:
        state.reason_code, state.reason_facts = state.finding.code, dict(state.finding.facts)
    if decision.reject:
        return _reject(state, Code.INELIGIBLE, decision.reason)
    return "submit_ticket"


def submit_ticket(state: WorkflowState) -> str:
    """The `wfa:` gate, then a PENDING ticket with its evidence and its first event."""
    key = state.idempotency_key
    for _attempt in range(CREATE_ATTEMPTS):
        live = _live_ticket(key)
        if live is not None:
            state.outcome = _answered_by(state, live)
            _log_outcome(state)
            return END
        try:
            with transaction.atomic():  # a savepoint when the caller holds a transaction
                ticket = _create_ticket(state, key)
        except IntegrityError:
            continue  # a parallel identical request won the constraint (or a ticket number clashed): read again
        state.outcome = _outcome(state, SUBMITTED, ticket)
        _log_outcome(state)
        return END
    raise RuntimeError(f"could not open or find a live ticket for {key}")


def rejected(state: WorkflowState) -> str:
    """The end without a ticket: a business "no" or a bad request, never a fault."""
    state.outcome = _outcome(state, REJECTED, None)
    _log_outcome(state)
    metrics.business_rejection(reason=f"aftersale:{state.outcome.code}")
    return END


NODES = {
    "query_user": query_user,
    "query_order": query_order,
    "query_policy": query_policy,
    "validate": validate,
    "submit_ticket": submit_ticket,
    "rejected": rejected,
}
# The edges each node may take; `_run` refuses any other, so the graph in the docstring is the graph that runs.
EDGES = {
    "query_user": {"query_order", "rejected"},
    "query_order": {"query_policy", "submit_ticket", "rejected"},
    "query_policy": {"validate"},
    "validate": {"submit_ticket", "rejected"},
    "submit_ticket": {END},
    "rejected": {END},
}


def _run(state: WorkflowState, start: str) -> WorkflowOutcome:
    node = start
    while node != END:
        state.path.append(node)
        following = NODES[node](state)
        if following not in EDGES[node]:
            raise RuntimeError(f"workflow node {node} went to {following}, not an edge of the graph")
        node = following
    assert state.outcome is not None
    return state.outcome


# -- helpers -----------------------------------------------------------------------------------------------------


def _reject(state: WorkflowState, code: Code, reason: str) -> str:
    state.code = code.value
    state.reason = reason
    return "rejected"


def _verdict_failed(state: WorkflowState, port: LLMPort | None, kind: str, error: str) -> str:
    state.verdict = Verdict.UNCERTAIN.value
    state.reason_code, state.reason_facts = "VERDICT_FAILED", {"kind": kind}
    state.reason = policy_reason_text(state.reason_code, state.reason_facts)
    state.flagged = True
    state.policy_ids = []
    state.verdict_source = {**_source(port), "error": f"{kind}: {error}"[:500]}
    logger.warning(
        "aftersale verdict failed outcome=fault kind=%s order_id=%s action=%s",
        kind,
        state.order_id,
        state.action,
        extra={"outcome": "fault", "kind": kind, "order_id": state.order_id, "action": state.action},
    )
    return "submit_ticket"


def _source(port: LLMPort | None) -> dict[str, Any]:
    if port is None:
        return {"provider": "", "model": ""}
    return {"provider": getattr(port, "provider", ""), "model": getattr(port, "model", "")}


def _live_ticket(key: str) -> HitlTicket | None:
    """The key's live ticket; a PENDING one past its deadline is timed out first (as the sweep would), since
    nobody may decide it any more and a TIMEOUT ticket lets a new one open."""
    live = HitlTicket.objects.filter(idempotency_key=key, status__in=LIVE_TICKET_STATUSES).first()
    if live is not None and live.status == TicketStatus.PENDING and live.deadline <= timezone.now():
        with contextlib.suppress(AftersaleError):  # decided or timed out meanwhile: the re-read answers
            ticket_transition(ticket_id=live.pk, to_status=TicketStatus.TIMEOUT, reason="deadline passed")
        live = HitlTicket.objects.filter(idempotency_key=key, status__in=LIVE_TICKET_STATUSES).first()
    return live


def _create_ticket(state: WorkflowState, key: str) -> HitlTicket:
    order = state.order
    evidence = {
        "request": {"reason": state.request_reason, "reason_kind": state.reason_kind or "", **state.confirmation},
        "order": state.facts,
        "policies": state.policies,
        "assessment": state.finding.as_data() if state.finding else None,
        "verdict": {
            "verdict": state.verdict,
            "reason": state.reason,
            "reason_code": state.reason_code,
            "reason_facts": state.reason_facts,
            "policy_ids": state.policy_ids,
            "flagged": state.flagged,
            **state.verdict_source,
        },
        "path": list(state.path),
    }
    ticket = HitlTicket.objects.create(
        ticket_no=ticket_number(),
        kind=TicketKind.WORKFLOW,
        idempotency_key=key,
        action=state.action,
        request_reason=state.request_reason,
        reason_kind=state.reason_kind or "",
        requested_by=state.user,
        order=order,
        entity=state.order_id,
        amount=order.amount,
        status=TicketStatus.PENDING,
        verdict=state.verdict,
        verdict_reason=state.reason,
        evidence=evidence,
        flagged=state.flagged,
        deadline=state.now + conf.ticket_ttl(),
    )
    flag = " (flagged)" if state.flagged else ""
    record_creation(
        ticket,
        event_model=TicketEvent,
        actor=state.user,
        reason=f"{state.action.lower()} requested; verdict {state.verdict}{flag}",
    )
    ticket_counted(ticket)
    return ticket


def _answered_by(state: WorkflowState, ticket: HitlTicket) -> WorkflowOutcome:
    """The outcome of a repeated request: the live ticket's own verdict and evidence."""
    state.verdict, state.reason, state.flagged = ticket.verdict, ticket_verdict_reason(ticket), ticket.flagged
    evidence = ticket.evidence if isinstance(ticket.evidence, dict) else {}
    state.policies = list(evidence.get("policies") or [])
    state.policy_ids = list((evidence.get("verdict") or {}).get("policy_ids") or [])
    return _outcome(state, REUSED if ticket.status == TicketStatus.PENDING else ALREADY_DONE, ticket)


def _outcome(state: WorkflowState, status: str, ticket: HitlTicket | None) -> WorkflowOutcome:
    # The passages the verdict cites come first (a rejection names the first one); the rest keep their rank.
    policies = sorted(state.policies, key=lambda passage: passage.get("id") not in state.policy_ids)
    return WorkflowOutcome(
        status=status,
        code=state.code if status == REJECTED else Code.OK.value,
        ticket=ticket,
        reason=state.reason,
        policies=policies,
        path=list(state.path),
        verdict=state.verdict,
        policy_ids=list(state.policy_ids),
        flagged=state.flagged,
        reason_code=state.reason_code,
        reason_facts=dict(state.reason_facts),
    )


def _log_outcome(state: WorkflowState) -> None:
    """One line per request; rejections (a business "no") are counted apart from faults (logged in validate)."""
    outcome = state.outcome
    ticket_no = outcome.ticket.ticket_no if outcome.ticket else ""
    logger.info(
        "aftersale request outcome=%s code=%s order_id=%s action=%s ticket=%s",
        outcome.status.lower(),
        outcome.code,
        state.order_id,
        state.action,
        ticket_no,
        extra={
            "outcome": outcome.status.lower(),
            "code": outcome.code,
            "order_id": state.order_id,
            "action": state.action,
            "ticket_no": ticket_no,
            "verdict": outcome.verdict,
            "flagged": outcome.flagged,
        },
    )
