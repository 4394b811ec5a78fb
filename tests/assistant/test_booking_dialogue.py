"""Booking conversations through the chat API, in both channels (channel 1: rules understanding + handlers;
channel 2: ASSISTANT_AGENT_ENABLED, the rules adapter replaying channel 1's flow), with the real sandbox supplier CLI.

Every write is a confirmation card first: each test checks what the traveller sees (cards, reply) and the database
(no booking or cancel before "确认", exactly one after)."""

import datetime as dt
from decimal import Decimal

import pytest

from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord
from bookings.platform import PlatformCommand, platform_call
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

MORNING = range(5, 11)  # departure hours of the MORNING band (bookings.options.TIME_BANDS)


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def confirmation(answer: dict) -> dict:
    found = [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r} {[c['type'] for c in answer['cards']]}"
    return found[0]


def no_confirmation(answer: dict) -> None:
    assert not [c for c in answer["cards"] if c["type"] == "confirmation"], answer["reply"]


def rows(card: dict) -> str:
    """What a confirmation card says: its title and its rows."""
    return " ".join([card["title"], *(f"{label} {value}" for label, value in card["rows"])])


def options(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "option"]


def supplier(user, product, action, arguments):
    return platform_call(
        PlatformCommand(product, action, arguments), api_key=supplier_account_ensure(user=user).api_key
    )


def hour(moment: str) -> int:
    return dt.datetime.fromisoformat(moment).hour


# -- booking a flight with a time of day ------------------------------------------------------------------------------


def test_a_morning_flight_is_shown_for_confirmation_and_booked_once_after_it(chat, alice):
    asked = chat.say("上海飞成都 12月19号 要早上的 张三 13800000000")

    card = confirmation(asked)
    assert not BookingRecord.objects.exists()  # nothing is booked before the traveller confirms
    assert "张三" in rows(card) and card["amount"]
    assert "手机号" not in asked["reply"]  # the contact was given: never asked again
    flights = supplier(alice, "flight", "search", {"from": "上海", "to": "成都", "date": "2026-12-19"})["flights"]
    morning = {f["flightNo"]: f for f in flights if hour(f["departTime"]) in MORNING}
    assert morning, "the sandbox has morning flights on this route"
    shown = [number for number in morning if number in rows(card)]
    assert len(shown) == 1, rows(card)
    assert morning[shown[0]]["departTime"][11:16] in rows(card)  # the departure time is on the card

    done = chat.say("确认")

    booking = BookingRecord.objects.get(user=alice)
    assert booking.biz_type == "FLIGHT" and booking.status == "PENDING_PAYMENT"
    assert booking.details["flightNo"] == shown[0]
    assert hour(booking.details["depart"]) in MORNING
    assert booking.amount == Decimal(str(morning[shown[0]]["price"]))
    assert booking.booking_id in done["reply"] or any(c.get("booking_id") == booking.booking_id for c in done["cards"])
    no_confirmation(done)


def test_a_second_confirmation_books_nothing_more(chat, alice):
    confirmation(chat.say("上海飞成都 12月19号 要早上的 张三 13800000000"))
    chat.say("确认")

    again = chat.say("确认")

    assert BookingRecord.objects.filter(user=alice).count() == 1
    assert again["reply"]


# -- a hotel stay ---------------------------------------------------------------------------------------------------


