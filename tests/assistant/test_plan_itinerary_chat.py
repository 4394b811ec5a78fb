"""PLAN_ITINERARY in chat: supplier candidates (the real sandbox CLI), preference scores from the LLM port, the
plan_itinerary engine, and a comparison card whose every price is one the supplier quoted."""

import datetime as dt
import json

import pytest

import itinerary.round_trip.candidates as candidates
from assistant.dispatcher import dispatch
from assistant.llm.openai_adapter import OpenAILLM
from assistant.llm.port import LLMError
from assistant.llm.preferences import PreferenceCandidate
from assistant.llm.rules import RulesLLM
from assistant.llm.rules.preferences import preference_scores_for, stated_preferences
from assistant.llm.schema import Intent
from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from assistant.turn import TurnContext
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingRecord
from bookings.platform import PlatformCommand, platform_call
from itinerary.round_trip import PLAN_NAMES, plan_load
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

SENTENCE = "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"
DEPART, BACK = dt.date(2026, 12, 5), dt.date(2026, 12, 7)
NIGHTS = (BACK - DEPART).days


# --- helpers -------------------------------------------------------------------------------------------------------


def supplier(user, product: str, arguments: dict) -> dict:
    """One search straight on the supplier, as the user: the numbers the card must show."""
    command = PlatformCommand(product, "search", arguments)
    return platform_call(command, api_key=supplier_account_ensure(user=user).api_key)


def quotes(user, seat: str = "二等座") -> dict:
    """Every price the supplier quotes for the round trip: {"out": {number: price}, "ret": …, "hotel": {id: per night}}."""
    result = {}
    for direction, src, dst, day in (("out", "上海", "杭州", DEPART), ("ret", "杭州", "上海", BACK)):
        route = {"from": src, "to": dst, "date": day.isoformat()}
        prices = {f["flightNo"]: f["price"] for f in supplier(user, "flight", route)["flights"]}
        for train in supplier(user, "train", route)["trains"]:
            prices[train["trainNo"]] = next(s["price"] for s in train["seats"] if s["seatType"] == seat)
        result[direction] = prices
    stay = {"city": "杭州", "checkInDate": DEPART.isoformat(), "checkOutDate": BACK.isoformat()}
    result["hotel"] = {h["hotelId"]: h["pricePerNight"] for h in supplier(user, "hotel", stay)["hotels"]}
    return result


def plan_card(result) -> dict:
    cards = [c for c in result.cards if c["type"] == "plan_comparison"]
    assert len(cards) == 1, result.reply
    return cards[0]


def named(card: dict) -> dict[str, dict]:
    return {plan["name"]: plan for plan in card["plans"]}


def money(value) -> str:
    return f"¥{value}"


@pytest.fixture
def openai_port(settings, fake_openai):
    settings.ASSISTANT_LLM_PROVIDER = "openai"
    return OpenAILLM(base_url=fake_openai.base_url, api_key="sk-test-plan-0000", model="scripted", timeout=5)


PLAN_INTENT = {
    "intent": "PLAN_ITINERARY",
    "origin": "上海",
    "destination_keywords": ["杭州"],
    "city": "杭州",
    "date_start": "2026-12-05",
    "date_end": "2026-12-07",
}


def candidates_sent(request_json: dict) -> list[dict]:
    user_message = next(m for m in request_json["messages"] if m["role"] == "user")
    return json.loads(user_message["content"])["candidates"]


# --- end to end with the rules port --------------------------------------------------------------------------------


def test_a_round_trip_question_gets_four_named_plans_priced_as_the_supplier_quoted(alice, supplier_sandbox):
    result = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    assert result.outcome == "ANSWERED", result.reply
    card = plan_card(result)
    assert (card["origin"], card["destination"]) == ("上海", "杭州")
    assert (card["depart_date"], card["return_date"], card["nights"]) == ("2026-12-05", "2026-12-07", 2)
    assert [plan["name"] for plan in card["plans"]] == list(PLAN_NAMES)

    quoted = quotes(alice)
    for plan in card["plans"]:
        assert plan["outbound"]["price"] == quoted["out"][plan["outbound"]["number"]]
        assert plan["return"]["price"] == quoted["ret"][plan["return"]["number"]]
        assert plan["hotel"]["price_per_night"] == quoted["hotel"][plan["hotel"]["hotel_id"]]
        legs_and_hotel = plan["outbound"]["price"] + plan["hotel"]["price_per_night"] * NIGHTS + plan["return"]["price"]
        assert plan["total_price"] == pytest.approx(legs_and_hotel)
        assert plan["name"] in plan["labels"]
    cheapest_total = min(quoted["out"].values()) + min(quoted["hotel"].values()) * NIGHTS + min(quoted["ret"].values())
    plans = named(card)
    assert plans["cheapest"]["total_price"] == pytest.approx(cheapest_total)
    assert all(plan["total_price"] >= plans["cheapest"]["total_price"] for plan in card["plans"])
    assert card["counts"]["legal"] == card["counts"]["combinations"] > 0
    assert money(plans["cheapest"]["total_price"]) in result.reply
    assert money(plans["best_overall"]["total_price"]) in result.reply


