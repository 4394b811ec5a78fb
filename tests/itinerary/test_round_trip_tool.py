"""The `compare_round_trip` tool (channel 2's way to the round-trip service) and its presenter (kind `round_trip`):
bounded arguments, preferences only from the traveller's own words, envelopes that carry every fact the reply
needs, and the same card as channel 1."""

import datetime as dt
import json

import pytest

from assistant.agent import default_registry
from assistant.llm.schema import Intent, IntentName
from assistant.models import LLMCall
from assistant.presenters import present
from assistant.services import chat_turn
from assistant.turn import TurnContext
from bookings.models import SupplierAccount
from core.tools import ToolContext
from itinerary.round_trip import PLAN_NAMES, plan_load
from tests.itinerary.test_plans_api import stored_plan_keys

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)
TRIP = {"origin": "上海", "destination": "杭州", "depart_date": "2026-12-05", "return_date": "2026-12-07"}
SENTENCE = "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"


def call(user, arguments: dict, *, words: str = SENTENCE, language: str = "zh-hans") -> dict:
    context = ToolContext(user=user, language=language, today=TODAY, request_text=words)
    return default_registry().call("compare_round_trip", arguments, context)


def turn_context(user, *, words: str = SENTENCE, language: str = "zh-hans") -> TurnContext:
    return TurnContext(
        intent=Intent(intent=IntentName.OUT_OF_SCOPE), user=user, today=TODAY, language=language, request_text=words
    )


# --- the declaration -----------------------------------------------------------------------------------------------


def test_the_tool_is_read_only_and_its_schema_has_bounded_trip_arguments_and_no_preferences():
    tool = default_registry().get("compare_round_trip")

    assert tool.risk == "READ" and tool.needs == "NOTHING"
    properties = tool.parameters["properties"]
    assert set(properties) == {"origin", "destination", "depart_date", "return_date", "max_price"}
    assert properties["origin"]["maxLength"] == properties["destination"]["maxLength"] == 100
    assert properties["depart_date"]["format"] == "date"
    assert set(tool.parameters["required"]) == {"origin", "destination", "depart_date", "return_date"}
    assert tool.parameters["additionalProperties"] is False


@pytest.mark.parametrize(
    "arguments",
    [
        {**TRIP, "preferences": "坐飞机，住五星"},  # the model cannot state the traveller's preferences
        {**TRIP, "origin": "上" * 101},
        {**TRIP, "depart_date": "next friday"},
        {**TRIP, "max_price": 0},
        {k: v for k, v in TRIP.items() if k != "return_date"},
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(alice, supplier_sandbox, arguments):
    envelope = call(alice, arguments)

    assert (envelope["ok"], envelope["code"]) == (False, "INVALID_PARAM")
    assert not SupplierAccount.objects.filter(user=alice).exists()
    assert not LLMCall.objects.exists()


# --- the envelopes -------------------------------------------------------------------------------------------------


def test_a_comparison_envelope_carries_the_plans_as_json_and_the_preferences_read_from_the_traveller(
    alice, supplier_sandbox
):
    envelope = call(alice, {**TRIP, "max_price": 5000}, words=SENTENCE + "，想坐高铁")

    assert envelope["ok"] is True
    data = envelope["data"]
    assert (data["kind"], data["status"], data["max_price"]) == ("round_trip", "compared", 5000)
    assert data["preferences"] == {"read": True, "stated": ["train"]}
    assert [plan["name"] for plan in data["comparison"]["plans"]] == list(PLAN_NAMES)
    assert json.loads(json.dumps(data)) == data
    assert plan_load(data["plan_id"], owner_id=alice.pk) is not None
    call_row = LLMCall.objects.get()
    assert (call_row.purpose, call_row.user) == ("preference", alice)


def test_the_traveller_s_seat_class_prices_the_trains(alice, supplier_sandbox):
    data = call(alice, TRIP, words="火车坐一等座")["data"]

    legs = [leg for plan in data["comparison"]["plans"] for leg in (plan["outbound"], plan["return"])]
    assert {leg["seat_class"] for leg in legs if leg["mode"] == "TRAIN"} <= {"一等座"}


def test_a_trip_in_the_past_is_refused_with_which_part_is_wrong_and_nothing_is_searched(alice, supplier_sandbox):
    envelope = call(alice, {**TRIP, "depart_date": "2026-11-20"})

    assert (envelope["ok"], envelope["code"]) == (False, "INVALID_PARAM")
    assert (envelope["data"]["kind"], envelope["data"]["problems"]) == ("round_trip", ["depart_in_past"])
    assert not SupplierAccount.objects.filter(user=alice).exists()
    reply = present([envelope], turn_context(alice))
    assert reply.outcome == "CLARIFY" and reply.cards == []
    assert "不能早于今天" in reply.text


def test_a_supplier_that_is_down_is_a_platform_failure_with_no_plan_and_an_honest_reply(alice, supplier_sandbox):
    supplier_sandbox.fault("*=fail")

    envelope = call(alice, TRIP)

    assert (envelope["ok"], envelope["code"]) == (False, "PLATFORM_UNAVAILABLE")
    assert (envelope["data"]["kind"], envelope["data"]["comparison"]) == ("round_trip", None)
    assert stored_plan_keys() == []
    reply = present([envelope], turn_context(alice))
    assert reply.outcome == "DEGRADED" and reply.cards == []
    assert "供应商平台暂时无法查询去程航班" in reply.text and "没有预订任何东西" in reply.text
    assert "¥" not in reply.text


# --- the same reply as channel 1 -----------------------------------------------------------------------------------


def test_the_tool_s_envelope_presents_the_same_card_and_text_as_channel_one(alice, supplier_sandbox):
    channel_one = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    reply = present([call(alice, TRIP)], turn_context(alice))

    assert reply.outcome == channel_one.outcome == "ANSWERED"
    (card,) = reply.cards
    (shown,) = channel_one.cards
    assert card["type"] == "plan_comparison"
    assert {**card, "plan_id": None} == {**shown, "plan_id": None}
    assert card["plan_id"] != shown["plan_id"]  # each comparison is stored on its own
    assert reply.text == channel_one.reply


def test_an_english_traveller_gets_the_english_reply(alice, supplier_sandbox):
    words = "Compare trains and hotels from Shanghai to Hangzhou, by train please"

    reply = present([call(alice, TRIP, words=words, language="en")], turn_context(alice, words=words, language="en"))

    assert "Best overall" in reply.text and "Scored for your preferences: by train." in reply.text
