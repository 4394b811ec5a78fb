"""The rules adapter's tool-calling policy (channel 2), driven through the real agent loop.

The tools here are test doubles declared like the real ones (`core.tools.tool`, schemas from their signatures) under
the real names, answering envelopes with a `kind`; the booking writes answer as the pending-action registry does
(CONFIRMATION_REQUIRED, kind "confirmation": nothing done yet). So these tests pin what the policy sends, not what
the apps do; the last ones check the arguments against the real tools' schemas.
"""

import datetime as dt
import json
from types import SimpleNamespace
from typing import Annotated, Literal

import pytest
from pydantic import Field

from assistant.agent import AgentResult, ToolRegistry, run_agent
from assistant.llm.contacts import find_contact
from assistant.llm.port import ChatState
from assistant.llm.rules import RulesLLM
from assistant.llm.rules.policy import next_turn
from assistant.llm.schema import Intent
from core.envelope import Code, fail, ok
from core.tools import Needs, Risk, ToolContext, tool

TODAY = dt.date(2026, 12, 1)  # a Tuesday
# A signed-in traveller (the registry lets a write run only for one, in a turn the traveller sent).
TRAVELLER = SimpleNamespace(pk=1, is_authenticated=True)
CONTACT = [{"name": "张三", "mobile": "13800000000"}]


def flight(number: str, day: str, depart: str) -> dict:
    return {"ref": f"FLIGHT|{number}|{day}|上海|杭州|经济舱", "biz_type": "FLIGHT", "number": number,
            "depart": f"{day}T{depart}"}  # fmt: skip


class Supplier:
    """What `find_booking_options` finds (ranked, as bookings.options would), and what the writes were asked."""

    def __init__(self) -> None:
        self.searches: list[dict] = []
        self.prepared: list[tuple[str, dict]] = []
        self.refused: list[dict] = []  # book_option calls refused for a missing contact
        self.matched = True
        self.fail_search = False

    def options(self, arguments: dict) -> list[dict]:
        if arguments["biz_type"] == "HOTEL":
            city, day, out = arguments.get("city"), arguments.get("date"), arguments.get("check_out")
            return [{"ref": f"HOTEL|HDL00{i}|{day}|{out}|{city}|", "biz_type": "HOTEL", "number": f"HDL00{i}"}
                    for i in (1, 2, 3)]  # fmt: skip
        if (arguments.get("origin"), arguments.get("destination")) == ("上海", "拉萨"):
            return []
        day = arguments.get("date")
        return [flight("CA1701", day, "10:00"), flight("MU5101", day, "07:10"), flight("HO1234", day, "12:00")]


@pytest.fixture
def supplier() -> Supplier:
    return Supplier()


@pytest.fixture
def bookings() -> list[dict]:
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


def pending(name: str, arguments: dict) -> dict:
    """What the registry answers a write that now waits for the traveller (assistant.agent.registry)."""
    data = {"kind": "confirmation", "pending_id": "p-1", "tool": name, "preview": {"title": name, "rows": []}}
    return fail(Code.CONFIRMATION_REQUIRED, "Nothing was done yet: the traveller must confirm.", data)