def test_the_comparison_is_stored_for_its_owner_only(alice, traveller, supplier_sandbox):
    card = plan_card(chat_turn(user=alice, message=SENTENCE, today=TODAY))

    stored = plan_load(card["plan_id"], owner_id=alice.pk)

    assert stored is not None
    assert stored["plans"]["cheapest"]["total_price"] == named(card)["cheapest"]["total_price"]
    assert plan_load(card["plan_id"], owner_id=traveller.pk) is None


def test_a_plan_that_wins_several_titles_says_so(alice, supplier_sandbox):
    result = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    card = plan_card(result)
    # With nothing preferred, every preference is neutral: the best preference is then the best overall.
    best = named(card)["best_overall"]
    assert {"best_overall", "best_preference"} <= set(best["labels"])
    assert named(card)["best_preference"]["scores"]["preference"] == 50
    titles = {"best_overall": "综合最佳", "cheapest": "最便宜", "fastest": "最快", "best_preference": "最合偏好"}
    said = "「" + "」、「".join(titles[name] for name in best["labels"]) + f"」是同一个方案：方案{best['number']}（"
    assert said in result.reply  # which plan that is: its number and its parts
    assert f"{best['outbound']['number']}、{best['hotel']['name']}、{best['return']['number']}" in result.reply


def test_the_preference_call_is_audited_with_the_turn(alice, supplier_sandbox):
    chat_turn(user=alice, message=SENTENCE, today=TODAY)

    call = LLMCall.objects.get(purpose="preference")
    assert (call.provider, call.outcome, call.user) == ("rules", "OK", alice)
    assert call.turn == Turn.objects.get()


def test_asking_for_it_cheaper_moves_the_best_preference_plan_to_the_cheapest(alice, supplier_sandbox):
    neutral = named(plan_card(chat_turn(user=alice, message=SENTENCE, today=TODAY)))

    result = chat_turn(user=alice, message=SENTENCE + "，要便宜一点的", today=TODAY, fresh=True)

    cheaper = named(plan_card(result))
    assert cheaper["best_preference"]["total_price"] == cheaper["cheapest"]["total_price"]
    assert cheaper["best_preference"]["total_price"] <= neutral["best_preference"]["total_price"]
    assert cheaper["best_preference"]["scores"]["preference"] == 100
    assert "便宜" in result.reply


def test_asking_for_the_train_makes_the_best_preference_plan_go_by_train(alice, supplier_sandbox):
    result = chat_turn(user=alice, message=SENTENCE + "，想坐高铁", today=TODAY)

    best = named(plan_card(result))["best_preference"]
    assert (best["outbound"]["mode"], best["return"]["mode"]) == ("TRAIN", "TRAIN")


def test_a_first_class_seat_is_priced_as_the_supplier_quotes_it(alice, supplier_sandbox):
    result = chat_turn(user=alice, message=SENTENCE + "，火车坐一等座", today=TODAY)

    quoted = quotes(alice, seat="一等座")
    for plan in plan_card(result)["plans"]:
        for leg, direction in ((plan["outbound"], "out"), (plan["return"], "ret")):
            if leg["mode"] == "TRAIN":
                assert leg["seat_class"] == "一等座"
                assert leg["price"] == quoted[direction][leg["number"]]


def test_an_english_question_gets_an_english_answer(alice, supplier_sandbox):
    result = chat_turn(
        user=alice, message="Compare flights and hotels from Shanghai to Hangzhou, Dec 5 to Dec 7", today=TODAY
    )

    card = plan_card(result)
    assert "Cheapest" in result.reply and money(named(card)["cheapest"]["total_price"]) in result.reply


# --- one question for what is missing ------------------------------------------------------------------------------


