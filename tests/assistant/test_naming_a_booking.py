"""Naming one of my bookings by what it is (where it goes, a day or a week, the newest or the first made) to cancel
or pay it, through the chat API in both channels with the sandbox supplier: the one booking that fits every hint is
shown on its confirmation card and only it changes after "确认"; a hint that fits none shows them all to choose.

The bookings are made before the conversation (another one), so the request alone must say which it means."""

import datetime as dt

import pytest

from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.options import BookingWants
from bookings.services.create import booking_create
from bookings.services.search import booking_options
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

ZHANG = [{"name": "张三", "mobile": "13800000000"}]
NEXT_MONDAY, NEXT_WEDNESDAY, WEEK_AFTER = dt.date(2026, 12, 7), dt.date(2026, 12, 9), dt.date(2026, 12, 16)


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def flight(user, destination: str, day: dt.date) -> BookingRecord:
    found = booking_options(
        user=user, biz_type="FLIGHT", origin="上海", destination=destination, date=day,
        wants=BookingWants(sort="CHEAPEST"),
    )  # fmt: skip
    return booking_create(user=user, option_ref=found["options"][0]["ref"], passengers=ZHANG)


def hotel(user, city: str, day: dt.date) -> BookingRecord:
    found = booking_options(
        user=user, biz_type="HOTEL", city=city, date=day, check_out=day + dt.timedelta(days=2),
        wants=BookingWants(sort="CHEAPEST"),
    )  # fmt: skip
    return booking_create(user=user, option_ref=found["options"][0]["ref"], passengers=ZHANG)


def confirmation(answer: dict) -> dict:
    found = [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r} {[c['type'] for c in answer['cards']]}"
    return found[0]


def said(card: dict) -> str:
    return " ".join([card["title"], *(str(value) for _, value in card["rows"])])


def statuses(user) -> dict[str, str]:
    return dict(BookingRecord.objects.filter(user=user).values_list("booking_id", "status"))


def assert_cancelled_only(user, meant: BookingRecord, before: dict[str, str]) -> None:
    after = statuses(user)
    assert after == {**before, meant.booking_id: BookingStatus.CANCELLED}
    assert BookingEvent.objects.filter(to_status=BookingStatus.CANCELLED).count() == 1
    assert BookingEvent.objects.get(to_status=BookingStatus.CANCELLED).booking_id == meant.pk


# -- cancelling ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("request_text", ["取消我的北京机票", "cancel my Beijing flight", "把去北京的航班取消了"])
def test_a_cancel_naming_where_the_flight_goes_cancels_only_that_one(chat, alice, request_text):
    beijing, chengdu = flight(alice, "北京", NEXT_MONDAY), flight(alice, "成都", NEXT_WEDNESDAY)
    before = statuses(alice)

    asked = chat.say(request_text)

    card = confirmation(asked)
    assert beijing.booking_id in said(card) and chengdu.booking_id not in said(card)
    assert statuses(alice) == before  # nothing is cancelled before "确认"

    chat.say("确认")

    assert_cancelled_only(alice, beijing, before)


@pytest.mark.parametrize("request_text", ["取消下周的机票", "cancel next week's flight"])
def test_a_cancel_naming_a_week_cancels_the_booking_in_that_week(chat, alice, request_text):
    later, this_week = flight(alice, "北京", WEEK_AFTER), flight(alice, "成都", NEXT_WEDNESDAY)
    before = statuses(alice)

    card = confirmation(chat.say(request_text))
    assert this_week.booking_id in said(card) and later.booking_id not in said(card)
    chat.say("确认")

    assert_cancelled_only(alice, this_week, before)


@pytest.mark.parametrize(("request_text", "meant"), [
    ("取消最近订的那张机票", 1), ("cancel the last one I booked", 1),
    ("取消第一个订的机票", 0), ("cancel the first one I booked", 0),
])  # fmt: skip
def test_a_cancel_naming_the_newest_or_the_first_made_cancels_that_one(chat, alice, request_text, meant):
    made = [flight(alice, "北京", NEXT_MONDAY), flight(alice, "成都", NEXT_WEDNESDAY)]
    before = statuses(alice)

    card = confirmation(chat.say(request_text))
    assert made[meant].booking_id in said(card) and made[1 - meant].booking_id not in said(card)
    chat.say("确认")

    assert_cancelled_only(alice, made[meant], before)


@pytest.mark.parametrize("request_text", ["取消我的广州机票", "cancel my Guangzhou flight"])
def test_a_place_no_booking_goes_to_shows_them_all_and_cancels_nothing(chat, alice, request_text):
    made = [flight(alice, "北京", NEXT_MONDAY), flight(alice, "成都", NEXT_WEDNESDAY)]
    before = statuses(alice)

    asked = chat.say(request_text)

    assert not [c for c in asked["cards"] if c["type"] == "confirmation"], asked["reply"]
    assert sorted(c["booking_id"] for c in asked["cards"] if c["type"] == "booking") == sorted(before)
    assert len(made) == len(before) == 2
    chat.say("确认")
    assert statuses(alice) == before and not BookingEvent.objects.filter(to_status="CANCELLED").exists()


# -- paying --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("request_text", ["支付我的三亚酒店订单", "pay for my Sanya hotel booking"])
def test_a_payment_naming_the_hotels_city_pays_that_booking_and_books_nothing_new(chat, alice, request_text):
    sanya, dali = hotel(alice, "三亚", NEXT_MONDAY), hotel(alice, "大理", NEXT_WEDNESDAY)
    before = statuses(alice)

    card = confirmation(chat.say(request_text))
    assert card["amount"] == str(sanya.amount)
    assert sanya.booking_id in said(card) and dali.booking_id not in said(card)
    assert statuses(alice) == before

    chat.say("确认")

    assert statuses(alice) == {**before, sanya.booking_id: BookingStatus.CONFIRMED}  # no new booking either


@pytest.mark.parametrize("request_text", ["支付最新的那个三亚酒店订单", "pay for my latest Sanya hotel booking"])
def test_a_payment_naming_the_newest_booking_of_a_city_pays_that_one(chat, alice, request_text):
    older, newer = hotel(alice, "三亚", NEXT_MONDAY), hotel(alice, "三亚", WEEK_AFTER)
    hotel(alice, "大理", NEXT_WEDNESDAY)
    before = statuses(alice)

    card = confirmation(chat.say(request_text))
    assert newer.booking_id in said(card) and older.booking_id not in said(card)
    chat.say("确认")

    assert statuses(alice) == {**before, newer.booking_id: BookingStatus.CONFIRMED}
