"""Follow-ups that refine a result on screen, through the chat API in both channels (channel 1: the rules reading and
the handlers; channel 2: the agent loop with the rules adapter replaying channel 1's flow): a cheaper or dearer
order, another kind of activity, a kind left out, who comes along, the details of the n-th activity shown, a budget
or an interest added to a plan, the weather's day moved and what to wear. Each is redone with the change, the reply
says what changed, and nothing is written (no pending action, no booking)."""

import datetime as dt
from decimal import Decimal

import pytest

from assistant.models import PendingAction
from bookings.models import BookingRecord
from itinerary.tagging import system_tags_for
from tests.assistant.conftest import Chat
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)

# (title, price, tags, popularity): the most popular first is the search's own order.
DALI = (
    ("大理古城文化漫步", 398, ["文化", "古镇"], 90),
    ("苍山徒步一日", 260, ["徒步", "户外"], 80),
    ("大理美食小吃之旅", 88, ["美食"], 70),
    ("洱海日出摄影团", 220, ["摄影"], 60),
    ("洱海西岸骑行", 168, ["骑行", "湖泊"], 50),
    ("周城扎染亲子体验", 128, ["亲子", "手工"], 40),
    ("洱海夜游酒吧派对", 520, ["夜游", "酒吧"], 30),
)


@pytest.fixture
def chat(alice, channel):
    return Chat(alice)


@pytest.fixture
def dali():
    for title, price, tags, popularity in DALI:
        ActivityFactory(
            title=title,
            city="大理",
            province="云南",
            price=Decimal(price),
            start_date=TODAY,
            end_date=TODAY + dt.timedelta(days=60),
            tags=tags,
            system_tags=system_tags_for(title, tags),
            popularity=popularity,
        )


def titles(answer: dict, kind: str = "activity") -> list[str]:
    """The cards' titles as the catalogue writes them: these activities have no English title, so an English reply
    names each once in Chinese with the place in English beside it ("大理古城文化漫步 (Dali)")."""
    return [c["title"].removesuffix(" (Dali)") for c in answer["cards"] if c["type"] == kind]


def prices(answer: dict) -> list[Decimal]:
    return [Decimal(c["price"]) for c in answer["cards"] if c["type"] == "activity"]


@pytest.fixture
def nothing_written():
    yield
    assert not PendingAction.objects.exists()
    assert not BookingRecord.objects.exists()


# --- an order: cheaper, dearer, better rated ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "ask, cheaper, said",
    [
        ("大理有什么好玩的", "便宜一点的", "按价格从低到高"),
        ("大理有什么好玩的", "有没有便宜点的", "按价格从低到高"),
        ("things to do in Dali", "anything cheaper?", "cheapest first"),
        ("what can we do in Dali", "cheaper ones please", "cheapest first"),
    ],
)
def test_cheaper_shows_the_cheapest_first_under_the_dearest_shown(chat, dali, nothing_written, ask, cheaper, said):
    first = chat.say(ask)
    assert titles(first)[0] == "大理古城文化漫步" and max(prices(first)) == 398

    answer = chat.say(cheaper)

    assert prices(answer) == sorted(prices(answer)) and max(prices(answer)) < 398
    assert titles(answer)[:2] == ["大理美食小吃之旅", "周城扎染亲子体验"]
    assert said in answer["reply"] and "397" in answer["reply"]


@pytest.mark.parametrize("dearer, said", [("贵一点的", "按价格从高到低"), ("something more upscale?", "dearest first")])
def test_dearer_shows_the_dearest_first(chat, dali, nothing_written, dearer, said):
    chat.say("大理有什么好玩的" if said.startswith("按") else "things to do in Dali")
    chat.say("便宜一点的" if said.startswith("按") else "anything cheaper?")

    answer = chat.say(dearer)

    assert prices(answer) == sorted(prices(answer), reverse=True)
    assert titles(answer)[0] == "洱海夜游酒吧派对"  # the cap "cheaper" set is lifted
    assert said in answer["reply"]


@pytest.mark.parametrize(
    "ask, cheaper, rated, said",
    [
        ("大理有什么好玩的", "便宜一点的", "口碑最好的是哪些", "按人气和评价从高到低"),
        ("things to do in Dali", "anything cheaper?", "can you show me the top rated ones", "best rated first"),
    ],
)
def test_better_rated_shows_the_most_popular_first_again(chat, dali, nothing_written, ask, cheaper, rated, said):
    chat.say(ask)
    chat.say(cheaper)

    answer = chat.say(rated)

    assert titles(answer)[:3] == ["大理古城文化漫步", "苍山徒步一日", "大理美食小吃之旅"]
    assert said in answer["reply"]


