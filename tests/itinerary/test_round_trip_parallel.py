"""A round trip's five supplier searches (outbound flight and train, return flight and train, hotels) run at once.

Proved without a clock: every search hangs on the sandbox's `timeout` fault until a release file exists, the test
waits until five searches are running side by side (processes it can see), and only then releases them. Searched
one after another, the first would hang alone and the wait would fail.
"""

import os
import threading

import pytest
from django.db import connection

from tests.conftest import _start_worker, _stop_worker, _wait_for_workers
from tests.faults.test_worker_killed import cmdline, descendants, zygotes
from tests.itinerary.test_round_trip_service import compare
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)  # the comparison runs in a thread of its own (and a worker)

SEARCHES = 5
HANG_TIMEOUT = 60  # seconds: far longer than the wait for five searches, within the after-sale lease (checks)


def searches_in_flight(root: int) -> int:
    """Supplier searches running under `root`: processes of their own (their argv says so) and warm children."""
    own = [pid for pid in descendants(root) if "bookings.sandbox" in cmdline(pid) and cmdline(pid)[-3:-2] == ["search"]]
    warm = [pid for zygote in zygotes(root) for pid in descendants(zygote)]
    return len(own) + len(warm)


class Comparison(threading.Thread):
    """`compare(user)` in a thread, so the test can watch the searches it runs."""

    def __init__(self, user) -> None:
        super().__init__(daemon=True)
        self.user = user
        self.found = None

    def run(self) -> None:
        try:
            self.found = compare(self.user)
        finally:
            connection.close()  # this thread's own connection


@pytest.fixture
def hanging_searches(supplier_sandbox, monkeypatch, settings, tmp_path):
    """Every search hangs until the returned file exists."""
    release = tmp_path / "release"
    settings.PLATFORM_TIMEOUT = HANG_TIMEOUT
    monkeypatch.setenv("PLATFORM_TIMEOUT", str(HANG_TIMEOUT))  # for a worker started by the test
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_RELEASE", str(release))
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "600")
    supplier_sandbox.fault("flight.search=timeout,train.search=timeout,hotel.search=timeout")
    return release


def without_plan_id(found) -> dict:
    return {**found.comparison, "plan_id": None}


def compared_at_once(user, root: int, release, supplier_sandbox) -> None:
    comparison = Comparison(user)
    comparison.start()
    try:
        wait_for(lambda: searches_in_flight(root) == SEARCHES, f"{SEARCHES} searches running at once")
    finally:
        release.touch()
        comparison.join(timeout=HANG_TIMEOUT * 2)
    found = comparison.found
    supplier_sandbox.heal()
    assert found is not None and found.status == "compared"
    assert found.failures == []
    assert without_plan_id(found) == without_plan_id(compare(user))  # the same plans as a comparison unhindered


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "own-process"])
def test_in_process_the_five_searches_run_at_once_and_give_the_same_comparison(
    alice, supplier_sandbox, hanging_searches, settings, warm
):
    settings.PLATFORM_WARM = warm

    compared_at_once(alice, os.getpid(), hanging_searches, supplier_sandbox)


@pytest.mark.worker
@pytest.mark.postgres
def test_on_a_platform_worker_with_five_processes_the_five_searches_run_at_once(
    alice, supplier_sandbox, hanging_searches, tmp_path
):
    worker = _start_worker(f"parallel-{os.getpid()}", tmp_path / "worker.log", concurrency=SEARCHES)
    try:
        _wait_for_workers([worker], 1)
        compared_at_once(alice, worker.pid, hanging_searches, supplier_sandbox)
    finally:
        _stop_worker(worker)
