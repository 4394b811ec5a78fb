"""Bulk tickets (`T-BULK-0000001` …) about the bulk order (or, for every tenth, booking) of the same number, each
with its one event row."""

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model

from aftersale.models import (
    BizOrder,
    HitlTicket,
    OrderCategory,
    OrderStatus,
    TicketAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
    Verdict,
)
from bookings.models import BookingRecord
from demo.bulk.keys import (
    APPROVER_USERNAME,
    SEED_REASON,
    TICKET_PREFIX,
    TICKET_RE,
    analyze,
    booking_id_for,
    chunks,
    create_with_events,
    missing_numbers,
    order_id_for,
    present_numbers,
    row_random,
    ticket_no_for,
    weighted,
)

OPEN_TICKET_STATUSES = (
    (TicketStatus.PENDING, 45),
    (TicketStatus.REJECTED, 20),
    (TicketStatus.TIMEOUT, 15),
    (TicketStatus.APPROVED, 5),
    (TicketStatus.FAILED, 5),
    (TicketStatus.EXECUTED, 10),
)


def seed_tickets(wanted: int, *, now: dt.datetime, batch_size: int) -> tuple[int, int]:
    numbers = HitlTicket.objects.filter(ticket_no__startswith=TICKET_PREFIX).values_list("ticket_no", flat=True)
    present = present_numbers(numbers, TICKET_RE)
    missing = missing_numbers(wanted, present)
    if missing:
        approver = get_user_model().objects.filter(username=APPROVER_USERNAME).values_list("pk", flat=True).first()
        for batch in chunks(missing, batch_size):
            orders = {o.order_id: o for o in BizOrder.objects.filter(order_id__in=[order_id_for(s) for s in batch])}
            bookings = {
                b.booking_id: b
                for b in BookingRecord.objects.filter(booking_id__in=[booking_id_for(s) for s in batch if s % 10 == 0])
            }
            tickets = [
                t
                for seq in batch
                if (t := _ticket(seq, orders=orders, bookings=bookings, approver=approver, now=now)) is not None
            ]
            create_with_events(tickets, TicketEvent, owner="ticket", batch_size=batch_size)
        analyze(HitlTicket, TicketEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _ticket(seq: int, *, orders: dict, bookings: dict, approver: int | None, now: dt.datetime) -> HitlTicket | None:
    rng = row_random("ticket", seq)
    booking = bookings.get(booking_id_for(seq)) if seq % 10 == 0 else None
    order = orders.get(order_id_for(seq))
    if booking is not None:
        fields: dict[str, Any] = {
            "kind": TicketKind.CHECKPOINT,
            "action": TicketAction.CANCEL_BOOKING,
            "idempotency_key": f"hitl:{TicketAction.CANCEL_BOOKING}:{booking.booking_id}",
            "requested_by_id": booking.user_id,
            "entity": booking.booking_id,
            "amount": booking.amount,
            "arguments": {"tool": "cancel_booking", "arguments": {"booking_id": booking.booking_id}},
            "evidence": {"booking": {"booking_id": booking.booking_id, "amount": str(booking.amount)}},
        }
        status = weighted(rng, OPEN_TICKET_STATUSES)
    elif order is not None:
        action = (
            TicketAction.RETURN if order.category == OrderCategory.GOODS and rng.random() < 0.6 else TicketAction.REFUND
        )
        done = {OrderStatus.REFUNDED, OrderStatus.RETURNED}
        status = TicketStatus.EXECUTED if order.status in done else weighted(rng, OPEN_TICKET_STATUSES[:-1])
        verdict = rng.choice((Verdict.PASS, Verdict.PASS, Verdict.UNCERTAIN, Verdict.REJECTED))
        fields = {
            "kind": TicketKind.WORKFLOW,
            "action": action,
            "idempotency_key": f"wfa:{action}:{order.order_id}",
            "requested_by_id": order.user_id,
            "order": order,
            "entity": order.order_id,
            "amount": order.amount,
            "verdict": verdict,
            "verdict_reason": "Seeded verdict.",
            "flagged": verdict == Verdict.UNCERTAIN or rng.random() < 0.05,
            "evidence": {
                "summary": f"{action} of {order.order_id}",
                "order": {"order_id": order.order_id, "status": order.status, "amount": str(order.amount)},
            },
        }
    else:
        return None
    decided = status not in {TicketStatus.PENDING, TicketStatus.TIMEOUT}
    if status == TicketStatus.PENDING:
        # Asked within the last two days; a tenth are past their deadline (the "overdue" filter has work to show).
        overdue = rng.random() < 0.1
        asked = now - dt.timedelta(hours=rng.randint(49, 60) if overdue else rng.randint(0, 47))
    else:
        asked = now - dt.timedelta(hours=rng.randint(48, 24 * 60))
    fields |= {
        "ticket_no": ticket_no_for(seq),
        "status": status,
        "deadline": asked + dt.timedelta(hours=48),
        "decided_by_id": approver if decided else None,
        "decided_at": asked + dt.timedelta(hours=rng.randint(1, 40)) if decided else None,
        "decision_reason": SEED_REASON if decided else "",
        "attempts": 1 if status in {TicketStatus.EXECUTED, TicketStatus.FAILED} else 0,
        "executed_at": asked + dt.timedelta(hours=41) if status == TicketStatus.EXECUTED else None,
    }
    return HitlTicket(**fields)
