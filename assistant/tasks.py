"""Celery tasks of the assistant: the beat's sweep of pending actions left in flight."""

from celery import shared_task

from assistant.actions import pending_actions_settle_stalled


# The beat task (ASSISTANT_ACTION_SWEEP_SECONDS): safe at any count and overlap (each action has one taker); its
# supplier calls run in this worker (no task waits on another) and it is not retried: the next beat is the retry.
@shared_task(name="assistant.tasks.settle_stalled_actions", max_retries=0)
def settle_stalled_actions() -> dict:
    """Settle the pending actions whose execution was left in flight by a process that died."""
    return pending_actions_settle_stalled()
