"""Workers SIGKILLed in the middle of a supplier call that hangs, a takeover, and the old call landing late.

Exactly once rests on construction, not on timing, and each test shows one part of it with real processes:

- the supplier child dies with the process that started it (a parent-death signal), although it runs in a session
  of its own that a process-group kill of its worker does not reach;
- a late duplicate of the dead worker's call (the same supplier command, the same requestId: a stand-in for a call
  that reached the supplier before the kill and lands after the takeover, or before it) is answered by the supplier
  with its first result, so the store holds exactly one refund, or one cancel.

The sandbox runs warm by default (PLATFORM_WARM: a child forked from a zygote that ends with its worker); the tests
that rebuild the dead call from its argv and environment run it as a process of its own (only that shows them).

Nothing here waits for a clock: the hang lasts until the test creates a release file; the test waits for states
(the ticket EXECUTING, the supplier child alive, its pid gone) with bounded polling; the dead worker's lease is
made to have run out by moving its start back, not by sleeping through it.
"""

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderStatus, TicketStatus
from aftersale.services.decisions import ticket_decide
from aftersale.tasks import resume_stalled_tickets
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingRecord, BookingStatus
from bookings.platform import PlatformCommand, order_number, platform_call
from bookings.services.cancel import booking_cancel
from bookings.services.errors import BookingError
from bookings.services.recording import booking_record_from_platform
from tests.aftersale.conftest import demo_alice, demo_approver, demo_seeded, ticket_for  # noqa: F401 - fixtures
from tests.conftest import ROOT, _wait_for_workers, _worker_env

WAIT = 60  # the bound of every wait for a state: generous for a loaded machine, never a duration under test
CONTACT = {"name": "张三", "mobile": "13800000000"}


# --- processes ---------------------------------------------------------------------------------------------------


def start_worker_group(node: str, log_path) -> subprocess.Popen:
    """A worker in a process group of its own, so the whole group (main process and pool child) can be SIGKILLed."""
    log = open(log_path, "ab")  # noqa: SIM115 - the worker writes it until it dies
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default,platform,aftersale", "-c", "1"]
        + ["--without-heartbeat", "--without-gossip", "--without-mingle", "-n", f"{node}@%h", "-l", "INFO"],
        cwd=ROOT,
        env=_worker_env(django_settings.DATABASES["default"]["NAME"]),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def kill_stray(pid: int | None) -> None:
    """Clean up after a failed test: a supplier child that did not die with its parent."""
    if pid is not None and not gone(pid):
        os.kill(pid, signal.SIGKILL)


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=WAIT)


