"""CheckpointHook: HIGH-risk tool calls wait for a human approver instead of running.

A call is paused when (a) its tool is declared `Risk.HIGH`, or (b) it is `cancel_booking` of one of the
traveller's own bookings whose amount is above `AFTERSALE_CHECKPOINT_AMOUNT`. A paused call opens (or finds) a
checkpoint ticket through `checkpoint_gate` and answers TICKET_PENDING; a rejected one answers PERMISSION_DENIED;
an approved one runs. Whatever the hook cannot decide about (a booking that is not the traveller's, or that does
not exist) it leaves to the tool's own checks, so it never opens tickets about other people's things.

The hook is duck-typed (name, priority, pre_acting, post_acting), so aftersale never imports the agent.
"""

import logging
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone

from aftersale.models import BizOrder, TicketAction
from aftersale.services.checkpoints import CODE_PERMISSION_DENIED, CheckpointDecision, checkpoint_gate
from core.envelope import Code, fail
from core.tools import Risk

logger = logging.getLogger(__name__)

CANCEL_BOOKING_TOOL = "cancel_booking"
# Which argument names the thing a HIGH-risk call acts on, in the order they are looked for.
ENTITY_ARGUMENTS = ("booking_id", "order_id")


class CheckpointHook:
    """Pre-acting: pause HIGH-risk calls into checkpoint tickets. Post-acting: nothing."""

    name = "hitl_checkpoint"
    priority = 10  # before every other hook: nothing should see a call that is not allowed to run yet

    def pre_acting(self, call) -> dict | None:
        if call.tool.name == CANCEL_BOOKING_TOOL:
            return self._cancel_booking(call)
        if call.tool.risk == Risk.HIGH:
            return self._high_risk(call)
        return None

    def post_acting(self, call, result: dict) -> None:
        return None

    def __repr__(self) -> str:
        return f"<CheckpointHook {self.name!r} priority={self.priority}>"

    # -- the calls that may need an approver ------------------------------------------------------------------

    def _cancel_booking(self, call) -> dict | None:
        from bookings.models import BookingRecord, BookingStatus
        from core.ids import normalise_booking_id

        user = call.context.user
        booking_id = normalise_booking_id(call.arguments.get("booking_id"))
        if not booking_id or user is None or not getattr(user, "pk", None):
            return None  # the tool answers a blank id or a missing user itself
        booking = BookingRecord.objects.filter(booking_id=booking_id, user=user).first()
        if booking is None or booking.status == BookingStatus.CANCELLED:
            return None  # not found / not theirs / already cancelled: the tool's own answer is the right one
        is_high = call.tool.risk == Risk.HIGH
        if not is_high and booking.amount <= Decimal(str(settings.AFTERSALE_CHECKPOINT_AMOUNT)):
            return None
        summary = f"Cancel {booking.get_biz_type_display().lower()} booking {booking.booking_id} (¥{booking.amount})"
        decision = checkpoint_gate(
            user=user,
            action=TicketAction.CANCEL_BOOKING,
            entity=booking.booking_id,
            amount=booking.amount,
            arguments={**call.arguments, "booking_id": booking.booking_id},
            summary=summary,
            tool=call.tool.name,
            evidence=_booking_facts(booking) | _call_facts(call),
        )
        return _envelope(decision, call.context.language or "")

    def _high_risk(self, call) -> dict | None:
        user = call.context.user
        if user is None or not getattr(user, "pk", None):
            return fail(Code.PERMISSION_DENIED, f"{call.tool.name} needs a signed-in traveller and an approver")
        route = _route(call)
        if route is None:
            # A HIGH-risk call that cannot be put to an approver must not run unreviewed.
            logger.error("HIGH-risk tool %s has no approval route; refused", call.tool.name)
            return fail(
                Code.PERMISSION_DENIED,
                f"{call.tool.name} needs an approver's OK, and this request cannot be sent for approval; "
                "nothing was done.",
            )
        action, entity, amount, facts = route
        decision = checkpoint_gate(
            user=user,
            action=action,
            entity=entity,
            amount=amount,
            arguments=call.arguments,
            summary=f"{TicketAction(action).label} of {entity} ({call.tool.name})",
            tool=call.tool.name,
            evidence=facts | _call_facts(call),
        )
        return _envelope(decision, call.context.language or "")


