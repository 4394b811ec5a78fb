"""Every reply in one language: conversations that reach every presenter and outcome (search, weather, plans, round
trips, booking options, a pick, a confirmation, cancel, rebook, refund requests and their progress, a hand-over, a
refusal, "did you mean", a question back, a greeting, out of scope) in Chinese and in English, through both channels
(channel 1: the offline reader and the handlers; channel 2: the agent loop, with the rules adapter and with a
scripted model), read as the chat page shows them: the reply, its cards and its chips.

- In English, Chinese only as (a) a name's reader-language place in brackets after its Latin name ("Hangzhou (杭州)"),
  (b) the traveller's own words or names echoed back, (c) names the catalogue or the supplier has no English for yet
  (`untranslated_names`: an explicit list that shrinks as names get their English).
- In Chinese, Latin letters only as names and codes (TripDesk, flight numbers, order and booking ids): three English
  words in a row fail.
"""

import html
import re
from dataclasses import dataclass

import pytest
from django.core.management import call_command
from django.test import Client

from aftersale.models import BizOrder
from bookings.models import BookingRecord
from bookings.selectors import booking_facts
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model
from tests.support.one_language import ENGLISH_SENTENCE, without_names
from tests.whole.test_pages_in_one_language import ESCAPED, visible

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]*[\u3400-\u9fff\uf900-\ufaff]+")
LATIN_NAMES = ("TripDesk",)


# (c) Names with no English yet, each kind an entry: delete an entry once its names are translated, and the check
# tightens. Places, airlines, hotels and activity titles read in English now (names in brackets pass as (a)).
def _order_items() -> set[str]:
    """What an order holds, where the shop kept no English name beside it (`name_en`)."""
    return {
        item["name"]
        for order in BizOrder.objects.all()
        for item in order.items or []
        if isinstance(item, dict) and item.get("name") and not item.get("name_en")
    }


UNTRANSLATED = {
    "order items": _order_items,
}


def untranslated_names() -> set[str]:
    """(c), and (b) the passengers' names on the traveller's bookings (their own words, whatever the language)."""
    passengers = {name for b in BookingRecord.objects.all() for name in booking_facts(b)["passengers"]}
    return {name for names in UNTRANSLATED.values() for name in names() if name} | passengers


def foreign_chinese(text: str, echoed: list[str], names: set[str]) -> list[str]:
    """Chinese in an English text that is none of (a), (b), (c)."""
    return CJK_RUN.findall(without_names(text, {*echoed, *names}))


def foreign_english(text: str) -> list[str]:
    for name in LATIN_NAMES:
        text = text.replace(name, " ")
    return ENGLISH_SENTENCE.findall(text)


def _echoed(messages: list[str]) -> list[str]:
    """The traveller's own words: every Chinese run they typed."""
    return [run for message in messages for run in CJK_RUN.findall(message)]


OTHER = {"zh-hans": "en", "en": "zh-hans"}
# Not typed: the first "Book this plan" button of the previous reply, pressed.
BOOK_FIRST_PLAN = "<book the first plan>"
BUTTON = re.compile(r'name="message" value="([^"]*)">\s*<input type="hidden" name="choice" value="([^"]*)"')


@dataclass(frozen=True)
class Script:
    name: str
    zh: tuple[str, ...]
    en: tuple[str, ...]
    ends: str  # the last turn's outcome: the presenter the script is there to reach
    setup: str = ""  # a booking made before the conversation: "flight on the 19th", or cancelled


