"""A person when the traveller asks for one: hand-overs of a conversation to staff (services and selectors).

A request for a person ("转人工", "投诉", "talk to a human", or the chip the assistant offers after it failed twice)
opens one hand-over of the conversation (`handover_open`; asking again while it is held opens no second one). While
it is held (open or taken) the assistant stays quiet there: the chat turn records the traveller's message on the
hand-over (`handover_note`) and reads nothing, calls no tool, writes nothing else. Staff with the `answer_handover`
permission take it, answer it and close it from the admin (`handover_take`, `handover_reply`, `handover_close`);
each move writes a `HandoverEvent`. What staff write, and the word that the assistant is back, reach the traveller's
chat once (`handover_news` / `handover_news_shown`): in the next chat response and on the live part of the page.
"""

import uuid

from django.db import transaction
from django.db.models import Case, DateTimeField, F, IntegerField, Q, QuerySet, Value, When
from django.utils import timezone

from assistant.models import (
    HANDOVER_TRANSITIONS,
    Conversation,
    Handover,
    HandoverEvent,
    HandoverMessage,
    HandoverReason,
    HandoverStatus,
)
from core import live
from core.envelope import Code
from core.errors import ApplicationError
from core.transitions import transition

ANSWER_PERMISSION = "assistant.answer_handover"
MAX_BODY_CHARS = 4000


class HandoverError(ApplicationError):
    default_code = Code.INVALID_TRANSITION


# -- selectors -------------------------------------------------------------------------------------------------------


def handover_held(*, conversation_id) -> Handover | None:
    """The hand-over holding this conversation (open or taken), or None: the assistant answers."""
    if not conversation_id:
        return None
    return Handover.objects.filter(conversation_id=conversation_id).exclude(status=HandoverStatus.CLOSED).first()


# The queue's order: held hand-overs first, the longest waiting first; then the closed ones, the newest first.
_HELD = ~Q(status=HandoverStatus.CLOSED)
QUEUE_ORDER = (
    Case(When(_HELD, then=Value(0)), default=Value(1), output_field=IntegerField()).asc(),
    Case(When(_HELD, then=F("opened_at")), output_field=DateTimeField()).asc(),
    Case(When(_HELD, then=F("id")), output_field=IntegerField()).asc(),
    "-opened_at",
    "-id",
)


def handover_queue() -> QuerySet[Handover]:
    """Hand-overs for staff, in the queue's order (`QUEUE_ORDER`)."""
    return Handover.objects.select_related("user", "taken_by", "closed_by").order_by(*QUEUE_ORDER)


def handover_news(*, user, conversation_id=None) -> QuerySet[HandoverMessage]:
    """What staff wrote to this traveller (and the word that the assistant is back) not shown to them yet, oldest
    first; only this conversation's when one is named."""
    news = HandoverMessage.objects.filter(
        handover__user=user, role__in=(HandoverMessage.Role.STAFF, HandoverMessage.Role.BACK), shown_at__isnull=True
    ).select_related("author")
    if conversation_id:
        news = news.filter(handover__conversation_id=conversation_id)
    return news.order_by("created_at", "id")


def handover_replies(*, user, conversation_id) -> QuerySet[HandoverMessage]:
    """Everything staff wrote in one of the traveller's conversations (and each return of the assistant), oldest
    first: the conversation's history shows them with its turns."""
    return (
        HandoverMessage.objects.filter(
            handover__user=user,
            handover__conversation_id=conversation_id,
            role__in=(HandoverMessage.Role.STAFF, HandoverMessage.Role.BACK),
        )
        .select_related("author")
        .order_by("created_at", "id")
    )


def handover_news_shown(*, user, message_ids: list[int]) -> int:
    """Mark these messages shown to the traveller (each reaches the chat once); the number marked."""
    if not message_ids:
        return 0
    return HandoverMessage.objects.filter(pk__in=message_ids, handover__user=user, shown_at__isnull=True).update(
        shown_at=timezone.now()
    )


# -- services --------------------------------------------------------------------------------------------------------


def handover_lock(*, handover_id: int) -> Handover:
    try:
        return Handover.objects.select_for_update().get(pk=handover_id)
    except Handover.DoesNotExist:
        raise HandoverError(Code.NOT_FOUND, "There is no such hand-over.") from None


