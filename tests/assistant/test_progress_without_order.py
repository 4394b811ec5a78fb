"""Progress asked with no order number ("我的退款怎么样了", "has my refund gone through?"), through the chat API in
both channels: one open request is the answer, as if its order had been named; several are listed to choose from,
a chip each; with none open, the answer says so (and how the latest one ended). Asking writes nothing."""

import pytest

from aftersale.models import BizOrder, HitlTicket, TicketAction, TicketStatus
from assistant.models import PendingAction
from tests.aftersale import conftest as aftersale_fixtures
from tests.assistant.conftest import Chat

demo_seeded, demo_alice, ticket_for = (
    aftersale_fixtures.demo_seeded,
    aftersale_fixtures.demo_alice,
    aftersale_fixtures.ticket_for,
)
pytestmark = [pytest.mark.django_db]

ASKED = ["我的退款怎么样了", "退款到账了吗", "has my refund gone through?", "where is my refund"]


@pytest.fixture
def chat(demo_alice, channel):
    return Chat(demo_alice)


def order(order_id: str) -> BizOrder:
    return BizOrder.objects.get(order_id=order_id)


def tickets() -> list[tuple[str, str, str]]:
    return list(HitlTicket.objects.order_by("ticket_no").values_list("ticket_no", "entity", "status"))


def ticket_cards(answer: dict) -> list[tuple[str, str]]:
    return [(c["entity"], c["status"]) for c in answer["cards"] if c["type"] == "ticket"]


@pytest.mark.parametrize("sentence", ASKED)
def test_with_one_open_request_the_answer_is_about_that_request(chat, ticket_for, sentence):
    ticket_for(order("ORD-004"), action=TicketAction.RETURN, status=TicketStatus.REJECTED)
    ticket = ticket_for(order("ORD-001"))
    before = tickets()

    answer = chat.say(sentence)

    assert ticket_cards(answer) == [("ORD-001", "PENDING")]
    assert ticket.ticket_no in answer["reply"] and "ORD-001" in answer["reply"] and "ORD-004" not in answer["reply"]
    assert "等待审核" in answer["reply"] or "pending review" in answer["reply"]
    assert tickets() == before and not PendingAction.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "chips"),
    [
        ("我的退款怎么样了", ["订单ORD-004的进度", "订单ORD-001的进度"]),
        ("has my refund gone through?", ["progress of order ORD-004", "progress of order ORD-001"]),
    ],
)
def test_with_several_open_requests_they_are_listed_to_choose_from(chat, ticket_for, sentence, chips):
    ticket_for(order("ORD-001"))
    ticket_for(order("ORD-004"), action=TicketAction.RETURN, status=TicketStatus.APPROVED)
    before = tickets()

    answer = chat.say(sentence)

    assert ticket_cards(answer) == [("ORD-004", "APPROVED"), ("ORD-001", "PENDING")]
    assert [s["message"] for s in answer["suggestions"]] == chips
    assert tickets() == before and not PendingAction.objects.exists()


def test_a_chip_answers_about_that_order_only(chat, ticket_for):
    ticket_for(order("ORD-001"))
    ticket_for(order("ORD-004"), action=TicketAction.RETURN)
    chip = chat.say("has my refund gone through?")["suggestions"][1]

    answer = chat.say(chip["message"])

    assert ticket_cards(answer) == [("ORD-001", "PENDING")] and "ORD-001" in answer["reply"]


@pytest.mark.parametrize(
    ("sentence", "said"),
    [("我的退款怎么样了", "没有正在处理的退款或退货申请"), ("where is my refund", "no refund or return request open")],
)
def test_with_no_open_request_the_answer_says_so_and_how_the_latest_ended(chat, ticket_for, sentence, said):
    ticket_for(order("ORD-001"), status=TicketStatus.REJECTED)
    before = tickets()

    answer = chat.say(sentence)

    assert said in answer["reply"] and "ORD-001" in answer["reply"]
    assert ticket_cards(answer) == [("ORD-001", "REJECTED")] and answer["suggestions"] == []
    assert tickets() == before


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("退款到账了吗", "没有正在处理的退款或退货申请"),
        ("has my refund gone through?", "no refund or return request open"),
    ],
)
def test_with_no_request_at_all_the_answer_says_so(chat, sentence, said):
    answer = chat.say(sentence)

    assert said in answer["reply"] and answer["cards"] == []
    assert not HitlTicket.objects.exists() and not PendingAction.objects.exists()