def stop_worker(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        kill_group(proc)


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return parents


def descendants(pid: int) -> list[int]:
    """Every live process under `pid`, whatever session it runs in (from /proc)."""
    parents = _parents()
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [part.decode() for part in f.read().split(b"\0") if part]
    except OSError:
        return []


def supplier_child(root: int, product: str, action: str) -> int | None:
    """The sandbox CLI running `product action` under `root` (after its exec, so its parent-death signal is set)."""
    for pid in descendants(root):
        argv = cmdline(pid)
        if "bookings.sandbox" in argv and argv[-4:-2] == [product, action]:
            return pid
    return None


ZYGOTE = "bookings.sandbox.zygote"


def zygotes(root: int) -> list[int]:
    """The warm sandbox processes under `root`."""
    parents = _parents()
    return [pid for pid in descendants(root) if ZYGOTE in cmdline(pid) and ZYGOTE not in cmdline(parents.get(pid, 0))]


def warm_child(root: int) -> int | None:
    """A command running in a child of a warm sandbox under `root` (it shows the zygote's argv, not the command's),
    once it is in a session of its own: read earlier, a child just forked may not have reached `setsid` yet, and a
    process seen between the zygote's fork and its own start may be gone by the time it is looked at."""
    children = [pid for zygote in zygotes(root) for pid in descendants(zygote)]
    return children[0] if len(children) == 1 and _leads_own_session(children[0]) else None


def _leads_own_session(pid: int) -> bool:
    try:
        return os.getsid(pid) == pid
    except ProcessLookupError:
        return False


def gone(pid: int) -> bool:
    """No such process any more (a zombie waiting for init to reap it counts as gone: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def snapshot(pid: int) -> tuple[list[str], dict[str, str]]:
    """What a live process was started with: its argv and its environment (the user's key, the faults)."""
    with open(f"/proc/{pid}/environ", "rb") as f:
        env = dict(part.decode().split("=", 1) for part in f.read().split(b"\0") if b"=" in part)
    return cmdline(pid), env


def wait_for(predicate, what: str, seconds: float = WAIT):
    """Poll until `predicate()` is truthy and return it; fail (saying what) after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {seconds:g} s waiting for {what}")


def status_of(ticket: HitlTicket) -> str:
    return HitlTicket.objects.values_list("status", flat=True).get(pk=ticket.pk)


def lease_runs_out(ticket: HitlTicket) -> None:
    """The dead executor's lease expired: its start moved back past the lease (what waiting for it would do)."""
    past = timezone.now() - dt.timedelta(seconds=django_settings.AFTERSALE_EXECUTION_LEASE_SECONDS + 1)
    assert HitlTicket.objects.filter(pk=ticket.pk, status=TicketStatus.EXECUTING).update(execution_started_at=past)


def leave_nothing_running(first: subprocess.Popen, child: int | None, late_call, rescuers: list) -> None:
    """The end of a takeover test, whatever happened: the killed worker's group, its supplier call, the late call
    still on its way, and the rescuing workers."""
    kill_group(first)
    kill_stray(child)
    if late_call is not None:
        late_call.kill()
    for worker in rescuers:
        stop_worker(worker)


class LateCall:
    """The dead worker's supplier command run again with the same argv and environment (so the same requestId and
    key): it hangs on the same release file and lands when the test says."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # noqa: S603

    def land(self, release) -> dict:
        release.touch()
        out, err = self.proc.communicate(timeout=WAIT)
        assert self.proc.returncode == 0, err
        return json.loads(out)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)


@pytest.fixture
def hanging_supplier(supplier_sandbox, monkeypatch, tmp_path):
    """`hang("order.refund")`: that command blocks until `release` exists (bounded by a long sleep, never reached)."""
    release = tmp_path / "release"
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_RELEASE", str(release))
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "600")

    def hang(target: str):
        supplier_sandbox.fault(f"{target}=timeout")
        return release

    return hang


# --- the supplier child dies with its parent ---------------------------------------------------------------------

PARENT = """
import django, json, sys
django.setup()
from bookings.platform import PlatformCommand, platform_call
platform_call(PlatformCommand("order", "refund", json.loads(sys.argv[1])), api_key=sys.argv[2], timeout=600)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's prctl")
@pytest.mark.parametrize("warm", [False, True], ids=["own-process", "warm"])
def test_a_supplier_child_in_a_session_of_its_own_dies_when_its_parent_is_killed(
    hanging_supplier, supplier_sandbox, warm
):
    release = hanging_supplier("order.refund")
    arguments = json.dumps({"orderId": "ORD-001", "amount": 202.0, "total": 202.0, "requestId": "T-ORPHAN"})
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PLATFORM_WARM": "1" if warm else "0"}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, arguments, "sbx_orphan-test-key"], cwd=ROOT, env=env)
    child = zygote = None
    try:
        if warm:
            child = wait_for(lambda: warm_child(parent.pid), "the warm supplier child to run")
            [zygote] = zygotes(parent.pid)
        else:
            child = wait_for(lambda: supplier_child(parent.pid, "order", "refund"), "the supplier child to run")
        assert os.getsid(child) == child  # its own session: a kill of the parent's process group would miss it

        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=WAIT)

        wait_for(lambda: gone(child), f"the supplier child {child} to die with its parent")
        if warm:
            wait_for(lambda: gone(zygote), f"the warm sandbox {zygote} to end with its parent")
    finally:
        if parent.poll() is None:
            parent.kill()
        kill_stray(child)
        kill_stray(zygote)
    release.touch()  # nothing is left to go on: no refund ever lands
    assert supplier_sandbox.stats()["refunds"]["total"] == 0


# --- a refund: the worker killed, a takeover, the old call landing late ------------------------------------------


def take_over(ticket, supplier_sandbox, tmp_path, rescuers: list) -> None:
    """The supplier healed, a second worker (added to `rescuers`, for the caller to stop) takes the dead worker's
    ticket over once its lease has run out; returns when the takeover has finished."""
    supplier_sandbox.heal()
    rescuers.append(start_worker_group(f"rescuer-{os.getpid()}", tmp_path / "rescuer.log"))
    _wait_for_workers(rescuers[-1:], 1)
    lease_runs_out(ticket)
    resume_stalled_tickets.delay()
    wait_for(lambda: status_of(ticket) in (TicketStatus.EXECUTED, TicketStatus.FAILED), "the takeover to finish")


@pytest.fixture
def calls_in_their_own_process(monkeypatch):
    """The workers run the sandbox as a process of its own, whose argv and environment show the command."""
    monkeypatch.setenv("PLATFORM_WARM", "0")


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("late", ["after-the-takeover", "before-the-takeover"])
def test_a_worker_killed_mid_refund_is_taken_over_and_a_late_duplicate_refunds_nothing(
    late,
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    hanging_supplier,
    calls_in_their_own_process,
    tmp_path,
):
    release = hanging_supplier("order.refund")
    order = BizOrder.objects.get(order_id="ORD-001")
    ticket = ticket_for(order)
    first = start_worker_group(f"doomed-{os.getpid()}", tmp_path / "doomed.log")
    rescuers, late_call, child = [], None, None
    try:
        _wait_for_workers([first], 1)
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="ok")
        wait_for(lambda: status_of(ticket) == TicketStatus.EXECUTING, "the first worker's claim")
        child = wait_for(lambda: supplier_child(first.pid, "order", "refund"), "the refund call to hang")
        argv, env = snapshot(child)

        kill_group(first)  # the worker and its pool child; the refund call is in a session of its own
        wait_for(lambda: gone(child), "the refund call to die with its worker")
        assert status_of(ticket) == TicketStatus.EXECUTING  # the dead worker's claim is still on the ticket
        assert supplier_sandbox.stats()["refunds"]["total"] == 0

        late_call = LateCall(argv, env)  # the old call, still on its way to the supplier
        early_answer = late_call.land(release) if late == "before-the-takeover" else None

        take_over(ticket, supplier_sandbox, tmp_path, rescuers)
        late_answer = early_answer or late_call.land(release)
    finally:
        leave_nothing_running(first, child, late_call, rescuers)

    ticket.refresh_from_db()
    order.refresh_from_db()
    stats = supplier_sandbox.stats()
    assert ticket.status == TicketStatus.EXECUTED, ticket.execution_result
    assert ticket.attempts == 2
    assert stats["refunds"] == {"total": 1, "byOrderId": {"ORD-001": 1}}
    assert stats["idempotency"]["replays"] == (1 if late == "after-the-takeover" else 0)
    assert late_answer["refundId"] == ticket.execution_result["refundId"]
    assert late_answer["requestId"] == "refund:ORD-001"  # the order's key: any ticket's repeat gets this refund
    assert ticket.execution_result["recovered"] is (late == "before-the-takeover")
    assert order.status == OrderStatus.REFUNDED


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_warm_supplier_child_dies_with_its_killed_worker_and_the_takeover_refunds_once(
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    hanging_supplier,
    tmp_path,
):
    release = hanging_supplier("order.refund")
    order = BizOrder.objects.get(order_id="ORD-001")
    ticket = ticket_for(order)
    first = start_worker_group(f"doomed-{os.getpid()}", tmp_path / "doomed.log")
    rescuers, child, warm = [], None, []
    try:
        _wait_for_workers([first], 1)
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="ok")
        wait_for(lambda: status_of(ticket) == TicketStatus.EXECUTING, "the first worker's claim")
        child = wait_for(lambda: warm_child(first.pid), "the refund call to hang in a warm child")
        warm = zygotes(first.pid)

        kill_group(first)  # the worker and its pool child; the zygote and the call are in sessions of their own
        wait_for(lambda: gone(child), "the refund call to die with its worker")
        wait_for(lambda: all(gone(pid) for pid in warm), "the warm sandbox to end with its worker")
        release.touch()  # nothing is left to go on
        assert supplier_sandbox.stats()["refunds"]["total"] == 0

        take_over(ticket, supplier_sandbox, tmp_path, rescuers)
    finally:
        kill_group(first)
        for pid in (child, *warm):
            kill_stray(pid)
        for worker in rescuers:
            stop_worker(worker)

    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED, ticket.execution_result
    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-001": 1}}


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_refund_keeps_the_orders_claim_so_another_ticket_is_refused_and_the_takeover_refunds_once(
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    hanging_supplier,
    calls_in_their_own_process,
    tmp_path,
):
    release = hanging_supplier("order.refund")
    order = BizOrder.objects.get(order_id="ORD-004")  # delivered: a return and a refund may both be asked
    # (the returned item is back already: its refund starts on the approval)
    holder = ticket_for(order, action="RETURN", item_received_at=timezone.now())
    other = ticket_for(order, action="REFUND")
    first = start_worker_group(f"doomed-{os.getpid()}", tmp_path / "doomed.log")
    rescuers, late_call, child = [], None, None
    try:
        _wait_for_workers([first], 1)
        ticket_decide(ticket_id=holder.pk, approver=demo_approver, approve=True, reason="ok")
        child = wait_for(lambda: supplier_child(first.pid, "order", "refund"), "the holder's refund call to hang")
        argv, env = snapshot(child)
        kill_group(first)
        wait_for(lambda: gone(child), "the refund call to die with its worker")
        order.refresh_from_db()
        assert (status_of(holder), order.refund_claim_id) == (TicketStatus.EXECUTING, holder.ticket_no)
        late_call = LateCall(argv, env)  # the dead worker's call, still on its way to the supplier

        supplier_sandbox.heal()
        rescuers.append(start_worker_group(f"rescuer-{os.getpid()}", tmp_path / "rescuer.log"))
        _wait_for_workers(rescuers, 1)
        ticket_decide(ticket_id=other.pk, approver=demo_approver, approve=True, reason="ok")
        wait_for(lambda: status_of(other) == TicketStatus.FAILED, "the other ticket to be refused")
        assert supplier_sandbox.stats()["refunds"]["total"] == 0

        lease_runs_out(holder)
        resume_stalled_tickets.delay()
        wait_for(lambda: status_of(holder) in (TicketStatus.EXECUTED, TicketStatus.FAILED), "the takeover to finish")
        late_answer = late_call.land(release)
    finally:
        leave_nothing_running(first, child, late_call, rescuers)

    holder.refresh_from_db()
    other.refresh_from_db()
    order.refresh_from_db()
    stats = supplier_sandbox.stats()
    assert (holder.status, holder.attempts) == (TicketStatus.EXECUTED, 2), holder.execution_result
    assert other.execution_result["reasons"] == [f"ORD-004 is being refunded by ticket {holder.ticket_no}"]
    assert stats["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}
    assert stats["idempotency"]["replays"] == 1  # the late call got the takeover's refund back
    assert late_answer["refundId"] == holder.execution_result["refundId"]
    assert (order.status, order.refunded_amount, order.refund_claim_id) == (OrderStatus.RETURNED, Decimal("258"), None)


# --- a cancel: the worker killed, a retry, the old call landing late ---------------------------------------------


def expensive_flight_booking(user) -> BookingRecord:
    """A flight booked on the sandbox with the user's key and recorded, priced above the approval amount."""
    key = supplier_account_ensure(user=user).api_key
    route = {"from": "上海", "to": "杭州", "date": "2026-12-05"}
    flight = platform_call(PlatformCommand("flight", "search", route), api_key=key)["flights"][0]
    arguments = {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT}
    answer = platform_call(PlatformCommand("flight", "saveOrder", arguments), api_key=key)
    booking = booking_record_from_platform(
        user=user, biz_type="FLIGHT", external_order_no=order_number(answer), arguments=arguments, response=answer
    )
    amount = Decimal(django_settings.BOOKINGS_CANCEL_APPROVAL_ABOVE) + 500
    BookingRecord.objects.filter(pk=booking.pk).update(amount=amount, status=BookingStatus.CONFIRMED)
    booking.refresh_from_db()
    return booking


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_cancel_is_retried_and_a_late_duplicate_cancels_nothing(
    demo_alice,  # noqa: F811
    demo_approver,  # noqa: F811
    supplier_sandbox,
    hanging_supplier,
    calls_in_their_own_process,
    tmp_path,
):
    booking = expensive_flight_booking(demo_alice)
    with pytest.raises(BookingError):  # above the approval amount: a checkpoint ticket waits for the approver
        booking_cancel(user=demo_alice, booking_id=booking.booking_id)
    ticket = HitlTicket.objects.get(entity=booking.booking_id)
    release = hanging_supplier("flight.cancelOrder")
    first = start_worker_group(f"doomed-{os.getpid()}", tmp_path / "doomed.log")
    second = late_call = child = None
    try:
        _wait_for_workers([first], 1)
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="customer called")
        wait_for(lambda: status_of(ticket) == TicketStatus.EXECUTING, "the first worker's claim")
        child = wait_for(lambda: supplier_child(first.pid, "flight", "cancelOrder"), "the cancel call to hang")
        argv, env = snapshot(child)

        kill_group(first)
        wait_for(lambda: gone(child), "the cancel call to die with its worker")
        booking.refresh_from_db()
        assert booking.status == BookingStatus.CONFIRMED and booking.cancel_claimed_until is not None
        assert supplier_sandbox.stats()["cancels"]["total"] == 0

        late_call = LateCall(argv, env)
        supplier_sandbox.heal()
        second = start_worker_group(f"rescuer-{os.getpid()}", tmp_path / "rescuer.log")
        _wait_for_workers([second], 1)
        # Both leases of the dead worker run out: the ticket's execution and the booking's cancel claim.
        lease_runs_out(ticket)
        BookingRecord.objects.filter(pk=booking.pk).update(
            cancel_claimed_until=timezone.now() - dt.timedelta(seconds=1)
        )
        resume_stalled_tickets.delay()
        wait_for(lambda: status_of(ticket) in (TicketStatus.EXECUTED, TicketStatus.FAILED), "the takeover to finish")
        late_answer = late_call.land(release)
    finally:
        leave_nothing_running(first, child, late_call, [second] if second is not None else [])

    ticket.refresh_from_db()
    booking.refresh_from_db()
    stats = supplier_sandbox.stats()
    assert ticket.status == TicketStatus.EXECUTED, ticket.execution_result
    assert booking.status == BookingStatus.CANCELLED
    assert stats["cancels"] == {"total": 1, "byOrderNo": {booking.external_order_no: 1}}
    assert stats["orders"]["byStatus"] == {"CANCELLED": 1}
    assert stats["idempotency"]["replays"] == 1
    assert late_answer["data"]["orderId"] == booking.external_order_no
    assert late_answer["data"]["alreadyCancelled"] is False  # the first cancellation's answer, not a second one
