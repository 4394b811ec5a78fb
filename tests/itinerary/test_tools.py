"""The itinerary tools: envelopes with their kind and every fact a reply shows, and arguments bounded before use."""

import datetime as dt
import json

import pytest

from assistant.agent.registry import ToolRegistry
from core.envelope import Code
from core.tools import ToolContext
from itinerary.tools import (
    TOOLS,
    activity_detail,
    recommend_activities,
    search_activities,
)
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def context(alice):
    return ToolContext(user=alice, conversation_id="c1", language="zh-hans", today=TODAY)


@pytest.fixture
def registry():
    return ToolRegistry(tools=TOOLS)


def dali(title="大理扎染体验", **extra):
    return ActivityFactory(
        title=title,
        city="大理",
        province="云南",
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=40),
        tags=["手工", "文化"],
        **extra,
    )


# What refines a search or a plan: the kinds wanted and avoided, who comes along.
KINDS = ("interests", "avoid_interests", "audience")


def test_the_catalogue_travel_and_weather_tools_are_declared_with_their_contract_arguments():
    arguments = {t.name: set(t.parameters["properties"]) for t in TOOLS}

    assert arguments["search_activities"] == {
        "keywords",
        "province",
        "city",
        "date_start",
        "date_end",
        "max_price",
        "exclude_places",
        "sort",
        *KINDS,
    }
    assert arguments["recommend_activities"] == {
        "date_start",
        "date_end",
        "exclude_places",
        "sort",
        "max_price",
        *KINDS,
    }
    assert arguments["activity_detail"] == {"activity_id"}
    assert arguments["weather_report"] == {"place", "city", "date_start", "date_end", "packing"}
    assert arguments["make_travel_plan"] == {
        "destination",
        "keywords",
        "city",
        "province",
        "days",
        "date_start",
        "date_end",
        "max_price",
        "sort",
        *KINDS,
    }
    assert all(t.risk == "READ" for t in (search_activities, recommend_activities, activity_detail))


def test_a_search_envelope_holds_the_rows_shown_and_the_query_as_run(registry, context):
    row = dali(price=380)
    dali("大理下架的团", is_published=False)

    envelope = registry.call("search_activities", {"keywords": ["大理"], "max_price": 500}, context)

    assert envelope["ok"] and envelope["data"]["kind"] == "activities"
    data = envelope["data"]
    assert data["mode"] == "search" and data["total"] == 1 and data["activity_ids"] == [row.pk]
    (facts,) = data["activities"]
    assert facts["title"] == "大理扎染体验" and facts["price"] == "380.00" and facts["start_date"] == "2026-12-01"
    assert data["query"] == {
        "place": "大理",
        "keywords": ["大理"],
        "province": None,
        "city": None,
        "date_start": "2026-12-01",
        "date_end": "2026-12-31",
        "defaulted_window": True,
        "max_price": 500,
    }
    json.dumps(envelope)  # plain JSON, for the model and the turn record


def test_a_search_without_a_place_fails_with_its_kind(registry, context):
    envelope = registry.call("search_activities", {"max_price": 500}, context)

    assert (envelope["ok"], envelope["code"]) == (False, Code.INVALID_PARAM)
    assert envelope["data"]["kind"] == "activities" and envelope["data"]["reason"] == "no_place"


def test_a_recommendation_envelope_says_whether_dates_were_asked(registry, context):
    row = dali()

    envelope = registry.call("recommend_activities", {"date_start": "2026-12-05"}, context)

    data = envelope["data"]
    assert data["kind"] == "activities" and data["mode"] == "recommend" and data["activity_ids"] == [row.pk]
    assert data["query"] == {"date_start": "2026-12-05", "date_end": "2026-12-05", "asked_dates": True}


def test_an_activity_detail_envelope_holds_the_whole_activity(registry, context):
    row = dali(description="白族扎染，半天。", min_age=6)

    envelope = registry.call("activity_detail", {"activity_id": row.pk}, context)

    assert envelope["ok"] and envelope["data"]["kind"] == "activity_detail"
    facts = envelope["data"]["activity"]
    assert (facts["id"], facts["description"], facts["min_age"]) == (row.pk, "白族扎染，半天。", 6)