@pytest.fixture
def registry(supplier, bookings, calls, failing) -> ToolRegistry:
    def answer(name: str, kind: str, arguments: dict, **data) -> dict:
        calls.append((name, {k: v for k, v in arguments.items() if v is not None}))
        if name in failing:
            return fail(Code.PLATFORM_UNAVAILABLE, f"{name} is down", {"kind": kind})
        return ok({"kind": kind, **data}, f"{name} done")

    @tool(risk=Risk.READ)
    def find_booking_options(
        context,
        biz_type: Literal["FLIGHT", "HOTEL", "TRAIN"],
        origin: Text | None = None,
        destination: Text | None = None,
        city: Text | None = None,
        date: Day = None,
        check_out: Day = None,
        time_band: Literal["MORNING", "NOON", "AFTERNOON", "EVENING", "RED_EYE"] | None = None,
        sort: Literal["CHEAPEST", "FASTEST", "EARLIEST", "LATEST"] | None = None,
        direct: bool | None = None,
        seat_class: Literal["ECONOMY", "SECOND", "FIRST", "BUSINESS", "SLEEPER", "HARD_SEAT"] | None = None,
        star: Annotated[int | None, Field(ge=1, le=5)] = None,
        star_or_above: bool = False,
        vendor: Text | None = None,
        number: Annotated[str | None, Field(max_length=12)] = None,
        max_price: Annotated[int | None, Field(gt=0)] = None,
        passengers: Annotated[int, Field(ge=1, le=9)] = 1,
    ) -> dict:
        """Find options."""
        given = {k: v for k, v in locals().items() if k not in ("context", "supplier") and v not in (None, False)}
        given = {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in given.items() if k != "passengers"}
        # Like bookings.services: what the search still needs is named before any supplier call.
        hotel = biz_type == "HOTEL"
        needs = {
            "city": hotel and not city,
            "route": not hotel and not (origin and destination),
            "date": not date,
            "check_out": hotel and bool(date) and not check_out,
        }
        missing = [name for name, absent in needs.items() if absent]
        if missing:
            message = f"still needed to search: {', '.join(missing)}"
            return fail(Code.INVALID_PARAM, message, {"kind": "booking_options", "missing": missing})
        supplier.searches.append(given)
        if supplier.fail_search:
            return fail(Code.PLATFORM_UNAVAILABLE, "supplier timed out", {"kind": "booking_options"})
        found = supplier.options(given)
        unmet = [] if supplier.matched else ["time_band"]
        data = {"kind": "booking_options", "biz_type": biz_type, "options": found, "matched": supplier.matched}
        return ok({**data, "unmet": unmet})

    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def book_option(
        context, option_ref: Annotated[str, Field(max_length=200)], passengers: list[dict[str, str | None]]
    ) -> dict:
        """Book one option (waits for the confirmation; refused, naming what is missing, without the contact)."""
        if not passengers or not all(p.get("name") for p in passengers) or not passengers[0].get("mobile"):
            supplier.refused.append({"option_ref": option_ref, "passengers": passengers})
            return fail(Code.INVALID_PARAM, "missing the contact's mobile number", {"kind": "booking_created"})
        supplier.prepared.append(("book_option", {"option_ref": option_ref, "passengers": passengers}))
        return pending("book_option", {})

    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def rebook_booking(
        context, booking_id: Annotated[str, Field(max_length=32)], option_ref: Annotated[str, Field(max_length=200)]
    ) -> dict:
        """Change a booking (waits for the confirmation)."""
        supplier.prepared.append(("rebook_booking", {"booking_id": booking_id, "option_ref": option_ref}))
        return pending("rebook_booking", {})

    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def cancel_booking(context, booking_id: Annotated[str, Field(max_length=32)]) -> dict:
        """Cancel a booking (waits for the confirmation)."""
        supplier.prepared.append(("cancel_booking", {"booking_id": booking_id}))
        return pending("cancel_booking", {})

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
            find_booking_options,
            book_option,
            rebook_booking,
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


def agent(
    rules, registry, sentence: str, *, system: str | None = f"TODAY: {TODAY}", max_iterations=6, state=None
) -> AgentResult:
    messages = ([{"role": "system", "content": system}] if system is not None else []) + [
        {"role": "user", "content": sentence}
    ]
    return run(rules, registry, messages, max_iterations=max_iterations, state=state)


def conversation(rules, registry, *user_messages: str) -> AgentResult:
    """The last message after the earlier ones (as channel 2 sends the history: each with the reply it got)."""
    messages = [{"role": "system", "content": f"TODAY: {TODAY}"}]
    for text in user_messages[:-1]:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "(reply)"}]
    return run(rules, registry, [*messages, {"role": "user", "content": user_messages[-1]}])


