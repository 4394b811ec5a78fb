"""Executing approved tickets exactly once (their decisions: `aftersale.services.decisions`).

Exactly once is enforced by PostgreSQL, not by Python memory, however many clicks, approvers, workers or
deliveries of a task there are:

- **The decision** locks the ticket row and moves it PENDING → APPROVED/REJECTED (`ticket_transition`); any other
  decision then finds it no longer PENDING and is refused with TICKET_DECIDED. An approval enqueues the execution
  on commit, never inside the open transaction.
- **The ticket's claim** is a compare-and-set UPDATE: `status = EXECUTING, execution_started_at = now, attempts + 1` only
  where the ticket is APPROVED, or EXECUTING under a lease older than AFTERSALE_EXECUTION_LEASE_SECONDS (its
  executor died). One executor gets the row; a duplicate task updates 0 rows and does nothing. `attempts` after
  the claim is the executor's fencing token: it may finish the ticket only while the row still shows it.
- **The order's money is claimed before the supplier is asked.** Under the ticket's and then the order's row lock,
  (always in that order, so two executors never wait on each other crosswise), the executor reconciles the ticket
  with the order as it is now (`aftersale.reconciliation`) and sets
  `BizOrder.refund_claim` to the ticket, with an order event (status unchanged), and commits: only then does money
  move. A second ticket of the same order (a RETURN beside a REFUND, approved at the same moment from another
  session) finds the claim held, or the order already refunded, and ends FAILED with that reason without asking
  the supplier. The end clears the claim with the order's move; a failure (the supplier's or a business "no")
  clears it with the ticket's FAILED, in one transaction each. A takeover or a retry of the holder keeps its own
  claim. However many tickets an order has, it is refunded at most once, never above what was paid.
- **The refund's idempotency key is the order's** (`requestId` = `refund:<order id>`): TripDesk refunds an order at
  most once (reconciliation requires nothing paid back yet), so the supplier answers a late or repeated call, from
  an old attempt of this ticket or from any other ticket of the order, with the order's first refund instead of
  making a second one. The call carries the order's `total` too, and the supplier refuses a refund that would take
  the order's refunds above it (`REFUND_EXCEEDS_PAID`): the ticket ends FAILED with the supplier's reason.
- **Before refunding again**, every execution after the first that holds the claim asks the supplier
  (`order queryOrder`) whether the order's refund already exists (requestId = the order's key, or the ticket
  number, which tickets executed before the order's key existed carried) and, if so, finishes with it
  (`recovered`) instead of asking for one.
- **The end** (order REFUNDED/PART_REFUNDED/RETURNED with the amount it got back and its claim cleared, and ticket
  EXECUTED, with events) is one transaction.

A partial refund is an approval of less than the amount asked (`ticket_decide(amount=…)`, with the approver's
reason): the ticket keeps `approved_amount`, and everything above holds unchanged: the same claims, the same
`requestId`, the same end, with the approved amount sent to the supplier and recorded on the order.

The lease outlasts any live executor: a supplier call is killed at PLATFORM_TIMEOUT and dies with its worker
(`bookings.platform`), the task's time limits are derived from the lease (`aftersale.tasks`), and the system
check `aftersale.checks` refuses a lease not longer than PLATFORM_TIMEOUT plus a margin at start-up.

Retry: the transition table has FAILED → EXECUTING, not FAILED → APPROVED. `ticket_retry` therefore leaves the
ticket FAILED and enqueues `execute_ticket(id, retry=True)`; only a claim made with `retry=True` accepts a FAILED
ticket. Automatic task retries (broker/database hiccups) never set it, so a supplier failure or a business "no" is
retried only when a human asks.

A lost enqueue (broker down at commit) or an executor that died is picked up by `tickets_resume_stalled`, run by
Celery beat.
"""

import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import F, Q
from django.utils import timezone

