"""With a real model (a local OpenAI-compatible server, scripted): a question about the options on screen, read by
the model (channel 1) or answered by its call of `describe_options` (channel 2), gets its answer from the supplier's
facts with the booking going on as it was; a flight and a hotel read by the model keep the hotel for after the
flight. Nothing is prepared or booked."""

import pytest

from assistant.models import PendingAction
from assistant.services import chat_turn
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

FLIGHTS = {
    "intent": "BOOK",
    "biz_type": "FLIGHT",
    "origin": "北京",
    "destination_keywords": ["上海"],
    "city": "上海",
    "date_start": "2026-12-10",
}


@pytest.fixture
def model(settings, fake_openai, supplier_sandbox):
    use_scripted_model(settings, fake_openai, key="sk-test-0123456789", timeout=2.0)
    return fake_openai


def options(result) -> list[dict]:
    return [c for c in result.cards if c["type"] == "option"]


def test_a_models_reading_of_a_question_about_the_second_option_is_answered_from_it(alice, settings, model):
    settings.ASSISTANT_AGENT_ENABLED = False
    model.enqueue(Reply(content=FLIGHTS))
    model.enqueue(Reply(content={"intent": "BOOK", "asks_option": ["PRICE", "ARRIVAL"], "asked_option": 2}))
    first = chat_turn(user=alice, message="帮我订12月10号北京到上海的机票", today=TODAY)
    second = options(first)[1]

    result = chat_turn(user=alice, message="第二个多少钱，几点到？", conversation_id=first.conversation_id, today=TODAY)

    assert f"¥{second['total']}" in result.reply and second["arrive_time"] in result.reply
    assert not options(result) and not BookingRecord.objects.exists() and not PendingAction.objects.exists()


def test_a_model_in_channel_2_answers_with_describe_options_and_prepares_nothing(alice, settings, model):
    settings.ASSISTANT_AGENT_ENABLED = True
    search = {"biz_type": "FLIGHT", "origin": "北京", "destination": "上海", "date": "2026-12-10"}
    model.enqueue(Reply(tool_calls=[{"id": "call_1", "name": "find_booking_options", "arguments": search}]))
    model.enqueue(Reply(content="Here are the flights."))
    first = chat_turn(user=alice, message="book a flight from Beijing to Shanghai on Dec 10", today=TODAY)
    shown = options(first)
    refs = [o["ref"] for o in shown]
    asked = {"option_refs": refs, "facts": ["PRICE"], "order": "CHEAPEST"}
    model.enqueue(Reply(tool_calls=[{"id": "call_2", "name": "describe_options", "arguments": asked}]))
    model.enqueue(Reply(content="The cheapest is listed."))

    result = chat_turn(user=alice, message="which is the cheapest?", conversation_id=first.conversation_id, today=TODAY)

    cheapest = min(shown, key=lambda o: float(o["total"]))
    assert f"No. {cheapest['index']}" in result.reply and cheapest["number"] in result.reply
    assert f"¥{cheapest['total']}" in result.reply
    assert not options(result) and not BookingRecord.objects.exists() and not PendingAction.objects.exists()


def test_a_models_reading_of_a_flight_and_a_hotel_keeps_the_hotel(alice, settings, model):
    settings.ASSISTANT_AGENT_ENABLED = False
    model.enqueue(Reply(content={**FLIGHTS, "also_book": ["hotel", "CAR"], "nights": 2}))

    result = chat_turn(user=alice, message="帮我订12月10号北京到上海的机票和上海的酒店住两晚", today=TODAY)

    assert {o["biz_type"] for o in options(result)} == {"FLIGHT"}
    assert "上海的酒店我也记下了（12月10日入住，住2晚）" in result.reply
    assert not BookingRecord.objects.exists() and not PendingAction.objects.exists()