SCRIPTS = [
    Script("search", ("大理有什么活动",), ("activities in Dali",), ends="ANSWERED"),
    Script("recommend", ("推荐点好玩的",), ("recommend something fun",), ends="ANSWERED"),
    Script("weather", ("明天杭州天气怎么样",), ("weather in Hangzhou tomorrow",), ends="ANSWERED"),
    Script("travel plan", ("帮我规划三天丽江行程",), ("plan a 3-day trip to Lijiang",), ends="ANSWERED"),
    Script(
        "round trip",
        ("上海到成都12月19日去22日回，有哪些组合",),
        ("Shanghai to Chengdu, Dec 19 to 22, what are the options",),
        ends="ANSWERED",
    ),
    Script(
        "flight: options, pick, contact, confirm",
        ("帮我订12月19号上海飞成都的机票", "第二个", "张三 13800000000", "确认"),
        ("book a flight from Shanghai to Chengdu on Dec 19", "the second one", "Zhang San 13800000000", "confirm"),
        ends="ANSWERED",
    ),
    Script(
        "hotel: options, pick, confirm",
        ("帮我订大理的酒店，12月10日入住，12日退房，张三 13800000000", "第一个", "确认"),
        ("book a hotel in Dali from Dec 10 to Dec 12, Zhang San 13800000000", "the first one", "confirm"),
        ends="ANSWERED",
    ),
    Script(
        "train: options",
        ("帮我订12月11日北京到天津的火车票，张三 13800000000",),
        ("book a train from Beijing to Tianjin on Dec 11, Zhang San 13800000000",),
        ends="ANSWERED",
    ),
    Script("my bookings", ("我的订单付款了吗",), ("my booking status",), ends="ANSWERED", setup="flight on the 19th"),
    Script("pay", ("付款",), ("pay for my booking",), ends="ANSWERED", setup="flight on the 19th"),
    Script(
        "cancel",
        ("取消我12月19号的机票", "确认"),
        ("cancel my Dec 19 flight", "confirm"),
        ends="ANSWERED",
        setup="flight on the 19th",
    ),
    Script(
        "cancel declined",
        ("取消我12月19号的机票", "算了"),
        ("cancel my Dec 19 flight", "no"),
        ends="ANSWERED",
        setup="flight on the 19th",
    ),
    Script(
        "rebook",
        ("把12月19号的机票改签到20号", "确认"),
        ("change my Dec 19 flight to Dec 20", "confirm"),
        ends="ANSWERED",
        setup="flight on the 19th",
    ),
    Script(
        "refund: why, confirm, progress",
        ("订单ORD-001我要退款", "行程有变", "确认", "我的退款到哪一步了"),
        ("refund order ORD-001", "my plans changed", "confirm", "where is my refund"),
        ends="ANSWERED",
    ),
    Script(
        "rebook a cancelled booking",
        ("把{booking_id}改签到12月20号",),
        ("change booking {booking_id} to Dec 20",),
        ends="",
        setup="cancelled flight on the 19th",
    ),
    Script(
        "pay a cancelled booking",
        ("支付{booking_id}",),
        ("pay {booking_id}",),
        ends="REJECTED",
        setup="cancelled flight on the 19th",
    ),
    Script(
        "refund refused: too late",
        ("订单ORD-005我要退款，行程有变",),
        ("refund order ORD-005, my plans changed",),
        ends="REJECTED",
    ),
    Script(
        "return refused: past the window",
        ("订单ORD-002我要退货，不想要了",),
        ("return order ORD-002, I don't want it",),
        ends="REJECTED",
    ),
    Script(
        "refund: not your order",
        ("订单ORD-003我要退款，坏了",),
        ("refund order ORD-003, it is broken",),
        ends="REJECTED",
    ),
    Script(
        "refund: already refunded",
        ("订单ORD-007我要退款，行程有变",),
        ("refund order ORD-007, my plans changed",),
        ends="REJECTED",
    ),
    Script(
        "activity detail",
        ("大理有什么活动", "第一个详细介绍一下"),
        ("activities in Dali", "tell me more about the first one"),
        ends="ANSWERED",
    ),
    Script("search, nothing found", ("大理5块钱以内的活动",), ("activities in Dali under 5 yuan",), ends="EMPTY"),
    Script("weather, unknown place", ("火星明天天气怎么样",), ("weather on Mars tomorrow",), ends=""),
    Script(
        "a date that has passed",
        ("帮我订11月20号上海飞成都的机票",),
        ("book a flight from Shanghai to Chengdu on Nov 20",),
        ends="CLARIFY",
    ),
    Script(
        "two requests in one",
        ("帮我规划三天丽江行程，顺便查天气",),
        ("plan a 3-day trip to Lijiang and check the weather",),
        ends="ANSWERED",
    ),
    Script(
        "a flight and a hotel kept for later",
        ("帮我订12月19号上海飞成都的机票，再订成都的酒店住两晚",),
        ("book a flight from Shanghai to Chengdu on Dec 19 and a hotel in Chengdu for 2 nights",),
        ends="",
    ),
    Script("nothing to confirm", ("确认",), ("confirm",), ends="REJECTED"),
    Script("travel plan, where to", ("帮我做个旅行计划",), ("make me a travel plan",), ends=""),
    Script(
        "round trip, plan booked",
        ("上海到成都12月19日去22日回，有哪些组合", BOOK_FIRST_PLAN, "张三 13800000000", "确认"),
        (
            "Shanghai to Chengdu, Dec 19 to 22, what are the options",
            BOOK_FIRST_PLAN,
            "Zhang San 13800000000",
            "confirm",
        ),
        ends="ANSWERED",
    ),
    Script("progress, no order named", ("我的退款到哪一步了",), ("where is my refund",), ends="ANSWERED"),
    Script("handover", ("转人工",), ("talk to a person",), ends="HANDOVER"),
    Script("did you mean", ("丽江那个事儿弄得咋样了",), ("any news on the Lijiang matter",), ends="CLARIFY"),
    Script("clarify", ("帮我订张机票",), ("book me a flight",), ends="CLARIFY"),
    Script("greeting", ("你好",), ("hello",), ends="ANSWERED"),
    Script(
        "out of scope", ("帮我写一首诗", "今天股票怎么样"), ("write me a poem", "how are stocks today"), ends="REFUSED"
    ),
]


