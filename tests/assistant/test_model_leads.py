"""Channel 2 with a model (a scripted OpenAI-compatible server): the model reads the sentence and calls the tools;
the offline engine reads nothing unless the model fails (then once, audited as the fallback); the options on screen
reach the model from the code's memory, so "the second one" prepares and books the second option."""

import json
import re

import pytest

from assistant.llm.rules import RulesLLM
from assistant.models import LLMCall, Turn
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db


@pytest.fixture
def model(settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-leads", agent=True, timeout=2.0)
    return fake_openai


@pytest.fixture
def offline_readings(monkeypatch):
    """The sentences the offline engine read (the only way to see an unaudited reading)."""
    read = []
    understand = RulesLLM.understand

    def spy(self, text, *, context=None):
        read.append(text)
        return understand(self, text, context=context)

    monkeypatch.setattr(RulesLLM, "understand", spy)
    return read


def call(name: str, **arguments) -> Reply:
    return Reply(tool_calls=[{"id": f"call_{name}", "name": name, "arguments": arguments}])


def reading(**fields) -> Reply:
    """What the model answers when it is asked to read a sentence (the intent JSON)."""
    return Reply(content=json.dumps({"answer": None, **fields}))


def system_message(request) -> str:
    return next(m["content"] for m in request.json["messages"] if m["role"] == "system")


def test_a_model_that_answers_serves_the_turn_and_nothing_reads_the_sentence_offline(alice, model, offline_readings):
    model.enqueue(call("weather_report", place="大理"), Reply(content="done"))

    answer = Chat(alice).say("大理这周末天气怎么样")

    assert [card["type"] for card in answer["cards"]] == ["weather"]
    assert answer["meta"]["channel"] == 2
    assert offline_readings == []
    assert not LLMCall.objects.filter(provider="rules").exists()
    assert not LLMCall.objects.filter(fallback=True).exists()
    turn = Turn.objects.get()
    assert turn.fallback is False and turn.understanding == {}
    assert "UNDERSTOOD" not in system_message(model.requests[0])  # nothing tells the model an offline reading


def test_a_model_that_fails_is_replaced_by_one_offline_reading_audited_as_the_fallback(alice, model, offline_readings):
    model.set_default(Reply(status=503, error_message="overloaded"))

    answer = Chat(alice).say("大理这周末天气怎么样")

    assert [card["type"] for card in answer["cards"]] == ["weather"]
    assert answer["meta"]["channel"] == 1  # channel 1 answered, from the offline reading
    assert offline_readings == ["大理这周末天气怎么样"]
    assert LLMCall.objects.get(provider="rules").fallback is True
    assert Turn.objects.get().fallback is True


# -- a pick holds with a model ----------------------------------------------------------------------------------------

SEARCHES = {
    "TRAIN": {"biz_type": "TRAIN", "origin": "北京", "destination": "上海", "date": "2026-12-19"},
    "FLIGHT": {"biz_type": "FLIGHT", "origin": "上海", "destination": "成都", "date": "2026-12-19"},
    "HOTEL": {"biz_type": "HOTEL", "city": "大理", "date": "2026-12-10", "check_out": "2026-12-12"},
}
NUMBER_KEY = {"TRAIN": "trainNo", "FLIGHT": "flightNo", "HOTEL": "hotelId"}
ON_SCREEN = re.compile(r"^2\. (\S+)(?: \((.+)\))?$", re.M)


SEEN: list[str] = []  # what the model was told of the second option beside its ref


def second_on_screen(request) -> Reply:
    """A model that reads "the second one" against the OPTIONS ON SCREEN block and books that ref."""
    if any(m["role"] == "tool" for m in request["messages"]):
        return Reply(content="done")
    system = next(m["content"] for m in request["messages"] if m["role"] == "system")
    found = ON_SCREEN.search(system.split("OPTIONS ON SCREEN", 1)[1])
    ref = found.group(1)
    SEEN.append(found.group(2) or "")
    return call("book_option", option_ref=ref, passengers=[{"name": "张三", "mobile": "13800000000"}])


@pytest.mark.parametrize("biz_type", ["TRAIN", "FLIGHT", "HOTEL"])
def test_the_second_option_a_model_picks_from_the_options_on_screen_is_prepared_and_booked(
    alice, model, supplier_sandbox, biz_type
):
    chat = Chat(alice)
    model.enqueue(call("find_booking_options", **SEARCHES[biz_type]), Reply(content="here they are"))
    shown = [c for c in chat.say("有哪些可以选？")["cards"] if c["type"] == "option"]
    assert len(shown) >= 2

    model.set_default(second_on_screen)
    card = next(c for c in chat.say("第二个，张三 13800000000")["cards"] if c["type"] == "confirmation")

    named = "name" if biz_type == "HOTEL" else "number"
    # the replies list no options in their text: the model is told what the second card showed, its price too
    assert f"¥{shown[1]['total']}" in SEEN[-1]
    if biz_type != "HOTEL":
        assert f"{shown[1]['depart_time']}–{shown[1]['arrive_time']}" in SEEN[-1]
    facts = " ".join([card["title"], *(f"{label} {value}" for label, value in card["rows"])])
    assert shown[1][named] in facts and shown[0][named] not in facts
    assert not BookingRecord.objects.exists()

    model.enqueue(reading(intent="OUT_OF_SCOPE", answer="YES"))  # the model reads the typed yes to the card
    chat.say("确认")

    [booking] = BookingRecord.objects.filter(user=alice)
    assert not LLMCall.objects.filter(fallback=True).exists()  # the model's reading decided, not the offline one
    assert str(booking.details[NUMBER_KEY[biz_type]]).upper() == str(shown[1]["number"]).upper()


def test_an_option_on_screen_a_model_books_before_who_travels_is_known_is_said_back_in_a_line(
    alice, model, supplier_sandbox
):
    chat = Chat(alice)
    model.enqueue(call("find_booking_options", **SEARCHES["FLIGHT"]), Reply(content="here they are"))
    shown = [c for c in chat.say("有哪些航班？")["cards"] if c["type"] == "option"]
    assert len(shown) >= 2

    model.enqueue(call("book_option", option_ref=shown[1]["ref"], passengers=[]), Reply(content="need the contact"))
    answer = chat.say("要第二个")

    assert f"好的，选了 {shown[1]['number']}" in answer["reply"] and "还需要" in answer["reply"]
    assert [c["number"] for c in answer["cards"] if c["type"] == "option"] == [shown[1]["number"]]
    assert not [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert not BookingRecord.objects.exists()


# -- the iteration cap ------------------------------------------------------------------------------------------------


def test_a_read_repeated_until_the_cap_is_shown_once_per_distinct_read(alice, model, settings):
    settings.ASSISTANT_AGENT_MAX_ITERATIONS = 6
    reads = iter([call("weather_report", place="大理"), call("weather_report", place="丽江")] * 3)
    model.set_default(lambda request: next(reads))

    answer = Chat(alice).say("大理和丽江天气怎么样")

    assert len(model.requests) == 6  # the model asked again until the cap
    assert [(card["type"], card["place"]) for card in answer["cards"]] == [("weather", "大理"), ("weather", "丽江")]


# -- the model asks through a tool ------------------------------------------------------------------------------------


def channel_one_asks(alice, settings, message: str) -> str:
    """What channel 1 asks for the same need (the rules reading, the handlers)."""
    settings.ASSISTANT_AGENT_ENABLED, provider = False, settings.ASSISTANT_LLM_PROVIDER
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    try:
        return Chat(alice).say(message)["reply"]
    finally:
        settings.ASSISTANT_AGENT_ENABLED, settings.ASSISTANT_LLM_PROVIDER = True, provider


def test_a_models_question_reaches_the_traveller_as_the_templated_question_channel_one_asks(alice, model, settings):
    asked = channel_one_asks(alice, settings, "帮我订北京到上海的高铁")
    model.enqueue(
        call("ask_traveller", missing=["date"], biz_type="TRAIN"), Reply(content="请问哪天出发？我猜是明天吧")
    )

    answer = Chat(alice).say("帮我订北京到上海的高铁")

    assert answer["reply"] == asked and answer["outcome"] == "CLARIFY"
    assert "我猜" not in answer["reply"] and answer["cards"] == []
    assert answer["meta"]["channel"] == 2
    assert not BookingRecord.objects.exists()


def test_a_model_asking_which_option_puts_those_choices_on_screen_as_the_numbers_to_pick(
    alice, model, supplier_sandbox
):
    chat = Chat(alice)
    model.enqueue(call("find_booking_options", **SEARCHES["TRAIN"]), Reply(content="here they are"))
    shown = [c for c in chat.say("有哪些可以选？")["cards"] if c["type"] == "option"]
    assert len(shown) >= 2
    not_shown = "TRAIN|G9999|2026-12-19|北京|上海|二等座"
    model.enqueue(call("ask_traveller", choices=[shown[1]["ref"], not_shown, shown[0]["ref"]]), Reply(content="?"))

    asked = chat.say("哪个好")

    assert asked["outcome"] == "CLARIFY" and "哪一个" in asked["reply"] and "?" not in asked["reply"]
    assert [chip["message"] for chip in asked["suggestions"]] == ["选第1个", "选第2个"]

    model.set_default(second_on_screen)
    card = next(c for c in chat.say("第二个，张三 13800000000")["cards"] if c["type"] == "confirmation")

    assert shown[0]["number"] in card["title"] + str(card["rows"])
    assert shown[1]["number"] not in card["title"] + str(card["rows"])


def test_new_options_a_model_shows_without_a_new_card_withdraw_the_open_card(alice, model, supplier_sandbox):
    chat = Chat(alice)
    model.enqueue(call("find_booking_options", **SEARCHES["TRAIN"]), Reply(content="here they are"))
    shown = [c for c in chat.say("有哪些可以选？")["cards"] if c["type"] == "option"]
    passengers = [{"name": "张三", "mobile": "13800000000"}]
    model.enqueue(call("book_option", option_ref=shown[0]["ref"], passengers=passengers), Reply(content="ok"))
    assert [c["type"] for c in chat.say("第一个，张三 13800000000")["cards"]] == ["confirmation"]
    # With the card open the model first reads the message for a yes or a no to it (none here), then acts.
    model.enqueue(
        reading(intent="BOOK", biz_type="FLIGHT"),
        call("find_booking_options", **SEARCHES["FLIGHT"]),
        Reply(content="flights instead"),
    )
    assert [c for c in chat.say("还是看看飞机吧")["cards"] if c["type"] == "option"]

    answer = chat.say("确认")  # nothing awaits any more: the model serves the turn and prepares nothing

    assert answer["reply"] and not [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert not BookingRecord.objects.exists()  # the card they moved on from is not carried out