from aftersale import conf
from aftersale.models import (
    AWAITING_ITEM,
    ITEM_BACK,
    HitlTicket,
    OrderEvent,
    TicketAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
)
from aftersale.reconciliation import ORDER_TARGET_STATUS, order_target_status, reconcile
from aftersale.services.decisions import enqueue_execution
from aftersale.services.transitions import (
    AftersaleError,
    order_lock,
    order_transition,
    ticket_counted,
    ticket_lock,
    ticket_transition,
)
from bookings.accounts import supplier_account_ensure
from bookings.platform import PlatformCommand, PlatformError, platform_call
from bookings.services.cancel import booking_cancel
from core.errors import ApplicationError
from core.ids import normalise_booking_id

logger = logging.getLogger("aftersale.execution")


# --- claiming ----------------------------------------------------------------------------------------------------


def _lease_cutoff(now: datetime) -> datetime:
    return now - timedelta(seconds=conf.execution_lease_seconds())


def _claim(ticket_id: int, *, retry: bool, now: datetime) -> HitlTicket | None:
    """Take the ticket for this executor with one compare-and-set UPDATE per possible starting state, or None.

    Each UPDATE is atomic in the database: of two executors racing, the second waits for the first's row lock,
    re-reads the row (now EXECUTING under a fresh lease) and updates nothing. Trying the states one by one tells
    which one we came from, for the event row.
    """
    stale = Q(execution_started_at__lt=_lease_cutoff(now)) | Q(execution_started_at__isnull=True)
    approved = Q(status=TicketStatus.APPROVED)
    if HitlTicket.objects.filter(ITEM_BACK, pk=ticket_id).exists():
        # A return of goods starts once its item is back. Said on the ticket's own row, never through its order: a
        # condition with a join makes Django's UPDATE a `pk IN (subquery)`, which PostgreSQL does not re-check
        # after waiting for another executor's row lock, so every racing executor would claim the ticket.
        approved &= Q(item_received_at__isnull=False)
    sources: list[tuple[str, Q, str]] = [
        (TicketStatus.APPROVED, approved, "execution started"),
        (TicketStatus.EXECUTING, Q(status=TicketStatus.EXECUTING) & stale, "the previous executor's lease expired"),
    ]
    if retry:
        sources.append((TicketStatus.FAILED, Q(status=TicketStatus.FAILED), "retry"))
    with transaction.atomic():
        for from_status, condition, reason in sources:
            claimed = (
                HitlTicket.objects.filter(condition, pk=ticket_id).update(
                    status=TicketStatus.EXECUTING,
                    execution_started_at=now,
                    attempts=F("attempts") + 1,
                    updated_at=now,
                )
                == 1
            )
            if claimed:
                ticket = HitlTicket.objects.select_related("requested_by").get(pk=ticket_id)
                TicketEvent.objects.create(
                    ticket=ticket,
                    from_status=from_status,
                    to_status=TicketStatus.EXECUTING,
                    reason=f"{reason} (attempt {ticket.attempts})",
                )
                ticket_counted(ticket)
                return ticket
    return None


def _still_ours(ticket_id: int, attempt: int) -> HitlTicket | None:
    """The ticket, locked, if this executor still holds it (nobody took over a lease we outlived), else None."""
    ticket = ticket_lock(ticket_id=ticket_id)
    if ticket is None or ticket.status != TicketStatus.EXECUTING or ticket.attempts != attempt:
        if ticket is None:
            return None
        logger.warning(
            "ticket %s: attempt %s lost its lease (now %s, attempt %s); leaving it",
            ticket.ticket_no,
            attempt,
            ticket.status,
            ticket.attempts,
        )
        return None
    return ticket


# --- finishing ---------------------------------------------------------------------------------------------------


def _fail(ticket: HitlTicket, *, stage: str, code: str, message: str, reasons: list[str] | None = None) -> HitlTicket:
    """EXECUTING → FAILED with what went wrong, and the order's refund claim released if this ticket held it, in
    one transaction; the order's status and amounts are not touched."""
    result: dict[str, Any] = {"ok": False, "stage": stage, "code": code, "message": message[:1000]}
    if reasons:
        result["reasons"] = reasons
    result.update(attempt=ticket.attempts, at=timezone.now().isoformat())
    with transaction.atomic():
        if _still_ours(ticket.pk, ticket.attempts) is None:
            return HitlTicket.objects.get(pk=ticket.pk)
        logger.info("ticket %s failed at %s: %s %s", ticket.ticket_no, stage, code, message)
        _release_claim(ticket, why=f"ticket {ticket.ticket_no} failed: {code}")
        return ticket_transition(
            ticket_id=ticket.pk, to_status=TicketStatus.FAILED, reason=f"{code}: {message}", execution_result=result
        )


