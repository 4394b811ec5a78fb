"""The rules adapter's tool-calling policy (channel 2), driven through the real agent loop.

The tools here are test doubles declared like the real ones (`core.tools.tool`, schemas from their signatures) under
the real names, answering envelopes with a `kind`; the supplier answers the way bookings/skills/booking.md describes.
So these tests pin what the policy sends, not what the apps do; the last ones check the arguments against the real
tools' schemas.
"""

import datetime as dt
import json
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Literal

import pytest
from pydantic import Field

from assistant.agent import AgentResult, ToolRegistry, run_agent
from assistant.llm.rules import RulesLLM
from assistant.llm.rules.policy import find_contact, next_turn
from core.envelope import Code, fail, ok
from core.tools import Needs, Risk, ToolContext, tool

TODAY = dt.date(2026, 12, 1)  # a Tuesday
# A signed-in traveller (the registry lets a write run only for one, in a turn the traveller sent).
TRAVELLER = SimpleNamespace(pk=1, is_authenticated=True)
SKILL = (Path(__file__).resolve().parents[2] / "bookings" / "skills" / "booking.md").read_text(encoding="utf-8")

FLIGHTS = [
    {"flightNo": "MU5101", "from": "上海", "to": "杭州", "departTime": "2026-12-05T07:10", "durationMinutes": 65, "price": 680},
    {"flightNo": "CA1701", "from": "上海", "to": "杭州", "departTime": "2026-12-05T10:00", "durationMinutes": 80, "price": 540},
    {"flightNo": "HO1234", "from": "上海", "to": "杭州", "departTime": "2026-12-05T12:00", "durationMinutes": 55, "price": 720},
]  # fmt: skip
TRAINS = [
    {"trainNo": "D305", "from": "北京", "to": "天津", "departTime": "2026-12-02T06:30", "durationMinutes": 50,
     "seats": [{"seatType": "一等座", "price": 50}]},
    {"trainNo": "G101", "from": "北京", "to": "天津", "departTime": "2026-12-02T07:00", "durationMinutes": 35,
     "seats": [{"seatType": "二等座", "price": 55}, {"seatType": "一等座", "price": 93}]},
    {"trainNo": "G103", "from": "北京", "to": "天津", "departTime": "2026-12-02T08:00", "durationMinutes": 33,
     "seats": [{"seatType": "二等座", "price": 60}, {"seatType": "一等座", "price": 88}]},
]  # fmt: skip
HOTELS = [
    {"hotelId": "HDL001", "name": "大理洱海客栈", "star": 3, "pricePerNight": 320},
    {"hotelId": "HDL002", "name": "大理洱海大酒店", "star": 5, "pricePerNight": 900},
    {"hotelId": "HDL003", "name": "大理古城酒店", "star": 4, "pricePerNight": 280},
]


