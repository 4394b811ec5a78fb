"""The catalogue use cases called from Python with a user: activity search, recommendation, detail, travel plan."""

import datetime as dt
from decimal import Decimal

import pytest

from core.envelope import Code
from itinerary.models import GenderRestriction, InterestProfile
from itinerary.services import (
    ActivityError,
    activity_detail,
    activity_recommend,
    activity_search_for,
)
from itinerary.travel_plans import DEFAULT_DAYS, travel_plan_for
from tests.factories import ActivityFactory, UserFactory

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)  # a Tuesday


def activity(title, city="大理", province="云南", *, start=TODAY, days=40, popularity=10, **extra):
    return ActivityFactory(
        title=title,
        city=city,
        province=province,
        start_date=start,
        end_date=start + dt.timedelta(days=days),
        popularity=popularity,
        **extra,
    )


@pytest.fixture
def bob():
    user = UserFactory(username="bob")
    InterestProfile.objects.create(
        user=user, scores={"hiking": 1.0}, birth_date=dt.date(1985, 1, 1), gender=GenderRestriction.MALE
    )
    return user


# --- search -------------------------------------------------------------------------------------------------------


def test_a_search_shows_what_the_traveller_may_join_their_interests_first_with_the_query_it_ran(bob):
    cycling = activity("大理洱海骑行", tags=["骑行"], system_tags=["cycling"], popularity=90)
    hiking = activity("大理苍山徒步", tags=["徒步"], system_tags=["hiking"], popularity=10)
    activity("大理女子瑜伽营", gender_restriction=GenderRestriction.FEMALE, popularity=99)
    activity("大理下架的团", is_published=False, popularity=99)
    activity("三亚冲浪课", "三亚", "海南", popularity=99)

    found = activity_search_for(user=bob, today=TODAY, keywords=["大理"])

    assert [a.pk for a in found.activities] == [hiking.pk, cycling.pk]
    assert found.total == 2 and found.shown == 2
    assert found.place == "大理"
    assert (found.query.date_start, found.query.date_end) == (TODAY, TODAY + dt.timedelta(days=30))
    assert found.query.defaulted_window and found.query.max_price is None


def test_a_keyword_search_keeps_the_province_asked_but_does_not_filter_by_it(alice):
    lake = activity("赛里木湖环湖骑行", "博乐", "新疆")

    found = activity_search_for(user=alice, today=TODAY, keywords=["赛里木湖"], province="云南", max_price=2000)

    assert [a.pk for a in found.activities] == [lake.pk]
    assert found.province == "云南" and found.query.province is None and found.query.max_price == 2000


def test_a_search_by_province_and_dates_uses_them_and_says_the_window_was_asked(alice):
    inside = activity("丽江古城夜游", "丽江", "云南", start=dt.date(2026, 12, 5), days=1)
    activity("丽江雪山一日游", "丽江", "云南", start=dt.date(2026, 12, 20), days=3)
    activity("丽江贵的团", "丽江", "云南", start=dt.date(2026, 12, 5), days=1, price=Decimal("5000"))

    found = activity_search_for(
        user=alice,
        today=TODAY,
        province="云南",
        date_start=dt.date(2026, 12, 5),
        date_end=dt.date(2026, 12, 6),
        max_price=3000,
    )

    assert [a.pk for a in found.activities] == [inside.pk]
    assert found.place == "云南" and not found.query.defaulted_window


def test_the_limit_caps_what_is_shown_not_the_total(alice):
    for n in range(8):
        activity(f"大理活动{n}")

    found = activity_search_for(user=alice, today=TODAY, city="大理", limit=3)

    assert (found.shown, found.total) == (3, 8)