def _succeed(ticket: HitlTicket, result: dict[str, Any], *, reason: str, flagged: bool = False) -> HitlTicket:
    """EXECUTING → EXECUTED with its result; the caller's open transaction (if any) holds the order change."""
    now = timezone.now()
    fields: dict[str, Any] = {"execution_result": {"ok": True, **result, "attempt": ticket.attempts}}
    fields["executed_at"] = now
    if flagged:
        fields["flagged"] = True
    return ticket_transition(ticket_id=ticket.pk, to_status=TicketStatus.EXECUTED, reason=reason, **fields)


def _finish_refund(ticket: HitlTicket, refund: dict[str, Any], *, recovered: bool) -> HitlTicket:
    """In one transaction: the order to REFUNDED/PART_REFUNDED/RETURNED with the amount it got back and its refund
    claim cleared, and the ticket to EXECUTED, if we still hold it.

    The order is re-read under its row lock and reconciled again, its claim checked to be this ticket's, and the
    supplier's refunded amount checked against the approval. Should any differ (an edit during the supplier call; a
    supplier that refunded another amount), the money has moved all the same: the ticket is EXECUTED, the order
    left as it is (but for the claim, released: the order's idempotency key and the supplier's cap still stop a
    second refund), and the ticket flagged with the reasons for a human to settle.
    """
    target = order_target_status(ticket)
    result = {
        "refundId": refund["refundId"],
        "amount": refund["amount"],
        "at": refund.get("createdAt") or timezone.now().isoformat(),
        "orderId": ticket.entity,
        "requestId": refund.get("requestId") or refund_request_id(ticket.entity),
        "recovered": recovered,
    }
    how = "refund found on the supplier from an earlier attempt" if recovered else "refunded on the supplier"
    with transaction.atomic():
        current = _still_ours(ticket.pk, ticket.attempts)
        if current is None:
            return HitlTicket.objects.get(pk=ticket.pk)
        order = order_lock(order_id=ticket.entity)
        mismatches = reconcile(current, order)
        if order is not None and order.refund_claim_id is None:
            mismatches.append(f"{order.order_id} was not claimed for ticket {ticket.ticket_no} any more")
        if Decimal(refund["amount"]) != current.refund_amount:
            mismatches.append(f"the supplier refunded ¥{refund['amount']}, the approval was ¥{current.refund_amount}")
        if mismatches:
            result["order_not_updated"] = mismatches
            logger.error("ticket %s: %s, but the order changed: %s", ticket.ticket_no, how, mismatches)
            _release_claim(ticket, why=f"ticket {ticket.ticket_no} executed, order NOT updated")
            return _succeed(current, result, reason=f"{how} {refund['refundId']}; order NOT updated", flagged=True)
        partial = f" (¥{refund['amount']} of ¥{order.amount})" if current.is_partial else ""
        order_transition(
            order_id=order.order_id,
            to_status=target,
            reason=f"{ticket.action.lower()} {refund['refundId']}{partial} for ticket {ticket.ticket_no}",
            refunded_amount=order.refunded_amount + Decimal(refund["amount"]),
            refund_claim=None,
        )
        result["orderStatus"] = target
        return _succeed(current, result, reason=f"{how} {refund['refundId']}")


# --- the order's refund claim ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderClaim:
    """What claiming an order's money found: `held` when this ticket holds the claim (taken now, or kept from an
    earlier attempt of its own), `mismatches` the reasons it may not refund now (empty: go on)."""

    held: bool
    mismatches: list[str]
    total: Decimal | None = None  # what the order was paid: the refund's `total` at the supplier


