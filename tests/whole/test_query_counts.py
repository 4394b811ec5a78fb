"""No N+1: the pages, APIs and turns that list rows cost the same few queries for one row or for many.

Each test measures a warm request with few rows, adds many, and asserts the request costs no more queries (and
never more than a fixed ceiling). The approval console's changelist has its own test in
tests/aftersale/test_console.py. At the end, on PostgreSQL: the catalogue query and the console's list can use the
expression indexes written for them (a renamed column or a changed ordering would silently stop matching them).
"""

import datetime as dt
from decimal import Decimal
from itertools import count

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from aftersale.models import BizOrder, HitlTicket, OrderCategory, TicketKind, TicketStatus
from assistant.models import Conversation, LLMCall, Turn
from assistant.services import chat_turn
from bookings.models import BookingRecord, SupplierAccount
from itinerary.models import Activity, InterestProfile
from itinerary.selectors import ActivityQuery, activity_search
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)
_numbers = count(1)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def new_user(prefix: str = "user"):
    return get_user_model().objects.create_user(username=f"{prefix}{next(_numbers)}", password="pass-1234")


def queries_of(do) -> int:
    with CaptureQueriesContext(connection) as captured:
        do()
    return len(captured.captured_queries)


def assert_same_cost(do, grow, *, ceiling: int, django_assert_max_num_queries) -> None:
    """`do()` costs at most what it cost before `grow()` added rows, and at most `ceiling`."""
    do()  # warm up: sessions, permissions, content types, cache entries
    few = queries_of(do)
    assert few <= ceiling, f"{few} queries for a few rows (ceiling {ceiling})"
    grow()
    with django_assert_max_num_queries(few):
        do()


# -- the chat's search turn --------------------------------------------------------------------------------------


def dali(n: int) -> list[Activity]:
    return [
        ActivityFactory(
            title=f"大理洱海骑行{next(_numbers)}",
            city="大理",
            province="云南",
            tags=["骑行", "湖泊", "摄影"],
            system_tags=["cycling", "lake", "photography"],
            start_date=TODAY - dt.timedelta(days=1),
            end_date=TODAY + dt.timedelta(days=60),
            popularity=n,
        )
        for n in range(n)
    ]


def test_a_search_turn_with_many_hits_costs_the_same_queries_as_with_few(django_assert_max_num_queries):
    traveller = new_user("traveller")
    InterestProfile.objects.create(
        user=traveller, scores={"cycling": 0.9, "lake": 0.5}, birth_date=dt.date(1990, 5, 1), gender="FEMALE"
    )
    dali(51)  # more than the re-ranking window (50): the turn reads 50 rows and counts the rest

    def turn():
        result = chat_turn(user=traveller, message="大理有什么活动", today=TODAY)
        assert result.outcome == "ANSWERED"

    # The ceiling allows for the database cache's queries (rate limit, slots) when no Redis is configured: 27
    # then, 11 with Redis.
    assert_same_cost(turn, lambda: dali(150), ceiling=30, django_assert_max_num_queries=django_assert_max_num_queries)

    with CaptureQueriesContext(connection) as captured:
        result = chat_turn(user=traveller, message="大理有什么活动", today=TODAY)
    catalogue = [q["sql"] for q in captured.captured_queries if "itinerary_" in q["sql"]]
    assert len(result.cards) == 6
    # One query: the first 50 rows in the catalogue's order, each carrying the count of them all (the viewer's
    # profile is in the cache since the first turn).
    assert len(catalogue) == 1 and "COUNT(" in catalogue[0] and "OVER ()" in catalogue[0]


# -- bookings: the page and the API --------------------------------------------------------------------------------


def bookings_for(user, n: int) -> None:
    for _ in range(n):
        number = next(_numbers)
        BookingRecord.objects.create(
            booking_id=f"BK2026120{number:06d}",
            user=user,
            biz_type="FLIGHT",
            external_order_no=f"FL{number}",
            status="CONFIRMED",
            amount=Decimal("880"),
            details={"from": "北京", "to": "成都", "date": "2026-12-10", "flightNo": "CA4101"},
        )