@transaction.atomic
def handover_open(
    *, user, conversation_id, words: str = "", reason: str = HandoverReason.ASKED
) -> tuple[Handover, bool]:
    """Hand the traveller's conversation to staff: (the hand-over, whether this call opened it). A conversation
    already held keeps its hand-over (no second row); its words are added as a message."""
    try:
        pk = uuid.UUID(str(conversation_id))
    except ValueError:
        raise HandoverError(Code.NOT_FOUND, "There is no such conversation.") from None
    Conversation.objects.bulk_create([Conversation(pk=pk, user=user)], ignore_conflicts=True)
    conversation = Conversation.objects.select_for_update().get(pk=pk)
    if conversation.user_id != user.pk:
        raise HandoverError(Code.NOT_FOUND, "There is no such conversation.")
    held = handover_held(conversation_id=pk)
    words = (words or "").strip()[:MAX_BODY_CHARS]
    if held is not None:
        if words:
            HandoverMessage.objects.create(handover=held, role=HandoverMessage.Role.TRAVELLER, author=user, body=words)
        return held, False
    handover = Handover.objects.create(conversation=conversation, user=user, reason=reason, words=words)
    HandoverEvent.objects.create(
        handover=handover, from_status="", to_status=HandoverStatus.OPEN, actor=user, reason=reason
    )
    if words:
        HandoverMessage.objects.create(handover=handover, role=HandoverMessage.Role.TRAVELLER, author=user, body=words)
    return handover, True


@transaction.atomic
def handover_note(*, handover_id: int, user, text: str) -> bool:
    """Record what the traveller wrote while a person holds the conversation; whether they should be told (once)
    that a person will answer."""
    handover = handover_lock(handover_id=handover_id)
    HandoverMessage.objects.create(
        handover=handover, role=HandoverMessage.Role.TRAVELLER, author=user, body=text[:MAX_BODY_CHARS]
    )
    if handover.told_waiting:
        return False
    Handover.objects.filter(pk=handover.pk).update(told_waiting=True)
    return True


@transaction.atomic
def handover_take(*, handover_id: int, staff) -> Handover:
    """A member of staff takes the hand-over (who answers it is on record)."""
    _check_staff(staff)
    handover = handover_lock(handover_id=handover_id)
    return transition(
        handover,
        to_status=HandoverStatus.TAKEN,
        table=HANDOVER_TRANSITIONS,
        event_model=HandoverEvent,
        actor=staff,
        fields={"taken_by": staff, "taken_at": timezone.now()},
        error=HandoverError,
    )


@transaction.atomic
def handover_reply(*, handover_id: int, staff, body: str) -> HandoverMessage:
    """Staff answer the traveller: the message reaches their chat. Answering an open hand-over takes it."""
    _check_staff(staff)
    body = (body or "").strip()
    if not body:
        raise HandoverError(Code.INVALID_PARAM, "Write a reply first.")
    handover = handover_lock(handover_id=handover_id)
    if not handover.held:
        raise HandoverError(Code.INVALID_TRANSITION, "This hand-over is closed: the assistant answers again.")
    if handover.taken_by_id is None:
        handover_take(handover_id=handover.pk, staff=staff)
    message = HandoverMessage.objects.create(
        handover=handover, role=HandoverMessage.Role.STAFF, author=staff, body=body[:MAX_BODY_CHARS]
    )
    live.changed(handover.user_id)  # the traveller's open chat shows it now (core.live)
    return message


@transaction.atomic
def handover_close(*, handover_id: int, staff, note: str = "") -> Handover:
    """Staff give the conversation back to the assistant: the next message is read as usual, and the traveller is
    told the assistant is back."""
    _check_staff(staff)
    handover = handover_lock(handover_id=handover_id)
    now = timezone.now()
    handover = transition(
        handover,
        to_status=HandoverStatus.CLOSED,
        table=HANDOVER_TRANSITIONS,
        event_model=HandoverEvent,
        actor=staff,
        reason=note,
        fields={"closed_by": staff, "closed_at": now},
        error=HandoverError,
    )
    HandoverMessage.objects.create(handover=handover, role=HandoverMessage.Role.BACK, author=staff)
    live.changed(handover.user_id)
    return handover


def _check_staff(staff) -> None:
    if not (staff and staff.is_active and staff.is_staff and staff.has_perm(ANSWER_PERMISSION)):
        raise HandoverError(Code.PERMISSION_DENIED, "Answering hand-overs needs the support permission.")
