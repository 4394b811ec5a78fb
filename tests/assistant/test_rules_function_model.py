"""Channel 2 with the `rules` provider: the offline adapter is a function model with no flow of its own. It is handed
channel 1's flow by the agent turn (`ChatState.next_call`) and makes, call by call through the agent loop, the calls
that flow makes; the reply is composed from the tools' envelopes as for a model. Driven through the chat API with the
real tools and the sandbox supplier: the cards, the reply, the rows."""

import pytest
from django.core.management import call_command

import assistant.handlers.bookings as channel_one_bookings
from assistant.llm.port import ChatState
from assistant.llm.rules import RulesLLM
from assistant.models import AgentStep, LLMCall
from bookings.models import BookingRecord, BookingStatus
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight

pytestmark = pytest.mark.django_db

BOOK = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"


@pytest.fixture
def chat(alice, settings, supplier_sandbox):
    settings.ASSISTANT_AGENT_ENABLED = True
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    return Chat(alice)


def steps(answer: dict) -> list[tuple[str, bool]]:
    return list(AgentStep.objects.filter(turn_id=answer["meta"]["turn_id"]).values_list("tool", "ok"))


def cards(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def confirmation(answer: dict) -> dict:
    found = cards(answer, "confirmation")
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r} {[c['type'] for c in answer['cards']]}"
    return found[0]


def rows(card: dict) -> str:
    return " ".join([card["title"], *(f"{label} {value}" for label, value in card["rows"])])


def test_a_booking_searches_then_prepares_the_best_option_and_books_nothing_before_the_yes(chat):
    answer = chat.say(BOOK)

    assert steps(answer) == [("find_booking_options", True), ("book_option", False)]  # waits for the traveller
    shown = cards(answer, "option")
    assert shown and shown[0]["number"] in rows(confirmation(answer))
    assert answer["meta"]["channel"] == 2 and not BookingRecord.objects.exists()
    # one audited model call per step of the loop: search, prepare, end
    turn_calls = LLMCall.objects.filter(turn_id=answer["meta"]["turn_id"])
    assert list(turn_calls.values_list("provider", "purpose")) == [("rules", "agent")] * 3

    chat.say("确认")

    [booking] = BookingRecord.objects.all()
    assert booking.details["flightNo"] == shown[0]["number"]


def test_channel_one_and_channel_two_are_one_flow_a_changed_handler_changes_what_channel_two_books(chat, monkeypatch):
    # Channel 1's book flow changed to take the last option found: channel 2 with the rules provider follows.
    def last_option(data, pick, accept_nearest=False):
        return data["options"][-1], ""

    monkeypatch.setattr(channel_one_bookings, "option_choice", last_option)

    answer = chat.say(BOOK)

    shown = cards(answer, "option")
    assert len(shown) >= 2
    card = rows(confirmation(answer))
    assert shown[-1]["number"] in card and shown[0]["number"] not in card


def test_a_pick_among_the_options_shown_prepares_that_option(chat):
    shown = cards(chat.say("上海飞成都 12月19号的机票 张三 13800000000"), "option")

    answer = chat.say("第二个")

    card = rows(confirmation(answer))
    assert shown[1]["number"] in card and shown[0]["number"] not in card


def test_without_the_mobile_the_contact_is_asked_and_the_answer_prepares_the_booking(chat):
    asked = chat.say("帮我订12月5日上海到杭州最便宜的航班，乘机人张三")

    assert steps(asked) == [("find_booking_options", True), ("book_option", False)]  # refused: the mobile
    assert not cards(asked, "confirmation") and "手机号" in asked["reply"]

    answer = chat.say("13800000000")

    assert "张三" in rows(confirmation(answer))


def test_a_failed_search_prepares_nothing_and_says_so(chat, supplier_sandbox):
    supplier_sandbox.fault("flight.search=fail")

    answer = chat.say(BOOK)

    assert steps(answer) == [("find_booking_options", False)]
    assert not cards(answer, "confirmation") and not cards(answer, "option")
    assert answer["outcome"] != "ANSWERED"


