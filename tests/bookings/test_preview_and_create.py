"""Booking an option: the confirmation card's facts come from the supplier (the real sandbox CLI), anything the
supplier does not offer or a missing mobile is refused before anything is pending, nothing is booked before the
traveller confirms, and confirming books exactly once with the right facts."""

import datetime as dt
import json
from decimal import Decimal

import pytest

from assistant.actions import pending_action_confirm
from assistant.agent import default_registry
from assistant.models import Conversation, PendingAction
from bookings.models import BookingEvent, BookingRecord
from bookings.options import BookingWants
from bookings.services.create import booking_create, booking_option_preview
from bookings.services.errors import BookingError
from bookings.services.search import booking_options
from bookings.tools import book_option, execute_platform_command
from core.tools import ToolContext

pytestmark = pytest.mark.django_db

ZHANG = [{"name": "张三", "mobile": "13800000000"}]


def morning_flight(user):
    found = booking_options(
        user=user,
        biz_type="FLIGHT",
        origin="上海",
        destination="成都",
        date=dt.date(2026, 12, 19),
        wants=BookingWants(time_band="MORNING", sort="EARLIEST"),
    )
    return found["options"][0]


def dali_hotel(user):
    found = booking_options(
        user=user, biz_type="HOTEL", city="大理", date=dt.date(2026, 12, 10), check_out=dt.date(2026, 12, 12)
    )
    return found["options"][0]


def test_the_preview_shows_the_suppliers_facts_and_books_nothing(alice, supplier_sandbox):
    option = morning_flight(alice)

    preview = booking_option_preview(user=alice, option_ref=option["ref"], passengers=ZHANG, language="en")

    assert option["depart"].endswith("07:10") and option["name"] == "海南航空"
    assert preview["title"] == f"Hainan Airlines {option['number']} Shanghai→Chengdu"  # an English page's names
    rows = dict(preview["rows"])
    assert rows["Departs – arrives"] == f"07:10 – {option['arrive'][11:]}"
    assert rows["Passengers"] == "张三 138****0000"
    assert rows["Duration"].endswith("min") or rows["Duration"].endswith("h")
    assert preview["amount"] == option["total"]
    assert "refund" in preview["terms"]
    assert BookingRecord.objects.count() == 0 and supplier_sandbox.stats()["orders"]["total"] == 0


def test_a_chinese_preview_speaks_chinese(alice, supplier_sandbox):
    option = dali_hotel(alice)

    preview = booking_option_preview(user=alice, option_ref=option["ref"], passengers=ZHANG, language="zh-hans")

    rows = dict(preview["rows"])
    assert (rows["入住"], rows["退房"], rows["晚数"]) == ("2026-12-10", "2026-12-12", "2")
    assert "致电酒店" in preview["terms"]


def test_a_hotel_preview_shows_the_stay_and_says_to_call_the_hotel(alice, supplier_sandbox):
    option = dali_hotel(alice)

    preview = booking_option_preview(user=alice, option_ref=option["ref"], passengers=ZHANG, language="en")

    rows = dict(preview["rows"])
    assert (rows["Check-in"], rows["Check-out"], rows["Nights"]) == ("2026-12-10", "2026-12-12", "2")
    assert Decimal(preview["amount"]) == 2 * Decimal(option["unit_price"])
    assert "call the hotel" in preview["terms"]


def test_an_invented_flight_number_is_refused(alice, supplier_sandbox):
    with pytest.raises(BookingError) as refused:
        booking_option_preview(
            user=alice, option_ref="FLIGHT|MU9999|2026-12-19|上海|成都|经济舱", passengers=ZHANG, language="en"
        )

    assert refused.value.code == "INVALID_PARAM" and "MU9999" in refused.value.message
    assert BookingRecord.objects.count() == 0


def test_a_missing_mobile_is_refused_and_named(alice, supplier_sandbox):
    option = morning_flight(alice)

    with pytest.raises(BookingError) as refused:
        booking_option_preview(user=alice, option_ref=option["ref"], passengers=[{"name": "张三"}], language="en")

    assert refused.value.code == "INVALID_PARAM" and refused.value.data["missing"] == ["mobile"]
    assert "mobile" in refused.value.message


def conversation_context(user, **extra):
    conversation = Conversation.objects.create(user=user)
    return ToolContext(user=user, conversation_id=str(conversation.pk), request_text="就订这个", turn_id="t1", **extra)