def _book_flight_on_the_19th(user, *, cancelled: bool = False) -> str:
    import datetime as dt

    from bookings.options import BookingWants
    from bookings.services.cancel import booking_cancel
    from bookings.services.create import booking_create
    from bookings.services.search import booking_options

    found = booking_options(
        user=user, biz_type="FLIGHT", origin="上海", destination="成都", city=None, date=dt.date(2026, 12, 19),
        check_out=None, wants=BookingWants(), passengers=1,
    )  # fmt: skip
    passengers = [{"name": "张三", "mobile": "13800000000"}]
    booking = booking_create(user=user, option_ref=found["options"][0]["ref"], passengers=passengers, scope="setup")
    if cancelled:
        booking_cancel(user=user, booking_id=booking.booking_id)
    return booking.booking_id


@pytest.fixture
def seeded(supplier_sandbox, settings, django_user_model):
    settings.BOOKING_REFRESH_SECONDS = 0
    call_command("seed_demo", verbosity=0)
    return django_user_model.objects.get(username="alice")


def _converse(user, page: str, messages: tuple[str, ...]) -> list[tuple[str, list[str], str]]:
    """Each message sent from the chat page in `page`'s language (a fresh conversation): the visible text of each
    turn."""
    client = Client(HTTP_ACCEPT_LANGUAGE=page)
    client.force_login(user)
    client.post("/chat/new")
    shown, previous = [], ""
    for message in messages:
        sent = {"message": message}
        if message == BOOK_FIRST_PLAN:
            said, choice = BUTTON.search(previous).groups()
            sent = {"message": html.unescape(said), "choice": html.unescape(choice)}
        response = client.post("/chat/send", sent, HTTP_HX_REQUEST="true")
        previous = response.content.decode()
        assert response.status_code == 200, response.content[:300]
        # the turn (the reply, its cards and chips), not the news about bookings below it: those are the page's
        turn = response.content.decode().split('<div class="notice-turn"')[0]
        outcome = re.search(r'data-outcome="(\w+)"', turn)
        shown.append((message, visible(turn), outcome.group(1) if outcome else ""))
    return shown


def problems_in(language: str, shown, typed: list[str], names: set[str]) -> list[str]:
    problems = []
    echoed = _echoed(typed)
    for message, texts, _outcome in shown:
        for text in texts[1:]:  # the first is the traveller's own message
            text = html.unescape(text)
            if ESCAPED.search(text):
                problems.append(f"{message!r}: escaped twice: {text[:120]!r}")
            found = foreign_chinese(text, echoed, names) if language == "en" else foreign_english(text)
            if found:
                problems.append(f"{message!r}: {found[:3]} in {text[:200]!r}")
    return problems


@pytest.mark.parametrize("page", ["same page", "other page"])
@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("channel", [1, 2], ids=["channel-1", "channel-2"])
def test_every_reply_card_and_chip_speaks_the_language_of_the_conversation(language, channel, page, seeded, settings):
    settings.ASSISTANT_AGENT_ENABLED = channel == 2
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    problems = []
    for script in SCRIPTS:
        facts = {}
        if script.setup:
            BookingRecord.objects.filter(user=seeded).delete()
            facts["booking_id"] = _book_flight_on_the_19th(seeded, cancelled=script.setup.startswith("cancelled"))
        messages = tuple(m.format(**facts) for m in (script.zh if language == "zh-hans" else script.en))
        shown = _converse(seeded, language if page == "same page" else OTHER[language], messages)
        names = untranslated_names()  # (c): see UNTRANSLATED
        problems += [f"[{script.name}] {p}" for p in problems_in(language, shown, list(messages), names)]
        if script.ends and shown[-1][2] != script.ends:
            problems.append(f"[{script.name}] ended {shown[-1][2]}, not {script.ends}: the script misses its reply")
    assert not problems, f"{len(problems)} strings in the other language:\n" + "\n".join(problems)


