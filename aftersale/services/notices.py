"""Telling travellers of the decisions about their requests: one in-app notice per decision, in the transaction
that made it (so a notice exists exactly when its change does), and marking notices read once they were shown.

A notice keeps facts (numbers, the approver's words), never sentences: `aftersale/partials/notice_text.html`
words it in the reader's language when it is shown.
"""

from typing import Any

from django.utils import timezone

from aftersale import conf
from aftersale.models import AftersaleNotice, HitlTicket, NoticeKind, TicketStatus
from core import live

# The ticket statuses a traveller hears of, and what they are told.
NOTICE_OF_STATUS = {
    TicketStatus.APPROVED: NoticeKind.APPROVED,
    TicketStatus.REJECTED: NoticeKind.REJECTED,
    TicketStatus.EXECUTED: NoticeKind.EXECUTED,
    TicketStatus.FAILED: NoticeKind.FAILED,
    TicketStatus.TIMEOUT: NoticeKind.TIMEOUT,
}


def _money(value) -> str | None:
    return None if value is None else str(value)


def ticket_notice_record(*, ticket: HitlTicket) -> AftersaleNotice | None:
    """The notice of the status the ticket has just reached, for its requester; None for a status nobody is told
    of. Called by `ticket_transition` inside its transaction, after the move."""
    kind = NOTICE_OF_STATUS.get(ticket.status)
    if kind is None:
        return None
    if kind == NoticeKind.APPROVED and ticket.is_partial:
        kind = NoticeKind.PART_APPROVED
    facts: dict[str, Any] = {
        "ticket_no": ticket.ticket_no,
        "action": ticket.action,
        "entity": ticket.entity,
        "amount": _money(ticket.amount),
        "approved_amount": _money(ticket.refund_amount),
    }
    if kind in (NoticeKind.REJECTED, NoticeKind.PART_APPROVED):
        facts["reason"] = ticket.decision_reason
    if kind in (NoticeKind.APPROVED, NoticeKind.PART_APPROVED) and ticket.awaits_item:
        facts["return_to"] = conf.return_address()  # where to send the item, as it was then
    if kind == NoticeKind.EXECUTED:
        result = ticket.execution_result if isinstance(ticket.execution_result, dict) else {}
        facts["refunded_amount"] = result.get("amount") or _money(ticket.refund_amount)
    notice = AftersaleNotice.objects.create(user_id=ticket.requested_by_id, ticket=ticket, kind=kind, facts=facts)
    live.changed(ticket.requested_by_id)  # the traveller's open pages show it now (core.live)
    return notice


def aftersale_notices_mark_read(*, user, notice_ids: list[int]) -> int:
    """The user's notices shown to them (on their requests page or in the chat): read now. How many were unread."""
    return AftersaleNotice.objects.filter(user=user, pk__in=notice_ids, read_at__isnull=True).update(
        read_at=timezone.now()
    )