# --- another kind, a kind left out, who comes along ---------------------------------------------------------------


@pytest.mark.parametrize(
    "ask, change, wanted, said",
    [
        ("大理有什么好玩的", "不要徒步，换成摄影类的", ["洱海日出摄影团"], ("只看摄影", "不含徒步")),
        ("大理有什么好玩的", "有美食相关的吗", ["大理美食小吃之旅"], ("只看美食",)),
        ("things to do in Dali", "any food tours instead?", ["大理美食小吃之旅"], ("only food",)),
        ("things to do in Dali", "no hiking, photography instead", ["洱海日出摄影团"], ("only photography",)),
    ],
)
def test_another_kind_of_activity_is_searched_instead(chat, dali, nothing_written, ask, change, wanted, said):
    chat.say(ask)

    answer = chat.say(change)

    assert titles(answer) == wanted
    assert all(words in answer["reply"] for words in said)


@pytest.mark.parametrize(
    "ask, without, said",
    [("大理有什么好玩的", "不要徒步", "不含徒步"), ("things to do in Dali", "no hiking please", "without hiking")],
)
def test_a_kind_left_out_is_searched_without_it(chat, dali, nothing_written, ask, without, said):
    first = chat.say(ask)
    assert "苍山徒步一日" in titles(first)

    answer = chat.say(without)

    assert "苍山徒步一日" not in titles(answer) and len(titles(answer)) == 6
    assert titles(answer)[0] == "大理古城文化漫步"  # the order and the place are kept
    assert said in answer["reply"]


@pytest.mark.parametrize(
    "ask, who, said",
    [
        ("大理有什么好玩的", "有适合带父母的吗", "适合带父母和老人"),
        ("things to do in Dali", "anything good for my elderly parents?", "suited to older travellers"),
    ],
)
def test_with_older_parents_nothing_strenuous_is_shown(chat, dali, nothing_written, ask, who, said):
    chat.say(ask)

    answer = chat.say(who)

    assert titles(answer) == ["大理古城文化漫步", "大理美食小吃之旅", "洱海日出摄影团", "周城扎染亲子体验"]
    assert said in answer["reply"]


@pytest.mark.parametrize(
    "ask, who, said",
    [
        ("大理有什么好玩的", "有适合带孩子的吗", "适合带孩子"),
        ("things to do in Dali", "anything for kids?", "suited to children"),
    ],
)
def test_with_children_the_family_activities_are_shown(chat, dali, nothing_written, ask, who, said):
    chat.say(ask)

    answer = chat.say(who)

    assert titles(answer) == ["周城扎染亲子体验"] and said in answer["reply"]


@pytest.mark.parametrize(
    "ask, change, said",
    [
        ("大理有什么好玩的", "换成滑雪类的", ("没有", "只看滑雪", "大理")),
        ("things to do in Dali", "any skiing instead?", ("No activity", "only skiing", "大理")),
    ],
)
def test_a_refinement_nothing_matches_says_so_and_what_was_kept(chat, dali, nothing_written, ask, change, said):
    chat.say(ask)

    answer = chat.say(change)

    assert not titles(answer)
    assert all(words in answer["reply"] for words in said)
    assert any(chip["fresh"] for chip in answer["suggestions"])  # a way back to the place's activities


# --- the details of one of them -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ask, which, position",
    [
        ("大理有什么好玩的", "第一个的详情", 0),
        ("大理有什么好玩的", "第2个怎么样", 1),
        ("大理有什么好玩的", "介绍一下第三个", 2),
        ("things to do in Dali", "tell me more about the second one", 1),
        ("things to do in Dali", "details of the 4th one please", 3),
    ],
)
def test_the_details_of_the_nth_activity_shown(chat, dali, nothing_written, ask, which, position):
    shown = titles(chat.say(ask))

    answer = chat.say(which)

    assert titles(answer, "activity_detail") == [shown[position]]
    assert shown[position] in answer["reply"]
    assert not [c for c in answer["cards"] if c["type"] == "confirmation"]


