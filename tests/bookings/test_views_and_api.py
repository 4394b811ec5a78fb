"""My bookings page and the bookings API: each user sees and cancels only their own bookings."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from bookings.models import BookingRecord
from bookings.services.recording import booking_record_from_platform

pytestmark = pytest.mark.django_db


def hotel_booking(user, order_no="HT1"):
    return booking_record_from_platform(
        user=user,
        biz_type="HOTEL",
        external_order_no=order_no,
        arguments={
            "hotelId": "HDL001",
            "checkInDate": "2026-12-10",
            "checkOutDate": "2026-12-12",
            "guests": [{"name": "王五"}],
        },
        response={"orderNo": order_no, "totalPrice": 640},
    )


@pytest.fixture
def bob(user_factory):
    return user_factory("bob")


def test_my_bookings_lists_only_mine(client, alice, bob):
    mine, theirs = hotel_booking(alice, "HT1"), hotel_booking(bob, "HT2")
    client.force_login(alice)

    page = client.get("/bookings/").content.decode()

    assert mine.booking_id in page
    assert theirs.booking_id not in page
    assert "¥640.00" in page


def test_the_cancel_button_swaps_the_row_with_an_htmx_post(client, alice):
    booking = hotel_booking(alice)
    client.force_login(alice)

    response = client.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, HTTP_HX_REQUEST="true")

    booking.refresh_from_db()
    assert booking.status == "CANCELLED"
    html = response.content.decode()
    assert 'data-status="CANCELLED"' in html and "<html" not in html


def test_cancelling_someone_elses_booking_on_the_page_reads_like_an_unknown_number(client, alice, bob):
    theirs = hotel_booking(bob)
    client.force_login(alice)

    response = client.post(f"/bookings/{theirs.booking_id}/cancel", {"confirm": "1"}, follow=True)
    unknown = client.post("/bookings/BK209901010000000001/cancel", {"confirm": "1"}, follow=True)

    theirs.refresh_from_db()
    assert theirs.status == "PENDING_PAYMENT"
    for page in (response.content.decode(), unknown.content.decode()):  # tests/security compares them in full
        assert "You have no booking with that number." in page
    assert theirs.booking_id not in response.content.decode()


def test_the_api_lists_only_my_bookings(alice, bob):
    hotel_booking(alice, "HT1")
    hotel_booking(bob, "HT2")
    api = APIClient()
    api.force_authenticate(alice)

    body = api.get("/api/v1/bookings/").json()

    assert [b["external_order_no"] for b in body["results"]] == ["HT1"]
    assert "raw_payload" not in body["results"][0] and "contact" not in body["results"][0]


@pytest.mark.parametrize(
    ("who", "booking_id", "status", "code"),
    [
        ("bob", None, 404, "BOOKING_NOT_FOUND"),  # someone else's booking answers as an unknown one
        ("alice", "BK20990101001", 404, "BOOKING_NOT_FOUND"),
        ("alice", "%20", 400, "INVALID_PARAM"),
    ],
)
def test_the_api_refuses_to_cancel_what_is_not_mine_or_not_there(alice, bob, who, booking_id, status, code):
    alices = hotel_booking(alice)
    api = APIClient()
    api.force_authenticate(alice if who == "alice" else bob)

    response = api.post(f"/api/v1/bookings/{booking_id or alices.booking_id}/cancel", {"confirm": True}, format="json")

    alices.refresh_from_db()
    assert response.status_code == status
    assert response.json()["code"] == code
    assert alices.status == "PENDING_PAYMENT"


def test_the_api_cancel_is_idempotent(alice):
    booking = hotel_booking(alice)
    api = APIClient()
    api.force_authenticate(alice)

    first = api.post(f"/api/v1/bookings/{booking.booking_id.lower()}/cancel", {"confirm": True}, format="json").json()
    second = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json").json()

    assert first["booking"]["status"] == "CANCELLED"
    assert second["message"] == "already cancelled"
    assert BookingRecord.objects.get().events.filter(to_status="CANCELLED").count() == 1


def test_the_cancel_button_first_shows_what_cancelling_does_and_changes_nothing(client, alice):
    booking = hotel_booking(alice)
    client.force_login(alice)

    row = client.post(f"/bookings/{booking.booking_id}/cancel", HTTP_HX_REQUEST="true").content.decode()
    page = client.get(f"/bookings/{booking.booking_id}/cancel").content.decode()

    booking.refresh_from_db()
    assert booking.status == "PENDING_PAYMENT" and booking.events.count() == 1
    for html in (row, page):
        assert 'data-step="confirm-cancel"' in html and 'name="confirm" value="1"' in html
        assert "2026-12-12" in html and "¥640.00" in html and "致电酒店" in html  # the page speaks Chinese by default
    assert "<html" not in row and "<html" in page


def test_the_api_cancel_without_confirm_answers_409_with_the_preview_and_changes_nothing(alice):
    booking = hotel_booking(alice)
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel")

    booking.refresh_from_db()
    body = response.json()
    assert response.status_code == 409 and body["code"] == "CONFIRMATION_REQUIRED"
    assert body["data"]["preview"]["amount"] == "640.00" and body["data"]["preview"]["subject"]["booking_id"]
    assert booking.status == "PENDING_PAYMENT" and booking.events.count() == 1


def test_the_same_platform_order_is_recorded_once(alice):
    first = hotel_booking(alice, "HT9")
    second = hotel_booking(alice, "HT9")

    assert first.pk == second.pk
    assert BookingRecord.objects.count() == 1
    assert first.amount == Decimal("640.00")
