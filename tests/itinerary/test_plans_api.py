"""The plans API and the plan store: create and fetch, bad input refused with nothing stored, TTL, owners only."""

import copy
import json
import time

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from itinerary.round_trip import PlanStoreError, plan_itinerary, plan_load, plan_store
from itinerary.round_trip.store import plan_key
from tests.itinerary.test_engine import small_request

pytestmark = pytest.mark.django_db

URL = "/api/v1/itinerary/plans"

BODY = {
    "origin": "上海",
    "destination": "杭州",
    "depart_date": "2026-12-05",
    "return_date": "2026-12-07",
    "outbound": [
        {
            "id": "out:MU5101",
            "mode": "FLIGHT",
            "number": "MU5101",
            "depart": "2026-12-05T08:00:00",
            "arrive": "2026-12-05T10:00:00",
            "price": 800,
            "seat_class": "经济舱",
        },
        {
            "id": "out:G7301",
            "mode": "TRAIN",
            "number": "G7301",
            "depart": "2026-12-05T09:00:00",
            "arrive": "2026-12-05T14:00:00",
            "price": 300,
            "seat_class": "二等座",
        },
    ],
    "hotels": [
        {"id": "hotel:A", "name": "A", "star": 4, "price_per_night": 400},
        {"id": "hotel:B", "name": "B", "star": 2, "price_per_night": 200, "meta": {"address": "西湖边"}},
    ],
    "returns": [
        {
            "id": "ret:MU5102",
            "mode": "FLIGHT",
            "number": "MU5102",
            "depart": "2026-12-05T12:00:00",
            "arrive": "2026-12-05T14:00:00",
            "price": 700,
            "seat_class": "商务舱",
        },
        {
            "id": "ret:G7302",
            "mode": "TRAIN",
            "number": "G7302",
            "depart": "2026-12-07T15:00:00",
            "arrive": "2026-12-07T19:00:00",
            "price": 250,
            "seat_class": "二等座",
        },
    ],
    "preference_scores": {"out:MU5101": 60, "out:G7301": 90, "hotel:A": 80, "hotel:B": 40, "ret:G7302": 70},
    "preferences_text": "坐高铁",
}


def body(**changes):
    return {**copy.deepcopy(BODY), **changes}


@pytest.fixture
def api(alice):
    client = APIClient(headers={"Accept-Language": "en"})  # DRF's own messages are translated; read them in English
    client.force_authenticate(alice)
    return client


def stored_plan_keys() -> list[str]:
    """Every plan in the cache, whichever backend holds it."""
    if settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        client = cache._cache.get_client()
        return [k.decode() for k in client.keys("*plan:*")]
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM tripdesk_cache WHERE cache_key LIKE %s", ["%plan:%"])
        return [row[0] for row in cursor.fetchall()]


def ids(plan):
    return plan["outbound"], plan["hotel"], plan["return"]


# ---------------------------------------------------------------------------------------------------------------
# Create and fetch


def test_posting_candidates_creates_a_plan_with_its_id_ttl_four_plans_labels_and_counts(api):
    response = api.post(URL, body(), format="json")

    assert response.status_code == 201
    data = response.json()
    assert set(data) == {"plan_id", "expires_in", "plans", "labels", "counts"}
    assert data["expires_in"] == settings.ITINERARY_PLAN_TTL == 3600
    assert data["counts"] == {"combinations": 8, "legal": 6}
    assert ids(data["plans"]["best_overall"]) == ("out:MU5101", "hotel:A", "ret:MU5102")
    assert data["plans"]["best_overall"]["scores"] == {
        "time": 100.0,
        "price": 0.0,
        "preference": 63.33,
        "overall": 61.67,
    }
    assert ids(data["plans"]["cheapest"]) == ("out:G7301", "hotel:B", "ret:G7302")
    assert data["plans"]["cheapest"]["details"]["hotel"]["meta"] == {"address": "西湖边"}
    assert [label["names"] for label in data["labels"]] == [
        ["best_overall", "fastest"],
        ["cheapest"],
        ["best_preference"],
    ]
    assert len(stored_plan_keys()) == 1