def _order_claim(ticket: HitlTicket) -> OrderClaim | None:
    """Claim the order's money for this ticket, committed before any supplier call; None when this executor lost its
    lease (the ticket is someone else's now).

    Under the ticket's row lock (fencing: still this attempt's) and then the order's: an order already claimed by
    this ticket (a takeover, a retry) stays so; otherwise, when the order reconciles with the ticket, the claim is
    set with an order event (status unchanged, why: which ticket, which attempt, how much). A claim held by another
    ticket is one of the reconciliation's mismatches ("ORD-004 is being refunded by ticket T…"): the other ticket's
    refund is under way, and this one must not add a second.
    """
    with transaction.atomic():
        current = _still_ours(ticket.pk, ticket.attempts)
        if current is None:
            return None
        order = order_lock(order_id=ticket.entity)
        mismatches = reconcile(current, order)
        if order is not None and order.refund_claim_id == current.ticket_no:
            return OrderClaim(held=True, mismatches=mismatches, total=order.amount)
        if mismatches:
            return OrderClaim(held=False, mismatches=mismatches)
        OrderEvent.objects.create(
            order=order,
            from_status=order.status,
            to_status=order.status,
            reason=(
                f"refund claimed by ticket {current.ticket_no} ({current.action.lower()} "
                f"¥{current.refund_amount}, attempt {current.attempts})"
            )[:500],
        )
        order.refund_claim_id = current.ticket_no
        order.save(update_fields=["refund_claim", "updated_at"])
        return OrderClaim(held=True, mismatches=[], total=order.amount)


def _release_claim(ticket: HitlTicket, *, why: str) -> None:
    """Clear the order's refund claim if this ticket holds it, with an order event (status unchanged). Runs inside
    the caller's transaction, which holds the ticket's row lock (the order's is taken second, as everywhere)."""
    if ticket.kind != TicketKind.WORKFLOW or ticket.action not in ORDER_TARGET_STATUS:
        return
    order = order_lock(order_id=ticket.entity)
    if order is None or order.refund_claim_id != ticket.ticket_no:
        return
    OrderEvent.objects.create(
        order=order, from_status=order.status, to_status=order.status, reason=f"refund claim released: {why}"[:500]
    )
    order.refund_claim_id = None
    order.save(update_fields=["refund_claim", "updated_at"])


# --- the supplier ------------------------------------------------------------------------------------------------


def _money(value: Any, default: Decimal) -> str:
    try:
        return str(Decimal(str(value)).quantize(Decimal("0.01")))
    except (InvalidOperation, ValueError, TypeError):
        return str(default)


REFUND_REQUEST_PREFIX = "refund:"


def refund_request_id(order_id: str) -> str:
    """The idempotency key (`requestId`) of an order's refund at the supplier: one per order, whichever ticket asks,
    since TripDesk refunds an order at most once. A repeat from any ticket is answered with the first refund."""
    return f"{REFUND_REQUEST_PREFIX}{order_id}"


def _refund_in(answer: dict, ticket: HitlTicket) -> dict[str, Any]:
    """The refund the supplier says it made, or PlatformError INVALID_RESPONSE for an answer that is not one."""
    refund_id = answer.get("refundId")
    if not isinstance(refund_id, str) or not refund_id.strip():
        raise PlatformError(PlatformError.INVALID_RESPONSE, "the supplier's refund answer has no refundId")
    status = answer.get("status")
    if status is not None and status != "REFUNDED":
        raise PlatformError(PlatformError.INVALID_RESPONSE, f"the supplier's refund is {status!r}, not REFUNDED")
    request_id = answer.get("requestId")
    return {
        "refundId": refund_id.strip(),
        "amount": _money(answer.get("amount"), ticket.refund_amount),
        "createdAt": answer.get("createdAt"),
        "requestId": request_id if isinstance(request_id, str) and request_id else None,
    }