def _route(call) -> tuple[str, str, Any, dict] | None:
    """(action, entity, amount, facts) of a HIGH-risk call, or None when it names no action or entity we know.

    The action is the tool's name when it is one (`cancel_booking` → CANCEL_BOOKING), else an `action` /
    `aftersale_action` argument (REFUND, RETURN); the entity is its booking or order id.
    """
    action = call.tool.name.upper()
    if action not in TicketAction.values:
        raw = call.arguments.get("action") or call.arguments.get("aftersale_action")
        action = raw.strip().upper() if isinstance(raw, str) else ""
    if action not in TicketAction.values:
        return None
    for name in ENTITY_ARGUMENTS:
        raw = call.arguments.get(name)
        if isinstance(raw, str) and raw.strip():
            entity = raw.strip().upper()
            break
    else:
        return None
    if name == "order_id":
        order = BizOrder.objects.filter(order_id=entity, user=call.context.user).first()
        if order is not None:
            return action, entity, order.amount, {"order": _order_facts(order)}
        return action, entity, None, {}
    from bookings.models import BookingRecord

    booking = BookingRecord.objects.filter(booking_id=entity, user=call.context.user).first()
    if booking is not None:
        return action, entity, booking.amount, _booking_facts(booking)
    return action, entity, None, {}


def _envelope(decision: CheckpointDecision, language: str) -> dict | None:
    """None to let the call run; else TICKET_PENDING (waiting) or PERMISSION_DENIED (rejected), with the ticket."""
    if decision.proceed:
        return None
    data = decision.data
    message = _chinese_message(decision) if language.lower().startswith("zh") else decision.message
    if decision.code == CODE_PERMISSION_DENIED:
        return fail(Code.PERMISSION_DENIED, message, data)
    return fail(Code.TICKET_PENDING, message, data)


def _chinese_message(decision: CheckpointDecision) -> str:
    ticket = decision.ticket
    if ticket is None:
        return decision.message
    what = f"{_ACTION_ZH.get(ticket.action, ticket.action)} {ticket.entity}"
    if decision.code == CODE_PERMISSION_DENIED:
        because = f"（原因：{ticket.decision_reason}）" if ticket.decision_reason else ""
        return f"{what} 已被审批人驳回{because}，工单 {ticket.ticket_no}，该操作不会执行。"
    deadline = timezone.localtime(ticket.deadline).strftime("%Y-%m-%d %H:%M")
    return (
        f"{what} 需要人工审批：工单 {ticket.ticket_no} 正在等待审批人处理（{deadline} 前）。"
        "审批通过前不会执行任何操作，通过后将自动完成。"
    )


_ACTION_ZH = {TicketAction.CANCEL_BOOKING: "取消预订", TicketAction.REFUND: "退款", TicketAction.RETURN: "退货"}


def _booking_facts(booking) -> dict:
    return {
        "booking": {
            "booking_id": booking.booking_id,
            "biz_type": booking.biz_type,
            "status": booking.status,
            "amount": str(booking.amount),
            "external_order_no": booking.external_order_no,
            "created_at": booking.created_at.isoformat(),
        }
    }


def _order_facts(order: BizOrder) -> dict:
    return {
        "order_id": order.order_id,
        "category": order.category,
        "status": order.status,
        "amount": str(order.amount),
        "paid_at": order.paid_at.isoformat(),
    }


def _call_facts(call) -> dict:
    return {"tool": call.tool.name, "risk": str(call.tool.risk), "conversation_id": call.context.conversation_id}


HOOKS = [CheckpointHook()]
