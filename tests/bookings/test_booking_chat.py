"""Booking and cancelling from chat (rules provider, channel 1), with the real sandbox supplier CLI as a subprocess.

Every booking and cancel is a confirmation card first; nothing is written before the traveller's "确认" in the same
conversation, and exactly one thing after it."""

import logging
from decimal import Decimal

import pytest

from assistant.models import LLMCall, PendingAction, Turn
from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord, SupplierAccount
from bookings.platform import PlatformCommand, platform_call
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

FLIGHT = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"
TRAIN = "订一张12月22号北京到天津的高铁票，乘客李四 13900001111"
HOTEL = "帮我在大理订个酒店，12月10号入住，住两晚，入住人王五 13700002222"


def supplier(user, product, action, arguments):
    return platform_call(
        PlatformCommand(product, action, arguments), api_key=supplier_account_ensure(user=user).api_key
    )


def confirmation(result) -> dict:
    found = [c for c in result.cards if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {result.outcome} {result.reply!r}"
    return found[0]


def say(user, text, conversation_id=None):
    return chat_turn(user=user, message=text, today=TODAY, conversation_id=conversation_id)


def book(user, text=FLIGHT, **kwargs):
    """Ask, see the confirmation card (nothing booked yet), confirm: the reply to the confirmation and the booking."""
    before = BookingRecord.objects.filter(user=user).count()
    asked = chat_turn(user=user, message=text, today=TODAY, **kwargs)
    confirmation(asked)
    assert BookingRecord.objects.filter(user=user).count() == before  # nothing before the confirmation
    result = say(user, "确认", asked.conversation_id)
    return result, BookingRecord.objects.filter(user=user).order_by("-id").first()


def cancel(user, text):
    """Ask to cancel, see the card (nothing cancelled yet), confirm: the reply to the confirmation."""
    asked = say(user, text)
    confirmation(asked)
    return say(user, "确认", asked.conversation_id)


def test_booking_the_cheapest_flight_from_chat_records_it_and_shows_a_card(alice, supplier_sandbox):
    result, booking = book(alice)

    cheapest = min(
        supplier(alice, "flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"})["flights"],
        key=lambda f: f["price"],
    )
    assert result.outcome == "ANSWERED"
    assert booking.biz_type == "FLIGHT" and booking.status == "PENDING_PAYMENT"
    assert booking.details["flightNo"] == cheapest["flightNo"]
    assert booking.amount == Decimal(cheapest["price"])
    assert (booking.contact["name"], booking.contact["mobile"]) == ("张三", "13800000000")
    on_platform = supplier(alice, "flight", "queryOrder", {"orderId": booking.external_order_no})
    assert on_platform["status"] == "PENDING_PAYMENT"
    card = next(c for c in result.cards if c["type"] == "booking")
    assert (card["booking_id"], card["status"]) == (booking.booking_id, "PENDING_PAYMENT")
    assert booking.booking_id in result.reply and "待支付" in result.reply
    assert str(booking.amount) in result.reply and cheapest["flightNo"] in result.reply
    assert BookingEvent.objects.filter(booking=booking, to_status="PENDING_PAYMENT").count() == 1


def test_booking_a_train_from_chat_pays_the_second_class_price(alice, supplier_sandbox):
    result, booking = book(alice, TRAIN)

    trains = supplier(alice, "train", "search", {"from": "北京", "to": "天津", "date": "2026-12-22"})["trains"]
    prices = {t["trainNo"]: next(s["price"] for s in t["seats"] if s["seatType"] == "二等座") for t in trains}
    assert result.outcome == "ANSWERED"
    assert booking.biz_type == "TRAIN"
    assert booking.amount == Decimal(prices[booking.details["trainNo"]])


def test_booking_a_hotel_from_chat_stays_two_nights(alice, supplier_sandbox):
    result, booking = book(alice, HOTEL)

    assert result.outcome == "ANSWERED"
    assert booking.biz_type == "HOTEL"
    assert (booking.details["checkInDate"], booking.details["checkOutDate"]) == ("2026-12-10", "2026-12-12")
    assert booking.details["nights"] == 2
    assert booking.amount == Decimal(str(booking.details["unit_price"])) * 2


def test_without_a_mobile_the_assistant_asks_and_the_answer_completes_the_booking(alice, supplier_sandbox):
    first = say(alice, "帮我订12月5日上海到杭州最便宜的航班")
    assert first.outcome == "CLARIFY" and not BookingRecord.objects.exists()
    assert "手机号" in first.reply
    assert [c["type"] for c in first.cards if c["type"] != "option"] == []  # the options, nothing prepared

    second, booking = book(alice, "张三 13800000000", conversation_id=first.conversation_id)

    assert second.outcome == "ANSWERED"
    assert booking.contact["mobile"] == "13800000000"


def test_without_a_date_the_assistant_asks_for_it_before_calling_the_supplier(alice, supplier_sandbox):
    result = say(alice, "帮我订上海到杭州的机票，乘机人张三 13800000000")

    assert result.outcome == "CLARIFY" and "日期" in result.reply
    assert "出发地" not in result.reply and "手机号" not in result.reply  # only what is missing is asked
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0


def test_a_supplier_outage_while_booking_books_nothing_and_says_so(alice, supplier_sandbox):
    supplier_sandbox.fault("flight.*=fail")

    result = say(alice, FLIGHT)

    assert result.outcome == "DEGRADED"
    assert not [c for c in result.cards if c["type"] == "confirmation"]
    assert not BookingRecord.objects.exists()
    assert "没有预订" in result.reply or "没有产生订单" in result.reply or "无法连接" in result.reply