def test_a_missing_return_date_gets_one_question_and_the_answer_completes_the_plan(alice, supplier_sandbox):
    first = chat_turn(user=alice, message="12月5号从上海去杭州，帮我比较一下交通和酒店方案", today=TODAY)

    assert first.outcome == "CLARIFY"
    assert first.cards == []
    assert "哪天回来" in first.reply
    assert not LLMCall.objects.filter(purpose="preference").exists()

    second = chat_turn(user=alice, message="12月7号回来", conversation_id=first.conversation_id, today=TODAY)

    card = plan_card(second)
    assert (card["origin"], card["destination"]) == ("上海", "杭州")
    assert (card["depart_date"], card["return_date"]) == ("2026-12-05", "2026-12-07")


def test_a_missing_origin_gets_one_question_and_the_answer_completes_the_plan(alice, supplier_sandbox):
    first = chat_turn(user=alice, message="12月5号去杭州，12月7号回来，帮我比较一下交通和酒店方案", today=TODAY)

    assert first.outcome == "CLARIFY"
    assert "从哪里出发" in first.reply

    second = chat_turn(user=alice, message="上海", conversation_id=first.conversation_id, today=TODAY)

    card = plan_card(second)
    assert (card["origin"], card["destination"]) == ("上海", "杭州")


def test_a_return_on_the_departure_day_is_asked_about_and_never_searched(alice, supplier_sandbox):
    intent = Intent(
        intent="PLAN_ITINERARY",
        origin="上海",
        city="杭州",
        destination_keywords=["杭州"],
        date_start=DEPART,
        date_end=DEPART,
    )

    reply = dispatch(TurnContext(intent=intent, user=alice, today=TODAY, language="zh-hans", request_text="当天来回"))

    assert reply.outcome == "CLARIFY" and reply.cards == []
    assert "要晚于出发日期" in reply.text
    assert not LLMCall.objects.exists()


def test_a_budget_marks_the_plans_over_it_without_removing_them(alice, supplier_sandbox):
    result = chat_turn(user=alice, message=SENTENCE + "，预算800", today=TODAY)

    for plan in plan_card(result)["plans"]:
        assert bool(plan["violations"]) == (plan["total_price"] > 800)


# --- the supplier failing ------------------------------------------------------------------------------------------


def test_a_supplier_that_is_down_gets_an_honest_reply_and_no_card(alice, supplier_sandbox):
    supplier_sandbox.fault("*=fail")

    result = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    assert result.outcome == "DEGRADED"
    assert result.cards == []
    assert "供应商平台暂时无法查询" in result.reply and "没有预订任何东西" in result.reply
    assert "¥" not in result.reply
    assert not LLMCall.objects.filter(purpose="preference").exists()
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0


def test_when_only_flights_fail_the_trains_are_compared_and_the_failure_said(alice, supplier_sandbox):
    supplier_sandbox.fault("flight.search=fail")

    result = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    assert result.outcome == "DEGRADED"
    card = plan_card(result)
    assert {p["outbound"]["mode"] for p in card["plans"]} == {"TRAIN"}
    assert {p["return"]["mode"] for p in card["plans"]} == {"TRAIN"}
    assert "去程航班" in result.reply and "查询失败" in result.reply


# --- the openai adapter --------------------------------------------------------------------------------------------


def test_the_model_s_preference_scores_are_used(alice, supplier_sandbox, openai_port, fake_openai):
    def trains_first(request_json: dict) -> Reply:
        scores = {
            c["id"]: (100 if c["mode"] == "TRAIN" else 0 if c["mode"] == "FLIGHT" else 50)
            for c in candidates_sent(request_json)
        }
        return Reply(content={"scores": scores, "preferences": ["train"]}, prompt_tokens=400, completion_tokens=90)

    fake_openai.enqueue(Reply(content=PLAN_INTENT))
    fake_openai.set_default(trains_first)

    result = chat_turn(user=alice, message=SENTENCE + "，想坐高铁", today=TODAY, port=openai_port)

    assert result.outcome == "ANSWERED", result.reply
    best = named(plan_card(result))["best_preference"]
    assert (best["outbound"]["mode"], best["return"]["mode"], best["scores"]["preference"]) == ("TRAIN", "TRAIN", 83.33)
    request = fake_openai.requests[1].json
    assert request["response_format"] == {"type": "json_object"}
    assert "preference reader" in fake_openai.requests[1].system_prompt
    call = LLMCall.objects.get(purpose="preference")
    assert (call.provider, call.outcome, call.prompt_tokens, call.completion_tokens) == ("openai", "OK", 400, 90)


