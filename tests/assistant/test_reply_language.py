"""The reply's language is the sentence's, through the chat API in both channels: an English sentence that names a
Chinese place in Chinese characters is answered in English (its chips and its question too), a Chinese sentence
that names a place in Latin letters in Chinese, and a sentence truly in both languages in the page's language. The
language decides only the words: nothing is written before a yes (no pending action, no booking)."""

import re

import pytest

from assistant.models import Conversation, PendingAction
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def english(text: str) -> bool:
    """English words, and no Chinese but the names of places and products the supplier spells in Chinese."""
    kept = re.sub(r"[\u4e00-\u9fff]+(?:→[\u4e00-\u9fff]+)?", "", text)
    return bool(re.search(r"\b(?:the|I|you|for|in|to|a)\b", kept)) and "。" not in text and "，" not in text


def nothing_written() -> bool:
    return not BookingRecord.objects.exists() and not PendingAction.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "place"),
    [
        ("What's the weather in 北京 tomorrow?", "Beijing"),
        ("will it rain in 大理 this weekend", "Dali"),
        ("how cold is 哈尔滨 next week?", "Harbin"),
    ],
)
def test_an_english_weather_question_naming_a_chinese_place_is_answered_in_english(chat, sentence, place):
    answer = chat.say(sentence)

    assert [c["type"] for c in answer["cards"]] == ["weather"]
    assert place in answer["reply"] and english(answer["reply"]), answer["reply"]
    assert "天气" not in answer["reply"] and "气候" not in answer["reply"]
    assert Conversation.objects.get().language == "en"
    assert nothing_written()


@pytest.mark.parametrize(
    "sentence",
    ["book a flight from 北京 to 上海 on Dec 10", "I need a plane ticket to 上海 from 北京 on December 10th"],
)
def test_an_english_booking_naming_chinese_cities_asks_and_offers_in_english(chat, sentence):
    answer = chat.say(sentence)

    options = [c for c in answer["cards"] if c["type"] == "option"]
    assert options and all("Beijing→Shanghai" in c["title"] and not CJK.search(c["title"]) for c in options)
    assert "name and mobile" in answer["reply"] and "还需要" not in answer["reply"]
    assert answer["suggestions"] and all(c["label"].startswith("Pick") for c in answer["suggestions"])
    assert nothing_written()


@pytest.mark.parametrize("sentence", ["帮我查一下Paris明天的天气", "去Paris玩的话天气怎么样"])
def test_a_chinese_sentence_naming_a_place_in_latin_letters_is_answered_in_chinese(chat, sentence):
    answer = chat.say(sentence)

    assert CJK.search(answer["reply"]) and "weather" not in answer["reply"].lower()
    assert Conversation.objects.get().language == "zh-hans"
    assert nothing_written()


@pytest.mark.parametrize("sentence", ["帮我 book a flight to 北京", "我想 book a train ticket to 上海"])
@pytest.mark.parametrize(("page", "asked"), [("zh-hans", "还需要"), ("en", "I still need")])
def test_a_sentence_truly_in_both_languages_is_answered_in_the_pages_language(alice, channel, page, asked, sentence):
    chat = Chat(alice)
    chat.client.defaults["HTTP_ACCEPT_LANGUAGE"] = page

    answer = chat.say(sentence)

    assert asked in answer["reply"], answer["reply"]
    assert Conversation.objects.get().language == page
    assert nothing_written()


def test_the_next_english_sentence_naming_a_chinese_place_keeps_the_conversation_in_english(chat):
    chat.say("book a flight from 北京 to 上海 on Dec 10")

    answer = chat.say("actually, what's the weather like in 上海 that day?")

    assert [c["type"] for c in answer["cards"]] == ["weather"]
    assert "Shanghai" in answer["reply"] and english(answer["reply"])
    assert nothing_written()


@pytest.mark.parametrize(
    ("first", "answer", "asked"),
    [
        ("book a train to 北京 on Dec 2", "上海", "I still need"),
        ("book a hotel in Dali from Dec 10 to Dec 12", "大理", "I still need"),
        ("帮我订12月2号去北京的火车", "Shanghai", "还需要"),
    ],
)
def test_a_place_name_alone_is_answered_in_the_conversations_language(chat, first, answer, asked):
    chat.say(first)

    reply = chat.say(answer)

    assert asked in reply["reply"], reply["reply"]
    assert Conversation.objects.get().language == ("en" if asked == "I still need" else "zh-hans")
    assert nothing_written()
