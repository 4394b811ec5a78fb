"""Activities are named in the reply's language, in both channels: an English turn shows the catalogue's English
titles on its cards and in its text, a Chinese turn the Chinese ones; an activity with no English yet shows its
Chinese title once, with the place in English beside it. Nothing is written by a search."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.utils import timezone

from assistant.models import PendingAction
from bookings.models import BookingRecord
from itinerary.tagging import system_tags_for
from tests.assistant.conftest import Chat
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chat(alice, channel):
    return Chat(alice)


@pytest.fixture
def erhai():
    """Two activities in 大理: one with its English written, one without."""
    today = timezone.localdate()
    window = {"city": "大理", "province": "云南", "start_date": today, "end_date": today + dt.timedelta(days=20)}
    translated = ActivityFactory(
        title="洱海西岸骑行一日游",
        title_en="Erhai Lake west shore cycling day trip",
        description="从才村码头出发，沿洱海生态廊道骑行至喜洲古镇。",
        description_en="Ride from Caicun pier along the Erhai eco-corridor to the old town of Xizhou.",
        price=Decimal("260"),
        popularity=50,
        tags=["骑行", "湖泊"],
        system_tags=system_tags_for("洱海西岸骑行一日游", ["骑行", "湖泊"]),
        **window,
    )
    untranslated = ActivityFactory(title="大理古城漫游", price=Decimal("199"), popularity=10, **window)
    return translated, untranslated


def activity_titles(answer: dict, kind: str = "activity") -> list[str]:
    return [card["title"] for card in answer["cards"] if card["type"] == kind]


def without_place_names(text: str) -> str:
    """The text without the place's names (how a reply names a place is not this file's concern)."""
    return re.sub(r"大理|云南", "", text)


def test_an_english_search_shows_the_english_titles_and_an_english_reply(chat, erhai):
    answer = chat.say("activities in Dali")

    assert activity_titles(answer) == ["Erhai Lake west shore cycling day trip", "大理古城漫游 (Dali)"]
    assert "activities" in answer["reply"] and not CJK.search(without_place_names(answer["reply"])), answer["reply"]
    assert not PendingAction.objects.exists() and not BookingRecord.objects.exists()


def test_a_chinese_search_shows_the_chinese_titles(chat, erhai):
    answer = chat.say("大理有什么活动")

    assert activity_titles(answer) == ["洱海西岸骑行一日游", "大理古城漫游"]
    assert "Erhai" not in answer["reply"] and "cycling" not in answer["reply"]


def test_an_english_reader_asking_for_a_kind_of_activity_sees_it_by_its_english_title(chat, erhai):
    answer = chat.say("cycling in Dali")

    assert "Erhai Lake west shore cycling day trip" in activity_titles(answer)


def test_the_details_asked_in_english_are_the_english_title_and_description(chat, erhai):
    chat.say("activities in Dali")

    answer = chat.say("tell me more about the first one")

    assert activity_titles(answer, "activity_detail") == ["Erhai Lake west shore cycling day trip"]
    detail = next(card for card in answer["cards"] if card["type"] == "activity_detail")
    assert detail["description"] == "Ride from Caicun pier along the Erhai eco-corridor to the old town of Xizhou."
    assert "Erhai Lake west shore cycling day trip" in answer["reply"]
    assert "Caicun pier" in answer["reply"] and "才村" not in answer["reply"]


def test_the_details_asked_in_chinese_are_the_chinese_title_and_description(chat, erhai):
    chat.say("大理有什么活动")

    answer = chat.say("第一个的详情")

    assert activity_titles(answer, "activity_detail") == ["洱海西岸骑行一日游"]
    assert "才村码头" in answer["reply"] and "Caicun" not in answer["reply"]
