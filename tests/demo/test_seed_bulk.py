"""`manage.py seed_bulk`: realistic bulk rows with `BULK-` natural keys, added only where absent; and the catalogue
query keeps its results whatever index serves it."""

import datetime as dt
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db.models import Count, Q
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderEvent, OrderStatus, TicketEvent, TicketKind, TicketStatus
from bookings.models import BookingEvent, BookingRecord
from demo.bulk import BulkPlan, bulk_activity_fields, bulk_seed
from demo.catalogue import demo_activity_data
from itinerary.models import Activity, InterestProfile
from itinerary.selectors import ActivityQuery, activity_search
from itinerary.tagging import system_tags_for
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

SMALL = {"activities": 120, "users": 8, "orders": 30, "bookings": 20, "tickets": 20}


def seed(**counts) -> str:
    out = StringIO()
    options = {key: value for key, value in {**SMALL, **counts}.items()}
    call_command("seed_bulk", stdout=out, **options)
    return out.getvalue()


def bulk_counts() -> dict[str, int]:
    return {
        "users": get_user_model().objects.filter(username__startswith="bulk-user-").count(),
        "activities": Activity.objects.filter(title__contains=" · BULK-").count(),
        "orders": BizOrder.objects.filter(order_id__startswith="ORD-BULK-").count(),
        "bookings": BookingRecord.objects.filter(booking_id__startswith="BK-BULK-").count(),
        "tickets": HitlTicket.objects.filter(ticket_no__startswith="T-BULK-").count(),
    }


# -- what it creates ------------------------------------------------------------------------------------------------


def test_it_creates_the_asked_counts_and_prints_them_with_the_time():
    out = seed()

    assert bulk_counts() == SMALL
    assert re.search(r"activities\s+120 created,\s+0 already present", out)
    assert re.search(r"Done: \d+ bulk rows created in [\d.]+ s\.", out)


def test_counts_default_in_proportion_to_the_catalogue():
    plan = BulkPlan.for_activities(100_000)

    assert (plan.users, plan.orders, plan.bookings, plan.tickets) == (2_500, 20_000, 10_000, 5_000)


def test_activities_are_varied_rows_of_the_demo_destinations_with_their_system_tags():
    seed()
    activities = list(Activity.objects.filter(title_zh_hans__contains=" · BULK-"))
    today = timezone.localdate()
    places = {(entry["city"], entry["province"]) for entry in demo_activity_data()}

    assert all((a.city, a.province) in places for a in activities)
    assert all(a.system_tags == system_tags_for(a.title_zh_hans, a.tags) for a in activities)
    assert all(today - dt.timedelta(days=45) <= a.start_date <= a.end_date for a in activities)
    assert max(a.end_date for a in activities) > today + dt.timedelta(days=60)  # windows over the coming months
    assert len({a.city for a in activities}) >= 10
    assert len({a.price for a in activities}) >= 30
    assert len({a.title_zh_hans.split(" · ")[0] for a in activities}) >= 90
    assert all(a.price >= Decimal("50") for a in activities)


def test_a_bulk_activity_is_the_same_for_the_same_number_and_day():
    day = dt.date(2026, 12, 1)

    assert bulk_activity_fields(7, today=day) == bulk_activity_fields(7, today=day)
    assert bulk_activity_fields(7, today=day)["title_zh_hans"].endswith(" · BULK-0000007")
    assert bulk_activity_fields(7, today=day)["title_zh_hans"] != bulk_activity_fields(8, today=day)["title_zh_hans"]


