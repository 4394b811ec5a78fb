"""System checks of the after-sale app: the execution lease outlasts anything a live executor may still be doing.

A takeover claims a ticket whose lease expired. That is only safe when no executor holding the ticket can still be
alive then, i.e. when everything an execution does is bounded below the lease:

- a supplier call is killed at PLATFORM_TIMEOUT (and dies with its worker: `bookings.supplier_program._spawn`, or the warm
  sandbox's zygote, `bookings/sandbox/zygote.py`);
- the whole execution task is killed at its hard time limit, derived here from the lease (`execution_time_limits`),
  and its soft limit leaves room for its two supplier calls (the check for an earlier refund, the refund);
- the booking cancel's claim outlasts the platform worker's answer.

Run by `manage.py check` (and migrate, runserver) and by every Celery worker at start-up, which refuses to start on
an error (`refuse_to_start_misconfigured`, connected in `AftersaleConfig.ready`).
"""

import logging

from django.core import checks

from aftersale import conf
from aftersale.lease import (
    EXECUTION_LEASE_MARGIN_SECONDS,
    SUPPLIER_CALLS_PER_EXECUTION,
    minimum_lease,
)
from aftersale.tasks import execute_ticket
from bookings.platform import WORKER_WAIT_MARGIN_SECONDS
from bookings.services.cancel import CANCEL_LEASE_MARGIN_SECONDS
from bookings.tasks import platform_command

logger = logging.getLogger("aftersale.checks")


def _limits_of(task) -> tuple[float | None, float | None]:
    default_soft, default_hard = conf.celery_task_time_limits()
    return task.soft_time_limit or default_soft, task.time_limit or default_hard


@checks.register()
def execution_lease_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Errors when the execution lease could end while an executor (or its supplier call) is still alive."""
    lease = float(conf.execution_lease_seconds())
    timeout = float(conf.platform_timeout())
    errors: list[checks.CheckMessage] = []
    if timeout <= 0:
        errors.append(checks.Error(f"PLATFORM_TIMEOUT must be positive, not {timeout:g}", id="aftersale.E001"))
    if lease <= timeout + EXECUTION_LEASE_MARGIN_SECONDS:
        errors.append(
            checks.Error(
                f"AFTERSALE_EXECUTION_LEASE_SECONDS ({lease:g}) must be longer than PLATFORM_TIMEOUT ({timeout:g}) "
                f"plus a margin of {EXECUTION_LEASE_MARGIN_SECONDS} s: a takeover could run beside a supplier "
                "call that is still alive",
                hint=f"set AFTERSALE_EXECUTION_LEASE_SECONDS to {minimum_lease(timeout):g} or more",
                id="aftersale.E002",
            )
        )
    soft, hard = _limits_of(execute_ticket)
    if hard is None or hard >= lease:
        errors.append(
            checks.Error(
                f"the execution task's hard time limit ({hard}) must be shorter than the execution lease "
                f"({lease:g} s): a live executor could lose its ticket to a takeover",
                hint="leave the limits of aftersale.tasks.execute_ticket derived from the lease",
                id="aftersale.E003",
            )
        )
    elif soft is None or soft >= hard or soft <= SUPPLIER_CALLS_PER_EXECUTION * timeout:
        errors.append(
            checks.Error(
                f"the execution task's soft time limit ({soft}) must come before its hard limit ({hard}) and leave "
                f"room for {SUPPLIER_CALLS_PER_EXECUTION} supplier calls of up to PLATFORM_TIMEOUT ({timeout:g} s)",
                hint=f"set AFTERSALE_EXECUTION_LEASE_SECONDS to {minimum_lease(timeout):g} or more",
                id="aftersale.E004",
            )
        )
    platform_hard = platform_command.time_limit
    if platform_hard is None or platform_hard <= timeout:
        errors.append(
            checks.Error(
                f"the platform task's hard time limit ({platform_hard}) must be longer than PLATFORM_TIMEOUT "
                f"({timeout:g} s), so the call's own timeout (and its clean kill) comes first",
                id="aftersale.E005",
            )
        )
    if CANCEL_LEASE_MARGIN_SECONDS <= WORKER_WAIT_MARGIN_SECONDS:
        errors.append(
            checks.Error(
                f"the booking cancel claim (PLATFORM_TIMEOUT + {CANCEL_LEASE_MARGIN_SECONDS} s) must outlast the wait "
                f"for the platform worker (PLATFORM_TIMEOUT + {WORKER_WAIT_MARGIN_SECONDS} s)",
                id="aftersale.E006",
            )
        )
    return errors


def refuse_to_start_misconfigured(**kwargs) -> None:
    """Celery `worker_init`: a worker whose lease and time limits do not fit exits at once, saying why.

    (Celery runs Django's checks at start-up but ignores their result, and swallows exceptions of signal handlers;
    SystemExit is not swallowed.)"""
    errors = [e for e in execution_lease_check() if e.is_serious()]
    if errors:
        text = "; ".join(f"{e.id}: {e.msg}" for e in errors)
        logger.critical("refusing to start the worker: %s", text)
        raise SystemExit(f"TripDesk worker misconfigured: {text}")