def test_another_activitys_details_after_the_first_and_a_refinement_after_both(chat, dali, nothing_written):
    shown = titles(chat.say("大理有什么好玩的"))
    chat.say("第一个的详情")

    second = chat.say("第二个呢，详细介绍一下")
    assert titles(second, "activity_detail") == [shown[1]]

    cheaper = chat.say("便宜一点的")
    assert prices(cheaper) == sorted(prices(cheaper)) and "按价格从低到高" in cheaper["reply"]


def test_the_details_of_a_refined_list_are_of_what_it_shows(chat, dali, nothing_written):
    chat.say("大理有什么好玩的")
    cheaper = titles(chat.say("便宜一点的"))

    answer = chat.say("第一个的详情")

    assert titles(answer, "activity_detail") == [cheaper[0]] == ["大理美食小吃之旅"]


# --- a plan remade under a budget or an interest --------------------------------------------------------------------


def _planned(answer: dict) -> list[str]:
    [plan] = [c for c in answer["cards"] if c["type"] == "travel_plan"]
    return [a["title"].removesuffix(" (Dali)") for day in plan["days"] for a in day["activities"]]


@pytest.mark.parametrize(
    "ask, change, kind, said",
    [
        ("帮我规划两天大理行程", "预算300，喜欢美食", "大理美食小吃之旅", ("每个活动不超过¥300", "优先安排美食")),
        ("帮我规划两天大理行程", "我们喜欢摄影和美食", "洱海日出摄影团", ("优先安排",)),
        ("plan 2 days in Dali", "we like food and photography", "大理美食小吃之旅", ("food", "photography", "first")),
        (
            "plan 2 days in Dali",
            "budget 300, we love food",
            "大理美食小吃之旅",
            ("up to ¥300 per activity", "food first"),
        ),
    ],
)
def test_a_plan_is_remade_with_a_budget_or_an_interest(chat, dali, nothing_written, ask, change, kind, said):
    first = chat.say(ask)
    assert len([c for c in first["cards"] if c["type"] == "travel_plan"]) == 1

    answer = chat.say(change)

    planned = _planned(answer)
    assert kind in planned and len([c for c in answer["cards"] if c["type"] == "travel_plan"]) == 1
    assert all(words in answer["reply"] for words in said)
    if "300" in change:
        [plan] = [c for c in answer["cards"] if c["type"] == "travel_plan"]
        assert all(Decimal(a["price"]) <= 300 for day in plan["days"] for a in day["activities"])


# --- the weather: another day, what to wear -------------------------------------------------------------------------


def _weather_days(answer: dict) -> tuple[str, str]:
    [card] = [c for c in answer["cards"] if c["type"] == "weather"]
    return card["days"][0]["date"], card["days"][-1]["date"]


@pytest.mark.parametrize(
    "ask, then, day",
    [
        ("大理明天天气怎么样", "后一天呢", "2026-12-03"),
        ("what's the weather in Dali tomorrow", "and the day after?", "2026-12-03"),
        ("大理天气怎么样", "明天呢", "2026-12-02"),
        ("大理天气怎么样", "后天呢", "2026-12-03"),
        ("weather in Dali", "and the day after?", "2026-12-02"),
    ],
)
def test_the_weathers_day_moves(chat, nothing_written, ask, then, day):
    chat.say(ask)

    answer = chat.say(then)

    assert _weather_days(answer)[0] == day
    assert "大理" in answer["reply"] or "Dali" in answer["reply"]


def test_the_day_after_again_moves_on_again(chat, nothing_written):
    chat.say("what's the weather in Dali tomorrow")
    chat.say("and the day after?")

    answer = chat.say("and the day after?")

    assert _weather_days(answer)[0] == "2026-12-04"


@pytest.mark.parametrize(
    "ask, then, said",
    [
        ("大理天气怎么样", "下周去的话要带什么衣服", ("建议穿着和携带", "保暖外套", "防晒霜")),
        ("大理天气怎么样", "那边要穿什么", ("建议穿着和携带",)),
        ("weather in Dali", "what should I pack for next week?", ("What to wear and pack", "warm coat")),
        ("weather in Dali", "what clothes should I bring", ("What to wear and pack",)),
    ],
)
def test_what_to_wear_is_answered_from_the_climate_of_that_place_and_time(chat, nothing_written, ask, then, said):
    chat.say(ask)

    answer = chat.say(then)

    assert [c for c in answer["cards"] if c["type"] == "weather"]
    assert all(words in answer["reply"] for words in said), answer["reply"]
    if "next week" in then or "下周" in then:
        assert _weather_days(answer)[0] == "2026-12-07"
