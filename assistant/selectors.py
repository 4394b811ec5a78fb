"""The assistant's reads."""

from django.db.models import QuerySet

from assistant.models import Conversation, Turn


def conversation_latest(*, user) -> Conversation | None:
    return Conversation.objects.filter(user=user).order_by("-updated_at").first()


def conversation_turns(*, user, conversation_id) -> QuerySet[Turn]:
    """The turns of one of the user's conversations, oldest first (empty for anyone else's)."""
    return Turn.objects.filter(conversation_id=conversation_id, user=user).order_by("created_at", "id")


def conversation_history(*, user, conversation_id, limit: int) -> list[Turn]:
    """The last `limit` answered turns of the user's conversation, oldest first (for channel 2's context)."""
    turns = Turn.objects.filter(conversation_id=conversation_id, user=user).order_by("-created_at", "-id")[:limit]
    return list(reversed(turns))
