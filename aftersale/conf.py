"""The settings the after-sale app reads, in one place, each read when it is asked for (so a test's `settings`
override, or a changed environment in a new process, holds). Its own (`AFTERSALE_*`) and the others it depends on:
the site's time zone, the supplier's call timeout (bookings') and Celery's default task time limits."""

from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings


def ticket_ttl() -> timedelta:
    """How long a ticket waits for an approver before it times out (AFTERSALE_TICKET_TTL_HOURS)."""
    return timedelta(hours=settings.AFTERSALE_TICKET_TTL_HOURS)


def execution_lease_seconds():
    """How long one worker holds an approved ticket's execution before another may take it over
    (AFTERSALE_EXECUTION_LEASE_SECONDS)."""
    return settings.AFTERSALE_EXECUTION_LEASE_SECONDS


def default_approval_limit() -> Decimal:
    """The most an approver may approve alone when no limit is set for them or their groups
    (AFTERSALE_APPROVAL_LIMIT, yuan)."""
    return Decimal(settings.AFTERSALE_APPROVAL_LIMIT)


def four_eyes_above() -> Decimal:
    """Above this amount (AFTERSALE_FOUR_EYES_ABOVE, yuan) two different approvers approve before anything runs."""
    return Decimal(settings.AFTERSALE_FOUR_EYES_ABOVE)


def return_address() -> str:
    """Where an approved return's item is sent back (AFTERSALE_RETURN_ADDRESS)."""
    return settings.AFTERSALE_RETURN_ADDRESS


def site_zone() -> ZoneInfo:
    """The site's time zone (TIME_ZONE): the policy's days are the site's days."""
    return ZoneInfo(settings.TIME_ZONE)


def platform_timeout():
    """One supplier call's timeout (PLATFORM_TIMEOUT, the bookings app's): an execution's lease must outlast it."""
    return settings.PLATFORM_TIMEOUT


def celery_task_time_limits() -> tuple:
    """Celery's default (soft, hard) task time limits (CELERY_TASK_SOFT_TIME_LIMIT / CELERY_TASK_TIME_LIMIT), None
    where unset."""
    return getattr(settings, "CELERY_TASK_SOFT_TIME_LIMIT", None), getattr(settings, "CELERY_TASK_TIME_LIMIT", None)
