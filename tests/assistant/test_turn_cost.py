"""What one chat turn costs the database, statement by statement (issue 17): a search in an ongoing conversation is
its one catalogue query and the three rows of its record (Turn, the model call, the tool step), written in one
transaction with one commit; a refused turn (over the daily limit) writes and reads nothing.

Counted on PostgreSQL with Redis (the conversation's memory and the viewer's profile live there), through the chat
API as a traveller sends it. BEGIN / COMMIT are counted apart from the statements that read or write.
"""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from assistant.models import AgentStep, Conversation, LLMCall, Turn
from itinerary.models import InterestProfile
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")


def statements(captured) -> list[str]:
    """The statements that read or write, each as its verb and table ("SELECT itinerary_activity")."""
    found = []
    for query in captured.captured_queries:
        sql = query["sql"].strip()
        if sql.upper().startswith(TRANSACTION):
            continue
        table = TABLE.search(sql)
        found.append(f"{sql.split(None, 1)[0].upper()} {table.group(1) if table else '?'}")
    return found


TABLE = re.compile(r'(?:FROM|INTO|UPDATE)\s+"(\w+)"', re.I)


def commits(captured) -> int:
    return sum(1 for q in captured.captured_queries if q["sql"].strip().upper() == "COMMIT")


@pytest.fixture
def catalogue():
    for n in range(60):  # more than the re-ranking window: the count is not the length of what was read
        ActivityFactory(
            title=f"大理洱海骑行{n}",
            city="大理",
            province="云南",
            tags=["骑行", "湖泊"],
            system_tags=["cycling", "lake"],
            start_date=TODAY - dt.timedelta(days=1),
            end_date=TODAY + dt.timedelta(days=60),
            popularity=n,
        )


@pytest.fixture
def traveller(db):
    user = UserFactory()
    InterestProfile.objects.create(user=user, scores={"cycling": 0.9}, birth_date=dt.date(1990, 5, 1))
    return user


