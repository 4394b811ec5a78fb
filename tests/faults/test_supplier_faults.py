"""The supplier CLI failing, hanging or answering garbage on EVERY command (`*=fail|timeout|garbage`).

Booking from chat, cancelling, plan comparison and refund execution each end honest: no record invented, no record
changed, no money moved; a healed supplier and a retry give exactly one refund.
"""

import pytest

from aftersale.models import BizOrder, OrderStatus, TicketStatus
from aftersale.services.decisions import ticket_retry
from aftersale.services.execution import ticket_execute
from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from bookings.models import BookingEvent, BookingRecord
from tests.aftersale.conftest import demo_approver, demo_seeded, ticket_for  # noqa: F401 - fixtures
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

FAULTS = ["*=fail", "*=timeout", "*=garbage"]
FLIGHT = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"
PLAN = "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"


@pytest.fixture
def small_timeout(settings, monkeypatch):
    settings.PLATFORM_TIMEOUT = 1.0
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "30")  # a hang far longer than the timeout


@pytest.mark.parametrize("fault", FAULTS)
def test_booking_from_chat_with_the_supplier_broken_records_nothing_and_says_so(
    alice, supplier_sandbox, small_timeout, fault
):
    supplier_sandbox.fault(fault)

    result = chat_turn(user=alice, message=FLIGHT, today=TODAY)

    assert result.outcome == "DEGRADED"
    assert not BookingRecord.objects.exists()
    assert not any(c.get("booking_id") for c in result.cards)
    assert "没有预订" in result.reply or "没有产生订单" in result.reply or "无法连接" in result.reply
    assert Turn.objects.get().outcome == "DEGRADED"
    supplier_sandbox.heal()
    assert supplier_sandbox.stats()["orders"]["total"] == 0


@pytest.mark.parametrize("fault", FAULTS)
def test_cancelling_with_the_supplier_broken_leaves_the_booking_unchanged(
    alice, supplier_sandbox, small_timeout, fault
):
    asked = chat_turn(user=alice, message=FLIGHT, today=TODAY)
    chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)
    booking = BookingRecord.objects.get(user=alice)
    before = (booking.status, booking.details, BookingEvent.objects.filter(booking=booking).count())
    supplier_sandbox.fault(fault)

    card = chat_turn(
        user=alice, message=f"取消预订 {booking.booking_id}", conversation_id=asked.conversation_id, today=TODAY
    )
    assert [c["type"] for c in card.cards] == ["confirmation"]  # asked first; the supplier is not called yet
    result = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    booking.refresh_from_db()
    assert result.outcome == "DEGRADED"
    assert "保持原状" in result.reply
    assert (booking.status, booking.details, BookingEvent.objects.filter(booking=booking).count()) == before
    supplier_sandbox.heal()
    stats = supplier_sandbox.stats()
    assert stats["orders"]["total"] == 1


@pytest.mark.parametrize("fault", ["*=timeout", "*=garbage"])
def test_plan_comparison_with_the_supplier_broken_is_honest_and_shows_no_card(
    alice, supplier_sandbox, small_timeout, fault
):
    supplier_sandbox.fault(fault)

    result = chat_turn(user=alice, message=PLAN, today=TODAY)

    assert result.outcome == "DEGRADED"
    assert result.cards == []
    assert "没有预订任何东西" in result.reply
    assert "¥" not in result.reply
    assert not LLMCall.objects.filter(purpose="preference").exists()
    assert not BookingRecord.objects.exists()


@pytest.mark.parametrize(
    ("fault", "code"), [("*=fail", "REJECTED"), ("*=timeout", "TIMEOUT"), ("*=garbage", "INVALID_RESPONSE")]
)
def test_a_refund_with_the_supplier_broken_fails_the_ticket_then_heal_and_retry_refunds_exactly_once(
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    small_timeout,
    django_capture_on_commit_callbacks,
    fault,
    code,
):
    order = BizOrder.objects.get(order_id="ORD-001")
    order_before = (order.status, order.amount, order.refunded_amount, order.refund_claim_id, order.events.count())
    ticket = ticket_for(order, status=TicketStatus.APPROVED)
    supplier_sandbox.fault(fault)

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.FAILED
    assert (ticket.execution_result["stage"], ticket.execution_result["code"]) == ("supplier", code)
    assert ticket.execution_result["message"]  # the reason, for the approver's console
    assert ticket.events.filter(to_status=TicketStatus.FAILED, reason__startswith=code).exists()
    order.refresh_from_db()
    # Status and money as they were; the order's money was claimed before the call and released with the FAILED.
    assert (order.status, order.amount, order.refunded_amount, order.refund_claim_id) == order_before[:4]
    assert list(order.events.order_by("pk").values_list("to_status", "reason"))[order_before[4] :] == [
        ("PAID", f"refund claimed by ticket {ticket.ticket_no} (refund ¥380.00, attempt 1)"),
        ("PAID", f"refund claim released: ticket {ticket.ticket_no} failed: {code}"),
    ]
    supplier_sandbox.heal()
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {}

    with django_capture_on_commit_callbacks(execute=True):
        ticket_retry(ticket_id=ticket.pk, actor=demo_approver)

    ticket.refresh_from_db()
    order.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert order.status == OrderStatus.REFUNDED
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {"ORD-001": 1}