def test_a_search_without_any_place_is_refused_before_any_query(alice, django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(ActivityError) as refused:
        activity_search_for(user=alice, today=TODAY, keywords=[], max_price=2000)

    assert refused.value.code == Code.INVALID_PARAM


# --- recommend ----------------------------------------------------------------------------------------------------


def test_recommendations_are_the_most_popular_open_activities_the_traveller_may_join(bob):
    popular = activity("三亚冲浪课", "三亚", "海南", popularity=80)
    second = activity("大理扎染", popularity=50)
    activity("女子徒步", gender_restriction=GenderRestriction.FEMALE, popularity=99)
    activity("下架的团", is_published=False, popularity=99)
    activity("明年的团", start=TODAY + dt.timedelta(days=60), popularity=99)

    found = activity_recommend(user=bob, today=TODAY)

    assert [a.pk for a in found.activities] == [popular.pk, second.pk]
    assert not found.asked_dates and found.query.defaulted_window


def test_recommendations_for_named_days_say_so(alice):
    activity("大理扎染", start=dt.date(2026, 12, 5), days=0)

    found = activity_recommend(user=alice, today=TODAY, date_start=dt.date(2026, 12, 5))

    assert found.asked_dates and len(found.activities) == 1
    assert (found.query.date_start, found.query.date_end) == (dt.date(2026, 12, 5), dt.date(2026, 12, 5))


# --- detail -------------------------------------------------------------------------------------------------------


def test_the_detail_of_a_published_activity_is_its_row(alice):
    row = activity("大理扎染", description="白族扎染，半天。")

    assert activity_detail(user=alice, activity_id=row.pk) == row


@pytest.mark.parametrize("published", [False, None], ids=["unpublished", "unknown"])
def test_an_unpublished_or_unknown_activity_is_not_found(alice, published):
    activity_id = activity("下架的团", is_published=False).pk if published is False else 999_999

    with pytest.raises(ActivityError) as refused:
        activity_detail(user=alice, activity_id=activity_id)

    assert refused.value.code == Code.NOT_FOUND and refused.value.data == {"activity_id": activity_id}


# --- travel plan --------------------------------------------------------------------------------------------------


def test_a_plan_between_two_dates_lasts_those_days(alice):
    activity("大理扎染", tags=["手工"])

    found = travel_plan_for(
        user=alice, today=TODAY, destination="大理", city="大理", start=dt.date(2026, 12, 10), end=dt.date(2026, 12, 13)
    )

    plan = found.plan
    assert (plan.start, plan.end, len(plan.days)) == (dt.date(2026, 12, 10), dt.date(2026, 12, 13), 4)
    assert not plan.defaulted_start and plan.has_activities


def test_a_plan_without_days_or_dates_lasts_the_default_from_next_saturday(alice):
    found = travel_plan_for(user=alice, today=TODAY, destination="大理", city="大理")

    assert len(found.plan.days) == DEFAULT_DAYS and found.plan.start == dt.date(2026, 12, 5)
    assert found.plan.defaulted_start


def test_a_destination_named_alone_is_searched_like_a_keyword(alice):
    lijiang = activity("丽江古城夜游", "丽江", "云南")
    activity("大理扎染")

    found = travel_plan_for(user=alice, today=TODAY, destination="丽江", days=2)

    assert [a.pk for a in found.plan.activities] == [lijiang.pk]
    assert found.plan.weather is not None and found.plan.weather.report.kind == "climate_normals"


def test_a_plan_keeps_what_the_traveller_may_not_join_out(bob):
    kept = activity("大理扎染")
    activity("大理女子瑜伽营", gender_restriction=GenderRestriction.FEMALE, popularity=99)

    found = travel_plan_for(user=bob, today=TODAY, destination="大理", city="大理", province="云南", max_price=5000)

    assert [a.pk for a in found.plan.activities] == [kept.pk]
    assert (found.province, found.max_price) == ("云南", 5000)


def test_a_spot_without_a_station_takes_its_city_s_weather(alice):
    activity("大理某小众村落徒步", tags=["徒步"])

    found = travel_plan_for(user=alice, today=TODAY, destination="某小众村落", keywords=["大理"], city="大理", days=1)

    assert found.plan.weather is not None and found.plan.weather.report.station == "大理"
