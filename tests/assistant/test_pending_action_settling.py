"""A pending action never stays in flight: one left EXECUTING past its claim by a process that died mid-confirmation
(here after the supplier made the order, before TripDesk recorded it) is settled against the supplier by the beat's
sweep or by the traveller's own retry. The same call runs again in the same supplier scope, so the supplier answers
with its first order: exactly one order in its store, the booking recorded once, the action EXECUTED with the
booking. One still inside its claim is left alone. Real sandbox supplier CLI; the real beat in a Celery worker."""

import datetime as dt
import logging

import pytest
from django.utils import timezone

from assistant.actions import pending_actions_settle_stalled
from assistant.models import PendingAction
from assistant.services import chat_turn
from assistant.tasks import settle_stalled_actions
from bookings.models import BookingEvent, BookingRecord
from bookings.sync import bookings_sync_for_user
from tests.assistant.conftest import TODAY
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db

FLIGHT = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"


class ProcessDied(BaseException):
    """What a killed web process looks like from inside: nothing after this point runs, nothing is caught."""


def crashed_confirmation(user, monkeypatch, *, where: str = "bookings.services.create.booking_record_create"):
    """The traveller asks for the flight, sees the card and confirms; the process dies at `where` (by default after
    the supplier made the order, before TripDesk recorded it). The action is left EXECUTING."""
    asked = chat_turn(user=user, message=FLIGHT, today=TODAY)
    assert any(card["type"] == "confirmation" for card in asked.cards), asked.reply

    def die(*args, **kwargs):
        raise ProcessDied

    with monkeypatch.context() as patched:
        patched.setattr(where, die)
        with pytest.raises(ProcessDied):
            chat_turn(user=user, message="确认", today=TODAY, conversation_id=asked.conversation_id)
    action = PendingAction.objects.get(user=user)
    assert action.status == "EXECUTING" and not BookingRecord.objects.filter(user=user).exists()
    return asked.conversation_id, action


def claim_ran_out(action) -> None:
    PendingAction.objects.filter(pk=action.pk).update(claimed_until=timezone.now() - dt.timedelta(seconds=1))


def orders(sandbox) -> int:
    return sandbox.stats()["orders"]["total"]


def settled_booking(action) -> BookingRecord:
    """The action is EXECUTED with the one booking there is, and that booking has one creation event."""
    action.refresh_from_db()
    assert action.status == "EXECUTED" and action.claimed_until is None
    booking = BookingRecord.objects.get(user=action.user)
    assert action.result["ok"] is True and action.result["data"]["booking_id"] == booking.booking_id
    assert BookingEvent.objects.filter(booking=booking, from_status="").count() == 1
    return booking


def test_the_sweep_settles_a_crashed_booking_with_the_suppliers_first_order(
    alice, supplier_sandbox, monkeypatch, caplog
):
    _conversation, action = crashed_confirmation(alice, monkeypatch)
    claim_ran_out(action)
    caplog.set_level(logging.INFO, logger="assistant.actions")

    counts = settle_stalled_actions.delay().get()

    assert counts == {"settled": 1, "executed": 1, "failed": 0}
    booking = settled_booking(action)
    assert orders(supplier_sandbox) == 1
    assert booking.status == "PENDING_PAYMENT" and booking.external_order_no
    assert "pending action left in flight: settling it with the supplier" in caplog.text
    assert "pending action settled by the sweep" in caplog.text


def test_the_sweep_settles_a_crashed_booking_the_sync_recorded_first_without_a_second_record(
    alice, supplier_sandbox, monkeypatch
):
    _conversation, action = crashed_confirmation(alice, monkeypatch)
    recovered = bookings_sync_for_user(user=alice).recovered
    claim_ran_out(action)

    pending_actions_settle_stalled()

    booking = settled_booking(action)
    assert recovered == [booking.booking_id]
    assert orders(supplier_sandbox) == 1


def test_the_travellers_retry_settles_a_crashed_booking_instead_of_saying_it_is_in_progress(
    alice, supplier_sandbox, monkeypatch
):
    conversation, action = crashed_confirmation(alice, monkeypatch)
    claim_ran_out(action)

    retried = chat_turn(user=alice, message="确认", today=TODAY, conversation_id=conversation)

    booking = settled_booking(action)
    assert orders(supplier_sandbox) == 1
    assert "正在执行中" not in retried.reply
    assert booking.booking_id in retried.reply and "待支付" in retried.reply
    assert [c["booking_id"] for c in retried.cards if c["type"] == "booking"] == [booking.booking_id]


def test_a_settled_action_is_settled_once_however_often_the_sweep_runs(alice, supplier_sandbox, monkeypatch):
    _conversation, action = crashed_confirmation(alice, monkeypatch)
    claim_ran_out(action)

    first = pending_actions_settle_stalled()
    result = PendingAction.objects.get(pk=action.pk).result
    second = pending_actions_settle_stalled()

    assert (first["settled"], second["settled"]) == (1, 0)
    assert PendingAction.objects.get(pk=action.pk).result == result
    settled_booking(action)
    assert orders(supplier_sandbox) == 1


def test_an_execution_still_inside_its_claim_is_left_alone_by_the_sweep_and_the_retry(
    alice, supplier_sandbox, monkeypatch
):
    conversation, action = crashed_confirmation(alice, monkeypatch)
    before = PendingAction.objects.values().get(pk=action.pk)

    counts = pending_actions_settle_stalled()
    retried = chat_turn(user=alice, message="确认", today=TODAY, conversation_id=conversation)

    assert counts == {"settled": 0, "executed": 0, "failed": 0}
    assert "正在执行中" in retried.reply
    assert PendingAction.objects.values().get(pk=action.pk) == before
    assert orders(supplier_sandbox) == 1 and not BookingRecord.objects.exists()


def test_a_crash_before_the_supplier_call_settles_as_failed_with_why_when_the_supplier_says_no(
    alice, supplier_sandbox, monkeypatch
):
    _conversation, action = crashed_confirmation(alice, monkeypatch, where="bookings.services.create.platform_run")
    claim_ran_out(action)
    supplier_sandbox.fault("flight.saveOrder=fail")

    counts = pending_actions_settle_stalled()

    action.refresh_from_db()
    assert counts == {"settled": 1, "executed": 0, "failed": 1}
    assert (action.status, action.result["ok"], action.claimed_until) == ("FAILED", False, None)
    assert action.result["code"] == "PLATFORM_UNAVAILABLE" and "did not book" in action.result["message"]
    assert orders(supplier_sandbox) == 0 and not BookingRecord.objects.exists()


# -- the beat -------------------------------------------------------------------------------------------------------


@pytest.fixture
def beat_every_second(monkeypatch, request):
    """A real Celery worker running the beat, with the action sweep (and the booking sync) every second."""
    monkeypatch.setenv("ASSISTANT_ACTION_SWEEP_SECONDS", "1")
    return request.getfixturevalue("celery_worker_with_beat")


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # the worker sees committed rows only
def test_the_beat_settles_a_crashed_booking_on_its_own(beat_every_second, alice, supplier_sandbox, monkeypatch):
    _conversation, action = crashed_confirmation(alice, monkeypatch)
    claim_ran_out(action)

    wait_for(
        lambda: PendingAction.objects.get(pk=action.pk).status == "EXECUTED",
        what="the beat's sweep to settle the action",
        seconds=120,
    )

    settled_booking(action)
    assert orders(supplier_sandbox) == 1
