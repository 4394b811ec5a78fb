"""The start-up check: the execution lease outlasts every supplier call and the execution task's time limits."""

import os
import subprocess
import sys

import pytest
from django.core.checks import run_checks

from aftersale import checks
from aftersale import lease as lease_rules
from aftersale.tasks import execute_ticket
from tests.conftest import ROOT


def errors() -> dict[str, str]:
    return {e.id: e.msg for e in checks.execution_lease_check() if e.is_serious()}


def test_the_default_settings_pass_and_the_execution_is_killed_before_its_lease_ends(settings):
    assert errors() == {}
    assert not [e for e in run_checks() if e.id and e.id.startswith("aftersale.")]
    assert execute_ticket.soft_time_limit < execute_ticket.time_limit < settings.AFTERSALE_EXECUTION_LEASE_SECONDS


@pytest.mark.parametrize("lease", [15, 30, 45])
def test_a_lease_not_longer_than_the_platform_timeout_plus_the_margin_is_an_error(settings, lease):
    settings.PLATFORM_TIMEOUT = 15.0
    settings.AFTERSALE_EXECUTION_LEASE_SECONDS = lease

    found = errors()

    assert "aftersale.E002" in found
    assert f"AFTERSALE_EXECUTION_LEASE_SECONDS ({lease})" in found["aftersale.E002"]
    assert "PLATFORM_TIMEOUT (15)" in found["aftersale.E002"]


def test_a_lease_just_above_the_platform_timeout_plus_the_margin_passes_when_the_limits_follow_it(
    settings, monkeypatch
):
    settings.PLATFORM_TIMEOUT = 15.0
    lease = lease_rules.minimum_lease(15.0)
    settings.AFTERSALE_EXECUTION_LEASE_SECONDS = lease
    soft, hard = lease_rules.execution_time_limits(lease)
    monkeypatch.setattr(execute_ticket, "soft_time_limit", soft)
    monkeypatch.setattr(execute_ticket, "time_limit", hard)

    assert errors() == {}


def test_an_execution_task_that_may_outlive_its_lease_is_an_error(monkeypatch, settings):
    monkeypatch.setattr(execute_ticket, "time_limit", settings.AFTERSALE_EXECUTION_LEASE_SECONDS)

    assert "aftersale.E003" in errors()


def test_an_execution_task_too_short_for_its_two_supplier_calls_is_an_error(monkeypatch, settings):
    settings.PLATFORM_TIMEOUT = 60.0
    monkeypatch.setattr(execute_ticket, "soft_time_limit", 100)

    found = errors()

    assert "aftersale.E004" in found and "2 supplier calls" in found["aftersale.E004"]


def test_a_platform_task_killed_before_its_call_times_out_is_an_error(monkeypatch, settings):
    from bookings.tasks import platform_command

    monkeypatch.setattr(platform_command, "time_limit", settings.PLATFORM_TIMEOUT)

    assert "aftersale.E005" in errors()


def _with(**overrides) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    return {**env, "DJANGO_SETTINGS_MODULE": "config.settings", **overrides}


def test_manage_py_check_fails_with_a_clear_error_for_a_short_lease():
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=_with(AFTERSALE_EXECUTION_LEASE_SECONDS="20", PLATFORM_TIMEOUT="15"),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode != 0
    assert "aftersale.E002" in done.stderr
    assert "AFTERSALE_EXECUTION_LEASE_SECONDS (20) must be longer than PLATFORM_TIMEOUT (15)" in done.stderr


def test_a_worker_with_a_short_lease_refuses_to_start_and_says_why():
    done = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "none", "-c", "1"]
        + ["--without-heartbeat", "--without-gossip", "--without-mingle", "-n", f"misconfigured-{os.getpid()}@%h"],
        cwd=ROOT,
        env=_with(AFTERSALE_EXECUTION_LEASE_SECONDS="20", PLATFORM_TIMEOUT="15", CELERY_BROKER_URL="memory://"),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode != 0
    assert "TripDesk worker misconfigured: aftersale.E002" in done.stderr
