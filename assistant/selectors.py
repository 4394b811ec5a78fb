"""The assistant's reads."""

import logging
import threading
import time

from django.db import DatabaseError
from django.db.models import Case, Count, F, Max, OuterRef, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce, Concat, Length, Replace, Substr
from django.db.models.lookups import GreaterThan

from assistant.models import Conversation, Turn
from assistant.pending import as_uuid
from itinerary.selectors import catalogue_place_names

logger = logging.getLogger(__name__)


def _with_last_active(conversations: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """`conversations` with `last_active`: the time of its latest turn (its creation while it has none). Derived
    from the turns, so a turn writes no conversation row to keep it."""
    return conversations.annotate(last_active=Coalesce(Max("turns__created_at"), F("created_at")))


def conversation_latest(*, user) -> Conversation | None:
    return _with_last_active(Conversation.objects.filter(user=user)).order_by("-last_active", "-created_at").first()


def conversation_turns(*, user, conversation_id) -> QuerySet[Turn]:
    """The turns of one of the user's conversations, oldest first (empty for anyone else's)."""
    return Turn.objects.filter(conversation_id=conversation_id, user=user).order_by("created_at", "id")


# A conversation's title: its first message, on one line, cut to this many characters (the last one an ellipsis).
CONVERSATION_TITLE_CHARS = 40


def _conversation_title():
    """The title expression: the first message of the conversation (a subquery), newlines as spaces, cut."""
    first = Subquery(
        Turn.objects.filter(conversation=OuterRef("pk")).order_by("created_at", "id").values("message")[:1]
    )
    head = Substr(first, 1, CONVERSATION_TITLE_CHARS + 1)  # one more than shown: says whether it was cut
    return Replace(Replace(head, Value("\r\n"), Value(" ")), Value("\n"), Value(" "))


def _with_title(conversations: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """`conversations` with `turn_count` and `title` (its first message, cut to CONVERSATION_TITLE_CHARS with "…";
    "" for a conversation without turns), in the one query that reads them."""
    return (
        _with_last_active(conversations)
        .annotate(turn_count=Count("turns"), first_message=_conversation_title())
        .annotate(
            title=Case(
                When(
                    GreaterThan(Length("first_message"), CONVERSATION_TITLE_CHARS),
                    then=Concat(Substr(F("first_message"), 1, CONVERSATION_TITLE_CHARS - 1), Value("…")),
                ),
                default=Coalesce(F("first_message"), Value("")),
            )
        )
    )


def conversations_for_user(*, user) -> QuerySet[Conversation]:
    """The user's conversations that have a turn, the most recently active first (`last_active`), each with `title`
    and `turn_count`: one query for any slice of it. An empty conversation (a "New conversation" not used yet) is
    left out."""
    return (
        _with_title(Conversation.objects.filter(user=user))
        .filter(turn_count__gt=0)
        .order_by("-last_active", "-created_at", "-pk")
    )


def conversation_get(*, user, conversation_id) -> Conversation | None:
    """One of the user's conversations, with `title` and `turn_count` as in the list; None for an unknown, malformed
    or someone else's id alike."""
    pk = as_uuid(conversation_id)
    if pk is None:
        return None
    return _with_title(Conversation.objects.filter(user=user, pk=pk)).first()


def conversation_history(*, user, conversation_id, limit: int) -> list[Turn]:
    """The last `limit` answered turns of the user's conversation, oldest first (for channel 2's context)."""
    turns = Turn.objects.filter(conversation_id=conversation_id, user=user).order_by("-created_at", "-id")[:limit]
    return list(reversed(turns))


# The catalogue's place names for the understanding engine, kept per process for a short while: they change when an
# editor publishes an activity somewhere new, which may take this long to be understood by name.
CATALOGUE_PLACES_TTL = 300.0
_catalogue_places: tuple[float, tuple[str, ...]] | None = None
_catalogue_places_lock = threading.Lock()


def catalogue_places() -> tuple[str, ...]:
    """The cities and provinces of the published catalogue (for `UnderstandContext.places`), cached per process for
    CATALOGUE_PLACES_TTL seconds; the same tuple is handed out until then, so the engine reuses its gazetteer.
    () when the database cannot say (no table yet, no database access), and that is not cached."""
    global _catalogue_places
    cached = _catalogue_places
    now = time.monotonic()
    if cached is not None and now - cached[0] < CATALOGUE_PLACES_TTL:
        return cached[1]
    with _catalogue_places_lock:
        cached = _catalogue_places
        if cached is not None and now - cached[0] < CATALOGUE_PLACES_TTL:
            return cached[1]
        try:
            places = tuple(catalogue_place_names())
        except (DatabaseError, RuntimeError):  # no table yet (first migrate), or no database access (some tests)
            logger.warning("the catalogue's place names could not be read; understanding without them")
            return cached[1] if cached is not None else ()
        _catalogue_places = (now, places)
        return places


def catalogue_places_forget() -> None:
    """Drop the cached place names (after a catalogue change, or between tests)."""
    global _catalogue_places
    _catalogue_places = None
