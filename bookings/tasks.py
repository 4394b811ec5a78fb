"""Celery tasks of bookings: platform commands on the `platform` queue."""

from celery import shared_task

from bookings import conf
from bookings.platform import platform_call_for_user
from bookings.sync import bookings_sync_all


# Never retried, acknowledged on receipt: the caller waits for this one answer, so a second delivery would be of no
# use (and harmless: a command that changes something carries its idempotency key, added by the caller). The hard
# limit comes after PLATFORM_TIMEOUT, which kills the call first; killing the task kills the call with it (its
# parent-death signal). The result is kept; the user's key is loaded here, never sent via the broker.
@shared_task(
    name="bookings.tasks.platform_command",
    ignore_result=False,
    acks_late=False,
    max_retries=0,
    soft_time_limit=conf.platform_timeout() + 2,
    time_limit=conf.platform_timeout() + 5,
)
def platform_command(product: str, action: str, arguments: dict, user_id: int) -> dict:
    """Run one platform command for a user; a plain result, never a raised business error."""
    return platform_call_for_user(product=product, action=action, arguments=arguments, user_id=user_id)


# The beat task (BOOKING_SYNC_SECONDS): safe at any count and any overlap, every sync applies a state only once.
# It runs its supplier calls in this worker (no task waits on another) and is not retried: the next beat is the retry.
@shared_task(name="bookings.tasks.sync_bookings", max_retries=0)
def sync_bookings() -> dict:
    """Bring every open booking in step with the supplier (expired, cancelled or changed on its side)."""
    return bookings_sync_all()
