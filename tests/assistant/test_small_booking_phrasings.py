"""Short ways travellers say a booking's details, through the chat API in both channels. Each checks the card and the
database rows."""

import pytest

from bookings.models import BookingRecord
from tests.assistant.conftest import Chat
from tests.assistant.test_booking_dialogue import confirmation, rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


# -- a hotel for a night --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "check_in", "check_out"),
    [
        ("帮我订大理的酒店，明晚入住，张三 13800000000", "2026-12-02", "2026-12-03"),
        ("今晚在大理订个酒店 张三 13800000000", "2026-12-01", "2026-12-02"),
        ("大理的酒店 周五晚上 张三 13800000000", "2026-12-04", "2026-12-05"),
        ("book a hotel in Dali for tomorrow night, Zhang San 13800000000", "2026-12-02", "2026-12-03"),
        ("I need a hotel in Dali tonight, Zhang San 13800000000", "2026-12-01", "2026-12-02"),
    ],
)
def test_a_hotel_for_a_night_checks_in_that_day_and_out_the_next(chat, alice, sentence, check_in, check_out):
    card = confirmation(chat.say(sentence))
    assert not BookingRecord.objects.exists()
    assert check_in in rows(card) and check_out in rows(card), rows(card)

    chat.say("确认")

    booking = BookingRecord.objects.get(user=alice)
    assert (booking.details["check_in"], booking.details["check_out"], booking.details["nights"]) == (
        check_in,
        check_out,
        1,
    )


# -- several travellers named in English ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("book a train from Beijing to Tianjin on Dec 2 for Zhang Wei and Li Na, 13800000000", ["Zhang Wei", "Li Na"]),
        (
            "train tickets Beijing to Tianjin Dec 2, passengers: Tom Smith, Anna Lee 13800000000",
            ["Tom Smith", "Anna Lee"],
        ),
        (
            "a train Beijing to Tianjin on Dec 2 for Zhang Wei, Li Na and Wang Fang, mobile 13800000000",
            ["Zhang Wei", "Li Na", "Wang Fang"],
        ),
        ("订12月2日北京到天津的高铁，乘客Tom Smith和Anna Lee，电话13800000000", ["Tom Smith", "Anna Lee"]),
    ],
)
def test_travellers_named_in_english_are_all_on_the_card_and_in_the_booking(chat, alice, sentence, names):
    card = confirmation(chat.say(sentence))
    assert not BookingRecord.objects.exists()
    assert all(name in rows(card) for name in names), rows(card)

    chat.say("confirm" if sentence.isascii() else "确认")

    assert BookingRecord.objects.get(user=alice).details["passengers"] == names


# -- a booking moved by a number of days ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "new_day"),
    [
        ("往后推一天", "2026-12-20"),
        ("机票提前一天吧", "2026-12-18"),
        ("能推迟两天吗", "2026-12-21"),
        ("push it back a day", "2026-12-20"),
        ("can you move my flight a day earlier?", "2026-12-18"),
        ("two days later please", "2026-12-21"),
    ],
)
def test_a_flight_moved_by_days_is_rebooked_from_its_own_day_after_confirming(chat, alice, change, new_day):
    confirmation(chat.say("上海飞成都 12月19号 要早上的 张三 13800000000"))
    chat.say("确认")
    old = BookingRecord.objects.get(user=alice)

    card = confirmation(chat.say(change))
    assert new_day in rows(card), rows(card)
    assert BookingRecord.objects.filter(user=alice).count() == 1  # nothing changed before the confirmation
    old.refresh_from_db()
    assert old.status == "PENDING_PAYMENT"

    chat.say("确认" if not change.isascii() else "confirm")

    old.refresh_from_db()
    new = BookingRecord.objects.filter(user=alice).exclude(pk=old.pk).get()
    assert old.status == "CANCELLED"
    assert new.details["date"] == new_day and (new.details["from"], new.details["to"]) == ("上海", "成都")


@pytest.mark.parametrize(
    ("change", "check_in", "check_out"),
    [
        ("酒店往后推一天", "2026-12-11", "2026-12-13"),
        ("move my hotel a day earlier", "2026-12-09", "2026-12-11"),
    ],
)
def test_a_stay_moved_by_days_keeps_its_nights(chat, alice, change, check_in, check_out):
    confirmation(chat.say("帮我订大理的酒店，12月10日入住，12日退房，张三 13800000000"))
    chat.say("确认")
    old = BookingRecord.objects.get(user=alice)

    card = confirmation(chat.say(change))
    assert check_in in rows(card) and check_out in rows(card), rows(card)

    chat.say("确认" if not change.isascii() else "confirm")

    new = BookingRecord.objects.filter(user=alice).exclude(pk=old.pk).get()
    assert (new.details["check_in"], new.details["check_out"], new.details["nights"]) == (check_in, check_out, 2)


@pytest.mark.parametrize(
    ("change", "moved_from", "new_day"),
    [
        ("把19号的机票往后推一天", "2026-12-19", "2026-12-20"),
        ("move my Dec 22 flight a day earlier", "2026-12-22", "2026-12-21"),
    ],
)
def test_the_booking_whose_day_is_named_is_the_one_moved(chat, alice, change, moved_from, new_day):
    for day in ("12月19号", "12月22号"):
        confirmation(chat.say(f"上海飞成都 {day} 要早上的 张三 13800000000"))
        chat.say("确认")
    moved = BookingRecord.objects.get(user=alice, details__date=moved_from)
    kept = BookingRecord.objects.exclude(pk=moved.pk).get(user=alice)

    card = confirmation(chat.say(change))
    assert new_day in rows(card), rows(card)

    chat.say("确认" if not change.isascii() else "confirm")

    moved.refresh_from_db()
    kept.refresh_from_db()
    assert moved.status == "CANCELLED" and kept.status == "PENDING_PAYMENT"
    assert BookingRecord.objects.filter(user=alice, details__date=new_day, status="PENDING_PAYMENT").count() == 1
