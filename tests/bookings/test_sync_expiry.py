"""An unpaid booking the supplier let expire becomes EXPIRED here, with an event naming the supplier and a notice,
when the traveller refreshes their bookings page and when the beat task runs; an unpaid booking still in time, and
someone else's, stay as they are. Real sandbox supplier CLI."""

import pytest
from django.test import Client

from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus, NoticeKind
from bookings.tasks import sync_bookings
from tests.bookings.test_booking_life import book_flight, supplier

pytestmark = pytest.mark.django_db


def history(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    events = list(
        BookingEvent.objects.filter(booking=booking).order_by("pk").values_list("from_status", "to_status", "source")
    )
    return booking.status, booking.paid_at, events


EXPIRED_HISTORY = [("", "PENDING_PAYMENT", "TRIPDESK"), ("PENDING_PAYMENT", "EXPIRED", "SUPPLIER")]


def test_refreshing_the_bookings_page_shows_an_unpaid_booking_the_supplier_let_expire_as_expired(
    alice, supplier_sandbox, settings
):
    settings.BOOKING_REFRESH_SECONDS = 0
    lapsed, in_time = book_flight(alice), book_flight(alice, sort="CHEAPEST")
    supplier("event", "expire", lapsed.external_order_no)
    in_time_before = history(in_time)
    page = Client()
    page.force_login(alice)

    refreshed = page.get("/bookings/refresh", HTTP_HX_REQUEST="true")

    html = refreshed.content.decode()
    assert f'id="booking-{lapsed.booking_id}" data-status="EXPIRED"' in html
    assert f"预订 {lapsed.booking_id}" in html and "未在支付期限内付款，已过期，没有扣款" in html
    assert f'id="booking-{in_time.booking_id}" data-status="PENDING_PAYMENT"' in html
    assert history(lapsed) == (BookingStatus.EXPIRED, None, EXPIRED_HISTORY)
    assert BookingNotice.objects.get(booking=lapsed).kind == NoticeKind.EXPIRED
    assert history(in_time) == in_time_before


def test_the_beat_task_expires_the_unpaid_booking_the_supplier_let_expire_and_nothing_else(
    alice, user_factory, supplier_sandbox
):
    bob = user_factory("bob")
    lapsed, alices_in_time, bobs = book_flight(alice), book_flight(alice, sort="CHEAPEST"), book_flight(bob)
    supplier("event", "expire", lapsed.external_order_no)
    untouched = {b.pk: history(b) for b in (alices_in_time, bobs)}

    totals = sync_bookings.delay().get()

    assert (totals["users"], totals["changed"], totals["failed"]) == (2, 1, 0)
    assert history(lapsed) == (BookingStatus.EXPIRED, None, EXPIRED_HISTORY)
    assert {b.pk: history(b) for b in (alices_in_time, bobs)} == untouched
    assert list(BookingNotice.objects.values_list("booking_id", "kind")) == [(lapsed.pk, NoticeKind.EXPIRED)]

    assert sync_bookings.delay().get()["changed"] == 0  # delivered twice: nothing more
    assert history(lapsed) == (BookingStatus.EXPIRED, None, EXPIRED_HISTORY)
    assert BookingNotice.objects.count() == 1
