"""A person when the traveller asks for one, through the chat API in both channels: asking for a person or
complaining (in either language, in several wordings) hands the conversation to staff in exactly one hand-over row;
while a person holds it the assistant stays quiet (the messages are kept on the hand-over, nothing is read, booked or
prepared); what staff write reaches the next chat response and the conversation's history; once staff close it the
assistant answers again and says it is back. Two turns in a row the assistant could not help end with an offer of a
person."""

import pytest
from django.contrib.auth.models import Permission

from aftersale.models import HitlTicket
from assistant.handovers import HandoverError, handover_close, handover_reply, handover_take
from assistant.models import Handover, HandoverEvent, HandoverMessage, PendingAction, Turn
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def chat(alice, channel):
    return Chat(alice)


@pytest.fixture
def staff(user_factory):
    user = user_factory("sam", is_staff=True, first_name="Sam")
    user.user_permissions.add(Permission.objects.get(codename="answer_handover", content_type__app_label="assistant"))
    return user


def nothing_written() -> bool:
    return not (BookingRecord.objects.exists() or PendingAction.objects.exists() or HitlTicket.objects.exists())


@pytest.mark.parametrize(
    ("first", "again", "said"),
    [
        ("转人工", "我要找客服", "工作人员"),
        ("能帮我接通人工客服吗", "叫个真人来处理", "工作人员"),
        ("I want to talk to a person", "connect me with a human agent", "staff"),
        ("can I speak with someone from your team?", "real person please", "staff"),
    ],
)
def test_asking_for_a_person_in_two_wordings_opens_exactly_one_hand_over(chat, alice, first, again, said):
    answer = chat.say(first)

    assert answer["outcome"] == "HANDOVER" and said in answer["reply"]
    handover = Handover.objects.get()
    assert (handover.user, str(handover.conversation_id), handover.status) == (alice, chat.session, "OPEN")
    assert handover.reason == "ASKED" and handover.words == first

    chat.say(again)

    assert Handover.objects.count() == 1
    assert list(HandoverEvent.objects.values_list("from_status", "to_status")) == [("", "OPEN")]
    assert list(handover.messages.values_list("role", "body")) == [("TRAVELLER", first), ("TRAVELLER", again)]
    assert nothing_written()


@pytest.mark.parametrize(
    ("sentence", "said"), [("我要投诉你们的导游", "投诉"), ("I'd like to file a complaint", "complaint")]
)
def test_a_complaint_goes_to_staff_as_a_complaint(chat, sentence, said):
    answer = chat.say(sentence)

    assert answer["outcome"] == "HANDOVER" and said in answer["reply"]
    assert Handover.objects.get().reason == "COMPLAINT"


@pytest.mark.parametrize(
    "held", ["帮我订明天上海到成都的机票", "book a hotel in Dali for tomorrow", "取消我的预订", "确认"]
)
def test_while_a_person_holds_the_conversation_the_assistant_only_keeps_the_messages(chat, held):
    chat.say("转人工")

    first = chat.say(held)
    second = chat.say("还在吗")

    assert first["outcome"] == second["outcome"] == "HANDOVER"
    assert first["cards"] == second["cards"] == [] and first["intent"] is None
    assert "工作人员" in first["reply"] or "person" in first["reply"]
    assert second["reply"] == ""  # told once
    assert list(HandoverMessage.objects.values_list("body", flat=True)) == ["转人工", held, "还在吗"]
    assert nothing_written()
    held_turns = Turn.objects.order_by("id")[1:]
    assert [(t.intent, t.steps.count(), t.llm_calls.count()) for t in held_turns] == [("", 0, 0), ("", 0, 0)]


def test_staff_reply_reaches_the_next_chat_response_once_and_the_history(chat, alice, staff):
    chat.say("I want to talk to a person")
    handover = Handover.objects.get()

    handover_reply(handover_id=handover.pk, staff=staff, body="Hi, Sam here. Which booking is it about?")
    answer = chat.say("the Chengdu flight")
    again = chat.say("thanks")

    assert [(m["kind"], m["author"], m["text"]) for m in answer["staff"]] == [
        ("staff", "Sam", "Hi, Sam here. Which booking is it about?")
    ]
    assert again["staff"] == []
    handover.refresh_from_db()
    assert (handover.status, handover.taken_by) == ("TAKEN", staff)  # answering takes it
    history = chat.client.get(f"/api/v1/assistant/conversations/{chat.session}").json()
    assert [m["text"] for m in history["staff"]] == ["Hi, Sam here. Which booking is it about?"]