class Supplier:
    """The supplier platform as the skill document describes it, in memory."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, str, dict]] = []
        self.flights = {("上海", "杭州"): FLIGHTS, ("北京", "三亚"): [dict(FLIGHTS[0], to="三亚")]}
        self.trains = {("北京", "天津"): TRAINS}
        self.hotels = {"大理": HOTELS}
        self.wrap_in_mcp = False
        self.fail_search = False

    def run(self, command: str) -> dict:
        argv = shlex.split(command)
        assert argv[:2] == ["supplier", "call"] and argv[4] == "-a", command
        product, action, arguments = argv[2], argv[3], json.loads(argv[5])
        self.commands.append((product, action, arguments))
        if self.fail_search and action == "search":
            return fail(Code.PLATFORM_UNAVAILABLE, "supplier timed out")
        answer = getattr(self, f"{product}_{action}")(arguments)
        if self.wrap_in_mcp:
            answer = {"content": [{"type": "text", "text": json.dumps(answer, ensure_ascii=False)}]}
        return ok(answer, f"{product} {action} done")

    def flight_search(self, a):
        return {"flights": self.flights.get((a["from"], a["to"]), [])}

    def train_search(self, a):
        return {"trains": self.trains.get((a["from"], a["to"]), [])}

    def hotel_search(self, a):
        nights = (dt.date.fromisoformat(a["checkOutDate"]) - dt.date.fromisoformat(a["checkInDate"])).days
        return {"hotels": [dict(h, nights=nights, totalPrice=h["pricePerNight"] * nights) for h in self.hotels.get(a["city"], [])]}  # fmt: skip

    def flight_saveOrder(self, a):  # noqa: N802 - the supplier's action name
        price = next(f["price"] for f in FLIGHTS if f["flightNo"] == a["flightNo"])
        return {"orderId": "FO-0001", "totalPrice": price, "status": "PENDING_PAYMENT"}

    def train_saveOrder(self, a):  # noqa: N802
        return {"data": {"orderNo": "TO-0001", "totalPrice": a["resources"][0]["adultPrice"]}}

    def hotel_saveOrder(self, a):  # noqa: N802
        return {"mainOrderNo": "HO-0001", "status": "PENDING_PAYMENT"}

    def saved(self) -> list[tuple[str, dict]]:
        return [(product, arguments) for product, action, arguments in self.commands if action == "saveOrder"]


@pytest.fixture
def supplier() -> Supplier:
    return Supplier()


@pytest.fixture
def bookings() -> list[dict]:
    return []


@pytest.fixture
def cancelled() -> list[str]:
    return []


@pytest.fixture
def calls() -> list[tuple[str, dict]]:
    """The catalogue, travel and after-sale tools called, with the arguments as validated."""
    return []


@pytest.fixture
def failing() -> set[str]:
    """Names of the tools that answer with a failed envelope."""
    return set()


Text = Annotated[str, Field(max_length=40)]
Day = dt.date | None


@pytest.fixture
def registry(supplier, bookings, cancelled, calls, failing) -> ToolRegistry:
    def answer(name: str, kind: str, arguments: dict, **data) -> dict:
        calls.append((name, {k: v for k, v in arguments.items() if v is not None}))
        if name in failing:
            return fail(Code.PLATFORM_UNAVAILABLE, f"{name} is down", {"kind": kind})
        return ok({"kind": kind, **data}, f"{name} done")

    @tool(risk=Risk.WRITE)
    def execute_platform_command(context, command: Annotated[str, Field(max_length=4000)]) -> dict:
        """Run one supplier command."""
        done = supplier.run(command)
        if not done["ok"]:
            return fail(done["code"], done["message"], {"kind": "platform"})
        return ok({"kind": "platform", "answer": done["data"]}, done["message"])

    @tool(risk=Risk.WRITE)
    def cancel_booking(context, booking_id: Annotated[str, Field(max_length=32)]) -> dict:
        """Cancel a booking."""
        cancelled.append(booking_id)
        return ok({"kind": "booking_cancel", "booking_id": booking_id, "status": "CANCELLED"}, "cancelled")

    @tool(risk=Risk.READ)
    def list_my_bookings(context, biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"] | None = None) -> dict:
        """List my bookings."""
        mine = [b for b in bookings if biz_type in (None, b["biz_type"])]
        return ok({"kind": "bookings", "bookings": mine})

    @tool(risk=Risk.READ)
    def search_activities(
        context,
        keywords: list[Text] | None = None,
        province: Text | None = None,
        city: Text | None = None,
        date_start: Day = None,
        date_end: Day = None,
        max_price: Annotated[int | None, Field(ge=1)] = None,
    ) -> dict:
        """Search activities."""
        arguments = {"keywords": keywords, "province": province, "city": city}
        arguments |= {"date_start": date_start, "date_end": date_end, "max_price": max_price}
        return answer("search_activities", "activities", arguments, activities=[{"id": 1, "title": "洱海骑行"}])

    @tool(risk=Risk.READ)
    def recommend_activities(context, date_start: Day = None, date_end: Day = None) -> dict:
        """Recommend activities."""
        arguments = {"date_start": date_start, "date_end": date_end}
        return answer("recommend_activities", "activities", arguments, activities=[{"id": 2}, {"id": 3}])

    @tool(risk=Risk.READ)
    def weather_report(context, place: Text, city: Text | None = None, date_start: Day = None, date_end: Day = None):
        """The weather of a place."""
        arguments = {"place": place, "city": city, "date_start": date_start, "date_end": date_end}
        return answer("weather_report", "weather", arguments, days=[{"date": "2026-12-05"}])

    @tool(risk=Risk.READ)
    def make_travel_plan(
        context,
        destination: Text,
        keywords: list[Text] | None = None,
        city: Text | None = None,
        province: Text | None = None,
        days: Annotated[int | None, Field(ge=1, le=15)] = None,
        date_start: Day = None,
        date_end: Day = None,
        max_price: Annotated[int | None, Field(ge=1)] = None,
    ) -> dict:
        """A day-by-day plan."""
        arguments = {"destination": destination, "keywords": keywords, "city": city, "province": province}
        arguments |= {"days": days, "date_start": date_start, "date_end": date_end, "max_price": max_price}
        return answer("make_travel_plan", "travel_plan", arguments, days=[{"number": 1}, {"number": 2}])

    @tool(risk=Risk.READ)
    def compare_round_trip(
        context,
        origin: Text,
        destination: Text,
        depart_date: dt.date,
        return_date: dt.date,
        max_price: Annotated[int | None, Field(ge=1)] = None,
    ) -> dict:
        """Compare round trips."""
        arguments = {"origin": origin, "destination": destination, "depart_date": depart_date}
        arguments |= {"return_date": return_date, "max_price": max_price}
        return answer("compare_round_trip", "round_trip", arguments, status="ok")

    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def request_aftersale(context, order_id: Annotated[str, Field(max_length=32)], action: Literal["REFUND", "RETURN"]):
        """Ask for a refund or a return."""
        return answer("request_aftersale", "aftersale", {"order_id": order_id, "action": action}, outcome="SUBMITTED")

    @tool(risk=Risk.READ)
    def query_progress(context, order_id: Annotated[str | None, Field(max_length=32)] = None) -> dict:
        """The traveller's after-sale tickets."""
        return answer("query_progress", "progress", {"order_id": order_id}, tickets=[])

    return ToolRegistry(
        [
            execute_platform_command,
            cancel_booking,
            list_my_bookings,
            search_activities,
            recommend_activities,
            weather_report,
            make_travel_plan,
            compare_round_trip,
            request_aftersale,
            query_progress,
        ]
    )


