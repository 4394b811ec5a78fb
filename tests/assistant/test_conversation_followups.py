"""Follow-ups a traveller makes without repeating the task, through the chat API in both channels (channel 1: rules
understanding + handlers; channel 2: ASSISTANT_AGENT_ENABLED with the rules adapter replaying channel 1's flow), with
the real sandbox supplier: the name given alone, a task resumed after another question, a cheaper plan, the nearest
options accepted, an airline refused, a new return or check-out day, the conversation's language kept."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.management import call_command

from aftersale.models import HitlTicket
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def chat(alice, channel):
    return Chat(alice)


def cards(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def confirmation(answer: dict) -> dict:
    found = cards(answer, "confirmation")
    assert len(found) == 1, answer["reply"]
    return found[0]


def activities(city: str, province: str, prices: list[int]) -> None:
    """Day activities of `city` at these prices; the dearer, the more popular (as often in a real catalogue)."""
    for number, price in enumerate(prices, start=1):
        ActivityFactory(
            title=f"{city}体验{number}",
            city=city,
            province=province,
            price=Decimal(price),
            start_date=TODAY,
            end_date=TODAY + dt.timedelta(days=60),
            tags=[f"tag{number}"],
            popularity=price,
        )


# --- who travels, given bit by bit ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first, second", [("张三", "13800000000"), ("13800000000", "张三")], ids=["name", "mobile"])
def test_a_name_and_a_mobile_given_alone_complete_the_booking_question(chat, supplier_sandbox, first, second):
    asked = chat.say("帮我订12月22号成都到重庆的火车票")
    assert not cards(asked, "confirmation") and "手机号" in asked["reply"]

    half = chat.say(first)
    assert not cards(half, "confirmation") and "抱歉" not in half["reply"]  # kept, not refused
    card = confirmation(chat.say(second))
    assert not BookingRecord.objects.exists()

    chat.say("确认")

    [booking] = BookingRecord.objects.all()
    assert booking.contact["name"] == "张三" and booking.contact["mobile"] == "13800000000"
    assert booking.amount == Decimal(card["amount"])


def test_a_message_without_words_is_answered_in_the_conversations_language(alice, supplier_sandbox, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    chat = Chat(alice)
    chat.say("book a train from Chengdu to Chongqing on Dec 24")
    chat.say("Zhang San")

    answer = chat.say("13800000000")

    assert "Please check" in answer["reply"] and "请确认" not in answer["reply"]
    assert confirmation(answer)["rows"]


# --- a task resumed, a plan made cheaper, a place carried -----------------------------------------------------------


def test_a_change_after_a_side_question_goes_back_to_the_plan(chat):
    activities("大理", "云南", [100, 200, 300])
    chat.say("帮我规划三天大理行程")
    weather = chat.say("那边天气怎么样")
    assert cards(weather, "weather") and cards(weather, "weather")[0]["place"] in ("大理", "Dali")

    longer = chat.say("改成五天")

    [plan] = cards(longer, "travel_plan")
    assert len(plan["days"]) == 5 and "大理" in longer["reply"]
    assert not cards(longer, "activity")


def test_a_cheaper_plan_puts_the_cheaper_activities_in(chat):
    activities("大理", "云南", [90, 120, 150, 900, 1200, 1500])
    first = chat.say("帮我规划两天大理行程")
    [plan] = cards(first, "travel_plan")

    cheaper = chat.say("便宜一点")

    [cheap_plan] = cards(cheaper, "travel_plan")
    assert len(cheap_plan["days"]) == 2

    def total(card: dict) -> Decimal:
        return sum(Decimal(a["price"]) for day in card["days"] for a in day["activities"])

    assert total(cheap_plan) < total(plan)
    assert "更省钱" in cheaper["reply"]


def test_a_plan_is_made_longer_shorter_and_cheaper_per_activity_without_naming_it_again(chat):
    activities("厦门", "福建", [120, 180, 260, 800])
    chat.say("帮我规划一下厦门四天的行程")

    capped = chat.say("预算每个活动不超过300")
    [plan] = cards(capped, "travel_plan")
    assert len(plan["days"]) == 4 and not cards(capped, "activity")
    assert all(Decimal(a["price"]) <= 300 for day in plan["days"] for a in day["activities"])

    longer = chat.say("再加一天")
    assert [len(p["days"]) for p in cards(longer, "travel_plan")] == [5]
    chat.say("那边天气怎么样")
    shorter = chat.say("少玩一天")
    [plan] = cards(shorter, "travel_plan")
    assert len(plan["days"]) == 4  # the side question did not lose the plan nor its budget
    assert all(Decimal(a["price"]) <= 300 for day in plan["days"] for a in day["activities"])


def test_one_more_night_lengthens_the_stay_being_booked(chat, supplier_sandbox):
    confirmation(chat.say("订三亚的酒店，12月10日入住，住两晚，张三 13800000000"))

    card = confirmation(chat.say("再多住一晚"))

    assert dict(card["rows"])["退房"] == "2026-12-13" and dict(card["rows"])["晚数"] == "3"
    assert not BookingRecord.objects.exists()


def test_something_fun_after_the_weather_of_a_place_is_the_activities_of_that_place(chat):
    activities("丽江", "云南", [180, 680])
    activities("黄山", "安徽", [398])
    chat.say("丽江天气怎么样")

    fun = chat.say("有什么好玩的")

    found = cards(fun, "activity")
    assert found and {c["city"] for c in found} == {"丽江"}


# --- options: the nearest accepted, an airline refused ---------------------------------------------------------------


@pytest.mark.parametrize("accept", ["好的", "ok the cheapest"])
def test_accepting_the_nearest_options_prepares_one_and_books_it_only_on_yes(chat, supplier_sandbox, accept):
    nearest = chat.say("订个大理的酒店，12月10日入住住两晚，四星左右，张三 13800000000")
    assert not cards(nearest, "confirmation") and cards(nearest, "option")
    prices = [Decimal(str(o["total"])) for o in cards(nearest, "option")]

    card = confirmation(chat.say(accept))

    assert not BookingRecord.objects.exists()
    assert Decimal(card["amount"]) == min(prices)
    chat.say("确认")
    [booking] = BookingRecord.objects.all()
    assert (booking.biz_type, booking.amount) == ("HOTEL", min(prices))


def test_an_airline_the_traveller_refuses_is_not_offered_nor_booked(chat, supplier_sandbox):
    first = chat.say("帮我订12月16号北京到上海的机票，张三 13800000000")
    assert cards(first, "option")

    answer = chat.say("不要东航的")

    offered = cards(answer, "option")
    assert offered and not any("东方航空" in o["title"] or o["number"].startswith("MU") for o in offered)
    chat.say("确认")
    [booking] = BookingRecord.objects.all()
    assert booking.details["name"] != "东方航空" and not booking.details["number"].startswith("MU")


# --- new last days ---------------------------------------------------------------------------------------------------


def test_a_new_check_out_day_changes_the_stay_before_booking(chat, supplier_sandbox):
    first = confirmation(chat.say("订三亚的酒店，12月10日入住，住两晚，张三 13800000000"))
    assert "2" in dict(first["rows"]).get("晚数", "")

    card = confirmation(chat.say("改成13号退房"))

    assert dict(card["rows"])["退房"] == "2026-12-13" and dict(card["rows"])["晚数"] == "3"
    chat.say("确认")
    [booking] = BookingRecord.objects.all()
    assert (booking.details["check_in"], booking.details["check_out"]) == ("2026-12-10", "2026-12-13")


def test_a_new_return_day_changes_the_round_trip_compared(chat, supplier_sandbox):
    first = chat.say("帮我比较一下12月5日上海到三亚往返，12月8日回来，看看有哪些组合")
    assert cards(first, "plan_comparison")[0]["return_date"] == "2026-12-08"

    later = chat.say("9号回来")

    [compared] = cards(later, "plan_comparison")
    assert (compared["depart_date"], compared["return_date"]) == ("2026-12-05", "2026-12-09")
    assert not BookingRecord.objects.exists()


# --- after-sale follow-ups -------------------------------------------------------------------------------------------


def test_asking_how_a_return_is_going_shows_its_ticket(db, settings, django_user_model):
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    call_command("seed_demo", verbosity=0)
    chat = Chat(django_user_model.objects.get(username="alice"))
    chat.say("ORD-002 arrived broken, I want to return it")
    chat.say("yes")
    [ticket] = HitlTicket.objects.all()

    answer = chat.say("how is my return going")

    assert answer["intent"]["intent"] == "QUERY_PROGRESS"
    assert ticket.ticket_no in answer["reply"] and cards(answer, "ticket")


# --- words that belong to the product at hand -----------------------------------------------------------------------


def test_the_english_pick_chip_picks_and_a_class_keeps_the_product_being_booked(chat, supplier_sandbox):
    first = chat.say("I need a train from Shanghai to Hangzhou on Dec 10, first class, for Wang Fang 13700001234")
    chips = [s["message"] for s in first["suggestions"]]
    assert "Pick 2" in chips

    picked = confirmation(chat.say("Pick 2"))
    assert picked["title"] == cards(first, "option")[1]["title"]

    second = chat.say("actually second class is fine")

    offered = cards(second, "option")
    assert offered and all(o["biz_type"] == "TRAIN" for o in offered)
    assert "second class" in " ".join(value for _, value in confirmation(second)["rows"])  # the supplier's 二等座
    back = chat.say("no, first class after all")  # "first class" alone would be a flight's: not while a train is on
    assert cards(back, "option") and all(o["biz_type"] == "TRAIN" for o in cards(back, "option"))
    assert not BookingRecord.objects.exists()


def test_wants_said_before_the_product_was_known_are_kept(chat, supplier_sandbox):
    asked = chat.say(
        "book me the cheapest ticket from Beijing to Shanghai on Dec 3, leaving in the afternoon, Li Na 13812345678"
    )
    assert not cards(asked, "confirmation") and "train" in asked["reply"]

    answer = chat.say("train")

    offered = cards(answer, "option")
    assert offered and all(12 <= int(o["depart_time"][:2]) <= 17 for o in offered)  # the afternoon band still holds
    chat.say("confirm")
    [booking] = BookingRecord.objects.all()
    assert booking.biz_type == "TRAIN" and 12 <= int(booking.details["depart"][11:13]) <= 17


@pytest.mark.parametrize("answer", ["从上海", "上海出发", "from Shanghai"])
def test_only_the_missing_side_of_a_route_is_asked_and_the_answer_completes_it(chat, supplier_sandbox, answer):
    asked = chat.say("订一张12月3号去北京的高铁，早上的，张三 13800000000")
    assert "从哪里出发" in asked["reply"] and "目的地" not in asked["reply"]

    card = confirmation(chat.say(answer))

    assert cards(chat.say("确认"), "booking")
    [booking] = BookingRecord.objects.all()
    assert (booking.details["origin"], booking.details["destination"]) == ("上海", "北京")
    assert booking.amount == Decimal(card["amount"])


def test_a_cancel_naming_a_day_cancels_the_booking_of_that_day_only(chat, supplier_sandbox):
    for day in (27, 28):
        confirmation(chat.say(f"帮我订12月{day}号北京到天津的火车，王五 13700000000"))
        chat.say("确认")
    by_day = {b.details["date"]: b for b in BookingRecord.objects.all()}
    assert set(by_day) == {"2026-12-27", "2026-12-28"}

    card = confirmation(chat.say("取消27号那张"))

    assert by_day["2026-12-27"].booking_id in " ".join(value for _, value in card["rows"])
    chat.say("确认")
    statuses = {b.details["date"]: b.status for b in BookingRecord.objects.all()}
    assert statuses == {"2026-12-27": "CANCELLED", "2026-12-28": "PENDING_PAYMENT"}


def test_a_cancel_naming_a_day_without_a_booking_asks_which_and_cancels_nothing(chat, supplier_sandbox):
    confirmation(chat.say("帮我订12月28号北京到天津的火车，王五 13700000000"))
    chat.say("确认")

    asked = chat.say("取消26号的火车票")

    assert not cards(asked, "confirmation") and cards(asked, "booking")
    assert BookingRecord.objects.get().status == "PENDING_PAYMENT"


@pytest.mark.parametrize("refusal", ["不要晚上的", "not in the evening please"])
def test_a_refused_time_of_day_is_not_offered_nor_booked(chat, supplier_sandbox, refusal):
    first = chat.say("帮我订12月19号上海到成都的机票，张三 13800000000")
    assert any(int(o["depart_time"][:2]) >= 18 for o in cards(first, "option"))  # evening flights exist

    answer = chat.say(refusal)

    offered = cards(answer, "option")
    assert offered and all(int(o["depart_time"][:2]) < 18 for o in offered)
    chat.say("确认")
    [booking] = BookingRecord.objects.all()
    assert int(booking.details["depart"][11:13]) < 18
