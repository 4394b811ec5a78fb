"""The cancel rules hold in `booking_cancel` on every path: a paid booking above BOOKINGS_CANCEL_APPROVAL_ABOVE waits for an
approver from chat (both channels), the /bookings/ page and the API; a model cannot cancel through the platform
tool; two concurrent cancels call the platform once. Real sandbox supplier CLI, PostgreSQL."""

import datetime as dt
import json
import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from aftersale.models import HitlTicket, TicketStatus
from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.platform import PlatformCommand, order_number, platform_call
from bookings.services.cancel import booking_cancel
from bookings.services.command import platform_command_for_traveller
from bookings.services.errors import BookingError
from bookings.services.pay import booking_pay
from bookings.services.recording import booking_record_from_platform
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

ROUTE = {"from": "上海", "to": "杭州", "date": "2026-12-05"}


def supplier(user, product, action, arguments):
    return platform_call(
        PlatformCommand(product, action, arguments), api_key=supplier_account_ensure(user=user).api_key
    )


def flight_booking(user) -> BookingRecord:
    """A real order on the sandbox supplier, recorded as TripDesk records what the booking agent made."""
    flight = min(supplier(user, "flight", "search", ROUTE)["flights"], key=lambda f: f["price"])
    arguments = {
        "flightNo": flight["flightNo"],
        "date": ROUTE["date"],
        "contactTourist": {"name": "张三", "mobile": "13800000000"},
    }
    answer = supplier(user, "flight", "saveOrder", arguments)
    return booking_record_from_platform(
        user=user, biz_type="FLIGHT", external_order_no=order_number(answer), arguments=arguments, response=answer
    )


def hotel_booking(user, amount=2200) -> BookingRecord:
    """A paid hotel booking (money at stake: above the amount its cancel waits for an approver)."""
    booking = booking_record_from_platform(
        user=user,
        biz_type="HOTEL",
        external_order_no="HT2200",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": "HT2200", "totalPrice": amount},
    )
    BookingRecord.objects.filter(pk=booking.pk).update(status=BookingStatus.CONFIRMED, paid_at=timezone.now())
    booking.refresh_from_db()
    return booking


@pytest.fixture
def expensive(settings):
    """Make a booking paid and 'above the approval amount' whatever the sandbox charges for it."""

    def above(booking: BookingRecord) -> BookingRecord:
        settings.BOOKINGS_CANCEL_APPROVAL_ABOVE = int(booking.amount) - 1
        return booking_pay(user=booking.user, booking_id=booking.booking_id).booking

    return above


def state(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    return booking.status, list(BookingEvent.objects.filter(booking=booking).values_list("to_status", flat=True))


def on_platform(user, booking) -> str:
    return supplier(user, booking.biz_type.lower(), "queryOrder", {"orderId": booking.external_order_no})["status"]


def ask_then_confirm(user, message: str):
    """The cancel asked in chat shows a confirmation card and changes nothing (checked here); "确认" carries it out.
    Yields the reply of each of the two turns."""
    booking = BookingRecord.objects.get(user=user)
    before = state(booking)
    asked = chat_turn(user=user, message=message, today=TODAY)
    assert [c["type"] for c in asked.cards] == ["confirmation"]
    assert state(booking) == before and not HitlTicket.objects.filter(status=TicketStatus.PENDING).exists()
    yield asked
    yield chat_turn(user=user, message="确认", conversation_id=asked.conversation_id, today=TODAY)


def assert_waits_for_an_approver(booking, before, sandbox=None):
    ticket = HitlTicket.objects.get()
    assert (ticket.status, ticket.idempotency_key) == (
        TicketStatus.PENDING,
        f"hitl:CANCEL_BOOKING:{booking.booking_id}",
    )
    assert ticket.amount == booking.amount
    assert state(booking) == before
    if sandbox is not None:
        assert on_platform(booking.user, booking) == "PAID"
        assert sandbox.stats()["cancels"]["total"] == 0
    return ticket


# --- the approval threshold, path by path ------------------------------------------------------------------------


def test_chat_channel_one_waits_for_an_approver_above_the_amount(alice, supplier_sandbox, expensive):
    booking = expensive(flight_booking(alice))
    before = state(booking)

    asked = ask_then_confirm(alice, f"取消预订 {booking.booking_id}")
    result = next(asked)
    result = next(asked)

    ticket = assert_waits_for_an_approver(booking, before, supplier_sandbox)
    assert result.outcome == "ANSWERED"
    assert f"工单 {ticket.ticket_no}" in result.reply and "等待审批人" in result.reply
    assert [c["type"] for c in result.cards] == ["ticket"]


def test_chat_channel_two_waits_for_an_approver_above_the_amount(alice, supplier_sandbox, expensive, settings):
    settings.ASSISTANT_AGENT_ENABLED = True
    booking = expensive(flight_booking(alice))
    before = state(booking)

    asked = ask_then_confirm(alice, f"取消预订 {booking.booking_id}")
    next(asked)
    result = next(asked)

    ticket = assert_waits_for_an_approver(booking, before, supplier_sandbox)
    assert f"工单 {ticket.ticket_no}" in result.reply and "等待审批人" in result.reply


def test_the_bookings_page_cancel_button_waits_for_an_approver_for_a_2200_hotel(client, alice):
    booking = hotel_booking(alice, amount=2200)
    before = state(booking)
    client.force_login(alice)

    response = client.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, HTTP_HX_REQUEST="true")

    ticket = assert_waits_for_an_approver(booking, before)
    html = response.content.decode()
    assert 'data-status="CONFIRMED"' in html and 'data-cancel="AWAITING_APPROVAL"' in html
    assert ticket.ticket_no in html