@pytest.fixture(scope="module")
def rules() -> RulesLLM:
    return RulesLLM()


def agent(rules, registry, sentence: str, *, system: str | None = f"TODAY: {TODAY}", max_iterations=6) -> AgentResult:
    messages = ([{"role": "system", "content": system}] if system is not None else []) + [
        {"role": "user", "content": sentence}
    ]
    context = ToolContext(user=TRAVELLER, today=TODAY, request_text=sentence)
    return run_agent(port=rules, registry=registry, context=context, messages=messages, max_iterations=max_iterations)


def searched(supplier) -> list[tuple[str, dict]]:
    return [(product, arguments) for product, action, arguments in supplier.commands if action == "search"]


# -- booking ----------------------------------------------------------------------------------------------------------


def test_a_flight_is_searched_then_the_cheapest_is_ordered_for_the_contact_given(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000")

    assert searched(supplier) == [("flight", {"from": "上海", "to": "杭州", "date": "2026-12-05"})]
    assert supplier.saved() == [
        (
            "flight",
            {"flightNo": "CA1701", "date": "2026-12-05", "contactTourist": {"name": "张三", "mobile": "13800000000"}},
        )
    ]
    assert [s.tool for s in result.steps] == ["execute_platform_command", "execute_platform_command"]
    assert result.steps[0].arguments["command"].startswith("supplier call flight search -a '")
    assert (result.iterations, result.capped, result.error) == (3, False, None)
    assert "FO-0001" in result.final_text


@pytest.mark.parametrize(
    ("preference", "flight_no"),
    [("最早的", "MU5101"), ("最快的", "HO1234"), ("MU5101", "MU5101"), ("ho1234", "HO1234"), ("", "CA1701")],
)
def test_the_flight_chosen_follows_the_travellers_preference(rules, registry, supplier, preference, flight_no):
    agent(rules, registry, f"订12月5日上海到杭州{preference}航班，乘机人张三 13800000000")

    [(_, order)] = supplier.saved()
    assert order["flightNo"] == flight_no


def test_a_flight_number_not_in_the_results_books_nothing(rules, registry, supplier):
    result = agent(rules, registry, "订12月5日上海到杭州的CZ3999航班，乘机人张三 13800000000")

    assert supplier.saved() == []
    assert "CZ3999" in result.final_text


def test_a_train_is_ordered_with_the_second_class_seat_and_its_adult_price(rules, registry, supplier):
    result = agent(rules, registry, "订一张明天北京到天津的高铁票 乘客李四 13900001111")

    assert searched(supplier) == [("train", {"from": "北京", "to": "天津", "date": "2026-12-02"})]
    person = {"name": "李四", "mobile": "13900001111"}
    assert supplier.saved() == [
        (
            "train",
            {
                "trainNo": "G101",
                "date": "2026-12-02",
                "resources": [{"seatType": "二等座", "adultPrice": 55, "passengers": [person]}],
                "contact": person,
            },
        )
    ]
    assert "TO-0001" in result.final_text


def test_a_train_seat_the_traveller_names_is_the_one_ordered(rules, registry, supplier):
    agent(rules, registry, "订明天北京到天津的高铁一等座，乘客李四 13900001111")

    [(_, order)] = supplier.saved()
    assert (order["trainNo"], order["resources"][0]["seatType"], order["resources"][0]["adultPrice"]) == (
        "D305",
        "一等座",
        50,
    )


def test_a_hotel_is_ordered_with_check_out_after_the_nights_given(rules, registry, supplier):
    result = agent(rules, registry, "帮我在大理订个酒店，12月10号入住，住两晚，入住人王五 13700002222")

    assert searched(supplier) == [
        ("hotel", {"city": "大理", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"})
    ]
    assert supplier.saved() == [
        (
            "hotel",
            {
                "hotelId": "HDL003",
                "checkInDate": "2026-12-10",
                "checkOutDate": "2026-12-12",
                "guests": [{"name": "王五", "mobile": "13700002222"}],
            },
        )
    ]
    assert "HO-0001" in result.final_text


def test_a_hotel_star_level_filters_the_choice(rules, registry, supplier):
    agent(rules, registry, "大理订一家五星酒店，12月10号入住住一晚，联系人王五 13700002222")

    [(_, order)] = supplier.saved()
    assert (order["hotelId"], order["checkOutDate"]) == ("HDL002", "2026-12-11")


def test_an_english_sentence_books_the_same_way(rules, registry, supplier):
    agent(rules, registry, "Book me a flight from Beijing to Sanya on December 20, passenger Tom Lee 13800000000")

    assert searched(supplier) == [("flight", {"from": "北京", "to": "三亚", "date": "2026-12-20"})]
    [(_, order)] = supplier.saved()
    assert order["contactTourist"] == {"name": "Tom Lee", "mobile": "13800000000"}


def test_a_missing_mobile_ends_without_any_tool_call_and_says_what_is_missing(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到杭州最便宜的航班，乘机人张三")

    assert result.steps == []
    assert supplier.commands == []
    assert (result.iterations, result.capped) == (1, False)
    assert "mobile" in result.final_text and "name" not in result.final_text


def test_missing_route_and_date_are_all_reported_at_once(rules, registry, supplier):
    result = agent(rules, registry, "帮我订张机票")

    assert result.steps == []
    assert all(word in result.final_text for word in ("route", "date", "name", "mobile"))


def test_an_empty_search_books_nothing(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到拉萨的航班，乘机人张三 13800000000")

    assert len(searched(supplier)) == 1
    assert supplier.saved() == []
    assert len(result.steps) == 1 and "found nothing" in result.final_text


def test_a_failed_search_books_nothing(rules, registry, supplier):
    supplier.fail_search = True

    result = agent(rules, registry, "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000")

    assert supplier.saved() == []
    assert "PLATFORM_UNAVAILABLE" in result.final_text


def test_answers_wrapped_as_mcp_content_are_read(rules, registry, supplier):
    supplier.wrap_in_mcp = True

    result = agent(rules, registry, "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000")

    assert supplier.saved()[0][1]["flightNo"] == "CA1701"
    assert "FO-0001" in result.final_text


def test_the_understood_intent_in_the_system_message_is_used(rules, registry, supplier):
    understood = {"intent": "BOOK", "biz_type": "FLIGHT", "origin": "上海", "city": "杭州", "date_start": "2026-12-06"}
    system = f"{SKILL}\nUNDERSTOOD: {json.dumps(understood, ensure_ascii=False)}\nTODAY: {TODAY}"

    agent(rules, registry, "就订这个吧，乘机人张三 13800000000", system=system)

    assert searched(supplier) == [("flight", {"from": "上海", "to": "杭州", "date": "2026-12-06"})]
    assert len(supplier.saved()) == 1


def test_without_a_system_message_the_policy_understands_the_sentence_with_todays_date(rules, registry, supplier):
    agent(rules, registry, "订一张明天北京到天津的高铁票 乘客李四 13900001111", system=None)

    [(_, search)] = searched(supplier)
    assert search["date"] == (dt.date.today() + dt.timedelta(days=1)).isoformat()


def test_the_contact_may_come_from_an_earlier_user_message(rules, registry, supplier):
    messages = [
        {"role": "system", "content": f"TODAY: {TODAY}"},
        {"role": "user", "content": "乘机人张三 13800000000"},
        {"role": "assistant", "content": "好的"},
        {"role": "user", "content": "帮我订12月5日上海到杭州的航班"},
    ]

    context = ToolContext(user=TRAVELLER, today=TODAY, request_text=messages[-1]["content"])
    run_agent(port=rules, registry=registry, context=context, messages=messages, max_iterations=6)

    assert supplier.saved()[0][1]["contactTourist"] == {"name": "张三", "mobile": "13800000000"}


def test_a_booking_without_the_platform_tool_offered_calls_nothing(rules, registry, supplier):
    scoped = registry.scoped(["search_activities"])

    result = agent(rules, scoped, "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000")

    assert result.steps == [] and supplier.commands == []


def test_the_booking_ends_within_the_cap_and_at_a_smaller_cap_keeps_what_was_done(rules, registry, supplier):
    sentence = "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000"

    full = agent(rules, registry, sentence, max_iterations=6)
    capped = agent(rules, registry, sentence, max_iterations=1)

    assert (full.iterations, full.capped) == (3, False)
    assert (capped.iterations, capped.capped, len(capped.steps)) == (1, True, 1)
    assert len(supplier.saved()) == 1


# -- cancelling ------------------------------------------------------------------------------------------------------


def test_a_cancel_with_a_booking_id_calls_cancel_booking(rules, registry, cancelled):
    result = agent(rules, registry, "帮我取消预订 bk20261201001")

    assert cancelled == ["BK20261201001"]
    assert [s.tool for s in result.steps] == ["cancel_booking"]
    assert result.iterations == 2 and "cancelled" in result.final_text


def test_a_cancel_by_type_lists_the_bookings_and_cancels_the_only_active_one(rules, registry, bookings, cancelled):
    bookings += [
        {"booking_id": "BK20261201001", "biz_type": "TRAIN", "status": "CONFIRMED"},
        {"booking_id": "BK20261201002", "biz_type": "FLIGHT", "status": "CONFIRMED"},
        {"booking_id": "BK20261201003", "biz_type": "TRAIN", "status": "CANCELLED"},
    ]

    result = agent(rules, registry, "取消我的火车票")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("list_my_bookings", {"biz_type": "TRAIN"}),
        ("cancel_booking", {"booking_id": "BK20261201001"}),
    ]
    assert cancelled == ["BK20261201001"]


def test_a_cancel_by_type_with_several_active_bookings_cancels_nothing(rules, registry, bookings, cancelled):
    bookings += [
        {"booking_id": "BK20261201001", "biz_type": "TRAIN", "status": "CONFIRMED"},
        {"booking_id": "BK20261201004", "biz_type": "TRAIN", "status": "PENDING_PAYMENT"},
    ]

    result = agent(rules, registry, "取消我的火车票")

    assert cancelled == []
    assert [s.tool for s in result.steps] == ["list_my_bookings"]
    assert "BK20261201004" in result.final_text


# -- activities, weather, travel plans, round trips, after-sale: the arguments of channel 1's handlers -------------


def test_an_activity_search_passes_the_keywords_dates_and_budget(rules, registry, calls):
    result = agent(rules, registry, "12月5日到12月6日大理有什么好玩的，500以内")

    [step] = result.steps
    assert (step.tool, step.arguments) == (
        "search_activities",
        {"keywords": ["大理"], "city": "大理", "date_start": "2026-12-05", "date_end": "2026-12-06", "max_price": 500},
    )
    assert calls == [
        (
            "search_activities",
            {
                "keywords": ["大理"],
                "city": "大理",
                "date_start": TODAY + dt.timedelta(4),
                "date_end": TODAY + dt.timedelta(5),
                "max_price": 500,
            },
        )
    ]
    assert result.finished and "activities, 1 item" in result.final_text


def test_a_search_by_province_alone_passes_the_province_and_no_keywords(rules, registry):
    result = agent(rules, registry, "云南有什么活动")

    assert [(s.tool, s.arguments) for s in result.steps] == [("search_activities", {"province": "云南"})]


def test_a_search_without_any_place_calls_nothing(rules, registry):
    understood = {"intent": "SEARCH_ACTIVITIES", "max_price": 500}
    system = f"UNDERSTOOD: {json.dumps(understood)}\nTODAY: {TODAY}"

    result = agent(rules, registry, "500以内的", system=system)

    assert result.steps == [] and "Missing: a place" in result.final_text


def test_a_recommendation_calls_recommend_activities_with_the_dates(rules, registry):
    assert [(s.tool, s.arguments) for s in agent(rules, registry, "推荐点活动").steps] == [("recommend_activities", {})]

    result = agent(rules, registry, "这周末推荐点好玩的")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("recommend_activities", {"date_start": "2026-12-05", "date_end": "2026-12-06"})
    ]


def test_the_weather_of_a_place_this_weekend_calls_weather_report(rules, registry):
    result = agent(rules, registry, "大理这周末天气怎么样")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("weather_report", {"place": "大理", "city": "大理", "date_start": "2026-12-05", "date_end": "2026-12-06"})
    ]
    assert result.finished and result.iterations == 2


def test_the_weather_of_a_scenic_spot_passes_the_spot_as_the_place(rules, registry):
    result = agent(rules, registry, "赛里木湖明天会下雨吗")

    [step] = result.steps
    assert step.tool == "weather_report"
    assert step.arguments == {"place": "赛里木湖", "date_start": "2026-12-02"}


def test_a_three_day_plan_calls_make_travel_plan_with_the_days(rules, registry):
    result = agent(rules, registry, "帮我安排三天丽江行程")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("make_travel_plan", {"destination": "丽江", "keywords": ["丽江"], "city": "丽江", "days": 3})
    ]
    assert "travel_plan, 2 item" in result.final_text


def test_a_round_trip_comparison_calls_compare_round_trip(rules, registry, calls):
    result = agent(rules, registry, "下周五从上海去北京，下周日回来，比较一下往返方案")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        (
            "compare_round_trip",
            {"origin": "上海", "destination": "北京", "depart_date": "2026-12-11", "return_date": "2026-12-13"},
        )
    ]
    assert calls[0][1]["depart_date"] == dt.date(2026, 12, 11)