def test_my_bookings_page_costs_the_same_queries_for_many_bookings(client, django_assert_max_num_queries):
    traveller = new_user("traveller")
    bookings_for(traveller, 1)
    client.force_login(traveller)

    def page():
        assert client.get("/bookings/").status_code == 200

    assert_same_cost(
        page,
        lambda: bookings_for(traveller, 40),
        ceiling=8,
        django_assert_max_num_queries=django_assert_max_num_queries,
    )


def test_the_bookings_api_costs_the_same_queries_for_many_bookings(django_assert_max_num_queries):
    traveller = new_user("traveller")
    bookings_for(traveller, 1)
    api = APIClient()
    api.force_authenticate(traveller)

    def listing():
        response = api.get("/api/v1/bookings/")
        assert response.status_code == 200

    assert_same_cost(
        listing,
        lambda: bookings_for(traveller, 40),
        ceiling=4,
        django_assert_max_num_queries=django_assert_max_num_queries,
    )


# -- after-sale tickets: the API -----------------------------------------------------------------------------------


def tickets_for(user, n: int) -> None:
    for _ in range(n):
        number = next(_numbers)
        order = BizOrder.objects.create(
            order_id=f"ORD-9{number:05d}",
            user=user,
            category=OrderCategory.GOODS,
            items=[{"name": "登山杖", "qty": 1, "price": 129}],
            amount=Decimal("129"),
            status="DELIVERED",
            paid_at=timezone.now() - dt.timedelta(days=3),
            delivered_at=timezone.now() - dt.timedelta(days=1),
        )
        HitlTicket.objects.create(
            ticket_no=f"TQ{number:08d}",
            kind=TicketKind.WORKFLOW,
            idempotency_key=f"wfa:RETURN:{order.order_id}",
            action="RETURN",
            requested_by=user,
            order=order,
            entity=order.order_id,
            amount=order.amount,
            status=TicketStatus.PENDING,
            deadline=timezone.now() + dt.timedelta(hours=48),
        )


def test_the_tickets_api_costs_the_same_queries_for_many_tickets(django_assert_max_num_queries):
    traveller = new_user("traveller")
    tickets_for(traveller, 1)
    api = APIClient()
    api.force_authenticate(traveller)

    def listing():
        response = api.get("/api/v1/aftersale/tickets/")
        assert response.status_code == 200

    assert_same_cost(
        listing,
        lambda: tickets_for(traveller, 30),
        ceiling=4,
        django_assert_max_num_queries=django_assert_max_num_queries,
    )


# -- the other admin changelists (the tickets' own is tested in tests/aftersale/test_console.py) -------------------


def _booking(user):
    bookings_for(user, 1)


def _profile(user):
    InterestProfile.objects.create(user=user, scores={"food": 0.5})


def _turn(user):
    conversation = Conversation.objects.create(user=user)
    turn = Turn.objects.create(conversation=conversation, user=user, message="大理有什么活动", outcome="ANSWERED")
    LLMCall.objects.create(turn=turn, user=user, purpose="understand", provider="rules", model="rules", outcome="OK")


def _supplier_account(user):
    SupplierAccount.objects.create(user=user, api_key=f"sbx_{user.pk}")


def _order(user):
    tickets_for(user, 1)


def _activity(user):
    ActivityFactory()


CHANGELISTS = {
    "bookings/bookingrecord": _booking,
    "bookings/supplieraccount": _supplier_account,
    "itinerary/interestprofile": _profile,
    "itinerary/activity": _activity,
    "assistant/turn": _turn,
    "assistant/conversation": _turn,
    "assistant/llmcall": _turn,
    "aftersale/bizorder": _order,
}


@pytest.mark.parametrize("changelist", sorted(CHANGELISTS))
def test_an_admin_changelist_costs_the_same_queries_for_a_page_of_rows(
    client, admin_user, changelist, django_assert_max_num_queries
):
    """Every row's user (or other related row) comes with the page's query: `list_select_related`."""
    make = CHANGELISTS[changelist]
    make(new_user())
    client.force_login(admin_user)

    def page():
        assert client.get(f"/admin/{changelist}/").status_code == 200

    def grow():
        for _ in range(30):
            make(new_user())

    assert_same_cost(page, grow, ceiling=10, django_assert_max_num_queries=django_assert_max_num_queries)


