"""Where a write waits for the traveller's yes: keeping a pending action, and telling the registry whether the call
it is asked to run is an action being carried out right now. The registry needs only this; carrying an action out
(which runs the registry) is `assistant.actions`."""

import datetime as dt
import json
import logging
import uuid

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from assistant import conf
from assistant.models import Conversation, PendingAction, PendingActionStatus
from core.envelope import Code
from core.errors import ApplicationError

logger = logging.getLogger("assistant.actions")


def plain(value):
    """`value` as JSON data (dates, Decimals as text), as it is stored and as the registry validates it again."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False))


def as_uuid(value) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def pending_action_create(
    *, user, conversation_id, tool: str, arguments: dict, preview: dict, turn_id: str = ""
) -> PendingAction:
    """Keep a write for the traveller to confirm; the conversation's older open action is superseded in the same
    transaction (one open action per conversation, which a partial unique index also enforces).

    Raises ApplicationError PERMISSION_DENIED when the conversation is not the user's. A conversation that has no
    row yet (a turn's new conversation, written with its first turn) is inserted here for the user: the action
    needs it.
    """
    conversation_pk = as_uuid(conversation_id)
    owner = _owner(conversation_pk)
    if conversation_pk is not None and owner is None:
        Conversation.objects.bulk_create([Conversation(pk=conversation_pk, user=user)], ignore_conflicts=True)
        owner = _owner(conversation_pk)
    if owner is None or owner != user.pk:
        raise ApplicationError(Code.PERMISSION_DENIED, "a confirmation belongs to one of the traveller's conversations")
    values = {
        "user": user,
        "conversation_id": conversation_pk,
        "tool": tool,
        "arguments": plain(arguments),
        "preview": plain(preview),
        "turn_id": str(turn_id or "")[:64],
    }
    for attempt in range(2):  # two requests of one conversation at once: the unique index tells; supersede again
        try:
            with transaction.atomic():
                now = timezone.now()
                PendingAction.objects.filter(
                    conversation_id=conversation_pk, status=PendingActionStatus.PENDING
                ).update(status=PendingActionStatus.SUPERSEDED, decided_at=now)
                action = PendingAction.objects.create(
                    **values, expires_at=now + dt.timedelta(seconds=conf.pending_action_ttl())
                )
        except IntegrityError:
            if attempt:
                raise
            continue
        logger.info(
            "pending action created",
            extra={
                "pending_id": str(action.pk),
                "tool": tool,
                "user_id": user.pk,
                "conversation": str(conversation_pk),
            },
        )
        return action
    raise AssertionError("unreachable")


def _owner(conversation_pk) -> int | None:
    """The user id of the conversation with that id, None when there is none (or no id)."""
    if conversation_pk is None:
        return None
    return Conversation.objects.filter(pk=conversation_pk).values_list("user_id", flat=True).first()


def pending_action_executing(*, user, pending_id, tool: str, arguments: dict) -> bool:
    """Whether `pending_id` names this user's action for this tool and these arguments, claimed for execution
    now (the registry's check of `ToolContext.confirmed_action`)."""
    pk = as_uuid(pending_id)
    if pk is None or not getattr(user, "pk", None):
        return False
    action = PendingAction.objects.filter(
        pk=pk, user_id=user.pk, tool=tool, status=PendingActionStatus.EXECUTING
    ).first()
    return action is not None and action.arguments == plain(arguments)