def test_an_unpublished_activity_detail_is_not_found_with_its_kind(registry, context):
    row = dali(is_published=False)

    envelope = registry.call("activity_detail", {"activity_id": row.pk}, context)

    assert (envelope["ok"], envelope["code"]) == (False, Code.NOT_FOUND)
    assert envelope["data"] == {"kind": "activity_detail", "activity_id": row.pk}


def test_a_weather_envelope_holds_the_source_the_kind_and_the_days(registry, context):
    envelope = registry.call("weather_report", {"place": "西湖", "date_start": "2026-12-05"}, context)

    data = envelope["data"]
    assert envelope["ok"] and data["kind"] == "weather" and data["place"] == "西湖"
    assert data["report_kind"] == "climate_normals" and data["station"] == "杭州" and data["fallback"] is None
    assert (data["start"], data["end"]) == ("2026-12-05", "2026-12-05")
    assert len(data["days"]) == 7 and data["days"][0]["date"] == "2026-12-05"
    assert {"temp_min_c", "temp_max_c", "condition_zh", "probability", "rain_likely"} <= set(data["days"][0])


def test_a_weather_report_for_an_unknown_place_fails_with_its_kind(registry, context):
    envelope = registry.call("weather_report", {"place": "火星基地"}, context)

    assert (envelope["ok"], envelope["code"]) == (False, Code.NOT_FOUND)
    assert envelope["data"] == {"kind": "weather", "reason": "unknown_place", "place": "火星基地"}


def test_a_travel_plan_envelope_holds_its_days_activities_and_weather(registry, context):
    row = dali()

    envelope = registry.call("make_travel_plan", {"destination": "大理", "city": "大理", "days": 2}, context)

    data = envelope["data"]
    assert envelope["ok"] and data["kind"] == "travel_plan" and data["destination"] == "大理"
    assert (data["start"], data["end"], data["defaulted_start"]) == ("2026-12-05", "2026-12-06", True)
    assert data["activity_ids"] == [row.pk] and data["placed"] == 1 and data["free_days"] == 1
    first, second = data["days"]
    assert first["activities"][0]["title"] == "大理扎染体验" and first["weather"]["date"] == "2026-12-05"
    assert second["activities"] == [] and second["flags"][0] == "free_day"
    assert data["weather"]["report_kind"] == "climate_normals" and "days" not in data["weather"]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("search_activities", {"keywords": ["大理" * 30]}),
        ("search_activities", {"keywords": ["a", "b", "c", "d", "e", "f"]}),
        ("search_activities", {"keywords": "大理"}),
        ("search_activities", {"city": "大理", "max_price": 0}),
        ("search_activities", {"city": "大理", "max_price": 10**12}),
        ("search_activities", {"city": "大理", "date_start": "next week"}),
        ("search_activities", {"city": "大理", "user_id": 1}),
        ("search_activities", {"keywords": ["大理"], "province": "x" * 200_000}),
        ("recommend_activities", {"date_end": "2026-13-01"}),
        ("activity_detail", {"activity_id": 0}),
        ("activity_detail", {"activity_id": "1; DROP TABLE"}),
        ("weather_report", {}),
        ("weather_report", {"place": ""}),
        ("weather_report", {"place": "大理", "city": "x" * 51}),
        ("make_travel_plan", {"destination": "大理", "days": 367}),
        ("make_travel_plan", {"destination": "大理", "days": 0}),
        ("make_travel_plan", {"days": 3}),
    ],
)
def test_an_invalid_or_oversized_argument_is_refused_before_any_query(
    registry, context, name, arguments, django_assert_num_queries
):
    with django_assert_num_queries(0):
        envelope = registry.call(name, arguments, context)

    assert (envelope["ok"], envelope["code"]) == (False, Code.INVALID_PARAM)
