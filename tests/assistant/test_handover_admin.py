"""The hand-over queue in the admin: support staff (the demo approver, in the "support" group) see the conversations
handed to them (waiting first, the longest waiting first) with the conversation's turns, the traveller's bookings,
orders and requests (linked), and take, answer and close them; the traveller sees the answer on the chat page's live
part. A traveller, or staff without the support permission, can neither see the queue nor answer."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from assistant.handovers import handover_reply
from assistant.models import Handover, HandoverEvent, HandoverMessage
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight

pytestmark = pytest.mark.django_db

QUEUE = "admin:assistant_handover_changelist"


@pytest.fixture(autouse=True)
def _rules(settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_AGENT_ENABLED = False


@pytest.fixture
def demo():
    call_command("seed_demo", verbosity=0)
    users = get_user_model().objects
    return {name: users.get(username=name) for name in ("alice", "bob", "approver", "admin")}


@pytest.fixture
def support(client, demo):
    client.force_login(demo["approver"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def hand_over(user, *messages: str) -> Handover:
    chat = Chat(user)
    for message in messages:
        chat.say(message)
    return Handover.objects.get(user=user, status__in=("OPEN", "TAKEN"))


def change_url(handover: Handover) -> str:
    return reverse("admin:assistant_handover_change", args=[handover.pk])


def answer_url(handover: Handover) -> str:
    return reverse("admin:assistant_handover_answer", args=[handover.pk])


def test_the_queue_shows_waiting_hand_overs_first_the_longest_waiting_first(support, demo):
    closed = hand_over(demo["alice"], "我要投诉")  # the first one, closed since
    Handover.objects.filter(pk=closed.pk).update(status="CLOSED")
    older = hand_over(demo["alice"], "转人工")  # another conversation of alice's
    newer = hand_over(demo["bob"], "talk to a human")

    response = support.get(reverse(QUEUE))

    assert response.status_code == 200
    assert [h.pk for h in response.context["cl"].result_list] == [older.pk, newer.pk, closed.pk]


def test_a_hand_over_page_shows_the_conversation_and_the_travellers_bookings_orders_and_requests(
    support, demo, supplier_sandbox
):
    booking = book_flight(demo["alice"])
    handover = hand_over(demo["alice"], "大理有什么活动", "转人工")

    page = support.get(change_url(handover)).content.decode()

    assert "大理有什么活动" in page and "转人工" in page  # the recent turns and the messages
    assert booking.booking_id in page and reverse("admin:bookings_bookingrecord_change", args=[booking.pk]) in page
    assert "ORD-001" in page  # alice's after-sale orders (seeded), linked
    assert 'id="handover-answer"' in page and "Send reply" in page


def test_staff_reply_from_the_admin_reaches_the_travellers_chat_page_live(support, client, demo):
    handover = hand_over(demo["alice"], "I want to talk to a person")

    response = support.post(answer_url(handover), {"step": "reply", "body": "Hello Alice, Ada here."})

    assert response.status_code == 302
    message = HandoverMessage.objects.get(role="STAFF")
    assert (message.author, message.body) == (demo["approver"], "Hello Alice, Ada here.")
    handover.refresh_from_db()
    assert (handover.status, handover.taken_by) == ("TAKEN", demo["approver"])
    client.force_login(demo["alice"])
    live = client.get(reverse("assistant:live"), HTTP_ACCEPT_LANGUAGE="en")
    assert live.status_code == 200 and "Hello Alice, Ada here." in live.content.decode()
    assert "from our staff" in live.content.decode()
    assert client.get(reverse("assistant:live")).status_code == 204  # shown once


def test_take_and_close_from_the_page_record_each_move_and_the_assistant_is_back(support, client, demo):
    handover = hand_over(demo["alice"], "转人工")

    support.post(answer_url(handover), {"step": "take"})
    support.post(answer_url(handover), {"step": "close"})

    handover.refresh_from_db()
    assert (handover.status, handover.taken_by, handover.closed_by) == ("CLOSED", demo["approver"], demo["approver"])
    assert list(HandoverEvent.objects.values_list("to_status", "actor__username")) == [
        ("OPEN", "alice"),
        ("TAKEN", "approver"),
        ("CLOSED", "approver"),
    ]
    client.force_login(demo["alice"])
    live = client.get(reverse("assistant:live"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "助手回来了" in live


def test_the_admin_actions_take_and_close_the_selected_hand_overs(support, demo):
    first = hand_over(demo["alice"], "转人工")
    second = hand_over(demo["bob"], "human please")

    support.post(reverse(QUEUE), {"action": "take_handovers", "_selected_action": [first.pk, second.pk]})
    support.post(reverse(QUEUE), {"action": "close_handovers", "_selected_action": [first.pk]})

    assert dict(Handover.objects.values_list("pk", "status")) == {first.pk: "CLOSED", second.pk: "TAKEN"}


@pytest.mark.parametrize("who", ["alice", "plain staff"])
def test_without_the_support_permission_nobody_sees_the_queue_or_answers(client, demo, user_factory, who):
    handover = hand_over(demo["alice"], "转人工")
    user = demo["alice"] if who == "alice" else user_factory("pat", is_staff=True)
    client.force_login(user)

    queue = client.get(reverse(QUEUE))
    page = client.get(change_url(handover))
    answered = client.post(answer_url(handover), {"step": "reply", "body": "hi"})
    closed = client.post(answer_url(handover), {"step": "close"})

    if who == "alice":  # not staff: the admin sends them to its login
        assert {queue.status_code, page.status_code, answered.status_code, closed.status_code} == {302}
        assert "/admin/login/" in queue["Location"]
    else:
        assert (queue.status_code, page.status_code, answered.status_code, closed.status_code) == (403, 403, 403, 403)
    handover.refresh_from_db()
    assert handover.status == "OPEN" and not HandoverMessage.objects.filter(role="STAFF").exists()
    assert list(HandoverEvent.objects.values_list("to_status", flat=True)) == ["OPEN"]


def test_the_chat_page_shows_staff_replies_after_the_turn_they_answer_and_not_again_live(client, demo):
    handover = hand_over(demo["alice"], "转人工")
    handover_reply(handover_id=handover.pk, staff=demo["approver"], body="你好，我是 Ada。")
    client.force_login(demo["alice"])

    page = client.get(reverse("assistant:chat"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()

    assert page.index("转人工") < page.index("你好，我是 Ada。") and "工作人员 Ada" in page
    assert client.get(reverse("assistant:live")).status_code == 204


def test_a_staff_reply_comes_with_the_next_message_sent_from_the_chat_page(client, demo):
    client.force_login(demo["alice"])
    client.post(reverse("assistant:send"), {"message": "I want to talk to a person"}, HTTP_HX_REQUEST="true")
    handover_reply(handover_id=Handover.objects.get().pk, staff=demo["approver"], body="Hi, Ada here.")

    partial = client.post(
        reverse("assistant:send"), {"message": "hello?"}, HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()

    assert "Hi, Ada here." in partial and "Ada, from our staff" in partial
    assert client.get(reverse("assistant:live")).status_code == 204
