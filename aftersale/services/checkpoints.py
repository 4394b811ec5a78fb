"""Checkpoint tickets: a call that needs an approver, paused until a human approves it (`hitl:{action}:{entity}`).

`approval_gate` is the project's approval gate (settings.TRIPDESK_APPROVAL_GATE, `core.approvals`): the services
that hold an approval rule (bookings' cancel above its approval amount) ask it, and never import this app. It
answers one question for a call that needs approval: may it run now? DESIGN's idempotency table for checkpoint
keys decides, from the tickets the key already has:

| ticket for the key           | the gate                                                           |
| ---------------------------- | ------------------------------------------------------------------ |
| PENDING                      | reuse it: the call waits (TICKET_PENDING); past its deadline it is timed out first |
| APPROVED / EXECUTING / EXECUTED / FAILED | proceed, never re-ask (the approval stands; the tool is idempotent) |
| REJECTED                     | stays rejected: the call is refused (PERMISSION_DENIED), no new ticket |
| TIMEOUT, or none             | a new PENDING ticket: the call waits (TICKET_PENDING)              |

Only one live ticket per key can exist (the partial unique constraint `ticket_one_live_per_key`): two requests
racing to open the same ticket both end up with the one that won the insert.
"""

import contextlib
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from aftersale import conf
from aftersale.models import LIVE_TICKET_STATUSES, HitlTicket, TicketAction, TicketEvent, TicketKind, TicketStatus
from aftersale.services.transitions import AftersaleError, ticket_counted, ticket_number, ticket_transition
from core.approvals import ApprovalDecision
from core.envelope import Code
from core.transitions import record_creation

logger = logging.getLogger(__name__)

KEY_PREFIX = "hitl"
# Statuses in which the approval stands: the paused call may run (again) without asking anyone.
PROCEED_STATUSES = frozenset(
    {TicketStatus.APPROVED, TicketStatus.EXECUTING, TicketStatus.EXECUTED, TicketStatus.FAILED}
)
CODE_OK = Code.OK.value
CODE_TICKET_PENDING = Code.TICKET_PENDING.value
CODE_PERMISSION_DENIED = Code.PERMISSION_DENIED.value
_CREATE_ATTEMPTS = 3


@dataclass(frozen=True)
class CheckpointDecision:
    """What the gate says about one paused call.

    `proceed` — the call may run now; `ticket` — the ticket the answer is based on (None when there was none and
    none was needed); `code` — OK, TICKET_PENDING or PERMISSION_DENIED; `message` — a sentence for the traveller;
    `created` — this call opened the ticket.
    """

    proceed: bool
    code: str
    message: str
    ticket: HitlTicket | None = None
    created: bool = False

    @property
    def data(self) -> dict[str, Any]:
        """The envelope data for a call that does not proceed."""
        if self.ticket is None:
            return {}
        ticket = self.ticket
        return {
            "ticket_no": ticket.ticket_no,
            "status": ticket.status,
            "action": ticket.action,
            "entity": ticket.entity,
            "amount": str(ticket.amount) if ticket.amount is not None else None,
            "deadline": ticket.deadline.isoformat(),
            "decision_reason": ticket.decision_reason if ticket.status == TicketStatus.REJECTED else "",
            "created": self.created,
        }

    def approval(self) -> ApprovalDecision:
        """The same answer as the project's approval gate gives it (`core.approvals.ApprovalDecision`)."""
        return ApprovalDecision(proceed=self.proceed, code=self.code, message=self.message, data=self.data)


def checkpoint_key(*, action: str, entity: str) -> str:
    """`hitl:{action}:{entity}`, e.g. `hitl:CANCEL_BOOKING:BK20261201001`."""
    return f"{KEY_PREFIX}:{action}:{entity}"


def approval_gate(
    *,
    user,
    action: str,
    entity: str,
    amount: Decimal | None,
    summary: str,
    arguments: dict[str, Any],
    evidence: dict[str, Any],
) -> ApprovalDecision:
    """May this call, which needs an approver, run now? (The gate of `core.approvals`.)

    `action` is a ticket action (CANCEL_BOOKING, REFUND, RETURN), `entity` the booking or order id it acts on,
    `arguments` what the call will run with (saved so a worker can resume it once approved), `summary` one line
    for the approver, `evidence` the facts they decide on (a `tool` key names the paused tool). A caller with no
    signed-in user, or an action the approval desk does not know, is refused: nothing runs unreviewed.
    """
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        return ApprovalDecision(False, CODE_PERMISSION_DENIED, _("This needs a signed-in traveller and an approver."))
    action = str(action or "").strip().upper()
    entity = str(entity or "").strip().upper()
    if action not in TicketAction.values or not entity:
        logger.error("approval asked for an unknown action %r on %r; refused", action, entity)
        return ApprovalDecision(
            False,
            CODE_PERMISSION_DENIED,
            _("This needs an approver's OK, and it cannot be sent for approval; nothing was done."),
        )
    evidence = dict(evidence or {})
    decision = checkpoint_gate(
        user=user,
        action=action,
        entity=entity,
        amount=amount,
        arguments=dict(arguments or {}),
        summary=summary,
        tool=str(evidence.get("tool") or ""),
        evidence=evidence,
    )
    return decision.approval()