def say(client: APIClient, message: str, session: str | None = None) -> dict:
    body = {"message": message, **({"session_id": session} if session else {})}
    response = client.post("/api/v1/assistant/chat", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.django_db(transaction=True)  # real commits, counted as the production server makes them
def test_a_search_in_an_ongoing_conversation_is_one_catalogue_query_and_its_record_in_one_commit(catalogue, traveller):
    client = APIClient()
    client.force_authenticate(traveller)
    first = say(client, "大理有什么活动")
    assert first["outcome"] == "ANSWERED" and len(first["cards"]) == 6

    with CaptureQueriesContext(connection) as captured:
        again = say(client, "那下周呢", first["session_id"])

    assert again["outcome"] == "ANSWERED" and again["session_id"] == first["session_id"]
    assert again["cards"] and all(card["city"] == "大理" for card in again["cards"])
    assert statements(captured) == [
        "SELECT itinerary_activity",  # rows and their count, one scan
        "INSERT assistant_turn",
        "INSERT assistant_llmcall",
        "INSERT assistant_agentstep",
    ]
    assert commits(captured) == 1
    # The record is whole: two turns in one conversation, each with its model call and its tool step.
    conversation = Conversation.objects.get()
    turns = list(Turn.objects.order_by("id"))
    assert [t.conversation_id for t in turns] == [conversation.pk] * 2
    assert [t.llm_calls.count() for t in turns] == [1, 1]
    assert [list(t.steps.values_list("tool", flat=True)) for t in turns] == [["search_activities"]] * 2


@pytest.mark.django_db(transaction=True)
def test_the_first_turn_also_writes_its_conversation_in_the_same_commit(catalogue, traveller):
    client = APIClient()
    client.force_authenticate(traveller)

    with CaptureQueriesContext(connection) as captured:
        answer = say(client, "大理有什么活动")

    assert answer["outcome"] == "ANSWERED" and len(answer["cards"]) == 6
    assert statements(captured) == [
        "SELECT itinerary_interestprofile",  # the viewer's profile: once, then from the cache
        "SELECT itinerary_activity",
        "INSERT assistant_conversation",
        "INSERT assistant_turn",
        "INSERT assistant_llmcall",
        "INSERT assistant_agentstep",
    ]
    assert commits(captured) == 1
    assert str(Conversation.objects.get(user=traveller).pk) == answer["session_id"]


@pytest.mark.django_db
def test_a_recommendation_reads_the_catalogue_once_without_counting_it(catalogue, traveller):
    client = APIClient()
    client.force_authenticate(traveller)
    say(client, "大理有什么活动")

    with CaptureQueriesContext(connection) as captured:
        answer = say(client, "推荐点好玩的")  # a new conversation: no place to search

    assert answer["outcome"] == "ANSWERED" and answer["cards"]
    assert answer["intent"]["intent"] == "RECOMMEND"
    catalogue_reads = [q["sql"] for q in captured.captured_queries if "itinerary_activity" in q["sql"]]
    assert len(catalogue_reads) == 1 and "COUNT(" not in catalogue_reads[0]
    assert statements(captured).count("SELECT itinerary_activity") == 1


@pytest.mark.django_db
def test_a_turn_over_the_daily_limit_reads_and_writes_nothing(catalogue, traveller, settings):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1
    client = APIClient()
    client.force_authenticate(traveller)
    first = say(client, "大理有什么活动")
    before = (Turn.objects.count(), LLMCall.objects.count(), AgentStep.objects.count(), Conversation.objects.count())

    with CaptureQueriesContext(connection) as captured:
        refused = say(client, "那下周呢", first["session_id"])

    assert refused["outcome"] == "RATE_LIMITED" and refused["cards"] == []
    assert "1" in refused["reply"]  # the limit is named
    assert statements(captured) == []
    after = (Turn.objects.count(), LLMCall.objects.count(), AgentStep.objects.count(), Conversation.objects.count())
    assert after == before == (1, 1, 1, 1)


@pytest.mark.django_db
def test_a_saved_profile_is_read_again_by_the_next_search(catalogue, traveller):
    """The profile is kept in the cache between searches; saving it drops the kept copy, so the next search ranks
    by the new interests."""
    client = APIClient()
    client.force_authenticate(traveller)
    first = say(client, "大理有什么活动")
    assert all(card.get("suggested_for") == "cycling" for card in first["cards"])

    profile = InterestProfile.objects.get(user=traveller)
    profile.scores = {}
    profile.save()
    again = say(client, "大理有什么活动", first["session_id"])

    assert again["cards"] and not any(card.get("suggested_for") for card in again["cards"])


@pytest.mark.django_db
def test_a_signed_in_api_client_reads_its_saved_language_once_per_session(traveller):
    """An API client sends no language cookie: its saved language is read on its first request and kept in its
    session, not read again by every call."""
    from django.test import Client

    from core.models import LanguagePreference

    LanguagePreference.objects.create(user=traveller, language="en")
    client = Client()
    client.force_login(traveller)

    def bookings():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/api/v1/bookings/")
        assert response.status_code == 200 and response.headers["Content-Language"] == "en"
        return [s for s in statements(captured) if s.endswith("languagepreference")]

    assert bookings() == ["SELECT core_languagepreference"]
    assert bookings() == []
    assert bookings() == []


@pytest.mark.django_db
def test_the_daily_counter_is_one_key_that_expires_after_the_day(traveller, settings):
    """The rate limit counts in one round trip (INCR and EXPIRE NX together): the counter moves by one per turn and
    keeps the expiry its first turn set."""
    from django.core.cache import cache

    from assistant.ratelimit import TTL_SECONDS, turn_admitted

    settings.ASSISTANT_DAILY_TURN_LIMIT = 2
    key = f"ratelimit:turns:{traveller.pk}:{TODAY:%Y%m%d}"
    assert [turn_admitted(user_id=traveller.pk, today=TODAY) for _ in range(3)] == [True, True, False]
    assert cache.get(key) == 3
    redis_key = cache.make_and_validate_key(key)
    client = cache._cache.get_client(redis_key)
    assert TTL_SECONDS - 60 < client.ttl(redis_key) <= TTL_SECONDS