def test_a_model_answer_that_is_not_json_leaves_preferences_neutral_and_says_so(
    alice, supplier_sandbox, openai_port, fake_openai
):
    fake_openai.enqueue(Reply(content=PLAN_INTENT), Reply(content="I think the train is nicer {"))

    result = chat_turn(user=alice, message=SENTENCE, today=TODAY, port=openai_port)

    assert result.outcome == "DEGRADED"
    card = plan_card(result)
    assert {plan["scores"]["preference"] for plan in card["plans"]} == {50}
    assert "没能读取你的偏好" in result.reply
    assert LLMCall.objects.get(purpose="preference").outcome == "INVALID"


def test_a_model_that_fails_leaves_preferences_neutral(alice, supplier_sandbox, openai_port, fake_openai):
    fake_openai.enqueue(Reply(content=PLAN_INTENT), Reply(status=503))

    result = chat_turn(user=alice, message=SENTENCE, today=TODAY, port=openai_port)

    assert {plan["scores"]["preference"] for plan in plan_card(result)["plans"]} == {50}
    assert LLMCall.objects.get(purpose="preference").outcome == "ERROR"


# --- the adapters at unit level ------------------------------------------------------------------------------------

CANDIDATES = [
    PreferenceCandidate(id="out:FLIGHT:MU1", kind="outbound", mode="FLIGHT", price=600, duration_minutes=60),
    PreferenceCandidate(id="out:TRAIN:G1", kind="outbound", mode="TRAIN", price=75, duration_minutes=60),
    PreferenceCandidate(id="out:TRAIN:D2", kind="outbound", mode="TRAIN", price=55, duration_minutes=90),
    PreferenceCandidate(id="hotel:H1", kind="hotel", mode="HOTEL", price=1200, star=5),
    PreferenceCandidate(id="hotel:H2", kind="hotel", mode="HOTEL", price=300, star=3),
    PreferenceCandidate(id="hotel:H3", kind="hotel", mode="HOTEL", price=200, star=2),
]


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("帮我比较一下交通和酒店方案", ()),
        ("要便宜一点的", ("cheap",)),
        ("越快越好，早点到", ("fast",)),
        ("想坐高铁", ("train",)),
        ("不想坐飞机", ("train",)),
        ("坐飞机去", ("flight",)),
        ("住五星酒店", ("luxury",)),
        ("经济型酒店就行", ("budget_hotel",)),
        ("I want the cheapest option by train", ("cheap", "train")),
        ("budget 1500", ()),
        ("we travel on a budget", ("cheap",)),
        ("预算1500", ()),
        ("住快捷酒店，玩得愉快", ("budget_hotel",)),
    ],
)
def test_the_rules_adapter_reads_stated_preferences(text, stated):
    assert stated_preferences(text) == stated


def test_nothing_stated_scores_every_candidate_neutral():
    scores, stated = preference_scores_for("帮我比较一下方案", CANDIDATES)

    assert stated == ()
    assert set(scores.values()) == {50.0} and set(scores) == {c.id for c in CANDIDATES}


def test_cheap_scores_each_group_by_its_own_prices():
    scores, _ = preference_scores_for("便宜点", CANDIDATES)

    assert scores["out:TRAIN:D2"] == 100 and scores["out:FLIGHT:MU1"] == 0
    assert scores["hotel:H3"] == 100 and scores["hotel:H1"] == 0


def test_train_and_luxury_apply_to_their_own_candidates_only():
    scores, _ = preference_scores_for("坐高铁，住五星", CANDIDATES)

    assert scores["out:TRAIN:G1"] == scores["out:TRAIN:D2"] == 100 and scores["out:FLIGHT:MU1"] == 0
    assert (scores["hotel:H1"], scores["hotel:H2"], scores["hotel:H3"]) == (100, pytest.approx(33.33), 0)


def test_the_rules_port_answers_through_the_port_method():
    answer = RulesLLM().preference_scores("fastest please", CANDIDATES)

    assert answer.stated == ("fast",)
    assert answer.scores["out:FLIGHT:MU1"] == answer.scores["out:TRAIN:G1"] == 100
    assert answer.scores["hotel:H1"] == 50