def test_a_round_trip_without_a_return_date_calls_nothing(rules, registry):
    result = agent(rules, registry, "下周五从上海去北京，比较一下交通和酒店方案")

    assert result.steps == [] and "return date" in result.final_text


def test_a_refund_calls_request_aftersale_with_the_order_and_the_action(rules, registry):
    result = agent(rules, registry, "订单 ord-001 我要退款")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("request_aftersale", {"order_id": "ORD-001", "action": "REFUND"})
    ]


def test_a_return_of_goods_asks_for_a_return(rules, registry):
    result = agent(rules, registry, "ORD-002的冲锋衣尺码不合适，我要退货")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("request_aftersale", {"order_id": "ORD-002", "action": "RETURN"})
    ]


def test_a_refund_without_an_order_id_calls_nothing(rules, registry):
    result = agent(rules, registry, "我要退款")

    assert result.steps == [] and "order id" in result.final_text


def test_progress_calls_query_progress_with_the_order_when_given(rules, registry):
    with_order = agent(rules, registry, "ORD-001的退款进度怎么样了")
    without = agent(rules, registry, "我的退款到哪一步了")

    assert [(s.tool, s.arguments) for s in with_order.steps] == [("query_progress", {"order_id": "ORD-001"})]
    assert [(s.tool, s.arguments) for s in without.steps] == [("query_progress", {})]