def test_a_created_plan_can_be_fetched_again_in_full(api):
    created = api.post(URL, body(), format="json").json()

    response = api.get(f"{URL}/{created['plan_id']}")

    assert response.status_code == 200
    stored = response.json()
    assert stored["plan_id"] == created["plan_id"]
    assert stored["plans"] == created["plans"]
    assert stored["labels"] == created["labels"]
    assert stored["counts"] == created["counts"]
    assert stored["inputs"]["preferences_text"] == "坐高铁"
    assert stored["inputs"]["nights"] == 2
    assert 0 < stored["expires_in"] <= 3600
    assert {"created_at", "expires_at"} <= set(stored)


def test_a_policy_in_the_body_penalises_and_explains(api):
    policy = {"max_total_price": 1500, "max_hotel_star": 3, "allowed_seat_classes": ["经济舱", "二等座"]}

    data = api.post(URL, body(policy=policy), format="json").json()

    assert ids(data["plans"]["best_overall"]) == ("out:MU5101", "hotel:B", "ret:G7302")
    assert data["plans"]["fastest"]["violations"][0] == "total price ¥1900 is over the policy cap of ¥1500"


def test_an_unknown_plan_id_is_plan_not_found(api):
    for plan_id in ("3f1e1d7a-0d8c-4a53-9c3c-1b2f3c4d5e6f", "not-a-uuid"):
        response = api.get(f"{URL}/{plan_id}")

        assert response.status_code == 404
        assert response.json() == {
            "ok": False,
            "code": "PLAN_NOT_FOUND",
            "message": response.json()["message"],
            "data": None,
        }


def test_someone_elses_plan_is_not_found(api, user_factory):
    plan_id = api.post(URL, body(), format="json").json()["plan_id"]
    bob = APIClient()
    bob.force_authenticate(user_factory("bob"))

    response = bob.get(f"{URL}/{plan_id}")

    assert response.status_code == 404
    assert response.json()["code"] == "PLAN_NOT_FOUND"


# ---------------------------------------------------------------------------------------------------------------
# Bad input: 400 INVALID_PARAM with a clear message, and nothing stored


def without(key):
    data = body()
    del data[key]
    return data


def with_leg(list_name, index, **changes):
    data = body()
    data[list_name][index].update(changes)
    return data


BAD_BODIES = {
    "missing hotels": (without("hotels"), "hotels: This field is required."),
    "missing origin": (without("origin"), "origin: This field is required."),
    "reversed dates": (body(return_date="2026-12-01"), "dates reversed"),
    "same day": (body(return_date="2026-12-05"), "same day"),
    "unknown candidate in scores": (
        body(preference_scores={"out:NOPE": 50}),
        "preference_scores names unknown candidates: 'out:NOPE'",
    ),
    "score over 100": (body(preference_scores={"out:MU5101": 120}), "must be between 0 and 100"),
    "empty outbound": (body(outbound=[]), "no outbound candidates"),
    "empty returns": (body(returns=[]), "no return candidates"),
    "too many hotels": (
        body(hotels=[{"id": f"hotel:{n}", "name": "h", "star": 3, "price_per_night": 100} for n in range(5001)]),
        "hotels: Ensure this field has no more than 5000 elements.",
    ),
    "a price that is not a number": (with_leg("outbound", 1, price="cheap"), "outbound[1].price: A valid number"),
    "a time that is not a time": (with_leg("returns", 0, depart="tomorrow"), "returns[0].depart: Datetime has"),
    "an unknown mode": (with_leg("outbound", 0, mode="BUS"), 'outbound[0].mode: "BUS" is not a valid choice.'),
    "a leg arriving before it departs": (
        with_leg("outbound", 0, arrive="2026-12-05T07:00:00"),
        "must arrive after it departs",
    ),
    "duplicate ids": (with_leg("returns", 1, id="out:MU5101"), "duplicate candidate id 'out:MU5101'"),
    "no legal combination": (
        body(returns=[BODY["returns"][0]], outbound=[BODY["outbound"][1]], preference_scores={}),
        "no legal combination",
    ),
    "a body that is a list": ([1, 2], "Invalid data. Expected a dictionary"),
}