def _earlier_refund(ticket: HitlTicket, api_key: str) -> dict[str, Any] | None:
    """The order's refund made by an earlier attempt, asked of the supplier: under the order's key, or under the
    ticket number (the key of tickets executed before the order's key existed)."""
    answer = platform_call(PlatformCommand("order", "queryOrder", {"orderId": ticket.entity}), api_key=api_key)
    refunds = answer.get("refunds")
    if not isinstance(refunds, list):
        raise PlatformError(PlatformError.INVALID_RESPONSE, "the supplier did not list the order's refunds")
    keys = {refund_request_id(ticket.entity), ticket.ticket_no}
    for refund in refunds:
        if isinstance(refund, dict) and refund.get("requestId") in keys:
            return _refund_in({**refund, "status": None}, ticket)
    return None


def _supplier_failure(exc: PlatformError) -> str:
    """What the supplier said, with its own code when it refused (REFUND_EXCEEDS_PAID: …), for the approver."""
    return f"{exc.platform_code}: {exc.message}" if exc.platform_code else exc.message


def _execute_refund(ticket: HitlTicket) -> HitlTicket:
    api_key = supplier_account_ensure(user=ticket.requested_by).api_key
    claim = _order_claim(ticket)
    if claim is None:  # our lease ran out and someone took the ticket over: theirs now
        return HitlTicket.objects.get(pk=ticket.pk)
    if claim.held and ticket.attempts > 1:  # a takeover or a retry: an earlier attempt may have refunded
        try:
            earlier = _earlier_refund(ticket, api_key)
        except PlatformError as exc:
            return _fail(
                ticket,
                stage="verify",
                code=exc.code,
                message=f"could not check the supplier for an earlier refund: {_supplier_failure(exc)}",
            )
        if earlier is not None:
            return _finish_refund(ticket, earlier, recovered=True)
    if claim.mismatches:
        return _fail(
            ticket,
            stage="reconcile",
            code="RECONCILIATION_FAILED",
            message="; ".join(claim.mismatches),
            reasons=claim.mismatches,
        )

    command = PlatformCommand(
        "order",
        "refund",
        {
            "orderId": ticket.entity,
            "amount": float(ticket.refund_amount),
            "total": float(claim.total),
            "requestId": refund_request_id(ticket.entity),
        },
    )
    try:
        refund = _refund_in(platform_call(command, api_key=api_key), ticket)
    except PlatformError as exc:
        return _fail(ticket, stage="supplier", code=exc.code, message=_supplier_failure(exc))
    return _finish_refund(ticket, refund, recovered=False)


# --- checkpoints -------------------------------------------------------------------------------------------------


def _execute_checkpoint(ticket: HitlTicket) -> HitlTicket:
    """Resume an approved CANCEL_BOOKING ticket through the cancel service, as its requester (idempotent: a
    cancelled booking stays so). The service asks the approval gate again, which finds this ticket approved."""
    saved = ticket.arguments if isinstance(ticket.arguments, dict) else {}
    arguments = saved.get("arguments") if isinstance(saved.get("arguments"), dict) else {}
    booking_id = normalise_booking_id(ticket.entity)
    if booking_id is None:
        return _fail(ticket, stage="resume", code="INVALID_PARAM", message=f"{ticket.entity!r} is not a booking id")
    if "booking_id" in arguments and normalise_booking_id(arguments.get("booking_id")) != booking_id:
        return _fail(
            ticket,
            stage="resume",
            code="INVALID_PARAM",
            message=f"the saved call is for {arguments.get('booking_id')!r}, the ticket for {booking_id}",
        )
    try:
        outcome = booking_cancel(user=ticket.requested_by, booking_id=booking_id)
    except ApplicationError as exc:  # BookingError and its kin: the booking is as it was
        return _fail(ticket, stage="resume", code=exc.code, message=exc.message)
    result = {
        "tool": saved.get("tool") or "",
        "booking_id": outcome.booking.booking_id,
        "status": outcome.booking.status,
        "already_cancelled": outcome.already_cancelled,
        "call_the_hotel": outcome.call_the_hotel,
        "at": timezone.now().isoformat(),
    }
    with transaction.atomic():
        current = _still_ours(ticket.pk, ticket.attempts)
        if current is None:
            return HitlTicket.objects.get(pk=ticket.pk)
        return _succeed(current, result, reason=f"booking {outcome.booking.booking_id} cancelled")