def test_the_openai_adapter_drops_unknown_ids(openai_port, fake_openai):
    fake_openai.enqueue(
        Reply(content={"scores": {"out:TRAIN:G1": 90, "out:FLIGHT:XX9": 10}, "preferences": ["train", "x"]})
    )

    answer = openai_port.preference_scores("坐高铁", CANDIDATES)

    assert answer.scores == {"out:TRAIN:G1": 90.0}
    assert answer.stated == ("train",)


@pytest.mark.parametrize(
    "content",
    [
        {"scores": {"out:TRAIN:G1": 140}},
        {"scores": {"out:TRAIN:G1": -1}},
        {"scores": {"out:TRAIN:G1": "high"}},
        {"scores": [90]},
        {"preferences": ["train"]},
        "not json",
    ],
)
def test_the_openai_adapter_refuses_an_invalid_answer(openai_port, fake_openai, content):
    fake_openai.enqueue(Reply(content=content))

    with pytest.raises(LLMError) as caught:
        openai_port.preference_scores("坐高铁", CANDIDATES)

    assert caught.value.kind == "INVALID"


# --- the page ------------------------------------------------------------------------------------------------------


def test_the_chat_page_shows_the_comparison_card(client, alice, supplier_sandbox):
    client.force_login(alice)

    response = client.post("/chat/send", {"message": SENTENCE}, HTTP_HX_REQUEST="true")

    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-card="plan_comparison"' in page
    assert page.count('class="plan"') >= 1 and "综合最佳" in page and "最便宜" in page


# --- candidates at unit level --------------------------------------------------------------------------------------


def test_unreadable_or_implausible_supplier_entries_are_left_out_never_guessed(alice, monkeypatch):
    from itinerary.round_trip import candidates as candidates_module

    def flight(number, depart="2026-12-05T08:00", arrive="2026-12-05T09:00", price=500):
        return {"flightNo": number, "departTime": depart, "arriveTime": arrive, "price": price, "cabin": "经济舱"}

    answers = {
        "flight": {
            "flights": [
                flight("MU1"),
                flight("MU2", price=None),
                flight("MU3", arrive="2026-12-05T07:00"),
                flight("MU1", price=1),
                "garbage",
            ]
        },
        "train": {
            "trains": [
                {
                    "trainNo": "D9",
                    "departTime": "2026-12-05T08:00",
                    "arriveTime": "2026-12-05T09:30",
                    "seats": [{"seatType": "二等座", "price": 60}, {"seatType": "一等座", "price": 96}],
                },
                {"trainNo": "G8", "departTime": "2026-12-05T08:00", "arriveTime": "2026-12-05T09:00", "seats": []},
            ]
        },
        "hotel": {
            "hotels": [
                {"hotelId": "H1", "name": "好酒店", "star": 4, "pricePerNight": 500},
                {"hotelId": "H2", "name": "怪酒店", "star": 9, "pricePerNight": 100},
            ]
        },
    }
    monkeypatch.setattr(
        candidates_module, "platform_run_many", lambda commands, *, user: [answers[c.product] for c in commands]
    )

    found = candidates_module.candidates_collect(
        user=alice, origin="上海", destination="杭州", depart_date=DEPART, return_date=BACK, seat_class="商务座"
    )

    assert [leg.id for leg in found.outbound] == ["out:FLIGHT:MU1", "out:TRAIN:D9"]
    assert found.outbound[0].price == 500
    assert (found.outbound[1].seat_class, found.outbound[1].price) == ("二等座", 60)  # no 商务座 on a D train
    assert [hotel.id for hotel in found.hotels] == ["hotel:H1"]
    assert found.failures == []


def test_a_supplier_that_hangs_times_out_every_search_at_once_and_each_is_recorded(
    alice, supplier_sandbox, settings, monkeypatch
):
    settings.PLATFORM_TIMEOUT = 0.5
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "5")
    supplier_sandbox.fault("*=timeout")
    run = candidates.platform_run_many
    failures = []

    def recorded(commands, **kwargs):  # the real supplier calls, their outcomes kept
        answers = run(commands, **kwargs)
        failures.extend((c.product, a.code) for c, a in zip(commands, answers, strict=True))
        return answers

    monkeypatch.setattr(candidates, "platform_run_many", recorded)

    result = chat_turn(user=alice, message=SENTENCE, today=TODAY)

    # All five searches ran side by side (tests/itinerary/test_round_trip_parallel.py), so one timeout, not five.
    assert failures == [(p, "TIMEOUT") for p in ("flight", "train", "flight", "train", "hotel")]
    assert result.outcome == "DEGRADED" and result.cards == []
    assert "供应商平台暂时无法查询" in result.reply