# --- channel 2 with a model ---------------------------------------------------------------------------------------


def call(name: str, **arguments) -> Reply:
    return Reply(tool_calls=[{"id": f"call_{name}", "name": name, "arguments": arguments}])


@dataclass(frozen=True)
class ModelTurn:
    """One message and the tool calls a model answers it with (then "done"): what the presenters show of them."""

    name: str
    zh: str
    en: str
    calls: tuple[Reply, ...]
    setup: str = ""


MODEL_TURNS = [
    ModelTurn("search", "大理有什么活动", "activities in Dali", (call("search_activities", city="大理"),)),
    ModelTurn(
        "weather", "大理这周末天气怎么样", "weather in Dali this weekend", (call("weather_report", place="大理"),)
    ),
    ModelTurn(
        "options",
        "12月19号上海飞成都的机票",
        "flights from Shanghai to Chengdu on Dec 19",
        (call("find_booking_options", biz_type="FLIGHT", origin="上海", destination="成都", date="2026-12-19"),),
    ),
    ModelTurn("ask", "帮我订票", "book me a ticket", (call("ask_traveller", missing=["biz_type", "date"]),)),
    ModelTurn(
        "refund refused",
        "ORD-005退款，行程有变",
        "refund ORD-005, my plans changed",
        (call("request_aftersale", order_id="ORD-005", action="REFUND", reason="行程有变", reason_kind="TICKET"),),
    ),  # fmt: skip
    ModelTurn(
        "rebook a cancelled booking",
        "把{booking_id}改签",
        "change {booking_id}",
        (call("rebook_booking", booking_id="{booking_id}", option_ref="FLIGHT|x"),),
        setup="cancelled",
    ),
    ModelTurn(
        "pay a cancelled booking",
        "支付{booking_id}",
        "pay {booking_id}",
        (call("pay_booking", booking_id="{booking_id}"),),
        setup="cancelled",
    ),
    ModelTurn(
        "cancel a booking that is not there",
        "取消BK20260101999",
        "cancel BK20260101999",
        (call("cancel_booking", booking_id="BK20260101999"),),
    ),
    ModelTurn(
        "a tool that is not there", "帮我订个餐厅", "book me a restaurant", (call("book_restaurant", restaurant="x"),)
    ),
    ModelTurn("progress", "我的退款到哪了", "where is my refund", (call("query_progress"),)),
    ModelTurn("handover", "转人工", "talk to a person", (call("hand_over_to_person"),)),
]


def _filled(reply: Reply, facts: dict) -> Reply:
    calls = [
        {**c, "arguments": {k: v.format(**facts) if isinstance(v, str) else v for k, v in c["arguments"].items()}}
        for c in reply.tool_calls or []
    ]
    return Reply(tool_calls=calls)


@pytest.fixture
def model(settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-languages", agent=True, timeout=5.0)
    return fake_openai


@pytest.mark.parametrize("page", ["same page", "other page"])
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_what_a_model_calls_is_shown_in_the_language_of_the_conversation(language, page, seeded, model):
    problems = []
    for turn in MODEL_TURNS:
        facts = {}
        if turn.setup:
            BookingRecord.objects.filter(user=seeded).delete()
            facts["booking_id"] = _book_flight_on_the_19th(seeded, cancelled=True)
        message = (turn.zh if language == "zh-hans" else turn.en).format(**facts)
        model.script(*(_filled(c, facts) for c in turn.calls), Reply(content="done"))
        shown = _converse(seeded, language if page == "same page" else OTHER[language], (message,))
        assert len(shown[0][1]) > 1, f"[{turn.name}] no reply"
        names = untranslated_names()  # (c): see UNTRANSLATED
        problems += [f"[{turn.name}] {p}" for p in problems_in(language, shown, [message], names)]
    assert not problems, f"{len(problems)} strings in the other language:\n" + "\n".join(problems)