def run(rules, registry, messages, *, max_iterations=6, state=None) -> AgentResult:
    context = ToolContext(user=TRAVELLER, today=TODAY, request_text=messages[-1]["content"])
    return run_agent(
        port=rules, registry=registry, context=context, messages=messages, max_iterations=max_iterations, state=state
    )


def understood(**slots) -> ChatState:
    """The code's state as channel 2 hands it to the rules adapter: the dialogue's reading of the turn."""
    return ChatState(intent=Intent.model_validate(slots))


ROUTE = {"biz_type": "FLIGHT", "origin": "上海", "destination": "杭州", "date": "2026-12-05"}


# -- booking ----------------------------------------------------------------------------------------------------------


def test_a_flight_is_searched_then_the_best_option_prepared_for_the_contact_given(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000")

    assert supplier.searches == [{**ROUTE, "sort": "CHEAPEST"}]
    assert supplier.prepared == [
        ("book_option", {"option_ref": "FLIGHT|CA1701|2026-12-05|上海|杭州|经济舱", "passengers": CONTACT})
    ]
    assert [s.tool for s in result.steps] == ["find_booking_options", "book_option"]
    assert result.steps[-1].envelope["code"] == "CONFIRMATION_REQUIRED"
    assert (result.iterations, result.capped, result.error) == (3, False, None)
    assert "confirmation" in result.final_text


@pytest.mark.parametrize(
    ("preference", "wanted"),
    [
        ("最早的", {"sort": "EARLIEST"}),
        ("最快的", {"sort": "FASTEST"}),
        ("MU5101", {"number": "MU5101"}),
        ("要早上的", {"time_band": "MORNING"}),
        ("晚上的直飞", {"time_band": "EVENING", "direct": True}),
        ("东航的", {"vendor": "东航"}),
        ("", {}),
    ],
)
def test_the_travellers_preferences_go_to_the_search_and_the_ranking_is_the_tools(
    rules, registry, supplier, preference, wanted
):
    agent(rules, registry, f"订12月5日上海到杭州{preference}航班，乘机人张三 13800000000")

    [search] = supplier.searches
    assert {k: v for k, v in search.items() if k not in ROUTE} == wanted
    [(_, prepared)] = supplier.prepared
    assert prepared["option_ref"].startswith("FLIGHT|CA1701|")  # the tool's first option: its ranking, not ours


def test_nothing_matching_every_want_prepares_nothing_and_leaves_the_nearest_to_pick(rules, registry, supplier):
    supplier.matched = False

    result = agent(rules, registry, "订12月5日上海到杭州晚上的航班，乘机人张三 13800000000")

    assert len(supplier.searches) == 1 and supplier.prepared == []
    assert "nearest" in result.final_text


def test_a_pick_of_the_options_shown_prepares_that_one(rules, registry, supplier):
    result = conversation(rules, registry, "订12月5日上海到杭州的航班，乘机人张三 13800000000", "第二个")

    assert supplier.searches == [ROUTE]
    assert supplier.prepared == [
        ("book_option", {"option_ref": "FLIGHT|MU5101|2026-12-05|上海|杭州|经济舱", "passengers": CONTACT})
    ]
    assert [s.tool for s in result.steps] == ["find_booking_options", "book_option"]


def test_a_pick_of_a_nearest_option_prepares_it(rules, registry, supplier):
    supplier.matched = False

    conversation(rules, registry, "订12月5日上海到杭州晚上的航班，乘机人张三 13800000000", "第一个")

    assert [p["option_ref"] for _, p in supplier.prepared] == ["FLIGHT|CA1701|2026-12-05|上海|杭州|经济舱"]


def test_without_a_contact_the_options_are_found_and_nothing_prepared(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到杭州最便宜的航班，乘机人张三")

    assert len(supplier.searches) == 1 and supplier.prepared == []
    # the best option is asked for with what is known: the tool's refusal names what is missing (the question)
    assert supplier.refused == [
        {"option_ref": "FLIGHT|CA1701|2026-12-05|上海|杭州|经济舱", "passengers": [{"name": "张三", "mobile": None}]}
    ]
    assert (result.iterations, result.capped) == (3, False)
    assert "mobile" in result.final_text


def test_the_contact_answered_later_continues_the_booking_asked_for_before(rules, registry, supplier):
    conversation(rules, registry, "帮我订12月5日上海到杭州的航班", "张三 13800000000")

    assert supplier.searches == [ROUTE]
    assert supplier.prepared[0][1]["passengers"] == CONTACT


@pytest.mark.parametrize(
    ("follow_up", "wanted"), [("要早上的", {"time_band": "MORNING"}), ("最便宜的", {"sort": "CHEAPEST"})]
)
def test_a_follow_up_changes_the_wants_of_the_booking_asked_for_before(rules, registry, supplier, follow_up, wanted):
    conversation(rules, registry, "订12月5日上海到杭州的航班，乘机人张三 13800000000", follow_up)

    assert supplier.searches == [{**ROUTE, **wanted}]
    assert supplier.prepared[0][1]["passengers"] == CONTACT


def test_a_hotel_follow_up_keeps_the_stay_asked_for_before(rules, registry, supplier):
    conversation(rules, registry, "大理的酒店，12月10日入住，住两晚，王五 13700002222", "四星左右")

    assert supplier.searches == [
        {"biz_type": "HOTEL", "city": "大理", "date": "2026-12-10", "check_out": "2026-12-12", "star": 4}
    ]


def test_a_pick_then_the_contact_prepares_the_option_picked(rules, registry, supplier):
    conversation(rules, registry, "帮我订12月5日上海到杭州的航班", "第三个", "张三 13800000000")

    assert [p["option_ref"] for _, p in supplier.prepared] == ["FLIGHT|HO1234|2026-12-05|上海|杭州|经济舱"]


def test_an_answer_after_a_confirmed_booking_starts_nothing_again(rules, registry, supplier):
    result = conversation(
        rules, registry, "订12月5日上海到杭州的航班，乘机人张三 13800000000", "确认", "张三 13800000000"
    )

    assert result.steps == [] and supplier.searches == []


def test_the_contact_may_come_from_an_earlier_user_message(rules, registry, supplier):
    conversation(rules, registry, "乘机人张三 13800000000", "帮我订12月5日上海到杭州的航班")

    assert supplier.prepared[0][1]["passengers"] == CONTACT


def test_missing_route_and_date_are_all_reported_at_once_before_any_search(rules, registry, supplier):
    result = agent(rules, registry, "帮我订张机票")

    # The options tool is asked with what is known; it names everything missing at once, with no supplier search.
    assert supplier.searches == [] and len(result.steps) == 1
    assert result.steps[0].envelope["data"]["missing"] == ["route", "date"]


def test_a_train_search_names_the_seat_class(rules, registry, supplier):
    agent(rules, registry, "订明天北京到天津的高铁一等座，乘客李四 13900001111")

    [search] = supplier.searches
    assert search == {
        "biz_type": "TRAIN",
        "origin": "北京",
        "destination": "天津",
        "date": "2026-12-02",
        "seat_class": "FIRST",
    }
    assert supplier.prepared[0][1]["passengers"] == [{"name": "李四", "mobile": "13900001111"}]


@pytest.mark.parametrize(
    "sentence",
    [
        "帮我在大理订个酒店，12月10号入住，住两晚，入住人王五 13700002222",
        "大理的酒店，12月10日入住，12日退房，王五 13700002222",
    ],
)
def test_a_hotel_stay_is_searched_from_check_in_to_check_out(rules, registry, supplier, sentence):
    agent(rules, registry, sentence)

    assert supplier.searches == [{"biz_type": "HOTEL", "city": "大理", "date": "2026-12-10", "check_out": "2026-12-12"}]
    assert supplier.prepared[0][1]["option_ref"] == "HOTEL|HDL001|2026-12-10|2026-12-12|大理|"


def test_a_hotel_without_check_out_or_nights_asks_for_it_before_any_search(rules, registry, supplier):
    result = agent(rules, registry, "大理订个酒店，12月10号入住，王五 13700002222")

    assert supplier.searches == [] and [step.envelope["data"]["missing"] for step in result.steps] == [["check_out"]]


def test_a_hotel_star_level_goes_to_the_search(rules, registry, supplier):
    agent(rules, registry, "大理订一家五星以上的酒店，12月10号入住住一晚，联系人王五 13700002222")

    [search] = supplier.searches
    assert (search["star"], search["star_or_above"], search["check_out"]) == (5, True, "2026-12-11")


def test_an_english_sentence_books_the_same_way(rules, registry, supplier):
    agent(rules, registry, "Book me a flight from Beijing to Sanya on December 20, passenger Tom Lee 13800000000")

    assert supplier.searches == [{"biz_type": "FLIGHT", "origin": "北京", "destination": "三亚", "date": "2026-12-20"}]
    assert supplier.prepared[0][1]["passengers"] == [{"name": "Tom Lee", "mobile": "13800000000"}]


def test_an_empty_search_prepares_nothing(rules, registry, supplier):
    result = agent(rules, registry, "帮我订12月5日上海到拉萨的航班，乘机人张三 13800000000")

    assert len(supplier.searches) == 1 and supplier.prepared == []
    assert "nothing found" in result.final_text


def test_a_failed_search_prepares_nothing(rules, registry, supplier):
    supplier.fail_search = True

    result = agent(rules, registry, "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000")

    assert supplier.prepared == []
    assert "PLATFORM_UNAVAILABLE" in result.final_text


def test_the_dialogues_reading_handed_over_as_state_is_used(rules, registry, supplier):
    state = understood(intent="BOOK", biz_type="FLIGHT", origin="上海", city="杭州", date_start="2026-12-06")

    agent(rules, registry, "就订这个吧，乘机人张三 13800000000", state=state)

    assert supplier.searches == [{**ROUTE, "date": "2026-12-06"}]
    assert len(supplier.prepared) == 1


def test_without_a_system_message_the_policy_understands_the_sentence_with_todays_date(rules, registry, supplier):
    agent(rules, registry, "订一张明天北京到天津的高铁票 乘客李四 13900001111", system=None)

    [search] = supplier.searches
    assert search["date"] == (dt.date.today() + dt.timedelta(days=1)).isoformat()


def test_a_booking_without_its_tools_offered_calls_nothing(rules, registry, supplier):
    scoped = registry.scoped(["search_activities"])

    result = agent(rules, scoped, "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000")

    assert result.steps == [] and supplier.searches == []


def test_the_booking_ends_within_the_cap_and_at_a_smaller_cap_keeps_what_was_done(rules, registry, supplier):
    sentence = "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000"

    full = agent(rules, registry, sentence, max_iterations=6)
    capped = agent(rules, registry, sentence, max_iterations=1)

    assert (full.iterations, full.capped) == (3, False)
    assert (capped.iterations, capped.capped, len(capped.steps)) == (1, True, 1)
    assert len(supplier.prepared) == 1  # the capped run only searched


# -- rebooking -------------------------------------------------------------------------------------------------------


def booked(booking_id: str, day: str, biz_type: str = "FLIGHT", status: str = "PENDING_PAYMENT") -> dict:
    details = {"origin": "上海", "destination": "杭州", "date": day, "depart": f"{day}T07:10"}
    return {"booking_id": booking_id, "biz_type": biz_type, "status": status, "details": details}


def test_a_rebooking_finds_the_booking_searches_the_new_day_and_prepares_the_change(
    rules, registry, supplier, bookings
):
    bookings += [booked("BK20261201001", "2026-12-19"), booked("BK20261201002", "2026-12-10", status="CANCELLED")]

    result = agent(rules, registry, "我的机票改签到12月20号")

    assert [s.tool for s in result.steps] == ["list_my_bookings", "find_booking_options", "rebook_booking"]
    assert supplier.searches == [{**ROUTE, "date": "2026-12-20"}]
    assert supplier.prepared == [
        ("rebook_booking", {"booking_id": "BK20261201001", "option_ref": "FLIGHT|CA1701|2026-12-20|上海|杭州|经济舱"})
    ]


def test_a_rebooking_picks_the_booking_of_the_original_date(rules, registry, supplier, bookings):
    bookings += [booked("BK20261201001", "2026-12-18"), booked("BK20261201002", "2026-12-19")]

    agent(rules, registry, "把12月19号的机票改签到20号")

    assert [p["booking_id"] for _, p in supplier.prepared] == ["BK20261201002"]
    assert supplier.searches[0]["date"] == "2026-12-20"


def test_a_rebooking_with_several_bookings_and_no_date_to_tell_them_apart_prepares_nothing(
    rules, registry, supplier, bookings
):
    bookings += [booked("BK20261201001", "2026-12-18"), booked("BK20261201002", "2026-12-19")]

    result = agent(rules, registry, "我的机票改签到12月20号")

    assert supplier.prepared == [] and supplier.searches == []
    assert "BK20261201001" in result.final_text and "BK20261201002" in result.final_text


# -- cancelling ------------------------------------------------------------------------------------------------------


def test_a_cancel_with_a_booking_id_asks_for_the_confirmation(rules, registry, supplier):
    result = agent(rules, registry, "帮我取消预订 bk20261201001")

    assert supplier.prepared == [("cancel_booking", {"booking_id": "BK20261201001"})]
    assert [s.tool for s in result.steps] == ["cancel_booking"]
    assert result.iterations == 2 and "confirmation" in result.final_text


def test_a_cancel_by_type_lists_the_bookings_and_cancels_the_only_active_one(rules, registry, bookings, supplier):
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


def test_a_cancel_by_type_with_several_active_bookings_cancels_nothing(rules, registry, bookings, supplier):
    bookings += [
        {"booking_id": "BK20261201001", "biz_type": "TRAIN", "status": "CONFIRMED"},
        {"booking_id": "BK20261201004", "biz_type": "TRAIN", "status": "PENDING_PAYMENT"},
    ]

    result = agent(rules, registry, "取消我的火车票")

    assert supplier.prepared == []
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
    result = agent(rules, registry, "500以内的", state=understood(intent="SEARCH_ACTIVITIES", max_price=500))

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
    state = understood(intent="QUERY_WEATHER", destination_keywords=["大理"], also=["RECOMMEND", "DANCE"])

    result = agent(rules, registry, "大理天气，顺便推荐", state=state)

    assert [s.tool for s in result.steps] == ["weather_report", "recommend_activities"]


# -- the arguments fit the real tools --------------------------------------------------------------------------------

REAL_TOOL_REQUESTS = [
    "12月5日到12月6日大理有什么好玩的，500以内",
    "这周末推荐点好玩的",
    "大理这周末天气怎么样",
    "帮我安排三天丽江行程",
    "下周五从上海去北京，下周日回来，比较一下往返方案",
    "取消预订 BK20261201001",
    "帮我订12月5日上海到杭州最便宜的航班",
    "大理的酒店，12月10日入住，住两晚",
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


def test_the_booking_calls_are_valid_for_the_real_tools(rules):
    from assistant.agent import default_registry

    real = default_registry()
    messages = [
        {"role": "system", "content": f"TODAY: {TODAY}"},
        {"role": "user", "content": "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"},
    ]
    [search] = next_turn(rules, messages, real.schemas()).tool_calls
    real.get(search.name).validate(search.arguments)
    found = {"kind": "booking_options", "options": [flight("CA1701", "2026-12-05", "10:00")], "matched": True}
    call = {"id": "x1", "type": "function", "function": {"name": search.name, "arguments": search.raw_arguments}}
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "x1", "content": json.dumps(ok(found), ensure_ascii=False)},
    ]

    [book] = next_turn(rules, messages, real.schemas()).tool_calls

    assert book.name == "book_option"
    real.get(book.name).validate(book.arguments)


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