def checkpoint_gate(
    *,
    user,
    action: str,
    entity: str,
    amount: Decimal | int | float | str | None,
    arguments: dict,
    summary: str,
    tool: str = "",
    evidence: dict | None = None,
) -> CheckpointDecision:
    """Decide whether a call that needs an approver on `entity` may run, opening a checkpoint ticket when it must wait.

    `arguments` are the call's own arguments; the ticket saves them as `{"tool": tool, "arguments": …}` so a
    worker can resume the call once it is approved (the executor resumes by the ticket's action, never by the
    tool's name). `summary` says in one line what the call does; it goes into the ticket's evidence with any extra
    `evidence`.

    Never raises a domain error: the answer is in the decision (see the module's table).
    """
    key = checkpoint_key(action=action, entity=entity)
    decision = _decision_for_existing(key)
    if decision is not None:
        return decision

    saved_call = {"tool": tool, "arguments": dict(arguments)}
    ticket_evidence = {"summary": summary, **(evidence or {})}
    for _attempt in range(_CREATE_ATTEMPTS):
        try:
            ticket = _create_ticket(
                user=user,
                key=key,
                action=action,
                entity=entity,
                amount=amount,
                saved_call=saved_call,
                evidence=ticket_evidence,
                summary=summary,
            )
        except IntegrityError:
            # Another request opened the live ticket for this key first (or, rarely, took the same ticket number):
            # answer from whatever is there now.
            decision = _decision_for_existing(key)
            if decision is not None:
                return decision
            continue
        logger.info("checkpoint ticket opened", extra={"ticket_no": ticket.ticket_no, "key": key})
        return CheckpointDecision(
            proceed=False,
            code=CODE_TICKET_PENDING,
            message=_pending_message(ticket, summary=summary, created=True),
            ticket=ticket,
            created=True,
        )
    raise RuntimeError(f"could not open a checkpoint ticket for {key}")


def _decision_for_existing(key: str) -> CheckpointDecision | None:
    """The answer the tickets already on `key` give, or None when a new ticket is needed (none, or timed out)."""
    live = HitlTicket.objects.filter(idempotency_key=key, status__in=LIVE_TICKET_STATUSES).order_by("-id").first()
    if live is not None and live.status == TicketStatus.PENDING and live.deadline <= timezone.now():
        # Past its deadline nobody may decide it any more: time it out now (as the sweep would) and ask anew.
        with contextlib.suppress(AftersaleError):  # decided or timed out meanwhile: the re-read below answers
            ticket_transition(ticket_id=live.pk, to_status=TicketStatus.TIMEOUT, reason="deadline passed")
        live = HitlTicket.objects.filter(idempotency_key=key, status__in=LIVE_TICKET_STATUSES).order_by("-id").first()
    if live is not None:
        if live.status == TicketStatus.PENDING:
            return CheckpointDecision(
                proceed=False,
                code=CODE_TICKET_PENDING,
                message=_pending_message(live, summary=live.evidence.get("summary", ""), created=False),
                ticket=live,
            )
        if live.status in PROCEED_STATUSES:
            return CheckpointDecision(
                proceed=True, code=CODE_OK, message=f"approved in ticket {live.ticket_no}", ticket=live
            )
    # REJECTED is not live, so the constraint does not keep it unique: for checkpoints a "no" is final.
    rejected = HitlTicket.objects.filter(idempotency_key=key, status=TicketStatus.REJECTED).order_by("-id").first()
    if rejected is not None:
        values = {
            "action": rejected.get_action_display(),
            "entity": rejected.entity,
            "ticket": rejected.ticket_no,
            "reason": rejected.decision_reason,
        }
        if rejected.decision_reason:
            message = _(
                "%(action)s of %(entity)s was rejected by an approver in ticket %(ticket)s (%(reason)s); it will "
                "not be done."
            )
        else:
            message = _(
                "%(action)s of %(entity)s was rejected by an approver in ticket %(ticket)s; it will not be done."
            )
        return CheckpointDecision(proceed=False, code=CODE_PERMISSION_DENIED, message=message % values, ticket=rejected)
    return None


@transaction.atomic
def _create_ticket(
    *, user, key: str, action: str, entity: str, amount, saved_call: dict, evidence: dict, summary: str
) -> HitlTicket:
    now = timezone.now()
    ticket = HitlTicket.objects.create(
        ticket_no=ticket_number(),
        kind=TicketKind.CHECKPOINT,
        idempotency_key=key,
        action=action,
        requested_by=user,
        entity=entity,
        amount=None if amount is None else Decimal(str(amount)),
        arguments=saved_call,
        evidence=evidence,
        status=TicketStatus.PENDING,
        deadline=now + conf.ticket_ttl(),
    )
    record_creation(ticket, event_model=TicketEvent, actor=user, reason=f"Paused for approval: {summary}")
    ticket_counted(ticket)
    return ticket


def _pending_message(ticket: HitlTicket, *, summary: str, created: bool) -> str:
    values = {
        "action": ticket.get_action_display(),
        "entity": ticket.entity,
        "ticket": ticket.ticket_no,
        "deadline": timezone.localtime(ticket.deadline).strftime("%Y-%m-%d %H:%M"),
    }
    if created:
        message = _(
            "%(action)s of %(entity)s needs an approver's OK: ticket %(ticket)s is waiting for an approver (decision "
            "due by %(deadline)s). Nothing has been done yet; it will be carried out once approved."
        )
    else:
        message = _(
            "%(action)s of %(entity)s is still waiting for an approver in ticket %(ticket)s (decision due by "
            "%(deadline)s). Nothing has been done yet; it will be carried out once approved."
        )
    return message % values