def test_a_rebooking_finds_the_booking_searches_the_new_day_and_prepares_the_change(chat, alice):
    booking = book_flight(alice)  # 上海 → 成都, the 19th
    day = booking.details["date"]

    answer = chat.say(f"把{int(day[5:7])}月{int(day[8:10])}号的机票改签到{int(day[8:10]) + 1}号")

    assert steps(answer) == [("list_my_bookings", True), ("find_booking_options", True), ("rebook_booking", False)]
    assert booking.booking_id in rows(confirmation(answer))


def test_paying_lists_the_bookings_waiting_and_prepares_paying_the_only_one(chat, alice):
    booking = book_flight(alice)

    answer = chat.say("帮我把刚才订的机票付了")

    assert steps(answer) == [("list_my_bookings", True), ("pay_booking", False)]
    card = confirmation(answer)
    assert card["amount"] == str(booking.amount) and booking.booking_id in rows(card)
    assert BookingRecord.objects.get().status == BookingStatus.PENDING_PAYMENT


def test_a_cancel_by_type_prepares_cancelling_the_only_active_booking(chat, alice):
    booking = book_flight(alice)

    answer = chat.say("取消我的机票")

    assert steps(answer) == [("list_my_bookings", True), ("cancel_booking", False)]
    assert booking.booking_id in rows(confirmation(answer))
    assert BookingRecord.objects.get().status == BookingStatus.PENDING_PAYMENT


def test_two_requests_in_one_message_call_both_tools_in_order(chat):
    call_command("seed_demo", verbosity=0)  # the catalogue a plan is made from

    answer = chat.say("帮我规划三天丽江行程，顺便查天气")

    assert steps(answer) == [("make_travel_plan", True), ("weather_report", True)]
    assert [c["type"] for c in answer["cards"]] == ["travel_plan", "weather"]


def test_a_question_of_the_second_part_is_asked_in_channel_two_as_in_channel_one(chat, alice, settings):
    settings.ASSISTANT_AGENT_ENABLED = False
    asked = Chat(alice).say("大理这周末天气怎么样，顺便帮我订张机票")
    settings.ASSISTANT_AGENT_ENABLED = True

    answer = chat.say("大理这周末天气怎么样，顺便帮我订张机票")

    assert steps(answer) == [("weather_report", True), ("ask_traveller", True)]
    assert [c["type"] for c in answer["cards"]] == [c["type"] for c in asked["cards"]] == ["weather"]
    question = asked["reply"].rsplit("\n", 1)[-1]
    assert "还需要" in question and answer["reply"].endswith(question)


# -- the function model itself ---------------------------------------------------------------------------------------

TOOLS = [{"type": "function", "function": {"name": "weather_report", "parameters": {"type": "object"}}}]
ASKED = [{"role": "user", "content": "大理天气"}]


def test_it_calls_what_the_callers_function_names_next_with_the_calls_answered_so_far():
    seen = []

    def next_call(answered):
        seen.append(answered)
        return ("weather_report", {"place": "大理"}) if not answered else None

    first = RulesLLM().chat(ASKED, TOOLS, state=ChatState(next_call=next_call))
    [call] = first.tool_calls
    envelope = '{"ok": true, "data": {"kind": "weather"}}'
    answered = [*ASKED, first.assistant_message(), {"role": "tool", "tool_call_id": call.id, "content": envelope}]
    last = RulesLLM().chat(answered, TOOLS, state=ChatState(next_call=next_call))

    assert (call.name, call.arguments, first.finish_reason) == ("weather_report", {"place": "大理"}, "tool_calls")
    assert seen == [[], [("weather_report", {"place": "大理"}, {"ok": True, "data": {"kind": "weather"}})]]
    assert last.tool_calls == [] and last.content == "Done: weather_report ok."


def test_without_a_callers_function_or_with_a_tool_not_offered_it_ends_without_a_call():
    alone = RulesLLM().chat(ASKED, TOOLS)
    elsewhere = RulesLLM().chat(ASKED, TOOLS, state=ChatState(next_call=lambda answered: ("book_option", {})))

    assert alone.tool_calls == [] and alone.content and alone.finish_reason == "stop"
    assert elsewhere.tool_calls == [] and "book_option" in elsewhere.content
