"""Services of bookings that need no supplier: the one state machine, and the persistence
hook reading what a platform command did from its envelope."""

from types import SimpleNamespace

import pytest

from bookings.hooks import BookingPersistenceHook
from bookings.models import BookingEvent, BookingRecord
from bookings.services.errors import BookingError
from bookings.services.recording import booking_record_from_platform
from bookings.services.transitions import booking_transition
from core.tools import ToolContext


@pytest.fixture
def booking(alice):
    return booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HT5",
        arguments={"hotelId": "HDL001", "guests": [{"name": "王五", "mobile": "13700002222"}]},
        response={"orderNo": "HT5", "totalPrice": 640},
    )


@pytest.mark.django_db
def test_a_new_booking_has_its_creation_event(booking, alice):
    event = BookingEvent.objects.get(booking=booking)

    assert (event.from_status, event.to_status, event.actor) == ("", "PENDING_PAYMENT", alice)
    assert booking.contact == {"name": "王五", "mobile": "13700002222"}


@pytest.mark.django_db
def test_a_move_the_table_does_not_allow_is_refused_and_nothing_changes(booking):
    booking_transition(booking_id=booking.booking_id, to_status="CANCELLED")

    with pytest.raises(BookingError) as refused:
        booking_transition(booking_id=booking.booking_id, to_status="CONFIRMED")

    booking.refresh_from_db()
    assert refused.value.code == "INVALID_TRANSITION"
    assert booking.status == "CANCELLED"
    assert list(BookingEvent.objects.filter(booking=booking).values_list("to_status", flat=True)) == [
        "PENDING_PAYMENT",
        "CANCELLED",
    ]


def _call(user):
    return SimpleNamespace(context=ToolContext(user=user), arguments={"command": "not read by the hook"})


@pytest.mark.django_db
def test_the_hook_records_a_save_order_from_the_envelope_alone(alice):
    envelope = {
        "ok": True,
        "code": "OK",
        "message": "",
        "data": {
            "kind": "platform",
            "product": "train",
            "action": "saveOrder",
            "order_no": "TR9",
            "arguments": {
                "trainNo": "G101",
                "date": "2026-12-02",
                "contact": {"name": "李四", "mobile": "13900001111"},
            },
            "answer": {"mainOrderNo": "TR9", "totalPrice": 55},
        },
    }

    BookingPersistenceHook().post_acting(_call(alice), envelope)

    booking = BookingRecord.objects.get(external_order_no="TR9")
    assert (booking.biz_type, booking.amount, booking.details["trainNo"]) == ("TRAIN", 55, "G101")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"kind": "platform", "product": "flight", "action": "search", "order_no": None, "answer": {"flights": []}},
        {"kind": "booking_cancel", "action": "saveOrder", "order_no": "FL1", "product": "flight"},
        None,
    ],
)
def test_the_hook_records_nothing_for_other_envelopes(alice, data):
    BookingPersistenceHook().post_acting(_call(alice), {"ok": True, "code": "OK", "message": "", "data": data})

    assert not BookingRecord.objects.exists()