def test_book_option_through_the_registry_only_waits_for_confirmation_then_books_once(alice, supplier_sandbox):
    option = morning_flight(alice)
    context = conversation_context(alice)

    answer = default_registry().call("book_option", {"option_ref": option["ref"], "passengers": ZHANG}, context)

    assert answer["code"] == "CONFIRMATION_REQUIRED" and answer["data"]["kind"] == "confirmation"
    assert answer["data"]["preview"]["amount"] == option["total"]
    assert BookingRecord.objects.count() == 0 and supplier_sandbox.stats()["orders"]["total"] == 0

    done = pending_action_confirm(user=alice, pending_id=answer["data"]["pending_id"], language="zh-hans")
    again = pending_action_confirm(user=alice, pending_id=answer["data"]["pending_id"], language="zh-hans")

    assert done["ok"] and done["data"]["kind"] == "booking_created"
    assert again["data"]["booking_id"] == done["data"]["booking_id"]
    booking = BookingRecord.objects.get()
    assert booking.details["depart"].endswith("07:10") and booking.details["number"] == option["number"]
    assert booking.amount == Decimal(option["total"]) and booking.status == "PENDING_PAYMENT"
    assert supplier_sandbox.stats()["orders"]["total"] == 1
    assert PendingAction.objects.get().status == "EXECUTED"


def test_a_refused_preview_leaves_nothing_pending(alice, supplier_sandbox):
    context = conversation_context(alice)

    answer = default_registry().call(
        "book_option", {"option_ref": "FLIGHT|MU9999|2026-12-19|上海|成都|经济舱", "passengers": ZHANG}, context
    )

    assert answer["code"] == "INVALID_PARAM" and answer["data"]["kind"] == "booking_created"
    assert PendingAction.objects.count() == 0 and BookingRecord.objects.count() == 0


def test_create_records_one_hotel_booking_with_the_nights_and_its_creation_event(alice, supplier_sandbox):
    option = dali_hotel(alice)

    booking = booking_create(user=alice, option_ref=option["ref"], passengers=ZHANG, scope="turn:x")
    again = booking_create(user=alice, option_ref=option["ref"], passengers=ZHANG, scope="turn:x")

    assert again.pk == booking.pk and BookingRecord.objects.count() == 1
    assert (booking.details["check_in"], booking.details["check_out"], booking.details["nights"]) == (
        "2026-12-10",
        "2026-12-12",
        2,
    )
    assert booking.amount == 2 * Decimal(option["unit_price"])
    assert booking.details["passengers"] == ["张三"]
    assert BookingEvent.objects.filter(booking=booking, to_status="PENDING_PAYMENT").count() == 1


def test_a_supplier_failure_on_save_books_nothing(alice, supplier_sandbox):
    option = morning_flight(alice)
    supplier_sandbox.fault("flight.saveOrder=fail")

    with pytest.raises(BookingError) as failed:
        booking_create(user=alice, option_ref=option["ref"], passengers=ZHANG, scope="turn:y")

    assert failed.value.code == "PLATFORM_UNAVAILABLE"
    assert BookingRecord.objects.count() == 0


def test_the_booking_tool_answers_the_created_booking_with_its_facts(alice, supplier_sandbox):
    option = dali_hotel(alice)
    arguments = book_option.validate({"option_ref": option["ref"], "passengers": ZHANG})

    answer = book_option.run(ToolContext(user=alice, turn_id="t9"), arguments)

    assert answer["ok"] and answer["data"]["kind"] == "booking_created"
    assert answer["data"]["facts"]["nights"] == 2 and answer["data"]["status"] == "PENDING_PAYMENT"


def test_a_platform_save_order_is_previewed_from_a_fresh_search_and_an_unlisted_item_is_refused(
    alice, supplier_sandbox
):
    option = morning_flight(alice)
    order = {
        "flightNo": option["number"],
        "date": "2026-12-19",
        "from": "上海",
        "to": "成都",
        "contactTourist": {"name": "张三", "mobile": "13800000000"},
    }
    good = f"supplier call flight saveOrder -a '{json.dumps(order, ensure_ascii=False)}'"
    bad = good.replace(option["number"], "MU9999")

    preview = execute_platform_command.preview(ToolContext(user=alice, language="en"), {"command": good})
    with pytest.raises(BookingError) as refused:
        execute_platform_command.preview(ToolContext(user=alice, language="en"), {"command": bad})

    assert preview["amount"] == option["total"] and dict(preview["rows"])["Passengers"] == "张三 138****0000"
    assert refused.value.code == "INVALID_PARAM"
    assert BookingRecord.objects.count() == 0 and supplier_sandbox.stats()["orders"]["total"] == 0
