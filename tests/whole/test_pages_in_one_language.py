"""Every page in one language: walks the pages a traveller and an approver see, in Chinese and in English, after a
conversation that shows every kind of card, and fails on a string in the other language's script and on escaping
shown as text.

- An English page may show Chinese only in brackets after a name's English ("Hangzhou (杭州)") and as the
  travellers' own words and names (passengers, a request's reason) or an order item the shop named only in Chinese;
  never a place, an airline, a hotel, a seat or an activity's title or description, which all read in English.
- A Chinese page may show Latin letters only as names and codes (TripDesk, flight numbers, booking ids, API), not
  as sentences: three or more English words in a row fail.
- No page shows `&#…;` / `&amp;` as text (a reply escaped twice).
"""

import html
import re
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from aftersale.models import BizOrder, HitlTicket
from assistant.services import chat_turn
from bookings.models import BookingRecord
from demo.users import DEMO_LOGINS
from itinerary.models import Activity
from tests.assistant.conftest import TODAY
from tests.support.one_language import ENGLISH_SENTENCE, strings, without_names

pytestmark = pytest.mark.django_db

CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
ESCAPED = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);")
# Latin words a Chinese page may show: the product's name, codes and technical names.
LATIN_NAMES = ("TripDesk", "API", "OpenAPI", "Swagger", "ReDoc", "JSON", "HTMX", "Django")

CONVERSATIONS = {
    "zh-hans": [
        "大理有什么活动",
        "明天杭州天气怎么样",
        "帮我规划三天丽江行程",
        "上海到成都12月19日去22日回，有哪些组合",
        "帮我订12月19号上海飞成都的机票，要早上的，张三 13800000000",
        "确认",
        "我的订单付款了吗",
        "订单ORD-001质量问题我要退款",
        "确认",
        "我的退款到哪一步了",
        "你好",
    ],
    "en": [
        "activities in Dali",
        "weather in Hangzhou tomorrow",
        "plan a 3-day trip to Lijiang",
        "Shanghai to Chengdu, Dec 19 to 22, what are the options",
        "book a flight from Shanghai to Chengdu on Dec 19 in the morning, Zhang San 13800000000",
        "confirm",
        "my booking status",
        "refund order ORD-001, it arrived broken",
        "confirm",
        "where is my refund",
        "hello",
    ],
}


class VisibleText(HTMLParser):
    """The text a reader sees: text nodes outside script and style, and the attributes a browser shows."""

    SHOWN_ATTRIBUTES = ("placeholder", "title", "aria-label", "alt")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self._hidden += 1
        values = dict(attrs)
        self.parts.extend(values[name] for name in self.SHOWN_ATTRIBUTES if values.get(name))
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.parts.append(values["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden and data.strip():
            self.parts.append(data.strip())


def visible(page: str) -> list[str]:
    parser = VisibleText()
    parser.feed(page)
    return parser.parts


def names_in_data() -> set[str]:
    """Chinese an English page may show besides a name's brackets: the travellers' own words and names (passengers,
    contacts, a request's reason), an order item the shop named only in Chinese, each language's own name."""
    names: set[str] = set()
    for booking in BookingRecord.objects.all():
        names.update(strings(booking.details.get("passengers") or []))
        names.update(strings(booking.contact))
    for order in BizOrder.objects.all():
        names.update(item["name"] for item in order.items or [] if isinstance(item, dict) and not item.get("name_en"))
    for ticket in HitlTicket.objects.all():
        names.add(ticket.request_reason or "")  # the traveller's own words
    names.update(str(name) for _code, name in settings.LANGUAGES)  # the switcher names each language in itself
    return {n for n in names if n}


def foreign_chinese(text: str, names: set[str]) -> list[str]:
    """Chinese runs in an English text that are not names."""
    return CJK_RUN.findall(without_names(text, names))


def foreign_english(text: str, names: set[str]) -> list[str]:
    for name in (*LATIN_NAMES, *names):
        text = text.replace(name, " ")
    return ENGLISH_SENTENCE.findall(text)


@pytest.fixture
def seeded(supplier_sandbox, settings):
    settings.BOOKING_REFRESH_SECONDS = 0
    call_command("seed_demo", verbosity=0)


def _pages(client: Client, user) -> dict[str, str]:
    activity = Activity.objects.filter(is_published=True).first()
    return {
        "chat": client.get("/").content.decode(),
        "bookings": client.get("/bookings/").content.decode(),
        "bookings refreshed": client.get("/bookings/refresh", HTTP_HX_REQUEST="true").content.decode(),
        "requests": client.get("/aftersale/").content.decode(),
        "activity": client.get(f"/activities/{activity.pk}/").content.decode(),
        "not found": client.get("/no-such-page/").content.decode(),
    }


def _admin_pages(language: str) -> dict[str, str]:
    approver = next(login for login in DEMO_LOGINS if login["role"] == "approver")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(get_user_model().objects.get(username=approver["username"]))
    ticket = HitlTicket.objects.order_by("-id").first()
    pages = {
        "console list": client.get("/admin/aftersale/hitlticket/").content.decode(),
        "operations": client.get("/admin/operations/").content.decode(),
    }
    if ticket is not None:
        pages["ticket"] = client.get(f"/admin/aftersale/hitlticket/{ticket.pk}/change/").content.decode()
    return pages


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_every_page_speaks_one_language(language, seeded):
    user = get_user_model().objects.get(username="alice")
    conversation = None
    for message in CONVERSATIONS[language]:
        conversation = chat_turn(
            user=user, message=message, conversation_id=conversation, page_language=language, today=TODAY
        ).conversation_id
    assert HitlTicket.objects.filter(requested_by=user).exists()  # the refund was confirmed: its page is read too
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    pages = {**_pages(client, user), **_admin_pages(language)}
    login = Client(HTTP_ACCEPT_LANGUAGE=language)
    pages["login"] = login.get("/accounts/login/").content.decode()

    names = names_in_data()
    problems = []
    for page_name, page in pages.items():
        assert "<html" in page or "<tr" in page or "<div" in page, f"{page_name}: no page"
        for text in visible(page):
            if ESCAPED.search(text):
                problems.append(f"{page_name}: escaped twice: {text[:120]!r}")
            check = foreign_chinese if language == "en" else foreign_english
            found = check(html.unescape(text), names)
            if found:
                problems.append(f"{page_name}: {found[:3]} in {text[:160]!r}")
    assert not problems, f"{len(problems)} strings in the other language:\n" + "\n".join(problems[:60])