# -- two requests in one sentence -----------------------------------------------------------------------------------


def test_a_plan_and_the_weather_in_one_sentence_call_both_tools_in_order(rules, registry):
    result = agent(rules, registry, "帮我规划三天丽江行程，顺便查天气")

    assert [(s.tool, s.arguments) for s in result.steps] == [
        ("make_travel_plan", {"destination": "丽江", "keywords": ["丽江"], "city": "丽江", "days": 3}),
        ("weather_report", {"place": "丽江", "city": "丽江"}),
    ]
    assert (result.iterations, result.finished) == (3, True)
    assert "make_travel_plan answered" in result.final_text and "weather_report answered" in result.final_text


def test_the_weather_and_activities_in_english_call_both_tools(rules, registry):
    result = agent(rules, registry, "Dali weather this weekend, also recommend some activities")

    assert [s.tool for s in result.steps] == ["weather_report", "search_activities"]
    assert result.steps[1].arguments == {
        "keywords": ["大理"],
        "city": "大理",
        "date_start": "2026-12-05",
        "date_end": "2026-12-06",
    }


def test_a_failed_first_part_ends_that_part_and_the_second_still_runs(rules, registry, failing):
    failing.add("make_travel_plan")

    result = agent(rules, registry, "plan 3 days in Lijiang and check the weather")

    assert [(s.tool, s.ok) for s in result.steps] == [("make_travel_plan", False), ("weather_report", True)]
    assert "make_travel_plan failed: PLATFORM_UNAVAILABLE" in result.final_text


