"""The one state-transition helper: a locked row moves only along its declared table, with an event row.

    @transaction.atomic
    def booking_transition(*, booking_id, to_status, actor=None, reason=""):
        booking = booking_lock(booking_id=booking_id)
        return transition(booking, to_status=to_status, table=BOOKING_TRANSITIONS, event_model=BookingEvent,
                          actor=actor, reason=reason)

The caller locks the row (one lock helper per model) inside the atomic block it opens; this helper checks the move,
writes the event and saves the status with any extra fields.
"""

from collections.abc import Mapping
from typing import Any

from django.db import models, transaction

from core.errors import ApplicationError


class TransitionRefused(ApplicationError):
    default_code = "INVALID_TRANSITION"


def transition(
    row: models.Model,
    *,
    to_status: str,
    table: Mapping[str, set[str]],
    event_model: type[models.Model],
    actor: Any = None,
    reason: str = "",
    fields: Mapping[str, Any] | None = None,
    error: type[ApplicationError] = TransitionRefused,
    error_code: str | None = None,
    event_fields: Mapping[str, Any] | None = None,
) -> models.Model:
    """Move a row locked by the caller to `to_status`, with an event row; `fields` are saved with it,
    `event_fields` go on the event (who else acted: e.g. the supplier as its source).

    Raises `error(error_code)` when `table` does not allow the move. Must run inside the caller's atomic block.
    """
    if not transaction.get_connection(row._state.db).in_atomic_block:
        raise RuntimeError("transition() must run inside the transaction that locked the row")
    from_status = row.status
    if to_status not in table.get(from_status, ()):
        raise error(error_code, f"{row} is {from_status}, not movable to {to_status}")
    event_model.objects.create(
        **{event_model.SUBJECT_FIELD: row},
        from_status=from_status,
        to_status=to_status,
        actor=actor if getattr(actor, "pk", None) else None,
        reason=(reason or "")[:500],
        **(event_fields or {}),
    )
    row.status = to_status
    extra = dict(fields or {})
    for name, value in extra.items():
        setattr(row, name, value)
    update = ["status", *extra]
    if any(f.name == "updated_at" for f in row._meta.fields):
        update.append("updated_at")
    row.save(update_fields=update)
    return row


def record_creation(
    row: models.Model,
    *,
    event_model: type[models.Model],
    actor: Any = None,
    reason: str = "",
    event_fields: Mapping[str, Any] | None = None,
):
    """The first event of a new row (from nothing to its initial status)."""
    return event_model.objects.create(
        **{event_model.SUBJECT_FIELD: row},
        from_status="",
        to_status=row.status,
        actor=actor if getattr(actor, "pk", None) else None,
        reason=(reason or "")[:500],
        **(event_fields or {}),
    )
