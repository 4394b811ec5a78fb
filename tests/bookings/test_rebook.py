"""Rebooking (改签) on the real sandbox supplier: the new booking is made first, then the old one cancelled; when
the supplier will not cancel the old one, both stay and the traveller is told plainly."""

import datetime as dt

import pytest

from assistant.llm.schema import Intent
from assistant.presenters.bookings import present_rebook
from assistant.turn import TurnContext
from bookings.models import BookingRecord
from bookings.options import BookingWants
from bookings.services.create import booking_create
from bookings.services.errors import BookingError
from bookings.services.rebook import booking_rebook
from bookings.services.search import booking_options
from bookings.tools import rebook_booking
from core.tools import ToolContext

pytestmark = pytest.mark.django_db

ZHANG = [{"name": "张三", "mobile": "13800000000"}]


def flight_on(user, day: int) -> dict:
    found = booking_options(
        user=user,
        biz_type="FLIGHT",
        origin="上海",
        destination="成都",
        date=dt.date(2026, 12, day),
        wants=BookingWants(time_band="MORNING"),
    )
    return found["options"][0]


@pytest.fixture
def booked(alice, supplier_sandbox):
    return booking_create(user=alice, option_ref=flight_on(alice, 19)["ref"], passengers=ZHANG, scope="turn:old")


def context(user):
    return TurnContext(intent=Intent(intent="BOOK"), user=user, today=dt.date(2026, 12, 1), language="zh-hans")


def test_the_new_booking_is_made_then_the_old_one_cancelled(alice, booked, supplier_sandbox):
    new_option = flight_on(alice, 20)

    answer = rebook_booking.run(
        ToolContext(user=alice, turn_id="r1"),
        rebook_booking.validate({"booking_id": booked.booking_id, "option_ref": new_option["ref"]}),
    )

    assert answer["ok"] and answer["data"]["old_cancelled"] is True
    booked.refresh_from_db()
    new = BookingRecord.objects.get(booking_id=answer["data"]["new"]["booking_id"])
    assert booked.status == "CANCELLED" and new.status == "PENDING_PAYMENT"
    assert new.details["depart"].startswith("2026-12-20") and new.details["passengers"] == ["张三"]
    assert new.contact["mobile"] == "13800000000" and new.details["rebooked_from"] == booked.booking_id
    reply = present_rebook([answer], context(alice))
    assert "改签完成" in reply.text and booked.booking_id in reply.text
    assert {c["booking_id"] for c in reply.cards} == {new.booking_id, booked.booking_id}


def test_when_the_supplier_does_not_cancel_the_old_one_both_stay_and_it_is_said_plainly(
    alice, booked, supplier_sandbox
):
    new_option = flight_on(alice, 20)
    supplier_sandbox.fault("flight.cancelOrder=fail")

    outcome = booking_rebook(user=alice, booking_id=booked.booking_id, option_ref=new_option["ref"], scope="turn:r2")

    booked.refresh_from_db()
    assert outcome.old_cancelled is False and outcome.cancel_code == "PLATFORM_CANCEL_FAILED"
    assert booked.status == "PENDING_PAYMENT" and outcome.new.status == "PENDING_PAYMENT"
    assert BookingRecord.objects.filter(user=alice).count() == 2
    envelope = rebook_booking.run(
        ToolContext(user=alice, turn_id="r2"),
        rebook_booking.validate({"booking_id": booked.booking_id, "option_ref": new_option["ref"]}),
    )
    reply = present_rebook([envelope], context(alice))
    assert "没能取消" in reply.text and "两个预订现在都在" in reply.text
    assert BookingRecord.objects.filter(user=alice).count() == 2  # the same turn again books nothing more


def test_a_failed_new_booking_leaves_the_old_one_as_it_was(alice, booked, supplier_sandbox):
    new_option = flight_on(alice, 20)
    supplier_sandbox.fault("flight.saveOrder=fail")

    with pytest.raises(BookingError) as failed:
        booking_rebook(user=alice, booking_id=booked.booking_id, option_ref=new_option["ref"], scope="turn:r3")

    booked.refresh_from_db()
    assert failed.value.code == "PLATFORM_UNAVAILABLE"
    assert booked.status == "PENDING_PAYMENT" and BookingRecord.objects.count() == 1


def test_someone_elses_booking_cannot_be_rebooked(alice, booked, user_factory, supplier_sandbox):
    bob = user_factory("bob")

    with pytest.raises(BookingError) as refused:
        booking_rebook(user=bob, booking_id=booked.booking_id, option_ref=flight_on(bob, 20)["ref"])

    assert refused.value.code == "BOOKING_NOT_FOUND" and BookingRecord.objects.count() == 1


def test_the_rebook_preview_shows_the_booking_now_and_the_new_option(alice, booked, supplier_sandbox):
    new_option = flight_on(alice, 20)

    preview = rebook_booking.preview(
        ToolContext(user=alice, language="en"), {"booking_id": booked.booking_id, "option_ref": new_option["ref"]}
    )

    rows = dict(preview["rows"])
    assert booked.booking_id in rows["Booking now"] and rows["Date"] == "2026-12-20"
    assert "then" in preview["terms"] and BookingRecord.objects.count() == 1