def test_once_staff_close_it_the_assistant_is_back_and_answers_normally(chat, staff, dali):
    chat.say("转人工")
    handover = Handover.objects.get()
    handover_take(handover_id=handover.pk, staff=staff)
    handover_close(handover_id=handover.pk, staff=staff)

    answer = chat.say("大理有什么活动")

    assert answer["outcome"] == "ANSWERED" and answer["cards"]
    assert [m["kind"] for m in answer["staff"]] == ["back"] and "助手" in answer["staff"][0]["text"]
    assert list(HandoverEvent.objects.values_list("to_status", flat=True)) == ["OPEN", "TAKEN", "CLOSED"]
    handover.refresh_from_db()
    assert (handover.status, handover.closed_by) == ("CLOSED", staff)
    # Asking again opens a new hand-over: the closed one stays on record.
    chat.say("还是转人工吧")
    assert list(Handover.objects.values_list("status", flat=True).order_by("id")) == ["CLOSED", "OPEN"]


def test_a_closed_hand_over_takes_no_reply(chat, staff):
    chat.say("转人工")
    handover = Handover.objects.get()
    handover_close(handover_id=handover.pk, staff=staff)

    with pytest.raises(HandoverError):
        handover_reply(handover_id=handover.pk, staff=staff, body="late")

    assert not HandoverMessage.objects.filter(role="STAFF").exists()


def test_staff_without_the_support_permission_cannot_answer(chat, user_factory):
    chat.say("转人工")
    handover = Handover.objects.get()
    plain = user_factory("pat", is_staff=True)

    with pytest.raises(HandoverError):
        handover_reply(handover_id=handover.pk, staff=plain, body="hello")
    with pytest.raises(HandoverError):
        handover_close(handover_id=handover.pk, staff=plain)

    handover.refresh_from_db()
    assert handover.status == "OPEN" and not HandoverMessage.objects.filter(role="STAFF").exists()


@pytest.mark.parametrize(
    ("misses", "chip"),
    [(["帮我写一首诗", "今天股市怎么样"], "转人工"), (["write me a poem", "tell me a joke"], "Talk to a person")],
)
def test_two_turns_in_a_row_it_could_not_help_offer_a_person(chat, misses, chip):
    first = chat.say(misses[0])
    second = chat.say(misses[1])

    assert first["outcome"] == second["outcome"] == "REFUSED"
    assert chip not in [s["message"] for s in first["suggestions"]]
    assert chip in [s["message"] for s in second["suggestions"]]
    assert not Handover.objects.exists()

    answer = chat.say(chip)  # the offer taken

    assert answer["outcome"] == "HANDOVER" and Handover.objects.count() == 1


def test_a_turn_that_helps_in_between_offers_nobody(chat, dali):
    chat.say("帮我写一首诗")
    chat.say("大理有什么活动")

    answer = chat.say("今天股市怎么样")

    assert "转人工" not in [s["message"] for s in answer["suggestions"]]


@pytest.mark.parametrize("sentence", ["不用转人工", "导游会说英语吗", "tours for people who love photography"])
def test_words_about_people_that_ask_for_no_person_hand_nothing_over(chat, sentence):
    chat.say(sentence)

    assert not Handover.objects.exists()


# -- channel 2 with a model (a scripted OpenAI-compatible server) ----------------------------------------------------

fake_openai = fixtures.fake_openai


@pytest.fixture
def model(settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-handover", agent=True, timeout=2.0)
    return fake_openai


def test_a_model_hands_over_with_its_tool_and_is_not_asked_while_a_person_holds_it(alice, model):
    model.enqueue(
        Reply(tool_calls=[{"id": "call_1", "name": "hand_over_to_person", "arguments": {"complaint": True}}]),
        Reply(content="handed over"),
    )
    chat = Chat(alice)

    answer = chat.say("this hotel is filthy and I want to complain to someone")
    asked = len(model.requests)
    held = chat.say("book me a flight to Chengdu tomorrow instead")

    assert answer["outcome"] == "HANDOVER" and answer["meta"]["channel"] == 2 and "complaint" in answer["reply"]
    assert Handover.objects.get().reason == "COMPLAINT"
    assert held["outcome"] == "HANDOVER" and held["cards"] == []
    assert len(model.requests) == asked  # the held message reached no model
    assert nothing_written()
