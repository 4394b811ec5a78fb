"""The booking admin reads bookings and moves them only through `booking_transition`: staff cannot edit status,
owner or amount, cannot add bookings, and the one action leaves an event row with the staff user as actor."""

from decimal import Decimal

import pytest

from bookings.models import BookingEvent, BookingRecord
from bookings.services.recording import booking_record_from_platform

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(user_factory, client):
    user = user_factory("staffer", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


@pytest.fixture
def booking(alice):
    return booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HT77",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": "HT77", "totalPrice": 640},
    )


def change_url(booking) -> str:
    return f"/admin/bookings/bookingrecord/{booking.pk}/change/"


def frozen(booking) -> tuple:
    row = BookingRecord.objects.values().get(pk=booking.pk)
    row.pop("updated_at")
    return row, list(BookingEvent.objects.filter(booking=booking).values_list("pk", flat=True))


def test_posting_the_change_form_with_another_status_owner_and_amount_changes_nothing(
    client, staff, booking, user_factory
):
    mallory = user_factory("mallory")
    before = frozen(booking)
    events = BookingEvent.objects.filter(booking=booking).count()

    response = client.post(
        change_url(booking),
        {
            "user": mallory.pk,
            "status": "CANCELLED",
            "amount": "1.00",
            "biz_type": "FLIGHT",
            "external_order_no": "FL-FORGED",
            "remark": "",
            "events-TOTAL_FORMS": str(events),
            "events-INITIAL_FORMS": str(events),
            "events-MIN_NUM_FORMS": "0",
            "events-MAX_NUM_FORMS": "1000",
        },
    )

    assert response.status_code == 302
    assert frozen(booking) == before
    booking.refresh_from_db()
    assert (booking.user.username, booking.status, booking.amount) == ("alice", "PENDING_PAYMENT", Decimal("640.00"))


def test_the_change_page_shows_the_booking_read_only(client, staff, booking):
    html = client.get(change_url(booking)).content.decode()

    assert booking.booking_id in html
    assert 'name="status"' not in html and 'name="amount"' not in html and 'name="user"' not in html


def test_staff_cannot_add_or_delete_bookings(client, staff, booking):
    assert client.get("/admin/bookings/bookingrecord/add/").status_code == 403
    assert client.post("/admin/bookings/bookingrecord/add/", {"status": "CONFIRMED"}).status_code == 403
    assert client.post(f"/admin/bookings/bookingrecord/{booking.pk}/delete/", {"post": "yes"}).status_code == 403
    assert BookingRecord.objects.filter(pk=booking.pk).exists()


def test_marking_confirmed_is_a_transition_with_the_staff_user_as_actor(client, staff, booking):
    response = client.post(
        "/admin/bookings/bookingrecord/",
        {"action": "mark_confirmed", "_selected_action": [booking.pk]},
        follow=True,
    )

    booking.refresh_from_db()
    event = BookingEvent.objects.filter(booking=booking).last()
    assert booking.status == "CONFIRMED"
    assert (event.from_status, event.to_status, event.actor) == ("PENDING_PAYMENT", "CONFIRMED", staff)
    assert "已确认 1 个预订" in response.content.decode()  # the site speaks Chinese by default


def test_marking_a_cancelled_booking_confirmed_is_refused_and_nothing_changes(client, staff, booking):
    BookingRecord.objects.filter(pk=booking.pk).update(status="CANCELLED")
    before = frozen(booking)

    response = client.post(
        "/admin/bookings/bookingrecord/",
        {"action": "mark_confirmed", "_selected_action": [booking.pk]},
        follow=True,
    )

    assert frozen(booking) == before
    assert "not movable to CONFIRMED" in response.content.decode()