# -- PostgreSQL: the expression indexes match the queries they were written for ------------------------------------


def plan_of(sql: str, params=(), *, settings_off: tuple[str, ...]) -> str:
    """EXPLAIN of a query with some plan types disabled (in this test's transaction only)."""
    with connection.cursor() as cursor:
        for setting in settings_off:
            cursor.execute(f"SET LOCAL {setting} = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.postgres
@pytest.mark.parametrize(
    "query",
    [
        {"keywords": ["大理"]},
        {"keywords": ["赛里木湖", "大理"], "max_price": 2000},
        {"city": "杭州"},
        {"keywords": ["cycling"]},
    ],
    ids=["two-character keyword", "two keywords and a budget", "city", "english keyword"],
)
def test_the_catalogue_query_can_use_the_bigram_index(query):
    dali(3)
    search = activity_search(ActivityQuery.build(today=TODAY, **query))
    sql, params = search.query.sql_with_params()

    # Without sequential and plain index scans, only the bigram GIN index can narrow the keyword conditions.
    plan = plan_of(sql, params, settings_off=("enable_seqscan", "enable_indexscan"))

    assert "activity_search_grams" in plan


@pytest.mark.postgres
@pytest.mark.parametrize("cheapest_first", [False, True], ids=["popular", "cheapest"])
def test_a_recommendation_walks_an_order_index_and_a_counted_search_cannot(cheapest_first):
    """A recommendation (no count) reads the catalogue in its order from an index and needs no sort; a search that
    counts its matches is not offered those indexes (its ORDER BY spells the NULLS placement differently), so it is
    never planned as a walk of the whole catalogue's order."""
    dali(3)
    index = "activity_cheapest" if cheapest_first else "activity_popular"
    query = ActivityQuery.build(today=TODAY, cheapest_first=cheapest_first)
    walked = activity_search(query, counted=False)[:50].query.sql_with_params()
    plan = plan_of(*walked, settings_off=("enable_sort", "enable_seqscan", "enable_bitmapscan"))
    assert index in plan and "Sort Key" not in plan

    searched = activity_search(ActivityQuery.build(today=TODAY, province="云南", cheapest_first=cheapest_first))
    plan = plan_of(*searched[:50].query.sql_with_params(), settings_off=("enable_sort", "enable_seqscan"))
    assert "Index" in plan and index not in plan


@pytest.mark.postgres
def test_the_console_list_reads_its_order_from_the_index(client, admin_user):
    traveller = new_user("traveller")
    tickets_for(traveller, 3)
    client.force_login(admin_user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/admin/aftersale/hitlticket/").status_code == 200
    [page_sql] = [
        q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT") and "ORDER BY CASE" in q["sql"]
    ]

    plan = plan_of(page_sql, settings_off=("enable_sort", "enable_seqscan"))

    assert "ticket_console_order" in plan
    assert "Sort Key" not in plan


@pytest.mark.postgres
def test_the_planner_knows_how_many_activities_hold_a_kind():
    """A kind filter (`UPPER(system_tags::text) LIKE '%"NATURE"%'`) is estimated from the statistics on that
    expression (migration itinerary 0008), not guessed as a tiny fixed share: with the guess PostgreSQL gathered a
    whole date window and sorted it (55 ms over 100,000 activities) instead of walking the popularity order until
    six matched (0.15 ms)."""
    kinds = [["nature", "hiking"], ["culture"], ["nature"], ["food", "culture"], ["beach"]]  # nature: 2 in 5
    Activity.objects.bulk_create(
        Activity(
            title=f"活动{n}",
            title_zh_hans=f"活动{n}",
            city="大理",
            province="云南",
            price=Decimal(100 + n % 900),
            start_date=TODAY,
            end_date=TODAY + dt.timedelta(days=30),
            system_tags=kinds[n % len(kinds)],
            popularity=n % 500,
        )
        for n in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE itinerary_activity")
    holding = Activity.objects.filter(system_tags__icontains='"nature"')
    sql, params = holding.query.sql_with_params()
    estimated = int(plan_of(sql, params, settings_off=()).split("rows=")[1].split()[0])

    assert holding.count() == 1200
    assert 600 <= estimated <= 2400, estimated
