"""The round-trip comparison as itinerary's service, called from Python with a user: the real sandbox supplier CLI,
the rules LLM port (and a scripted OpenAI-compatible one), the plan store."""

import datetime as dt

import pytest

from assistant.llm.audit import audited
from assistant.llm.factory import get_llm_port
from assistant.llm.openai_adapter import OpenAILLM
from assistant.models import LLMCall
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingRecord, SupplierAccount
from bookings.platform import PlatformCommand, platform_call
from itinerary.round_trip import PLAN_NAMES, RoundTripError, plan_load, round_trip_compare
from tests.itinerary.test_plans_api import stored_plan_keys
from tests.support import fixtures
from tests.support.fake_openai import Reply

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)
DEPART, BACK = dt.date(2026, 12, 5), dt.date(2026, 12, 7)


def compare(user, **changes):
    arguments = {
        "user": user,
        "origin": "上海",
        "destination": "杭州",
        "depart_date": DEPART,
        "return_date": BACK,
        "preferences_text": "帮我比较一下交通和酒店方案",
        "port": get_llm_port("rules"),
        "today": TODAY,
        **changes,
    }
    return round_trip_compare(**arguments)


def quoted_prices(user, product: str, arguments: dict, key: str, number: str, price: str) -> dict:
    """What the supplier quotes, asked straight: {number: price}."""
    answer = platform_call(
        PlatformCommand(product, "search", arguments), api_key=supplier_account_ensure(user=user).api_key
    )
    return {item[number]: item[price] for item in answer[key]}


def named(comparison) -> dict[str, dict]:
    return {plan["name"]: plan for plan in comparison.comparison["plans"]}


# --- a comparison --------------------------------------------------------------------------------------------------


def test_a_comparison_gives_the_four_named_plans_at_the_supplier_s_prices_and_stores_them_for_the_user(
    alice, supplier_sandbox
):
    found = compare(alice)

    assert found.status == "compared"
    assert (found.failures, found.lacking) == ([], [])
    facts = found.comparison
    assert (facts["origin"], facts["destination"], facts["nights"]) == ("上海", "杭州", 2)
    assert [plan["name"] for plan in facts["plans"]] == list(PLAN_NAMES)
    flights = quoted_prices(
        alice, "flight", {"from": "上海", "to": "杭州", "date": "2026-12-05"}, "flights", "flightNo", "price"
    )
    stay = {"city": "杭州", "checkInDate": "2026-12-05", "checkOutDate": "2026-12-07"}
    hotels = quoted_prices(alice, "hotel", stay, "hotels", "hotelId", "pricePerNight")
    for plan in facts["plans"]:
        if plan["outbound"]["mode"] == "FLIGHT":
            assert plan["outbound"]["price"] == flights[plan["outbound"]["number"]]
        assert plan["hotel"]["price_per_night"] == hotels[plan["hotel"]["hotel_id"]]
    stored = plan_load(found.plan_id, owner_id=alice.pk)
    assert stored["plans"]["cheapest"]["total_price"] == named(found)["cheapest"]["total_price"]
    assert facts["plan_id"] == found.plan_id


def test_the_preference_port_is_audited_for_the_user_and_the_caller_writes_no_row_of_its_own(alice, supplier_sandbox):
    port = audited(get_llm_port("rules"), user=alice)

    found = compare(alice, port=port, preferences_text="想坐高铁")

    call = LLMCall.objects.get()
    assert (call.purpose, call.outcome, call.user) == ("preference", "OK", alice)
    assert port.calls == [call] == found.llm_calls
    assert (found.preferences_read, found.preferences) == (True, ("train",))
    best = named(found)["best_preference"]
    assert (best["outbound"]["mode"], best["return"]["mode"]) == ("TRAIN", "TRAIN")


def test_a_seat_class_named_in_the_traveller_s_words_prices_the_trains(alice, supplier_sandbox):
    found = compare(alice, preferences_text="火车坐一等座")

    trains = [leg for plan in found.comparison["plans"] for leg in (plan["outbound"], plan["return"])]
    assert {leg["seat_class"] for leg in trains if leg["mode"] == "TRAIN"} <= {"一等座"}


