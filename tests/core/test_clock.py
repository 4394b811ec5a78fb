"""One clock for the test run: the processes the suite starts read the suite's pinned day, production refuses it."""

import datetime as dt
import os
import subprocess
import sys

import pytest
from django.utils import timezone

from bookings.platform import PlatformCommand, platform_call
from tests.conftest import ROOT, TEST_NOW

PRINT_TODAY = "import django; django.setup(); from django.utils import timezone; print(timezone.localdate())"


def _python(code: str, **environment: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **environment}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_suite_runs_on_its_pinned_day():
    assert timezone.localdate() == dt.date(2026, 12, 1)


def test_a_django_process_the_suite_starts_reads_the_same_day():
    done = _python(PRINT_TODAY)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "2026-12-01"


@pytest.mark.django_db
def test_the_sandbox_supplier_dates_an_order_on_the_suites_clock(alice, supplier_sandbox):
    from bookings.accounts import supplier_account_ensure

    key = supplier_account_ensure(user=alice).api_key
    flights = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-20"}), api_key=key
    )["flights"]
    order = platform_call(
        PlatformCommand(
            "flight",
            "saveOrder",
            {
                "flightNo": flights[0]["flightNo"],
                "date": "2026-12-20",
                "from": "上海",
                "to": "杭州",
                "contactTourist": {"name": "张三", "mobile": "13800000000"},
                "requestId": "clock-test-1",
            },
        ),
        api_key=key,
    )

    deadline = dt.datetime.fromisoformat(order["payDeadline"])
    # 30 minutes to pay from the supplier's now, which is the suite's (a minute of slack for a slow machine).
    assert TEST_NOW + dt.timedelta(minutes=30) <= deadline <= timezone.now() + dt.timedelta(minutes=31)


def test_a_production_process_refuses_the_test_clock_and_says_why():
    done = _python(PRINT_TODAY, TRIPDESK_PRODUCTION="1", TRIPDESK_CLOCK_OFFSET="-86400")

    assert done.returncode != 0
    assert "TRIPDESK_CLOCK_OFFSET is set: it moves the clock for tests and is refused in production" in done.stderr