def test_the_bookings_page_plain_post_says_the_cancel_waits(client, alice):
    booking = hotel_booking(alice, amount=2200)
    before = state(booking)
    client.force_login(alice)

    response = client.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, follow=True)

    ticket = assert_waits_for_an_approver(booking, before)
    assert ticket.ticket_no in response.content.decode()


def test_the_api_answers_202_with_the_ticket_above_the_amount(alice):
    booking = hotel_booking(alice, amount=2200)
    before = state(booking)
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json")

    ticket = assert_waits_for_an_approver(booking, before)
    body = response.json()
    assert response.status_code == 202
    assert (body["ok"], body["code"], body["data"]["ticket_no"]) == (False, "TICKET_PENDING", ticket.ticket_no)


def test_at_the_amount_the_api_cancels_at_once(alice, settings):
    settings.BOOKINGS_CANCEL_APPROVAL_ABOVE = 2200
    booking = hotel_booking(alice, amount=2200)
    api = APIClient()
    api.force_authenticate(alice)

    body = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json").json()

    assert body["booking"]["status"] == "CANCELLED" and body["call_the_hotel"] is True
    assert not HitlTicket.objects.exists()


def test_an_approved_ticket_lets_the_cancel_run_once(alice, supplier_sandbox, expensive):
    booking = expensive(flight_booking(alice))
    with pytest.raises(BookingError) as waiting:
        booking_cancel(user=alice, booking_id=booking.booking_id)
    HitlTicket.objects.filter(ticket_no=waiting.value.data["ticket_no"]).update(status=TicketStatus.APPROVED)

    outcome = booking_cancel(user=alice, booking_id=booking.booking_id)

    assert waiting.value.code == "TICKET_PENDING"
    assert outcome.booking.status == BookingStatus.CANCELLED
    assert on_platform(alice, booking) == "CANCELLED"
    assert supplier_sandbox.stats()["cancels"]["total"] == 1


def test_a_rejected_ticket_refuses_the_cancel_and_keeps_the_booking(alice, supplier_sandbox, expensive):
    booking = expensive(flight_booking(alice))
    before = state(booking)
    with pytest.raises(BookingError) as waiting:
        booking_cancel(user=alice, booking_id=booking.booking_id)
    HitlTicket.objects.filter(ticket_no=waiting.value.data["ticket_no"]).update(
        status=TicketStatus.REJECTED, decision_reason="不可退的票价"
    )

    asked = ask_then_confirm(alice, f"取消预订 {booking.booking_id}")
    next(asked)
    result = next(asked)

    assert result.outcome == "REJECTED"
    assert "驳回" in result.reply and "不可退的票价" in result.reply
    assert state(booking) == before
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


# --- the platform tool cannot cancel -----------------------------------------------------------------------------


@pytest.fixture
def openai_settings(settings, fake_openai):
    return use_scripted_model(settings, fake_openai, timeout=2, max_iterations=4)


@pytest.mark.parametrize("channel", [1, 2])
def test_a_scripted_model_composing_cancel_order_is_refused_and_nothing_changes(
    alice, supplier_sandbox, expensive, openai_settings, fake_openai, channel
):
    booking = expensive(flight_booking(alice))
    before = state(booking)
    command = f"supplier call flight cancelOrder -a '{json.dumps({'orderId': booking.external_order_no})}'"
    if channel == 1:
        understood = {"intent": "BOOK", "biz_type": "FLIGHT", "origin": "上海", "destination_keywords": ["杭州"]}
        fake_openai.enqueue(Reply(content=understood | {"date_start": "2026-12-05"}))
    else:
        openai_settings.ASSISTANT_AGENT_ENABLED = True
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "cx", "name": "execute_platform_command", "arguments": {"command": command}}]),
        Reply(content="Cancelled."),
    )

    result = chat_turn(user=alice, message="帮我订12月5日上海到杭州的航班，顺便把之前那张取消了", today=TODAY)

    tool_messages = [m for r in fake_openai.requests for m in r.messages if m["role"] == "tool"]
    if channel == 2:
        refused = json.loads(tool_messages[0]["content"])
        assert (refused["ok"], refused["code"]) == (False, "PERMISSION_DENIED")
        assert "cancel_booking" in refused["message"]
        assert "没有执行任何操作" in result.reply
    else:  # channel 1 books through code (find_booking_options → book_option): no model composes a command
        assert tool_messages == []
    assert state(booking) == before
    assert on_platform(alice, booking) == "PAID"
    assert supplier_sandbox.stats()["cancels"]["total"] == 0
    assert not HitlTicket.objects.exists()


