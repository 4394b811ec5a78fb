"""A Celery worker SIGKILLed in the middle of an approved refund, and a new one started.

The supplier's refund is slow (`order.refund=timeout` with a 3 s sleep, then it proceeds), so the kill lands while
the ticket is EXECUTING. A new worker with a short lease and the `resume_stalled_tickets` task finish the ticket:
EXECUTED with exactly one supplier refund, whether or not the killed worker's refund reached the supplier.
"""

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from django.conf import settings as django_settings

from aftersale.models import BizOrder, HitlTicket, OrderStatus, TicketStatus
from aftersale.services.execution import ticket_decide
from aftersale.tasks import resume_stalled_tickets
from tests.aftersale.conftest import demo_approver, demo_seeded, ticket_for  # noqa: F401 - fixtures
from tests.conftest import ROOT, _wait_for_workers, _worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

LEASE = 5


def start_worker_group(node: str, log_path) -> subprocess.Popen:
    """A worker in a process group of its own, so the whole group (pool children, CLI calls) can be SIGKILLed."""
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


def kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def descendants(pid: int) -> list[int]:
    """Every live process under `pid` (from /proc), e.g. the supplier CLI a pool child runs in a session of its own."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def wait_for(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def supplier_refunds(store, order_id: str) -> list[str]:
    if not store.exists():
        return []
    with sqlite3.connect(store) as conn:
        return [r[0] for r in conn.execute("SELECT refund_no FROM refunds WHERE order_id = ? ORDER BY id", (order_id,))]


@pytest.mark.parametrize(
    "the_cli_dies_too",
    [False, True],
    ids=["the-refund-call-outlives-the-worker", "the-refund-call-dies-with-it"],
)
def test_a_worker_killed_mid_refund_is_taken_over_and_the_order_is_refunded_exactly_once(
    the_cli_dies_too,
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    settings,
    monkeypatch,
    tmp_path,
):

    settings.AFTERSALE_EXECUTION_LEASE_SECONDS = LEASE
    monkeypatch.setenv("AFTERSALE_EXECUTION_LEASE_SECONDS", str(LEASE))
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "3")
    supplier_sandbox.fault("order.refund=timeout")  # sleeps 3 s, then refunds
    order = BizOrder.objects.get(order_id="ORD-001")
    ticket = ticket_for(order)
    first = start_worker_group(f"doomed-{os.getpid()}", tmp_path / "doomed.log")
    second = None
    try:
        _wait_for_workers([first], 1)
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="ok")
        wait_for(lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTING, 30, "the claim")
        doomed = descendants(first.pid) if the_cli_dies_too else []
        kill_group(first)
        for pid in doomed:  # the supplier CLI runs in a session of its own (bookings.platform): kill it as well
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        ticket.refresh_from_db()
        assert ticket.status == TicketStatus.EXECUTING  # the dead worker's claim is still on the ticket
        time.sleep(3.5)  # a refund CLI that outlived its worker would have finished by now
        refunds_after_the_kill = supplier_refunds(supplier_sandbox.store, "ORD-001")
        assert len(refunds_after_the_kill) == (0 if the_cli_dies_too else 1)

        supplier_sandbox.heal()
        second = start_worker_group(f"rescuer-{os.getpid()}", tmp_path / "rescuer.log")
        _wait_for_workers([second], 1)
        time.sleep(max(0.0, LEASE + 1 - (time.monotonic() - killed_at)))  # the dead worker's lease expires
        resume_stalled_tickets.delay()

        wait_for(
            lambda: HitlTicket.objects.get(pk=ticket.pk).status in (TicketStatus.EXECUTED, TicketStatus.FAILED),
            60,
            "the takeover to finish",
        )
    finally:
        kill_group(first)
        if second is not None:
            second.terminate()
            try:
                second.wait(timeout=15)
            except subprocess.TimeoutExpired:
                kill_group(second)

    ticket.refresh_from_db()
    order.refresh_from_db()
    refunds = supplier_refunds(supplier_sandbox.store, "ORD-001")
    assert ticket.status == TicketStatus.EXECUTED, ticket.execution_result
    assert len(refunds) == 1
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {"ORD-001": 1}
    assert ticket.execution_result["refundId"] == refunds[0]
    assert order.status == OrderStatus.REFUNDED
    # the killed worker's refund reached the supplier: the takeover finds it and does not refund again
    assert ticket.execution_result["recovered"] is (not the_cli_dies_too)
    if refunds_after_the_kill:
        assert refunds_after_the_kill == refunds