def test_a_hotel_from_check_in_to_check_out_is_two_nights_on_the_card_and_in_the_booking(chat, alice):
    asked = chat.say("帮我订大理的酒店，12月10日入住，12日退房，张三 13800000000")

    card = confirmation(asked)
    assert not BookingRecord.objects.exists()
    assert "2026-12-10" in rows(card) or "12月10日" in rows(card)
    assert "2026-12-12" in rows(card) or "12月12日" in rows(card)
    assert "2" in rows(card) and ("晚" in rows(card) or "night" in rows(card))

    chat.say("确认")

    booking = BookingRecord.objects.get(user=alice)
    assert (booking.details["check_in"], booking.details["check_out"], booking.details["nights"]) == (
        "2026-12-10",
        "2026-12-12",
        2,
    )
    hotels = supplier(
        alice, "hotel", "search", {"city": "大理", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"}
    )
    hotel = next(h for h in hotels["hotels"] if h["hotelId"] == booking.details["hotelId"])
    assert booking.amount == Decimal(str(hotel["pricePerNight"])) * 2
    assert Decimal(str(card["amount"])) == booking.amount  # what the card said is what was booked


def test_a_hotel_star_level_the_city_lacks_says_so_offers_the_nearest_and_does_not_ask_for_the_contact(chat, alice):
    hotels = supplier(
        alice, "hotel", "search", {"city": "大理", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"}
    )
    assert not [h for h in hotels["hotels"] if h["star"] == 4], "the sandbox has no 4-star hotel in Dali"

    answer = chat.say("订个大理的酒店，12月10日入住，住两晚，四星左右，张三 13800000000")

    no_confirmation(answer)
    assert options(answer), answer["reply"]
    assert "手机号" not in answer["reply"]  # the contact was given: it is not asked again
    assert "没有" in answer["reply"]
    assert not BookingRecord.objects.exists()

    picked = chat.say("第一个")

    card = confirmation(picked)
    assert options(answer)[0]["name"] in card["title"] + rows(card)
    assert "手机号" not in picked["reply"]
    assert not BookingRecord.objects.exists()


# -- picking among the options --------------------------------------------------------------------------------------


def test_the_second_option_is_the_one_prepared_and_booked(chat, alice):
    first = chat.say("上海飞成都 12月19号的机票 张三 13800000000")
    shown = options(first)
    assert len(shown) >= 2
    assert shown[0]["number"] in rows(confirmation(first))

    second = chat.say("第二个")

    card = confirmation(second)
    assert shown[1]["number"] in rows(card) and shown[0]["number"] not in rows(card)
    assert not BookingRecord.objects.exists()

    chat.say("确认")

    [booking] = BookingRecord.objects.filter(user=alice)
    assert booking.details["flightNo"] == shown[1]["number"]


def test_without_a_contact_the_options_are_shown_and_the_contact_asked_once(chat, alice):
    first = chat.say("帮我订12月19号上海飞成都的机票")

    assert options(first) and "手机号" in first["reply"]
    no_confirmation(first)

    second = chat.say("张三 13800000000")

    card = confirmation(second)
    assert options(first)[0]["number"] in rows(card)
    assert not BookingRecord.objects.exists()


# -- rebooking ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["改签到20号", "把12月19号的机票改签到20号"])
def test_a_flight_is_rebooked_to_another_day_after_confirming(chat, alice, change):
    confirmation(chat.say("上海飞成都 12月19号 要早上的 张三 13800000000"))
    chat.say("确认")
    old = BookingRecord.objects.get(user=alice)

    asked = chat.say(change)

    card = confirmation(asked)
    assert "2026-12-20" in rows(card) or "12月20日" in rows(card)
    assert BookingRecord.objects.filter(user=alice).count() == 1  # nothing changed before the confirmation
    old.refresh_from_db()
    assert old.status == "PENDING_PAYMENT"

    chat.say("确认")

    old.refresh_from_db()
    new = BookingRecord.objects.filter(user=alice).exclude(pk=old.pk).get()
    assert old.status == "CANCELLED"
    assert new.status == "PENDING_PAYMENT" and new.details["date"] == "2026-12-20"
    assert (new.details["from"], new.details["to"]) == ("上海", "成都")
    assert new.contact["name"] == "张三"


# -- cancelling -----------------------------------------------------------------------------------------------------


def test_a_cancel_asks_first_and_cancels_once_after_the_confirmation(chat, alice):
    confirmation(chat.say("订一张12月2日北京到天津的高铁票，乘客李四 13900001111"))
    chat.say("确认")
    booking = BookingRecord.objects.get(user=alice, biz_type="TRAIN")

    asked = chat.say("取消我的火车票")

    card = confirmation(asked)
    assert booking.booking_id in rows(card) + card["title"]
    booking.refresh_from_db()
    assert booking.status == "PENDING_PAYMENT"  # nothing is cancelled before "确认"

    chat.say("确认")

    booking.refresh_from_db()
    assert booking.status == "CANCELLED"
    assert BookingEvent.objects.filter(booking=booking, to_status="CANCELLED").count() == 1
    assert supplier(alice, "train", "queryOrder", {"orderId": booking.external_order_no})["status"] == "CANCELLED"


def test_a_cancel_after_two_trains_booked_here_for_the_same_day_asks_which_and_changes_nothing(chat, alice):
    for route in ("北京到天津", "北京到上海"):
        confirmation(chat.say(f"订一张12月2日{route}的高铁票，乘客李四 13900001111"))
        chat.say("确认")
    booked = sorted(BookingRecord.objects.filter(user=alice).values_list("booking_id", flat=True))

    asked = chat.say("取消我的火车票")

    assert not [c for c in asked["cards"] if c["type"] == "confirmation"]
    assert sorted(c["booking_id"] for c in asked["cards"]) == booked and len(booked) == 2
    assert set(BookingRecord.objects.values_list("status", flat=True)) == {"PENDING_PAYMENT"}


def test_a_follow_up_wish_replaces_the_card_and_the_booking_follows_it(chat, alice):
    first = confirmation(chat.say("上海飞成都 12月19号的机票 张三 13800000000"))

    second = chat.say("要早上的")

    card = confirmation(second)
    assert card["pending_id"] != first["pending_id"]
    assert not BookingRecord.objects.exists()
    chat.say("确认")
    [booking] = BookingRecord.objects.filter(user=alice)
    assert hour(booking.details["depart"]) in MORNING
    assert booking.details["number"] in rows(card)
