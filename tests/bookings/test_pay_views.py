"""Pay now on the bookings page and the API, two steps like every write, and the page's refresh from the supplier
with what it changed (notices), against the real sandbox supplier."""

import pytest
from rest_framework.test import APIClient

from bookings.models import BookingNotice, BookingStatus
from tests.bookings.test_booking_life import book_flight, payments, supplier

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def browser_client(client, alice, settings):
    settings.BOOKING_REFRESH_SECONDS = 0
    client.force_login(alice)
    return client


def test_pay_now_first_shows_the_amount_and_pays_nothing(browser_client, alice, supplier_sandbox):
    booking = book_flight(alice)

    page = browser_client.post(f"/bookings/{booking.booking_id}/pay", **HTMX)

    html = page.content.decode()
    assert page.status_code == 200 and 'data-step="confirm-pay"' in html and f"¥{booking.amount}" in html
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PENDING_PAYMENT and payments(supplier_sandbox) == 0


def test_confirming_pays_and_the_row_says_confirmed(browser_client, alice, supplier_sandbox):
    booking = book_flight(alice)

    row = browser_client.post(f"/bookings/{booking.booking_id}/pay", {"confirm": "1"}, **HTMX)

    html = row.content.decode()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED and payments(supplier_sandbox) == 1
    assert 'data-status="CONFIRMED"' in html and "data-pay-now" not in html


def test_a_late_payment_on_the_page_says_expired_and_changes_nothing_else(browser_client, alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "expire", booking.external_order_no)

    row = browser_client.post(f"/bookings/{booking.booking_id}/pay", {"confirm": "1"}, **HTMX)

    html = row.content.decode()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.EXPIRED and payments(supplier_sandbox) == 0
    assert 'data-status="EXPIRED"' in html and "已过期" in html and "data-pay-now" not in html


def test_the_api_wants_a_confirmation_then_pays_once(alice, user_factory, supplier_sandbox):
    booking = book_flight(alice)
    api = APIClient()
    api.force_authenticate(alice)
    url = f"/api/v1/bookings/{booking.booking_id}/pay"

    asked = api.post(url, {}, format="json")
    paid = api.post(url, {"confirm": True}, format="json")
    again = api.post(url, {"confirm": True}, format="json")
    stranger = APIClient()
    stranger.force_authenticate(user_factory("mallory"))
    refused = stranger.post(url, {"confirm": True}, format="json")

    assert asked.status_code == 409 and asked.json()["code"] == "CONFIRMATION_REQUIRED"
    assert asked.json()["data"]["preview"]["amount"] == str(booking.amount)
    assert (
        paid.status_code == 200 and paid.json()["booking"]["status"] == "CONFIRMED" and not paid.json()["already_paid"]
    )
    assert again.status_code == 200 and again.json()["already_paid"]
    assert refused.status_code == 404 and refused.json()["code"] == "BOOKING_NOT_FOUND"
    assert payments(supplier_sandbox) == 1


def test_the_api_refuses_a_late_payment_with_409_booking_expired(alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "expire", booking.external_order_no)
    api = APIClient()
    api.force_authenticate(alice)

    late = api.post(f"/api/v1/bookings/{booking.booking_id}/pay", {"confirm": True}, format="json")

    booking.refresh_from_db()
    assert late.status_code == 409 and late.json()["code"] == "BOOKING_EXPIRED"
    assert booking.status == BookingStatus.EXPIRED and payments(supplier_sandbox) == 0


def test_the_page_refresh_shows_what_the_supplier_changed(browser_client, alice, supplier_sandbox):
    cancelled, moved = book_flight(alice), book_flight(alice, sort="LATEST")
    supplier("event", "cancel", cancelled.external_order_no)
    supplier("event", "change", moved.external_order_no)
    page = browser_client.get("/bookings/")
    assert page.status_code == 200 and 'data-refreshed="pending"' in page.content.decode()

    refreshed = browser_client.get("/bookings/refresh", **HTMX)

    html = refreshed.content.decode()
    assert 'data-refreshed="ok"' in html
    assert f'id="booking-{cancelled.booking_id}" data-status="CANCELLED"' in html
    assert f"供应商取消了你的预订 {cancelled.booking_id}" in html
    assert f"供应商变更了预订 {moved.booking_id}" in html
    assert BookingNotice.objects.filter(user=alice, read_at__isnull=True).count() == 0  # shown: read
    again = browser_client.get("/bookings/").content.decode()
    assert "data-notices" in again and "unread" not in again.split("data-notices", 1)[1].split("</ul>", 1)[0]
