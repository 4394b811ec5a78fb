"""Flights, trains, hotels and places named in the reader's language (issue 29): an English chat and the English My
bookings page name the airline, the kind of train, the hotel, the seat and the cities in English (Chinese only
inside a name's brackets); a Chinese chat stays all Chinese. The supplier sandbox answers both."""

import re
from decimal import Decimal

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from assistant.services import chat_turn
from bookings.models import BookingRecord
from bookings.services.recording import booking_record_create
from bookings.services.search import booking_options
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u3400-\u9fff]")
# A name given once in English with its Chinese after it: "Dali (大理)".
BRACKETED = re.compile(r"[A-Za-z][\w' .-]* \([^()]*\)")
CARD_PARTIALS = {
    "option": "assistant/partials/card_option.html",
    "booking": "assistant/partials/card_booking.html",
    "confirmation": "assistant/partials/card_confirmation.html",
}
CARD_TEXT = ("title", "name", "route", "city", "summary", "seat")


def visible(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def chinese_outside_brackets(text: str) -> list[str]:
    """The Chinese characters of a text but those inside the brackets after an English name."""
    return CJK.findall(BRACKETED.sub("", text))


def english_words(text: str) -> list[str]:
    """The Latin words of a text but numbers and codes (MF1197, G364, BK20261201001, 3★)."""
    return re.findall(r"[A-Za-z]{2,}", re.sub(r"\b[A-Z]+\d+\b", "", text))


class Conversation:
    """One traveller's chat through `chat_turn` on a page in one language, keeping every reply and card shown."""

    def __init__(self, user, language: str) -> None:
        self.user, self.language, self.id = user, language, None
        self.shown: list[str] = []

    def say(self, message: str):
        result = chat_turn(
            user=self.user, message=message, conversation_id=self.id, today=TODAY, page_language=self.language
        )
        self.id = result.conversation_id
        self.shown.append(result.reply)
        for card in result.cards:
            self.shown += [str(card[key]) for key in CARD_TEXT if card.get(key)]
            self.shown += [str(row[1]) for row in card.get("rows") or [] if row[0] not in ("Passengers", "Guests")]
            if card.get("type") in CARD_PARTIALS:
                with translation.override(self.language):  # the page renders the card in its language
                    self.shown.append(visible(render_to_string(CARD_PARTIALS[card["type"]], {"card": card})))
        return result


def book(conversation: Conversation, search: str, contact: str, yes: str) -> BookingRecord:
    found = conversation.say(search)
    assert [c for c in found.cards if c["type"] == "option"], found.reply
    conversation.say(contact)
    conversation.say(yes)
    return BookingRecord.objects.latest("id")


ENGLISH_BOOKINGS = [
    ("book a flight from Beijing to Shanghai on Dec 11", "FLIGHT", ("Flights Beijing → Shanghai", "Beijing→Shanghai")),
    ("book a train from Beijing to Tianjin on Dec 11", "TRAIN", ("Trains Beijing → Tianjin", "Beijing→Tianjin")),
    ("book a hotel in Hangzhou from Dec 11 to Dec 13", "HOTEL", ("Hotels in Hangzhou", "Hangzhou ")),
]


@pytest.mark.parametrize(("search", "biz_type", "said"), ENGLISH_BOOKINGS)
def test_an_english_booking_names_carriers_hotels_and_cities_in_english(
    alice, supplier_sandbox, search, biz_type, said
):
    chat = Conversation(alice, "en")

    booking = book(chat, search, "Zhang San 13800138000", "confirm")

    assert booking.biz_type == biz_type and booking.user == alice
    heading, title = said
    assert chat.shown[0].startswith(heading)
    assert any(title in text for text in chat.shown[1:])
    assert [(text, chinese_outside_brackets(text)) for text in chat.shown if chinese_outside_brackets(text)] == []


def test_an_english_flight_card_names_the_airline_and_the_cabin(alice, supplier_sandbox):
    chat = Conversation(alice, "en")

    found = chat.say("book a flight from Beijing to Shanghai on Dec 11")

    options = [c for c in found.cards if c["type"] == "option"]
    airlines = {
        "China Eastern",
        "Air China",
        "China Southern",
        "Hainan Airlines",
        "Sichuan Airlines",
        "Xiamen Airlines",
    }
    assert options and all(c["name"] in airlines and c["title"].startswith(c["name"] + " ") for c in options)
    with translation.override("en"):
        assert all("economy" in visible(render_to_string(CARD_PARTIALS["option"], {"card": c})) for c in options)


CHINESE_BOOKINGS = [
    ("帮我订12月11日北京到上海的机票", "北京→上海 12月11日的航班", "北京→上海"),
    ("订12月11日北京到天津的火车票", "北京→天津 12月11日的火车", "北京→天津"),
    ("订杭州的酒店12月11日到12月13日", "杭州 12月11日至12月13日（2晚）的酒店", "杭州"),
]


@pytest.mark.parametrize(("search", "heading", "title"), CHINESE_BOOKINGS)
def test_a_chinese_booking_stays_all_chinese(alice, supplier_sandbox, search, heading, title):
    chat = Conversation(alice, "zh-hans")

    book(chat, search, "张三 13800138000", "确认")

    assert chat.shown[0].startswith(heading)
    assert any(text.startswith(title) or f" {title}" in text for text in chat.shown[1:])
    assert [(text, english_words(text)) for text in chat.shown if english_words(text)] == []


def test_the_model_is_told_the_english_names_of_the_options_it_may_name(alice, supplier_sandbox):
    from assistant.agent_turn import options_on_screen

    chat = Conversation(alice, "zh-hans")
    found = chat.say("帮我订12月11日北京到上海的机票")
    cards = {c["ref"]: c for c in found.cards if c["type"] == "option"}

    block = options_on_screen(list(cards), cards)

    first = next(iter(cards.values()))
    assert f"{first['name']} / {first['name_en']}" in block and "Beijing → Shanghai" in block
    options = booking_options(
        user=alice, biz_type="FLIGHT", origin="北京", destination="上海", date=TODAY.replace(day=11)
    )
    assert all(
        o["name_en"] and (o["origin_en"], o["destination_en"]) == ("Beijing", "Shanghai") for o in options["options"]
    )


def my_bookings(language: str, user) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return visible(client.get("/bookings/").content.decode())


def listed(page: str) -> str:
    """The bookings table of the page (not the language switcher above it, which names 简体中文)."""
    return page.split("Amount Status", 1)[1]


def test_my_bookings_in_english_names_the_airline_the_hotel_and_the_cities_in_english(alice, supplier_sandbox):
    chat = Conversation(alice, "en")
    flight = book(chat, "book a flight from Beijing to Shanghai on Dec 11", "Zhang San 13800138000", "confirm")
    hotel = book(chat, "book a hotel in Hangzhou from Dec 11 to Dec 13", "Zhang San 13800138000", "confirm")

    english, chinese = my_bookings("en", alice), my_bookings("zh-hans", alice)

    airline = {"厦门航空": "Xiamen Airlines", "南方航空": "China Southern", "东方航空": "China Eastern"}
    assert f"{airline[flight.details['name']]} {flight.details['number']} Beijing → Shanghai" in english
    assert hotel.details["name_en"].startswith("Hangzhou ") and hotel.details["name_en"] in english
    assert not chinese_outside_brackets(listed(english))
    assert f"{flight.details['name']} {flight.details['number']} 北京 → 上海" in chinese
    assert hotel.details["name"] in chinese and hotel.details["name_en"] not in chinese


def stored(user, biz_type: str, order_no: str, details: dict) -> BookingRecord:
    return booking_record_create(
        user=user,
        biz_type=biz_type,
        external_order_no=order_no,
        amount=Decimal("800"),
        contact={"name": "张三"},
        details=details,
        raw={},
        reason="Booked before the supplier sent English names.",
    )


def test_a_booking_stored_without_english_names_is_named_through_the_bookings_mapping(alice):
    flight = {"number": "MU5101", "name": "东方航空", "origin": "上海", "destination": "成都", "seat": "经济舱"}
    stored(alice, "FLIGHT", "FL1", flight | {"depart": "2026-12-19T07:10", "arrive": "2026-12-19T10:05"})
    hotel = {"number": "HDL001", "name": "大理古城客栈", "city": "大理", "star": 4}
    stored(alice, "HOTEL", "HT1", hotel | {"check_in": "2026-12-10", "check_out": "2026-12-12", "nights": 2})

    page = my_bookings("en", alice)

    assert "China Eastern MU5101 Shanghai → Chengdu" in page
    assert "大理古城客栈 (Dali)" in page  # no English name: the Chinese once, its place in English beside it
    assert not chinese_outside_brackets(listed(page))


def test_a_booking_the_model_reads_carries_its_names_in_english_whatever_the_page(alice):
    from bookings.tools import booking_summary

    flight = {"number": "MU5101", "name": "东方航空", "origin": "上海", "destination": "成都", "seat": "经济舱"}
    booking = stored(alice, "FLIGHT", "FL1", flight | {"depart": "2026-12-19T07:10"})

    with translation.override("zh-hans"):
        summary = booking_summary(booking)

    assert summary["facts"]["name"] == "东方航空"
    english = summary["in_english"]
    assert (english["name"], english["route"], english["seat"]) == ("China Eastern", "Shanghai → Chengdu", "economy")


@pytest.mark.parametrize(
    ("language", "sentence", "said", "unsaid"),
    [
        ("en", "activities in Dali", "I found 1 activity in Dali (大理)", "in 大理"),
        ("zh-hans", "大理有什么活动", "大理", "Dali"),
    ],
)
def test_an_activity_search_names_its_place_in_the_readers_language(alice, dali, language, sentence, said, unsaid):
    result = chat_turn(user=alice, message=sentence, today=TODAY, page_language=language)

    assert said in result.reply and unsaid not in result.reply


@pytest.mark.parametrize(
    ("language", "said"), [("en", "Beijing Shanghai 2026-12-11"), ("zh-hans", "北京 上海 2026-12-11")]
)
def test_a_platform_search_that_found_nothing_names_its_places_in_the_readers_language(alice, language, said):
    from assistant.llm.schema import Intent
    from assistant.presenters.bookings import present_platform
    from assistant.turn import TurnContext

    searched = {"action": "search", "product": "flight", "answer": {"flights": []}}
    searched["arguments"] = {"from": "北京", "to": "上海", "date": "2026-12-11"}
    context = TurnContext(intent=Intent.model_validate({"intent": "BOOK"}), user=alice, today=TODAY, language=language)

    reply = present_platform([{"ok": True, "code": "OK", "message": "", "data": searched}], context)

    assert reply.outcome == "EMPTY" and said in reply.text