def test_orders_bookings_and_tickets_belong_to_bulk_users_and_each_has_its_event():
    seed()
    bulk_users = set(get_user_model().objects.filter(username__startswith="bulk-user-").values_list("pk", flat=True))

    assert set(BizOrder.objects.values_list("user_id", flat=True)) <= bulk_users
    assert set(BookingRecord.objects.values_list("user_id", flat=True)) <= bulk_users
    assert set(HitlTicket.objects.values_list("requested_by_id", flat=True)) <= bulk_users
    assert InterestProfile.objects.filter(user_id__in=bulk_users).count() == len(bulk_users)
    assert OrderEvent.objects.count() == BizOrder.objects.count()
    assert BookingEvent.objects.count() == BookingRecord.objects.count()
    assert TicketEvent.objects.count() == HitlTicket.objects.count()
    assert not get_user_model().objects.filter(pk__in=bulk_users).exclude(password__startswith="!").exists()


def test_bulk_orders_agree_with_their_items_and_their_tickets_with_their_orders():
    seed()

    for order in BizOrder.objects.all():
        assert order.amount == sum(Decimal(str(item["price"])) * item["qty"] for item in order.items)
        if order.activity_id:
            assert order.items[0]["name"] == order.activity.title_zh_hans
    for ticket in HitlTicket.objects.filter(kind=TicketKind.WORKFLOW).select_related("order"):
        assert (ticket.entity, ticket.amount, ticket.requested_by_id) == (
            ticket.order.order_id,
            ticket.order.amount,
            ticket.order.user_id,
        )
        done = ticket.order.status in {OrderStatus.REFUNDED, OrderStatus.RETURNED}
        assert (ticket.status == TicketStatus.EXECUTED) == done
    assert HitlTicket.objects.filter(kind=TicketKind.CHECKPOINT).exists()  # every tenth, about a booking


def test_the_console_has_pending_overdue_and_flagged_bulk_tickets():
    seed(orders=200, tickets=200)
    tickets = HitlTicket.objects.filter(ticket_no__startswith="T-BULK-")

    assert tickets.filter(status=TicketStatus.PENDING, deadline__lt=timezone.now()).exists()
    assert tickets.filter(status=TicketStatus.PENDING, deadline__gt=timezone.now()).exists()
    assert tickets.filter(flagged=True).exists()
    assert tickets.values("status").annotate(n=Count("id")).count() >= 5


# -- idempotent --------------------------------------------------------------------------------------------------


def test_running_it_twice_adds_nothing_and_changes_nothing():
    seed()
    before = bulk_counts()
    snapshot = list(Activity.objects.order_by("pk").values_list("pk", "title", "price", "updated_at"))

    out = seed()

    assert bulk_counts() == before
    assert list(Activity.objects.order_by("pk").values_list("pk", "title", "price", "updated_at")) == snapshot
    assert "Done: 0 bulk rows created" in out


def test_asking_for_more_adds_only_the_difference():
    seed()
    first = set(Activity.objects.values_list("pk", flat=True))

    out = seed(activities=150, orders=40)

    assert bulk_counts() == {**SMALL, "activities": 150, "orders": 40}
    assert first < set(Activity.objects.values_list("pk", flat=True))
    assert re.search(r"activities\s+30 created,\s+120 already present", out)


def test_a_missing_row_in_the_middle_is_filled_again():
    seed()
    Activity.objects.filter(title__endswith=" · BULK-0000042").delete()

    bulk_seed(BulkPlan(**SMALL))

    assert Activity.objects.filter(title__endswith=" · BULK-0000042").count() == 1
    assert bulk_counts()["activities"] == 120


def test_other_rows_are_left_alone():
    demo = ActivityFactory(title="赛里木湖环湖骑行一日游")

    seed()

    assert Activity.objects.filter(pk=demo.pk, title="赛里木湖环湖骑行一日游").exists()
    assert Activity.objects.count() == SMALL["activities"] + 1


@pytest.mark.parametrize(
    "counts, message",
    [
        ({"tickets": 50, "orders": 10}, "--tickets ≤ --orders"),
        ({"activities": -1}, "negative"),
        ({"users": 0}, "at least one bulk user"),
    ],
)
def test_impossible_counts_are_refused_and_nothing_is_written(counts, message):
    with pytest.raises(CommandError, match=message):
        seed(**counts)

    assert bulk_counts() == dict.fromkeys(SMALL, 0)