# --- executing ---------------------------------------------------------------------------------------------------


def ticket_execute(*, ticket_id: int, retry: bool = False) -> HitlTicket:
    """Execute an approved ticket exactly once; return the ticket as it then is.

    Claims the ticket (see the module docstring); when someone else holds it or it is done, returns it untouched.
    WORKFLOW refund/return: reconcile with the order as it is now and claim its money (committed), check the
    supplier for an earlier attempt's refund (any attempt after the first), refund on the supplier under the
    order's key, then order and ticket in one transaction.
    CHECKPOINT CANCEL_BOOKING: resume it through `booking_cancel`. Business and supplier failures end
    FAILED with the reason in `execution_result` (the order unchanged); `retry=True` (from `ticket_retry`) may
    claim a FAILED ticket. Raises AftersaleError TICKET_NOT_FOUND; database errors propagate (the task retries).
    """
    ticket = _claim(ticket_id, retry=retry, now=timezone.now())
    if ticket is None:
        current = HitlTicket.objects.filter(pk=ticket_id).first()
        if current is None:
            raise AftersaleError("TICKET_NOT_FOUND", f"no ticket {ticket_id}")
        return current
    try:
        if ticket.kind == TicketKind.CHECKPOINT and ticket.action == TicketAction.CANCEL_BOOKING:
            return _execute_checkpoint(ticket)
        if ticket.kind == TicketKind.WORKFLOW and ticket.action in ORDER_TARGET_STATUS:
            return _execute_refund(ticket)
        return _fail(
            ticket, stage="dispatch", code="UNSUPPORTED", message=f"cannot execute {ticket.kind} {ticket.action}"
        )
    except DatabaseError:
        raise  # the lease stays; a takeover after it expires checks the supplier first
    except Exception as exc:
        # A bug or a time limit: end FAILED (a human may retry, which checks the supplier first) rather than hang.
        logger.exception("ticket %s: execution crashed", ticket.ticket_no)
        with contextlib.suppress(Exception):
            _fail(ticket, stage="internal", code="INTERNAL_ERROR", message=type(exc).__name__)
        raise


# --- sweeps ------------------------------------------------------------------------------------------------------


def tickets_time_out(*, now: datetime | None = None) -> int:
    """PENDING tickets whose deadline has passed become TIMEOUT (one transition each); return how many."""
    now = now or timezone.now()
    due = list(
        HitlTicket.objects.filter(status=TicketStatus.PENDING, deadline__lte=now)
        .order_by("deadline", "pk")
        .values_list("pk", flat=True)
    )
    timed_out = 0
    for ticket_id in due:
        try:
            ticket_transition(ticket_id=ticket_id, to_status=TicketStatus.TIMEOUT, reason="deadline passed")
        except AftersaleError:  # decided between the query and the lock: the decision stands
            continue
        timed_out += 1
    return timed_out


def tickets_resume_stalled(*, now: datetime | None = None) -> int:
    """Enqueue the execution of tickets nobody is executing: APPROVED for longer than a lease (the enqueue was
    lost) or EXECUTING under an expired lease (the executor died). Safe to over-enqueue: the claim picks one."""
    now = now or timezone.now()
    cutoff = _lease_cutoff(now)
    stalled = list(
        HitlTicket.objects.filter(
            (Q(status=TicketStatus.APPROVED, updated_at__lt=cutoff) & ~AWAITING_ITEM)
            | Q(status=TicketStatus.EXECUTING, execution_started_at__lt=cutoff)
            | Q(status=TicketStatus.EXECUTING, execution_started_at__isnull=True)
        ).values_list("pk", flat=True)
    )
    for ticket_id in stalled:
        logger.warning("ticket %s stalled; enqueueing its execution again", ticket_id)
        transaction.on_commit(lambda ticket_id=ticket_id: enqueue_execution(ticket_id))
    return len(stalled)
