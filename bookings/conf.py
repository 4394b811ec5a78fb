"""The Django settings the bookings app reads, in one place, read when asked (so a test's `settings` override holds).

Every setting of the app is a function here; the app's code calls these instead of reading `django.conf.settings`.
"""

from decimal import Decimal
from pathlib import Path

from django.conf import settings


def cancel_approval_above() -> Decimal:
    """The amount (yuan) above which cancelling a paid booking waits for an approver: BOOKINGS_CANCEL_APPROVAL_ABOVE."""
    return Decimal(str(settings.BOOKINGS_CANCEL_APPROVAL_ABOVE))


def options_shown() -> int:
    """How many options a search shows: BOOKING_OPTIONS_SHOWN."""
    return int(settings.BOOKING_OPTIONS_SHOWN)


def refresh_seconds():
    """How often a traveller's bookings are refreshed from the supplier: BOOKING_REFRESH_SECONDS."""
    return settings.BOOKING_REFRESH_SECONDS


def platform_timeout():
    """How long one supplier platform call may take (seconds): PLATFORM_TIMEOUT."""
    return settings.PLATFORM_TIMEOUT


def platform_cli() -> str:
    """The supplier CLI command, blank for the bundled sandbox: PLATFORM_CLI."""
    return (settings.PLATFORM_CLI or "").strip()


def platform_warm() -> bool:
    """Whether the sandbox CLI runs in a warm process (zygote): PLATFORM_WARM."""
    return settings.PLATFORM_WARM


def base_dir() -> Path:
    """The project's directory, the platform CLI's working directory: BASE_DIR."""
    return settings.BASE_DIR
