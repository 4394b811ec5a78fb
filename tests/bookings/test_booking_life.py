"""A booking's whole life against the real sandbox supplier (its CLI as a subprocess): paying it (once, however
often asked), its deadline, and staying in step with what the supplier does on its own side (expiry, its cancels,
schedule changes, an order we failed to record), each a transition with an event row naming the supplier."""

import datetime as dt
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus, EventSource, NoticeKind
from bookings.options import BookingWants
from bookings.services.cancel import booking_cancel, booking_cancel_preview
from bookings.services.create import booking_create
from bookings.services.errors import BookingError
from bookings.services.pay import booking_pay, booking_pay_preview
from bookings.services.search import booking_options
from bookings.sync import bookings_sync_all, bookings_sync_for_user
from tests.assistant.test_pending_actions import _session_opener

ROOT = Path(__file__).resolve().parents[2]
ZHANG = [{"name": "张三", "mobile": "13800000000"}]
DEPARTS = dt.date.today() + dt.timedelta(days=20)


def supplier(*args: str, key: str | None = None) -> dict:
    """The supplier's own back office (`python -m bookings.sandbox event …`) on the test's store; with a traveller's
    `key`, a command as that traveller."""
    done = subprocess.run(
        [sys.executable, "-m", "bookings.sandbox", *args],
        cwd=ROOT,
        env={**os.environ, **({"SUPPLIER_API_KEY": key} if key else {})},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def book_flight(user, *, sort: str = "EARLIEST") -> BookingRecord:
    found = booking_options(
        user=user,
        biz_type="FLIGHT",
        origin="上海",
        destination="成都",
        date=DEPARTS,
        wants=BookingWants(sort=sort),
    )
    return booking_create(user=user, option_ref=found["options"][0]["ref"], passengers=ZHANG)


def events(booking: BookingRecord) -> list[tuple[str, str, str]]:
    return list(BookingEvent.objects.filter(booking=booking).values_list("from_status", "to_status", "source"))


def payments(sandbox) -> int:
    return sandbox.stats()["payments"]["total"]


# -- paying --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_new_booking_keeps_the_suppliers_payment_deadline(alice, supplier_sandbox):
    booking = book_flight(alice)

    assert booking.status == BookingStatus.PENDING_PAYMENT
    left = booking.pay_deadline - timezone.now()
    assert dt.timedelta(minutes=28) < left <= dt.timedelta(minutes=30)


@pytest.mark.django_db
def test_paying_confirms_the_booking_with_one_payment_and_an_event(alice, supplier_sandbox):
    booking = book_flight(alice)
    other = book_flight(alice, sort="CHEAPEST")

    preview = booking_pay_preview(user=alice, booking_id=booking.booking_id, language="en")
    outcome = booking_pay(user=alice, booking_id=booking.booking_id)

    booking.refresh_from_db()
    other.refresh_from_db()
    assert preview["amount"] == str(booking.amount) and dict(preview["rows"])["Amount"] == f"¥{booking.amount}"
    assert outcome.booking.status == booking.status == BookingStatus.CONFIRMED and booking.paid_at is not None
    assert events(booking) == [("", "PENDING_PAYMENT", "TRIPDESK"), ("PENDING_PAYMENT", "CONFIRMED", "TRIPDESK")]
    assert BookingEvent.objects.get(booking=booking, to_status="CONFIRMED").actor == alice
    assert payments(supplier_sandbox) == 1
    assert other.status == BookingStatus.PENDING_PAYMENT  # nothing else changed
    key = supplier_account_ensure(user=alice).api_key
    order = supplier("call", "order", "queryOrder", "-a", json.dumps({"orderId": booking.external_order_no}), key=key)
    assert order["order"]["status"] == "PAID"


@pytest.mark.django_db
def test_paying_again_pays_nothing_more(alice, supplier_sandbox):
    booking = book_flight(alice)
    booking_pay(user=alice, booking_id=booking.booking_id)

    again = booking_pay(user=alice, booking_id=booking.booking_id)

    assert again.already_paid and again.booking.status == BookingStatus.CONFIRMED
    assert payments(supplier_sandbox) == 1
    assert BookingEvent.objects.filter(booking=booking, to_status="CONFIRMED").count() == 1
    with pytest.raises(BookingError) as refused:
        booking_pay_preview(user=alice, booking_id=booking.booking_id)
    assert refused.value.code == "INVALID_TRANSITION" and refused.value.data["status"] == "CONFIRMED"


@pytest.mark.django_db
def test_paying_after_the_deadline_is_refused_and_the_booking_expires(alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "expire", booking.external_order_no)

    with pytest.raises(BookingError) as refused:
        booking_pay(user=alice, booking_id=booking.booking_id)

    booking.refresh_from_db()
    assert refused.value.code == "BOOKING_EXPIRED"
    assert booking.status == BookingStatus.EXPIRED and booking.paid_at is None
    assert events(booking)[-1] == ("PENDING_PAYMENT", "EXPIRED", "SUPPLIER")
    assert BookingEvent.objects.get(booking=booking, to_status="EXPIRED").actor is None
    assert payments(supplier_sandbox) == 0
    with pytest.raises(BookingError) as cancel:
        booking_cancel(user=alice, booking_id=booking.booking_id)
    assert cancel.value.code == "BOOKING_EXPIRED"


@pytest.mark.django_db
def test_a_payment_the_supplier_does_not_take_leaves_the_booking_unpaid(alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier_sandbox.fault("order.pay=fail")

    with pytest.raises(BookingError) as refused:
        booking_pay(user=alice, booking_id=booking.booking_id)

    supplier_sandbox.heal()
    booking.refresh_from_db()
    assert refused.value.code == "PAYMENT_FAILED"
    assert booking.status == BookingStatus.PENDING_PAYMENT and payments(supplier_sandbox) == 0
    assert booking_pay(user=alice, booking_id=booking.booking_id).booking.status == BookingStatus.CONFIRMED


@pytest.mark.django_db
def test_someone_elses_booking_cannot_be_paid_and_nothing_changes(alice, user_factory, supplier_sandbox):
    booking = book_flight(alice)
    mallory = user_factory("mallory")

    with pytest.raises(BookingError) as refused:
        booking_pay(user=mallory, booking_id=booking.booking_id)

    booking.refresh_from_db()
    assert refused.value.code == "BOOKING_NOT_FOUND"
    assert booking.status == BookingStatus.PENDING_PAYMENT and payments(supplier_sandbox) == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_payments_at_once_over_http_pay_once(alice, supplier_sandbox, live_server):
    booking = book_flight(alice)
    opener, csrf = _session_opener(live_server.url, alice)
    start = threading.Barrier(10)
    answers: list[tuple[int, dict]] = []

    def pay():
        request = urllib.request.Request(  # noqa: S310 - the live server's own http URL
            f"{live_server.url}/api/v1/bookings/{booking.booking_id}/pay",
            data=json.dumps({"confirm": True}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        )
        start.wait()
        try:
            with opener.open(request, timeout=120) as response:
                answers.append((response.status, json.loads(response.read())))
        except urllib.error.HTTPError as exc:
            answers.append((exc.code, json.loads(exc.read())))

    threads = [threading.Thread(target=pay) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)

    booking.refresh_from_db()
    assert [status for status, _ in answers] == [200] * 10, answers
    assert sum(1 for _, body in answers if not body["already_paid"]) >= 1
    assert all(body["booking"]["status"] == "CONFIRMED" for _, body in answers)
    assert payments(supplier_sandbox) == 1
    assert booking.status == BookingStatus.CONFIRMED
    assert BookingEvent.objects.filter(booking=booking, to_status="CONFIRMED").count() == 1


# -- what cancelling gives back --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_cancelling_a_paid_flight_says_the_refund_under_its_fare_rules_first(alice, supplier_sandbox):
    unpaid = book_flight(alice)
    paid = book_flight(alice, sort="CHEAPEST")
    booking_pay(user=alice, booking_id=paid.booking_id)
    paid.refresh_from_db()

    terms_paid = booking_cancel_preview(user=alice, booking_id=paid.booking_id, language="en")["terms"]
    terms_unpaid = booking_cancel_preview(user=alice, booking_id=unpaid.booking_id, language="zh-hans")["terms"]

    refund = (paid.amount * Decimal("0.95")).quantize(Decimal("0.01"))
    assert f"¥{refund} of the ¥{paid.amount} paid (95%: cancelled at least 7 days before departure)" in terms_paid
    assert "尚未支付" in terms_unpaid
    assert BookingRecord.objects.filter(status=BookingStatus.CANCELLED).count() == 0  # a preview changes nothing


# -- staying in step with the supplier -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sync_records_what_the_supplier_did_with_the_supplier_as_the_source(alice, supplier_sandbox):
    expired, cancelled, moved, untouched = (
        book_flight(alice, sort=s) for s in ("EARLIEST", "CHEAPEST", "LATEST", "FASTEST")
    )
    before = moved.details["depart"]
    supplier("event", "expire", expired.external_order_no)
    supplier("event", "cancel", cancelled.external_order_no)
    supplier("event", "change", moved.external_order_no, "--delay-minutes", "90")

    report = bookings_sync_for_user(user=alice)

    for booking in (expired, cancelled, moved, untouched):
        booking.refresh_from_db()
    assert report.ok and sorted(report.changed) == sorted([expired.booking_id, cancelled.booking_id, moved.booking_id])
    assert expired.status == BookingStatus.EXPIRED and events(expired)[-1] == ("PENDING_PAYMENT", "EXPIRED", "SUPPLIER")
    assert cancelled.status == BookingStatus.CANCELLED
    assert events(cancelled)[-1] == ("PENDING_PAYMENT", "CANCELLED", "SUPPLIER")
    later = dt.datetime.fromisoformat(before) + dt.timedelta(minutes=90)
    assert moved.status == BookingStatus.PENDING_PAYMENT and moved.details["depart"][:16] == later.isoformat()[:16]
    assert events(moved)[-1] == ("PENDING_PAYMENT", "PENDING_PAYMENT", "SUPPLIER")
    assert untouched.status == BookingStatus.PENDING_PAYMENT and len(events(untouched)) == 1
    kinds = dict(BookingNotice.objects.filter(user=alice).values_list("booking__booking_id", "kind"))
    assert kinds == {
        expired.booking_id: NoticeKind.EXPIRED,
        cancelled.booking_id: NoticeKind.CANCELLED_BY_SUPPLIER,
        moved.booking_id: NoticeKind.SCHEDULE_CHANGED,
    }
    notice = BookingNotice.objects.get(kind=NoticeKind.SCHEDULE_CHANGED)
    assert notice.facts["previous_depart"] == before and notice.facts["depart"][:16] == later.isoformat()[:16]


@pytest.mark.django_db
def test_syncing_again_changes_nothing_more(alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "change", booking.external_order_no)
    bookings_sync_for_user(user=alice)

    again = bookings_sync_for_user(user=alice)

    assert again.ok and again.changed == [] and again.recovered == []
    assert len(events(booking)) == 2 and BookingNotice.objects.count() == 1


@pytest.mark.django_db
def test_a_supplier_that_does_not_answer_changes_nothing(alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "cancel", booking.external_order_no)
    supplier_sandbox.fault("order.queryOrder=fail")

    report = bookings_sync_for_user(user=alice)

    booking.refresh_from_db()
    assert not report.ok and booking.status == BookingStatus.PENDING_PAYMENT and BookingNotice.objects.count() == 0


@pytest.mark.django_db
def test_a_booking_whose_record_failed_at_creation_is_recovered(alice, supplier_sandbox, monkeypatch):
    found = booking_options(user=alice, biz_type="FLIGHT", origin="上海", destination="成都", date=DEPARTS)

    def broken(**kwargs):
        raise RuntimeError("the database went away")

    with monkeypatch.context() as patched, pytest.raises(BookingError) as failed:
        patched.setattr("bookings.services.create.booking_record_create", broken)
        booking_create(user=alice, option_ref=found["options"][0]["ref"], passengers=ZHANG)
    number = failed.value.data["unrecorded_order_no"]
    assert not BookingRecord.objects.exists() and supplier_sandbox.stats()["orders"]["total"] == 1

    report = bookings_sync_all()

    booking = BookingRecord.objects.get()
    assert report["recovered"] == 1 and booking.external_order_no == number and booking.user == alice
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.amount == Decimal(found["options"][0]["total"])
    assert booking.pay_deadline is not None and booking.details["flightNo"] == found["options"][0]["number"]
    assert events(booking) == [("", "PENDING_PAYMENT", EventSource.SUPPLIER)]
    assert BookingNotice.objects.get().kind == NoticeKind.RECOVERED