def test_a_second_part_whose_tool_is_not_offered_is_skipped(rules, registry):
    scoped = registry.scoped(["make_travel_plan"])

    result = agent(rules, scoped, "帮我规划三天丽江行程，顺便查天气")

    assert [s.tool for s in result.steps] == ["make_travel_plan"]
    assert "weather_report tool is not available" in result.final_text


def test_the_also_of_the_understood_intent_is_followed(rules, registry):
    understood = {"intent": "QUERY_WEATHER", "destination_keywords": ["大理"], "also": ["RECOMMEND", "DANCE"]}
    system = f"UNDERSTOOD: {json.dumps(understood)}\nTODAY: {TODAY}"

    result = agent(rules, registry, "大理天气，顺便推荐", system=system)

    assert [s.tool for s in result.steps] == ["weather_report", "recommend_activities"]


# -- the arguments fit the real tools --------------------------------------------------------------------------------

REAL_TOOL_REQUESTS = [
    "12月5日到12月6日大理有什么好玩的，500以内",
    "这周末推荐点好玩的",
    "大理这周末天气怎么样",
    "帮我安排三天丽江行程",
    "下周五从上海去北京，下周日回来，比较一下往返方案",
    "取消预订 BK20261201001",
    "订单 ORD-001 我要退款",
    "ORD-001的退款进度怎么样了",
]


