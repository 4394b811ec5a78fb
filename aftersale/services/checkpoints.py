"""Checkpoint tickets: a HIGH-risk tool call paused until a human approves it (`hitl:{action}:{entity}` keys).

The gate answers one question for a call that needs approval: may it run now? DESIGN's idempotency table for
checkpoint keys decides, from the tickets the key already has:

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
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from aftersale.models import LIVE_TICKET_STATUSES, HitlTicket, TicketEvent, TicketKind, TicketStatus
from aftersale.services.transitions import AftersaleError, ticket_number, ticket_transition

logger = logging.getLogger(__name__)

KEY_PREFIX = "hitl"
# Statuses in which the approval stands: the paused call may run (again) without asking anyone.
PROCEED_STATUSES = frozenset(
    {TicketStatus.APPROVED, TicketStatus.EXECUTING, TicketStatus.EXECUTED, TicketStatus.FAILED}
)
# Envelope codes of DESIGN.md (strings here: services do not depend on the assistant's toolkit).
CODE_OK = "OK"
CODE_TICKET_PENDING = "TICKET_PENDING"
CODE_PERMISSION_DENIED = "PERMISSION_DENIED"
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
        return {
            "ticket_no": self.ticket.ticket_no,
            "status": self.ticket.status,
            "action": self.ticket.action,
            "entity": self.ticket.entity,
            "deadline": self.ticket.deadline.isoformat(),
        }


def checkpoint_key(*, action: str, entity: str) -> str:
    """`hitl:{action}:{entity}`, e.g. `hitl:CANCEL_BOOKING:BK20261201001`."""
    return f"{KEY_PREFIX}:{action}:{entity}"


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
    """Decide whether a HIGH-risk call on `entity` may run, opening a checkpoint ticket when it must wait.

    `arguments` are the tool call's own arguments; the ticket saves them as `{"tool": tool, "arguments": …}` so a
    worker can resume the call once it is approved (`tool` defaults to the action in lower case, which is the
    tool's name for `CANCEL_BOOKING`). `summary` says in one line what the call does; it goes into the ticket's
    evidence with any extra `evidence`.

    Never raises a domain error: the answer is in the decision (see the module's table).
    """
    key = checkpoint_key(action=action, entity=entity)
    decision = _decision_for_existing(key)
    if decision is not None:
        return decision

    saved_call = {"tool": tool or action.lower(), "arguments": dict(arguments)}
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
        because = f" ({rejected.decision_reason})" if rejected.decision_reason else ""
        return CheckpointDecision(
            proceed=False,
            code=CODE_PERMISSION_DENIED,
            message=(
                f"{rejected.get_action_display()} of {rejected.entity} was rejected by an approver in ticket "
                f"{rejected.ticket_no}{because}; it will not be done."
            ),
            ticket=rejected,
        )
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
        deadline=now + timedelta(hours=settings.AFTERSALE_TICKET_TTL_HOURS),
    )
    TicketEvent.objects.create(
        ticket=ticket,
        from_status="",
        to_status=TicketStatus.PENDING,
        actor=user,
        reason=f"Paused for approval: {summary}"[:500],
    )
    return ticket


def _pending_message(ticket: HitlTicket, *, summary: str, created: bool) -> str:
    deadline = timezone.localtime(ticket.deadline).strftime("%Y-%m-%d %H:%M")
    what = summary or f"{ticket.get_action_display()} of {ticket.entity}"
    opened = "needs an approver's OK" if created else "is still waiting for an approver"
    return (
        f"{what} {opened}: ticket {ticket.ticket_no} is waiting for an approver (decision due by {deadline}). "
        "Nothing has been done yet; it will be carried out once approved."
    )