def test_a_failing_persistence_hook_is_logged_and_the_conversation_goes_on(
    alice, supplier_sandbox, monkeypatch, caplog
):
    def broken(**kwargs):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr("bookings.services.create.booking_record_create", broken)
    caplog.set_level(logging.ERROR)

    result, booking = book(alice)

    assert booking is None
    assert result.outcome == "DEGRADED"
    assert result.reply
    assert "database hiccup" in caplog.text
    assert supplier_sandbox.stats()["orders"]["total"] == 1  # the platform order exists; the reply names it
    assert Turn.objects.filter(outcome="DEGRADED").count() == 1


@pytest.mark.parametrize("text", [FLIGHT, TRAIN])
def test_cancelling_a_flight_or_train_cancels_on_the_platform_first(alice, supplier_sandbox, text):
    _, booking = book(alice, text)

    asked = say(alice, f"取消预订 {booking.booking_id}")
    card = confirmation(asked)
    booking.refresh_from_db()
    assert booking.status == "PENDING_PAYMENT" and booking.booking_id in str(card["rows"])
    result = say(alice, "确认", asked.conversation_id)

    booking.refresh_from_db()
    assert result.outcome == "ANSWERED"
    assert booking.status == "CANCELLED"
    product = booking.biz_type.lower()
    assert supplier(alice, product, "queryOrder", {"orderId": booking.external_order_no})["status"] == "CANCELLED"
    assert next(c for c in result.cards if c["type"] == "booking")["status"] == "CANCELLED"


def test_cancelling_a_hotel_makes_no_platform_call_and_says_to_call_the_hotel(alice, supplier_sandbox):
    _, booking = book(alice, HOTEL)
    supplier_sandbox.fault("*=fail")  # any platform call would now fail the cancel

    result = cancel(alice, f"取消预订 {booking.booking_id}")

    booking.refresh_from_db()
    assert booking.status == "CANCELLED"
    assert "致电酒店" in result.reply


def test_a_second_cancel_is_an_idempotent_success(alice, supplier_sandbox):
    _, booking = book(alice)
    cancel(alice, f"取消预订 {booking.booking_id}")

    again = say(alice, f"cancel booking {booking.booking_id.lower()}")

    assert not [c for c in again.cards if c["type"] == "confirmation"]  # nothing left to confirm
    assert "already cancelled" in again.reply
    assert BookingEvent.objects.filter(booking=booking, to_status="CANCELLED").count() == 1


def test_someone_elses_booking_cannot_be_cancelled_and_nothing_changes(alice, user_factory, supplier_sandbox):
    bob = user_factory("bob")
    _, bobs = book(bob)

    result = say(alice, f"取消预订 {bobs.booking_id}")

    bobs.refresh_from_db()
    assert result.outcome == "REJECTED"
    assert not [c for c in result.cards if c["type"] == "confirmation"]
    assert "你的账户里没有这个预订" in result.reply  # worded as an unknown id: nothing said about bob's booking
    assert bobs.booking_id not in result.reply
    assert bobs.status == "PENDING_PAYMENT"
    assert supplier(bob, "flight", "queryOrder", {"orderId": bobs.external_order_no})["status"] == "PENDING_PAYMENT"


@pytest.mark.parametrize(
    "fault", ["flight.cancelOrder=fail", "flight.cancelOrder=timeout", "flight.cancelOrder=garbage"]
)
def test_a_platform_failure_on_cancel_leaves_the_booking_as_it_was(alice, supplier_sandbox, settings, fault):
    _, booking = book(alice)
    settings.PLATFORM_TIMEOUT = 1.5
    supplier_sandbox.fault(fault)

    result = cancel(alice, f"取消预订 {booking.booking_id}")

    booking.refresh_from_db()
    assert result.outcome == "DEGRADED"
    assert "保持原状" in result.reply
    assert booking.status == "PENDING_PAYMENT"
    assert not BookingEvent.objects.filter(booking=booking, to_status="CANCELLED").exists()
    supplier_sandbox.heal()
    assert (
        supplier(alice, "flight", "queryOrder", {"orderId": booking.external_order_no})["status"] == "PENDING_PAYMENT"
    )


def test_cancel_by_type_with_one_active_booking_cancels_it(alice, supplier_sandbox):
    _, booking = book(alice, TRAIN)

    asked = say(alice, "I want to cancel my train ticket")
    assert booking.booking_id in str(confirmation(asked)["rows"])
    result = say(alice, "confirm", asked.conversation_id)

    booking.refresh_from_db()
    assert booking.status == "CANCELLED"
    assert result.outcome == "ANSWERED"


def test_cancel_without_an_id_and_several_bookings_asks_which_one(alice, supplier_sandbox):
    _, first = book(alice)
    _, second = book(alice, "帮我订12月6日上海到北京的航班，乘机人张三 13800000000")

    result = say(alice, "取消我订的机票")

    assert result.outcome == "CLARIFY"
    assert not [c for c in result.cards if c["type"] == "confirmation"]
    assert {c["booking_id"] for c in result.cards} == {first.booking_id, second.booking_id}
    assert all(c["message"].startswith("取消预订 BK") for c in result.suggestions)
    assert BookingRecord.objects.filter(status="CANCELLED").count() == 0


def test_the_platform_key_never_appears_in_turns_audit_logs_or_answers(alice, supplier_sandbox, caplog):
    caplog.set_level(logging.DEBUG)
    result, booking = book(alice)
    cancel(alice, f"取消预订 {booking.booking_id}")
    key = SupplierAccount.objects.get(user=alice).api_key

    assert key not in caplog.text
    assert key not in str(result)
    for model in (Turn, LLMCall, PendingAction, BookingRecord, BookingEvent):
        for row in model.objects.values():
            assert key not in str(row)