@pytest.mark.parametrize("sentence", REAL_TOOL_REQUESTS)
def test_the_first_call_is_valid_for_the_real_tool_of_that_name(rules, sentence):
    from assistant.agent import default_registry

    real = default_registry()
    messages = [{"role": "system", "content": f"TODAY: {TODAY}"}, {"role": "user", "content": sentence}]

    [call] = next_turn(rules, messages, real.schemas()).tool_calls

    assert real.get(call.name).validate(call.arguments)  # raises ToolArgumentsError on a name or a value it refuses


def test_anything_else_ends_without_tools(rules, registry, supplier):
    result = agent(rules, registry, "给我写一首关于秋天的诗")

    assert result.steps == [] and result.iterations == 1 and result.final_text


def test_the_policy_answers_with_zero_tokens_and_a_measured_latency(rules):
    tools = [{"type": "function", "function": {"name": "recommend_activities", "parameters": {"type": "object"}}}]

    answer = rules.chat([{"role": "user", "content": "推荐点活动"}], tools)

    assert [c.name for c in answer.tool_calls] == ["recommend_activities"]
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (0, 0)
    assert answer.usage.latency_ms >= 0
    assert answer.finish_reason == "tool_calls"


def test_the_policy_never_repeats_a_call_already_made_in_this_request(rules):
    tools = [{"type": "function", "function": {"name": "recommend_activities", "parameters": {"type": "object"}}}]
    messages = [
        {"role": "user", "content": "推荐点活动"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "x1", "type": "function", "function": {"name": "recommend_activities", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "x1", "content": json.dumps(fail(Code.INTERNAL_ERROR, "boom"))},
    ]

    answer = next_turn(rules, messages, tools)

    assert answer.tool_calls == [] and "INTERNAL_ERROR" in answer.content


@pytest.mark.parametrize(
    ("text", "name", "mobile"),
    [
        ("乘机人张三 13800000000", "张三", "13800000000"),
        ("乘客李四电话13900001111", "李四", "13900001111"),
        ("入住人：欧阳娜娜，手机 138-0000-0000", "欧阳娜娜", "13800000000"),
        ("乘客的名字是赵六 +86 13700002222", "赵六", "13700002222"),
        ("passenger Tom Lee 13800000000", "Tom Lee", "13800000000"),
        ("guest: mary jane smith, mobile 13800000000", "Mary Jane Smith", "13800000000"),
        ("for Tom Lee 13900001111", "Tom Lee", "13900001111"),
        ("张三 13800000000", "张三", "13800000000"),
        ("订机票 13800000000", None, "13800000000"),
        ("Book a guest house in Dali for December 10", None, None),
    ],
)
def test_the_contact_is_read_from_the_travellers_words(text, name, mobile):
    contact = find_contact([text])

    assert (contact.name, contact.mobile) == (name, mobile)