def test_a_budget_marks_the_plans_over_it_without_removing_any(alice, supplier_sandbox):
    found = compare(alice, max_price=800)

    assert found.max_price == 800
    for plan in found.comparison["plans"]:
        assert bool(plan["violations"]) == (plan["total_price"] > 800)


def test_a_model_that_fails_leaves_every_preference_neutral_and_says_it_was_not_read(
    alice, supplier_sandbox, fake_openai
):
    fake_openai.enqueue(Reply(status=503))
    port = OpenAILLM(base_url=fake_openai.base_url, api_key="sk-test-0000", model="scripted", timeout=5)

    found = compare(alice, port=port, preferences_text="想坐高铁")

    assert found.status == "compared"
    assert (found.preferences_read, found.preferences) == (False, ())
    assert {plan["scores"]["preference"] for plan in found.comparison["plans"]} == {50}
    assert LLMCall.objects.get(purpose="preference").outcome == "ERROR"


def test_when_the_plan_store_is_down_the_comparison_is_still_given_without_a_plan_id(
    alice, supplier_sandbox, redis_process
):
    redis_process.kill()

    found = compare(alice)

    assert found.status == "compared"
    assert found.plan_id is None and found.comparison["plan_id"] is None
    assert len(found.comparison["plans"]) == len(PLAN_NAMES)


# --- the supplier failing ------------------------------------------------------------------------------------------


def test_a_failed_flight_search_is_listed_and_only_trains_are_compared_and_stored(alice, supplier_sandbox):
    supplier_sandbox.fault("flight.search=fail")

    found = compare(alice)

    assert found.status == "compared"
    assert {(f.product, f.direction) for f in found.failures} == {("flight", "out"), ("flight", "ret")}
    modes = {leg["mode"] for plan in found.comparison["plans"] for leg in (plan["outbound"], plan["return"])}
    assert modes == {"TRAIN"}
    stored = plan_load(found.plan_id, owner_id=alice.pk)
    assert all(
        plan["outbound"].startswith("out:TRAIN:") and plan["return"].startswith("ret:TRAIN:")
        for plan in stored["plans"].values()
    )


def test_a_supplier_that_is_down_gives_no_comparison_stores_nothing_and_asks_the_model_nothing(alice, supplier_sandbox):
    supplier_sandbox.fault("*=fail")

    found = compare(alice)

    assert found.status == "unavailable"
    assert found.comparison is None and found.plan_id is None and found.result is None
    assert set(found.lacking) == {"out", "ret", "stay"} and found.failures
    assert found.as_json()["failures"][0].keys() == {"product", "direction", "code"}
    assert stored_plan_keys() == []
    assert not LLMCall.objects.exists()
    assert not BookingRecord.objects.exists()
    supplier_sandbox.heal()
    assert supplier_sandbox.stats()["orders"]["total"] == 0


# --- bad trips are refused by the service itself -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "problems"),
    [
        ({"origin": ""}, ["origin"]),
        ({"destination": "  "}, ["destination"]),
        ({"depart_date": dt.date(2026, 11, 30), "return_date": dt.date(2026, 12, 2)}, ["depart_in_past"]),
        ({"return_date": DEPART}, ["return_after_depart"]),
        ({"return_date": dt.date(2026, 12, 4)}, ["return_after_depart"]),
        ({"return_date": DEPART + dt.timedelta(days=31)}, ["stay_too_long"]),
        ({"destination": "上海"}, ["different_places"]),
    ],
)
def test_a_trip_that_cannot_be_compared_is_refused_before_anything_is_searched(
    alice, supplier_sandbox, changes, problems
):
    with pytest.raises(RoundTripError) as refused:
        compare(alice, **changes)

    assert refused.value.code == "INVALID_PARAM"
    assert refused.value.data == {"problems": problems}
    assert refused.value.envelope()["ok"] is False
    assert not SupplierAccount.objects.filter(user=alice).exists()  # the supplier was never called as alice
    assert not LLMCall.objects.exists()
    assert stored_plan_keys() == []
