"""Channel 1's flows replayed call by call (`assistant.handlers.base.next_call`): what the flow calls next given the
envelopes its first calls got, without running any tool."""

import pytest

from assistant.agent import default_registry
from assistant.dispatcher import dispatch
from assistant.handlers.base import next_call, tool_context
from assistant.llm.schema import Intent
from assistant.turn import TurnContext
from core.envelope import ok
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

WEATHER = {"place": "大理", "city": "大理"}


def context(traveller, **slots) -> TurnContext:
    return TurnContext(intent=Intent.model_validate(slots), user=traveller, today=TODAY, language="zh-hans")


def flow(traveller, **slots):
    return lambda: dispatch(context(traveller, **slots))


def envelope(traveller, name: str, arguments: dict) -> dict:
    """What the real tool answers."""
    return default_registry().call(name, arguments, tool_context(context(traveller, intent="OUT_OF_SCOPE")))


def test_the_first_call_of_a_flow_is_named_and_nothing_runs(traveller):
    weather = flow(traveller, intent="QUERY_WEATHER", destination_keywords=["大理"], city="大理")

    assert next_call(weather, []) == ("weather_report", WEATHER)


def test_a_flow_whose_calls_are_all_answered_is_done(traveller):
    weather = flow(traveller, intent="QUERY_WEATHER", destination_keywords=["大理"], city="大理")
    answered = [("weather_report", WEATHER, envelope(traveller, "weather_report", WEATHER))]

    assert next_call(weather, answered) is None


def test_the_second_part_of_a_request_comes_after_the_first_is_answered(traveller):
    both = flow(traveller, intent="MAKE_TRAVEL_PLAN", destination_keywords=["丽江"], city="丽江", days=3,
                also=["QUERY_WEATHER"])  # fmt: skip
    plan = ("make_travel_plan", {"destination": "丽江", "keywords": ["丽江"], "city": "丽江", "days": 3})

    assert next_call(both, []) == plan
    answered = [(*plan, envelope(traveller, *plan))]
    assert next_call(both, answered) == ("weather_report", {"place": "丽江", "city": "丽江"})


def test_a_recorded_call_the_flow_does_not_make_is_not_taken_as_its_answer(traveller):
    weather = flow(traveller, intent="QUERY_WEATHER", destination_keywords=["大理"], city="大理")
    elsewhere = {"place": "丽江", "city": "丽江"}

    assert next_call(weather, [("weather_report", elsewhere, ok({"kind": "weather"}))]) == ("weather_report", WEATHER)


def test_a_flow_that_only_asks_calls_nothing(traveller):
    assert next_call(flow(traveller, intent="QUERY_WEATHER"), []) is None
