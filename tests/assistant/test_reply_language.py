"""The reply's language is the sentence's, through the chat API in both channels: an English sentence that names a
Chinese place in Chinese characters is answered in English (its chips and its question too), a Chinese sentence
that names a place in Latin letters in Chinese, and a sentence truly in both languages in the page's language. The
language decides only the words: nothing is written before a yes (no pending action, no booking). On the chat page a
turn's cards, chips and staff notes are in the reply's language, also when the page is in the other one; a refusal's
reason is worded when the reply shows it."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from assistant.agent import default_registry
from assistant.handovers import handover_close
from assistant.llm.schema import Intent, IntentName
from assistant.models import Conversation, Handover, PendingAction
from assistant.presenters import present
from assistant.replies import reply_language
from assistant.turn import TurnContext
from bookings.models import BookingRecord
from core.tools import ToolContext
from tests.assistant.conftest import TODAY, Chat
from tests.whole.test_pages_in_one_language import visible

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


@pytest.fixture
def demo_orders(supplier_sandbox, django_user_model):
    call_command("seed_demo", verbosity=0)
    return django_user_model.objects.get(username="alice")


def test_a_refusals_reason_is_worded_in_the_replys_language_whatever_language_the_tool_ran_in(demo_orders):
    asked = {"order_id": "ORD-005", "action": "REFUND", "reason": "my plans changed", "reason_kind": "TICKET"}
    tool_context = ToolContext(user=demo_orders, conversation_id="c", language="zh-hans", request_text="refund ORD-005")
    with translation.override("zh-hans"):  # the service worded its reason in Chinese
        envelope = default_registry().call("request_aftersale", asked, tool_context)
    assert envelope["code"] == "INELIGIBLE" and CJK.search(envelope["message"])

    reply = present([envelope], TurnContext(Intent(intent=IntentName.AFTERSALE), demo_orders, TODAY, "en"))

    assert "within 48 hours" in reply.text and not CJK.search(reply.text), reply.text
    assert not PendingAction.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "language"),
    [("订单ORD-001我要退款", "zh-hans"), ("refund order ORD-001", "en"), ("ORD-001退款进度", "zh-hans")],
)
@pytest.mark.parametrize("page", ["zh-hans", "en"])
def test_an_order_number_touching_chinese_words_says_nothing_about_the_language(sentence, language, page):
    assert reply_language(sentence, page) == language


@pytest.mark.parametrize(
    ("sentence", "page", "asked", "chips"),
    [
        ("帮我 book a flight from 上海 to 北京 on Dec 10", "en", "I still need", r"^[\x00-\x7f]+$"),
        ("帮我 book a flight from 上海 to 北京 on Dec 10", "zh-hans", "还需要", CJK.pattern),
        ("I want to 订 a hotel in 大理 from Dec 10 to Dec 12", "en", "I still need", r"^[\x00-\x7f]+$"),
    ],
)
def test_a_sentence_in_both_languages_gets_its_question_chips_and_cards_in_the_pages_language(
    alice, channel, supplier_sandbox, sentence, page, asked, chips
):
    """The reply to a mixed sentence as the chat page shows it: its question, its option cards and its chips all
    in the page's language."""
    client = Client(HTTP_ACCEPT_LANGUAGE=page)
    client.force_login(alice)

    response = client.post("/chat/send", {"message": sentence}, HTTP_HX_REQUEST="true")

    shown = visible(response.content.decode())
    assert asked in " ".join(shown), shown
    labels = re.findall(r'<button type="submit" class="chip">([^<]*)</button>', response.content.decode())
    assert labels and all(re.search(chips, label) for label in labels), labels
    card_words = {"en": ("/person", "night"), "zh-hans": ("/人", "晚")}[page]
    assert any(word in text for text in shown for word in card_words), shown
    assert nothing_written()


def test_an_english_conversation_reopened_on_a_chinese_page_shows_its_cards_in_english(
    alice, channel, supplier_sandbox
):
    english, chinese = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    english.force_login(alice)
    chinese.force_login(alice)
    english.post("/chat/send", {"message": "book a flight from Shanghai to Chengdu on Dec 19"})

    page = " ".join(visible(chinese.get("/").content.decode()))

    assert "I still need" in page and "/person" in page, page  # the reply and its option cards, in English
    assert "/人" not in page and "还需要" not in page
    assert "发送" in page or "助手" in page  # the page around them in Chinese
    assert nothing_written()


def test_staff_handing_an_english_conversation_back_is_told_in_english_on_a_chinese_page(alice, user_factory):
    staff = user_factory("sam", is_staff=True, first_name="Sam")
    staff.user_permissions.add(Permission.objects.get(codename="answer_handover", content_type__app_label="assistant"))
    english, chinese = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    english.force_login(alice)
    chinese.force_login(alice)
    english.post("/chat/send", {"message": "I want to talk to a person"})
    handover_close(handover_id=Handover.objects.get().pk, staff=staff)

    page = " ".join(visible(chinese.get("/").content.decode()))

    assert "The assistant is back: ask me anything." in page, page
    assert "助手回来了" not in page


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "That is not something I can do here, so nothing was done."), ("zh-hans", "这一步我在这里做不了")],
)
def test_a_call_to_a_tool_that_does_not_exist_is_refused_in_words_not_a_code(language, said):
    from assistant.llm.schema import Intent
    from assistant.presenters.base import present_refusal
    from assistant.turn import TurnContext

    context = TurnContext(intent=Intent.model_validate({"intent": "BOOK"}), user=None, today=TODAY, language=language)
    reply = present_refusal([{"ok": False, "code": "UNKNOWN_TOOL", "message": "no tool named nope"}], context)

    assert said in reply.text and "UNKNOWN_TOOL" not in reply.text
    assert reply.outcome == "REJECTED"