@pytest.mark.parametrize("product", ["flight", "train", "hotel"])
def test_the_travellers_platform_command_refuses_cancel_order_before_anything_runs(alice, supplier_sandbox, product):
    with pytest.raises(BookingError) as refused:
        platform_command_for_traveller(
            user=alice, command=f'supplier call {product} cancelOrder -a \'{{"orderId": "X1"}}\''
        )

    assert refused.value.code == "PERMISSION_DENIED"
    assert "cancel_booking" in refused.value.message
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


def test_the_travellers_platform_command_refuses_a_refund(alice, supplier_sandbox):
    with pytest.raises(BookingError) as refused:
        platform_command_for_traveller(
            user=alice, command="""supplier call order refund -a '{"orderId": "ORD-001", "amount": 1}'"""
        )

    assert refused.value.code == "PERMISSION_DENIED"
    assert supplier_sandbox.stats()["refunds"]["total"] == 0


def test_the_platform_tool_says_what_it_did_so_nobody_reads_the_command_again(alice, supplier_sandbox):
    from bookings.tools import execute_platform_command
    from core.tools import Risk, ToolContext

    search = """supplier call flight search -a '{"from": "上海", "to": "杭州", "date": "2026-12-05"}'"""
    save = """supplier call flight saveOrder -a '{"flightNo": "X"}'"""

    envelope = execute_platform_command.run(ToolContext(user=alice), {"command": search})

    assert envelope["ok"] is True
    data = envelope["data"]
    assert (data["kind"], data["product"], data["action"], data["order_no"]) == ("platform", "flight", "search", None)
    assert data["answer"]["flights"]
    assert execute_platform_command.effective_risk({"command": search}) == Risk.READ
    assert execute_platform_command.effective_risk({"command": save}) == Risk.WRITE
    assert execute_platform_command.effective_risk({"command": "rm -rf /"}) == Risk.WRITE


# --- two cancels at once -----------------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_cancels_call_the_platform_once(user_factory, supplier_sandbox, settings, monkeypatch):
    settings.PLATFORM_TIMEOUT = 30
    alice = user_factory("alice")
    booking = flight_booking(alice)
    # a slow supplier: every cancel takes a second, so both requests are in flight together
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "1")
    supplier_sandbox.fault("flight.cancelOrder=timeout")
    start = threading.Barrier(2)
    answers: list = []

    def cancel():
        try:
            start.wait()
            answers.append(booking_cancel(user=alice, booking_id=booking.booking_id))
        except BookingError as exc:
            answers.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=cancel) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    supplier_sandbox.heal()
    assert supplier_sandbox.stats()["cancels"]["byOrderNo"] == {booking.external_order_no: 1}
    done = [a for a in answers if not isinstance(a, str) and not a.already_cancelled]
    others = [a if isinstance(a, str) else "already cancelled" for a in answers if a not in done]
    assert len(done) == 1 and others[0] in ("CANCEL_IN_PROGRESS", "already cancelled")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED and booking.cancel_claimed_until is None
    assert BookingEvent.objects.filter(booking=booking, to_status="CANCELLED").count() == 1


def test_a_platform_failure_releases_the_claim_and_a_retry_cancels(alice, supplier_sandbox):
    booking = flight_booking(alice)
    supplier_sandbox.fault("flight.cancelOrder=fail")

    with pytest.raises(BookingError) as failed:
        booking_cancel(user=alice, booking_id=booking.booking_id)
    booking.refresh_from_db()
    assert failed.value.code == "PLATFORM_CANCEL_FAILED"
    assert (booking.status, booking.cancel_claimed_until) == ("PENDING_PAYMENT", None)

    supplier_sandbox.heal()
    outcome = booking_cancel(user=alice, booking_id=booking.booking_id)

    assert outcome.booking.status == BookingStatus.CANCELLED
    assert supplier_sandbox.stats()["cancels"]["total"] == 1


def test_a_cancel_held_by_another_request_answers_cancel_in_progress_and_calls_nothing(alice, supplier_sandbox):
    booking = flight_booking(alice)
    BookingRecord.objects.filter(pk=booking.pk).update(cancel_claimed_until=timezone.now() + dt.timedelta(minutes=1))
    before = state(booking)

    with pytest.raises(BookingError) as busy:
        booking_cancel(user=alice, booking_id=booking.booking_id)

    assert busy.value.code == "CANCEL_IN_PROGRESS"
    assert state(booking) == before
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


def test_a_malformed_id_is_invalid_and_touches_nothing(alice):
    booking = hotel_booking(alice, amount=100)
    before = state(booking)

    with pytest.raises(BookingError) as invalid:
        booking_cancel(user=alice, booking_id="BK-not-an-id")

    assert invalid.value.code == "INVALID_PARAM"
    assert state(booking) == before
    assert booking.amount == Decimal("100.00")