@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_bad_input_is_refused_with_a_clear_message_and_nothing_is_stored(api, case):
    payload, message = BAD_BODIES[case]

    response = api.post(URL, payload, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PARAM"
    assert message in response.json()["message"]
    assert stored_plan_keys() == []


def test_malformed_json_is_refused_with_a_clear_message_and_nothing_is_stored(api):
    response = api.post(URL, data='{"origin": "上海", ', content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PARAM"
    assert response.json()["message"].startswith("malformed JSON")
    assert stored_plan_keys() == []


def test_a_body_over_the_upload_limit_is_refused_with_a_clear_message_and_nothing_is_stored(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    payload = body(preferences_text="很长" * 3000)

    response = api.post(URL, payload, format="json")

    assert response.status_code == 400
    assert response.json() == {
        "ok": False,
        "code": "INVALID_PARAM",
        "message": "the request body is larger than 10000 bytes: send fewer candidates",
        "data": None,
    }
    assert stored_plan_keys() == []


# ---------------------------------------------------------------------------------------------------------------
# Who may call


def test_unauthenticated_callers_are_refused_and_nothing_is_stored(alice):
    anonymous = APIClient()
    plan_id = plan_store(plan_itinerary(small_request()), owner_id=alice.pk)

    created = anonymous.post(URL, body(), format="json")
    fetched = anonymous.get(f"{URL}/{plan_id}")

    assert created.status_code == 401
    assert fetched.status_code == 401
    assert "plans" not in fetched.json()
    assert len(stored_plan_keys()) == 1


# ---------------------------------------------------------------------------------------------------------------
# The store


def test_a_stored_plan_loads_back_as_the_full_json_ready_result():
    result = plan_itinerary(small_request())

    plan_id = plan_store(result)

    loaded = plan_load(plan_id)
    assert loaded["plans"] == result.plans
    assert loaded["inputs"] == result.inputs
    assert json.loads(json.dumps(loaded)) == loaded
    assert plan_load(f"  {plan_id.upper()} ")["plans"] == result.plans


def test_a_plan_stored_for_a_user_is_only_theirs(alice, user_factory):
    plan_id = plan_store(plan_itinerary(small_request()), owner_id=alice.pk)

    assert plan_load(plan_id, owner_id=alice.pk) is not None
    assert plan_load(plan_id, owner_id=user_factory("bob").pk) is None
    assert plan_load(plan_id) is None


@pytest.mark.redis
def test_in_redis_the_plan_key_carries_the_configured_ttl():
    plan_id = plan_store(plan_itinerary(small_request()))

    key = cache.make_and_validate_key(plan_key(plan_id))
    ttl = cache._cache.get_client(key).ttl(key)

    assert 3590 < ttl <= settings.ITINERARY_PLAN_TTL == 3600
    assert key.endswith(f"plan:{plan_id}")


def test_a_stored_plan_expires_after_its_ttl(settings):
    settings.ITINERARY_PLAN_TTL = 1
    plan_id = plan_store(plan_itinerary(small_request()))
    assert plan_load(plan_id)["expires_in"] <= 1

    time.sleep(1.5)

    assert plan_load(plan_id) is None


def test_when_the_cache_is_down_creating_a_plan_says_so_and_fetching_too(api, redis_process):
    plan_id = api.post(URL, body(), format="json").json()["plan_id"]
    redis_process.kill()

    created = api.post(URL, body(), format="json")
    fetched = api.get(f"{URL}/{plan_id}")

    assert created.status_code == fetched.status_code == 503
    assert created.json()["code"] == fetched.json()["code"] == "PLAN_STORE_UNAVAILABLE"
    with pytest.raises(PlanStoreError):
        plan_load(plan_id)


# ---------------------------------------------------------------------------------------------------------------
# The OpenAPI schema


def test_the_openapi_schema_documents_the_plans_api(api):
    schema = api.get("/api/v1/schema/", {"format": "json"}).json()

    create = schema["paths"]["/api/v1/itinerary/plans"]["post"]
    fetch = schema["paths"]["/api/v1/itinerary/plans/{plan_id}"]["get"]
    assert create["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/PlanCreate")
    assert {"201", "400"} <= set(create["responses"])
    assert {"200", "404"} <= set(fetch["responses"])
    summary = schema["components"]["schemas"]["PlanSummary"]["properties"]
    assert {"plan_id", "expires_in", "plans", "labels", "counts"} <= set(summary)
    assert "return" in schema["components"]["schemas"]["Plan"]["properties"]
    for responses, status in ((create["responses"], "400"), (create["responses"], "503"), (fetch["responses"], "404")):
        error = responses[status]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert set(schema["components"]["schemas"][error]["properties"]) == {"ok", "code", "message", "data"}