# -- the catalogue query returns what the plain icontains conditions return -----------------------------------------


def _reference(query: ActivityQuery) -> list[int]:
    """The catalogue query as written before its index: plain icontains conditions (on both titles, Chinese and
    English), no narrowing."""
    qs = Activity.objects.filter(is_published=True)
    if query.keywords:
        match = Q()
        for word in query.keywords:
            match |= (
                Q(title_zh_hans__icontains=word)
                | Q(title_en__icontains=word)
                | Q(city__icontains=word)
                | Q(province__icontains=word)
                | Q(tags__icontains=word)
            )
        qs = qs.filter(match)
    if query.province:
        qs = qs.filter(province=query.province)
    if query.city:
        qs = qs.filter(Q(city=query.city) | Q(title_zh_hans__icontains=query.city) | Q(title_en__icontains=query.city))
    qs = qs.filter(start_date__lte=query.date_end, end_date__gte=query.date_start)
    if query.max_price is not None:
        qs = qs.filter(price__lte=Decimal(query.max_price))
    return list(qs.order_by("-popularity", "price", "id").values_list("id", flat=True))


SEARCHES = [
    {"keywords": ["大理"]},
    {"keywords": ["赛里木湖"]},
    {"keywords": ["新疆"]},
    {"keywords": ["湖"]},  # one character: no bigram, the plain conditions alone
    {"keywords": ["west lake"]},  # case-insensitive, ASCII
    {"keywords": ["WEST"]},
    {"keywords": ["straße"]},
    {"keywords": ["100%"]},  # LIKE wildcards are literal
    {"keywords": ["a_b"]},
    {"keywords": ["博乐新疆"]},  # city and province side by side is not a match
    {"keywords": ['", "']},  # the tags' JSON text, as the icontains condition sees it on PostgreSQL
    {"keywords": ["洱海", "赛里木湖"], "max_price": 900},
    {"keywords": ["大理"], "date_start": dt.date(2026, 12, 20), "date_end": dt.date(2026, 12, 22)},
    {"city": "杭州"},
    {"city": "大理", "max_price": 500},
    {"province": "云南", "max_price": 1500, "date_start": dt.date(2026, 12, 5), "date_end": dt.date(2026, 12, 9)},
    {},
]


@pytest.fixture
def tricky_catalogue():
    seed(activities=300, users=1, orders=0, bookings=0, tickets=0)
    day = dt.date(2026, 12, 1)
    for title, city, province, tags in [
        ("West Lake night walk", "杭州", "浙江", ["夜游"]),
        ("西湖 WEST LAKE 骑行", "杭州", "浙江", ["骑行"]),
        ("Straße der Teeplantagen", "杭州", "浙江", ["茶"]),
        ("100%纯玩大理一日游", "大理", "云南", ["一日游"]),
        ("a_b 测试团", "大理", "云南", []),
        ("苍山徒步", "大理", "云南", ["大理", "徒步"]),  # the keyword only in a tag
        ("洱海骑行", "大理", "云南", ["骑行"]),
        ("丽江古城到大理的自驾", "丽江", "云南", ["自驾"]),  # the city in another city's title
    ]:
        ActivityFactory(
            title=title,
            city=city,
            province=province,
            tags=tags,
            price=Decimal("450"),
            start_date=day - dt.timedelta(days=3),
            end_date=day + dt.timedelta(days=40),
        )


@pytest.mark.parametrize("search", SEARCHES, ids=[str(s) for s in SEARCHES])
def test_the_catalogue_query_returns_exactly_what_the_plain_conditions_return(tricky_catalogue, search):
    query = ActivityQuery.build(today=dt.date(2026, 12, 1), **search)
    expected = _reference(query)

    assert list(activity_search(query).values_list("id", flat=True)) == expected
    assert expected or search == {"keywords": ["博乐新疆"]}  # each search finds something to compare
