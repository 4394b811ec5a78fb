"""The after-sale workflow graph: every branch, the evidence a ticket keeps, and the `wfa:` gate.

The demo orders are seeded relative to the real clock, so the rules verdict on them is stable whenever the tests run:
ORD-001 (activity in 20 days) and ORD-004 (delivered 3 days ago) pass, ORD-002 (delivered 15 days ago) and ORD-005
(activity tomorrow) are ineligible, ORD-003 is carol's.
"""

import logging
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderEvent, TicketEvent, TicketStatus
from aftersale.selectors import order_facts, ticket_for_user, tickets_for_order, tickets_for_user
from aftersale.services import workflow
from aftersale.services.workflow import aftersale_request_submit
from aftersale.tools import query_progress, request_aftersale
from assistant.llm.port import LLMError, Usage
from assistant.llm.verdict import Assessment, VerdictResult
from assistant.models import LLMCall
from core.tools import ToolContext

# The wording asserted here is English; tests/aftersale/test_language.py reads the same in Chinese.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

FULL_PATH = ["query_user", "query_order", "query_policy", "validate", "submit_ticket"]


def snapshot():
    """Everything a rejected request must leave as it was."""
    return {
        "orders": list(BizOrder.objects.order_by("order_id").values_list("order_id", "status", "amount", "updated_at")),
        "order_events": OrderEvent.objects.count(),
        "tickets": list(HitlTicket.objects.order_by("id").values_list("id", "status")),
        "ticket_events": TicketEvent.objects.count(),
    }


def submit(user, order_id="ORD-001", action="REFUND", **kwargs):
    return aftersale_request_submit(user=user, order_id=order_id, action=action, **kwargs)


class ScriptedPort:
    """A port standing for a real model: answers (or raises) what it is given."""

    provider = "scripted"
    model = "scripted-1"

    def __init__(self, answer):
        self.answer = answer
        self.requests = []

    def verdict(self, request):
        self.requests.append(request)
        if isinstance(answer := self.answer, BaseException):
            raise answer
        return answer


# -- entry: parameters -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("order_id", ["", "   ", "ORDER-1", "ORD-1", "BK20261201001", None])
def test_given_a_blank_or_malformed_order_id_when_submitted_then_it_is_invalid_and_nothing_changes(
    demo_alice, rules_port, order_id
):
    before = snapshot()

    outcome = submit(demo_alice, order_id=order_id, port=rules_port)

    assert (outcome.status, outcome.code, outcome.ticket) == ("REJECTED", "INVALID_PARAM", None)
    assert outcome.path == ["rejected"]
    assert snapshot() == before
    assert not LLMCall.objects.exists()


@pytest.mark.parametrize("action", ["", "EXCHANGE", "CANCEL_BOOKING", None])
def test_given_an_action_other_than_refund_or_return_when_submitted_then_it_is_invalid_and_nothing_changes(
    demo_alice, rules_port, action
):
    before = snapshot()

    outcome = submit(demo_alice, action=action, port=rules_port)

    assert (outcome.status, outcome.code) == ("REJECTED", "INVALID_PARAM")
    assert snapshot() == before


@pytest.mark.parametrize("raw", [" ord-001 ", "ORD001", "ord_001", "Ord-001"])
def test_given_a_loosely_written_order_id_when_submitted_then_it_is_normalised_to_one_key(demo_alice, rules_port, raw):
    outcome = submit(demo_alice, order_id=raw, action=" refund ", port=rules_port)

    assert outcome.status == "SUBMITTED"
    ticket = outcome.ticket
    assert (ticket.idempotency_key, ticket.entity, ticket.action) == ("wfa:REFUND:ORD-001", "ORD-001", "REFUND")


# -- query_user and query_order -----------------------------------------------------------------------------------


def test_given_no_signed_in_user_when_submitted_then_permission_is_denied_and_nothing_changes(demo_seeded, rules_port):
    before = snapshot()

    outcome = submit(AnonymousUser(), port=rules_port)

    assert (outcome.status, outcome.code) == ("REJECTED", "PERMISSION_DENIED")
    assert outcome.path == ["query_user", "rejected"]
    assert snapshot() == before


def test_given_an_unknown_order_when_submitted_then_it_is_not_found_and_nothing_changes(demo_alice, rules_port):
    before = snapshot()

    outcome = submit(demo_alice, order_id="ORD-999", port=rules_port)

    assert (outcome.status, outcome.code, outcome.ticket) == ("REJECTED", "ORDER_NOT_FOUND", None)
    assert outcome.path == ["query_user", "query_order", "rejected"]
    assert snapshot() == before
    assert not LLMCall.objects.exists()


def test_given_someone_elses_order_when_alice_asks_then_it_reads_like_an_unknown_one_and_nothing_changes(
    demo_alice, rules_port, caplog
):
    before = snapshot()
    unknown = submit(demo_alice, order_id="ORD-999", action="RETURN", port=rules_port)

    with caplog.at_level("WARNING", logger="aftersale.workflow"):
        outcome = submit(demo_alice, order_id="ORD-003", action="RETURN", port=rules_port)

    assert (outcome.status, outcome.code, outcome.reason) == ("REJECTED", "ORDER_NOT_FOUND", unknown.reason)
    assert "ORD-003" not in outcome.reason
    assert outcome.path == unknown.path == ["query_user", "query_order", "rejected"]
    assert snapshot() == before
    assert not LLMCall.objects.exists()
    # For audit, the log still says it was someone else's order.
    assert any(getattr(r, "reason", None) == "ORDER_NOT_OWNED" and r.order_id == "ORD-003" for r in caplog.records)


def test_given_carols_own_order_when_carol_asks_to_return_it_then_a_ticket_opens(demo_carol, rules_port):
    outcome = submit(demo_carol, order_id="ORD-003", action="RETURN", port=rules_port)

    assert outcome.status == "SUBMITTED"
    assert outcome.ticket.requested_by == demo_carol


# -- validate: the rules verdict ------------------------------------------------------------------------------------


def test_given_goods_delivered_fifteen_days_ago_when_a_return_is_asked_then_it_is_ineligible_with_the_7_day_policy(
    demo_alice, rules_port
):
    before = snapshot()

    outcome = submit(demo_alice, order_id="ORD-002", action="RETURN", port=rules_port)

    assert (outcome.status, outcome.code, outcome.ticket) == ("REJECTED", "INELIGIBLE", None)
    assert outcome.verdict == "REJECTED"
    assert "15 days ago" in outcome.reason and "7-day" in outcome.reason
    assert outcome.policies[0]["title"].startswith("7天无理由退货")
    assert outcome.path == ["query_user", "query_order", "query_policy", "validate", "rejected"]
    assert snapshot() == before


def test_given_an_activity_tomorrow_when_a_refund_is_asked_then_it_is_ineligible_with_the_48_hour_policy(
    demo_alice, rules_port
):
    before = snapshot()

    outcome = submit(demo_alice, order_id="ORD-005", action="REFUND", port=rules_port)

    assert (outcome.status, outcome.code) == ("REJECTED", "INELIGIBLE")
    assert "within 48 hours" in outcome.reason
    assert outcome.cited_policies[0]["title"].startswith("活动门票退款规则")
    assert outcome.policies[0] == outcome.cited_policies[0]
    assert snapshot() == before


def test_given_an_already_refunded_order_when_a_refund_is_asked_again_then_it_is_ineligible(demo_alice, rules_port):
    before = snapshot()

    outcome = submit(demo_alice, order_id="ORD-007", action="REFUND", port=rules_port)

    assert (outcome.status, outcome.code) == ("REJECTED", "INELIGIBLE")
    assert outcome.policies[0]["title"].startswith("已使用或已完成订单不退款")
    assert snapshot() == before


def test_given_a_rejection_when_it_ends_then_the_verdict_call_is_still_audited(demo_alice, rules_port):
    submit(demo_alice, order_id="ORD-002", action="RETURN", port=rules_port)

    call = LLMCall.objects.get()
    assert (call.purpose, call.provider, call.outcome, call.user) == ("verdict", "rules", "OK", demo_alice)


def test_given_an_activity_in_twenty_days_when_a_refund_is_asked_then_a_pending_ticket_is_submitted(
    demo_alice, rules_port
):
    order = BizOrder.objects.get(order_id="ORD-001")
    order_before = order_facts(order)
    started = timezone.now()

    outcome = submit(demo_alice, order_id="ORD-001", action="REFUND", port=rules_port)

    assert (outcome.status, outcome.code, outcome.verdict, outcome.flagged) == ("SUBMITTED", "OK", "PASS", False)
    assert outcome.path == FULL_PATH
    ticket = outcome.ticket
    assert ticket.kind == "WORKFLOW"
    assert ticket.idempotency_key == "wfa:REFUND:ORD-001"
    assert (ticket.action, ticket.entity, ticket.order, ticket.requested_by) == ("REFUND", "ORD-001", order, demo_alice)
    assert ticket.amount == order.amount
    assert (ticket.status, ticket.verdict, ticket.flagged) == ("PENDING", "PASS", False)
    assert "more than 48 hours" in ticket.verdict_reason
    assert ticket.ticket_no.startswith("T")
    ttl = timedelta(hours=48)
    assert started + ttl <= ticket.deadline <= timezone.now() + ttl
    event = ticket.events.get()
    assert (event.from_status, event.to_status, event.actor) == ("", "PENDING", demo_alice)
    assert order_facts(BizOrder.objects.get(order_id="ORD-001")) == order_before  # the order is untouched


def test_given_a_submitted_ticket_then_its_evidence_keeps_the_order_facts_policies_verdict_and_path(
    demo_alice, rules_port
):
    outcome = submit(demo_alice, order_id="ORD-001", action="REFUND", port=rules_port)

    evidence = HitlTicket.objects.get(pk=outcome.ticket.pk).evidence
    assert evidence["order"] == order_facts(BizOrder.objects.get(order_id="ORD-001"))
    assert evidence["order"]["service_date"] and evidence["order"]["amount"] == str(outcome.ticket.amount)
    assert len(evidence["policies"]) == 3
    assert {"id", "title", "text"} == set(evidence["policies"][0])
    assert evidence["policies"][0]["title"].startswith("活动门票退款规则")
    assert evidence["verdict"]["verdict"] == "PASS"
    assert evidence["verdict"]["policy_ids"] == [evidence["policies"][0]["id"]]
    assert (evidence["verdict"]["provider"], evidence["verdict"]["flagged"]) == ("rules", False)
    assert evidence["path"] == FULL_PATH


def test_given_goods_delivered_three_days_ago_when_a_return_is_asked_then_a_pending_ticket_is_submitted(
    demo_alice, rules_port
):
    outcome = submit(demo_alice, order_id="ORD-004", action="RETURN", port=rules_port)

    assert (outcome.status, outcome.verdict, outcome.flagged) == ("SUBMITTED", "PASS", False)
    assert outcome.ticket.idempotency_key == "wfa:RETURN:ORD-004"
    assert outcome.ticket.evidence["policies"][0]["title"].startswith("7天无理由退货")
    assert BizOrder.objects.get(order_id="ORD-004").status == "DELIVERED"


def test_given_a_case_no_rule_covers_when_submitted_then_the_ticket_is_uncertain_and_flagged(demo_alice, rules_port):
    outcome = submit(demo_alice, order_id="ORD-001", action="RETURN", port=rules_port)  # an activity "return"

    assert (outcome.status, outcome.verdict, outcome.flagged) == ("SUBMITTED", "UNCERTAIN", True)
    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)


def test_given_no_port_when_submitted_then_the_configured_provider_judges(demo_alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"

    outcome = submit(demo_alice, order_id="ORD-005")

    assert (outcome.status, outcome.code) == ("REJECTED", "INELIGIBLE")


# -- validate: a model's verdict and failures ----------------------------------------------------------------------


def test_given_a_model_says_rejected_when_submitted_then_a_flagged_ticket_opens_for_a_human(demo_alice):
    port = ScriptedPort(VerdictResult(verdict="REJECTED", reason="Too late.", usage=Usage(prompt_tokens=9)))

    outcome = submit(demo_alice, order_id="ORD-001", port=port)

    assert (outcome.status, outcome.code) == ("SUBMITTED", "OK")
    assert (outcome.ticket.verdict, outcome.ticket.flagged, outcome.ticket.verdict_reason) == (
        "REJECTED",
        True,
        "Too late.",
    )


def test_given_the_port_raises_an_unexpected_error_then_the_ticket_is_uncertain_flagged_and_the_call_audited(
    demo_alice, caplog
):
    port = ScriptedPort(ZeroDivisionError("bug"))

    with caplog.at_level(logging.WARNING, logger="aftersale.workflow"):
        outcome = submit(demo_alice, order_id="ORD-001", port=port)

    assert (outcome.status, outcome.verdict, outcome.flagged) == ("SUBMITTED", "UNCERTAIN", True)
    assert "could not be done" in outcome.ticket.verdict_reason
    assert "ZeroDivisionError" in outcome.ticket.evidence["verdict"]["error"]
    assert (LLMCall.objects.get().outcome, LLMCall.objects.get().provider) == ("ERROR", "scripted")
    assert any(getattr(r, "outcome", None) == "fault" for r in caplog.records)


def test_given_the_port_reports_an_llm_error_then_the_ticket_is_uncertain_and_flagged(demo_alice):
    port = ScriptedPort(LLMError("TIMEOUT", "no answer in 5 s", Usage(latency_ms=5000)))

    outcome = submit(demo_alice, order_id="ORD-004", action="RETURN", port=port)

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)
    call = LLMCall.objects.get()
    assert (call.outcome, call.latency_ms, call.purpose) == ("TIMEOUT", 5000, "verdict")


def test_given_the_port_answers_an_unknown_verdict_then_the_ticket_is_uncertain_and_flagged(demo_alice):
    port = ScriptedPort(VerdictResult(verdict="MAYBE", reason="hm"))

    outcome = submit(demo_alice, order_id="ORD-001", port=port)

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)
    assert "INVALID" in outcome.ticket.evidence["verdict"]["error"]
    assert LLMCall.objects.get().purpose == "verdict"  # the port answered; the workflow found it unusable


def test_given_the_port_is_asked_then_it_gets_the_order_facts_the_passages_and_the_sites_clock(demo_alice):
    port = ScriptedPort(VerdictResult(verdict="PASS", reason="ok"))

    submit(demo_alice, order_id="ORD-001", port=port)

    request = port.requests[0]
    assert request.action == "REFUND"
    assert request.order == order_facts(BizOrder.objects.get(order_id="ORD-001"))
    assert [set(p) for p in request.policies] == [{"id", "title", "text"}] * 3
    assert request.today == timezone.localdate()
    assert str(request.now.tzinfo) == "Asia/Shanghai"


def test_given_a_rejection_and_a_fault_then_the_log_tells_them_apart(demo_alice, rules_port, caplog):
    with caplog.at_level(logging.INFO, logger="aftersale.workflow"):
        submit(demo_alice, order_id="ORD-002", action="RETURN", port=rules_port)
        submit(demo_alice, order_id="ORD-004", action="RETURN", port=ScriptedPort(LLMError("ERROR", "HTTP 503")))

    outcomes = [(getattr(r, "outcome", None), getattr(r, "code", None)) for r in caplog.records]
    assert ("rejected", "INELIGIBLE") in outcomes
    assert ("fault", None) in outcomes
    assert ("submitted", "OK") in outcomes


# -- submit_ticket: the wfa: gate --------------------------------------------------------------------------------


def test_given_a_pending_ticket_when_asked_again_then_the_same_ticket_is_reused_without_a_new_verdict(
    demo_alice, rules_port
):
    first = submit(demo_alice, order_id="ORD-001", port=rules_port)

    again = submit(demo_alice, order_id=" ord-001 ", port=rules_port)

    assert (again.status, again.code, again.ticket) == ("REUSED", "OK", first.ticket)
    assert again.path == ["query_user", "query_order", "submit_ticket"]
    assert again.verdict == "PASS" and again.policies
    assert HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001").count() == 1
    assert LLMCall.objects.count() == 1  # the repeat asked the model nothing


@pytest.mark.parametrize("status", ["APPROVED", "EXECUTING", "EXECUTED", "FAILED"])
def test_given_an_approved_or_executed_ticket_when_asked_again_then_it_is_already_done_and_no_second_ticket(
    demo_alice, rules_port, status
):
    first = submit(demo_alice, order_id="ORD-001", port=rules_port)
    HitlTicket.objects.filter(pk=first.ticket.pk).update(status=status)

    again = submit(demo_alice, order_id="ORD-001", port=rules_port)

    assert (again.status, again.code, again.ticket.pk, again.ticket.status) == (
        "ALREADY_DONE",
        "OK",
        first.ticket.pk,
        status,
    )
    assert HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001").count() == 1


@pytest.mark.parametrize("status", ["REJECTED", "TIMEOUT"])
def test_given_a_rejected_or_timed_out_ticket_when_asked_again_then_a_new_ticket_opens(demo_alice, rules_port, status):
    first = submit(demo_alice, order_id="ORD-001", port=rules_port)
    HitlTicket.objects.filter(pk=first.ticket.pk).update(status=status)

    again = submit(demo_alice, order_id="ORD-001", port=rules_port)

    assert again.status == "SUBMITTED"
    assert again.ticket.pk != first.ticket.pk and again.ticket.status == "PENDING"
    statuses = (
        HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001").order_by("id").values_list("status", flat=True)
    )
    assert list(statuses) == [status, "PENDING"]
    assert again.path == FULL_PATH


def test_given_a_pending_ticket_past_its_deadline_when_asked_again_then_it_times_out_and_a_new_one_opens(
    demo_alice, rules_port
):
    first = submit(demo_alice, order_id="ORD-001", port=rules_port)
    HitlTicket.objects.filter(pk=first.ticket.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    again = submit(demo_alice, order_id="ORD-001", port=rules_port)

    assert again.status == "SUBMITTED" and again.ticket.pk != first.ticket.pk
    old = HitlTicket.objects.get(pk=first.ticket.pk)
    assert old.status == "TIMEOUT"
    assert old.events.last().to_status == "TIMEOUT"


def test_given_refund_and_return_of_one_order_then_they_are_separate_keys(demo_alice, rules_port):
    refund = submit(demo_alice, order_id="ORD-004", action="REFUND", port=ScriptedPort(VerdictResult("PASS", "ok")))
    ret = submit(demo_alice, order_id="ORD-004", action="RETURN", port=rules_port)

    assert refund.ticket.idempotency_key == "wfa:REFUND:ORD-004"
    assert ret.ticket.idempotency_key == "wfa:RETURN:ORD-004"
    assert refund.ticket.pk != ret.ticket.pk


def test_given_an_identical_request_wins_the_race_when_the_insert_clashes_then_the_winners_ticket_is_reused(
    demo_alice, rules_port, monkeypatch
):
    """The gate read sees no ticket, a parallel request commits one, our insert hits the partial unique constraint:
    the savepoint rolls back and the re-read answers."""
    winner = {}
    real_live_ticket = workflow._live_ticket
    race = {"reads": 0, "inside_winner": False}

    def racing_live_ticket(key):
        if race["inside_winner"]:
            return real_live_ticket(key)
        race["reads"] += 1
        if race["reads"] == 1:  # our first look (query_order): meanwhile the winner opens the ticket
            race["inside_winner"] = True
            winner["outcome"] = submit(demo_alice, order_id="ORD-001", port=rules_port)
            race["inside_winner"] = False
            return None
        if race["reads"] == 2:  # the gate's look raced the winner's commit and missed it
            return None
        return real_live_ticket(key)

    monkeypatch.setattr(workflow, "_live_ticket", racing_live_ticket)

    outcome = submit(demo_alice, order_id="ORD-001", port=rules_port)

    assert outcome.status == "REUSED"
    assert outcome.ticket.pk == winner["outcome"].ticket.pk
    assert HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001").count() == 1
    assert TicketEvent.objects.count() == 1


# -- selectors -----------------------------------------------------------------------------------------------------


def test_order_facts_are_json_ready_with_money_as_a_decimal_string_and_site_time(demo_seeded):
    facts = order_facts(BizOrder.objects.get(order_id="ORD-004"))

    assert set(facts) == {
        "order_id",
        "category",
        "status",
        "amount",
        "items",
        "paid_at",
        "delivered_at",
        "service_date",
    }
    assert facts["amount"] == "258.00"
    assert facts["delivered_at"].endswith("+08:00") and facts["service_date"] is None


def test_tickets_for_a_user_are_their_own_newest_first(demo_alice, demo_carol, rules_port):
    first = submit(demo_alice, order_id="ORD-001", port=rules_port).ticket
    second = submit(demo_alice, order_id="ORD-004", action="RETURN", port=rules_port).ticket
    carols = submit(demo_carol, order_id="ORD-003", action="RETURN", port=rules_port).ticket

    assert list(tickets_for_user(user=demo_alice)) == [second, first]
    assert list(tickets_for_order(user=demo_alice, order_id="ORD-004")) == [second]
    assert ticket_for_user(user=demo_alice, ticket_no=second.ticket_no.lower()) == second
    assert ticket_for_user(user=demo_alice, ticket_no=carols.ticket_no) is None


# -- tools ---------------------------------------------------------------------------------------------------------


def test_the_request_tool_submits_for_the_context_user_and_returns_the_ticket(demo_alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"

    envelope = request_aftersale.func(ToolContext(user=demo_alice), order_id=" ord-001 ", action="REFUND")

    assert (envelope["ok"], envelope["code"]) == (True, "OK")
    data = envelope["data"]
    assert (data["order_id"], data["status"], data["outcome"], data["action"]) == (
        "ORD-001",
        "PENDING",
        "SUBMITTED",
        "REFUND",
    )
    assert HitlTicket.objects.get().ticket_no == data["ticket_no"]
    assert "flagged" not in data and "evidence" not in data and "verdict" not in data


def test_the_request_tool_fails_with_the_code_and_the_policy_when_ineligible(demo_alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"

    envelope = request_aftersale.func(ToolContext(user=demo_alice, language="en"), order_id="ORD-002", action="RETURN")

    assert (envelope["ok"], envelope["code"]) == (False, "INELIGIBLE")
    assert "7-day" in envelope["message"]
    assert envelope["data"]["policies"][0]["title"].startswith("7天无理由退货")
    assert not HitlTicket.objects.exists()


def test_the_request_tool_answers_someone_elses_order_exactly_like_an_unknown_one(demo_alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"

    envelope = request_aftersale.func(ToolContext(user=demo_alice), order_id="ORD-003", action="RETURN")
    unknown = request_aftersale.func(ToolContext(user=demo_alice), order_id="ORD-999", action="RETURN")

    assert (envelope["ok"], envelope["code"]) == (False, "ORDER_NOT_FOUND")
    assert envelope == unknown


def test_the_progress_tool_lists_only_the_context_users_tickets(demo_alice, demo_carol, rules_port):
    submit(demo_alice, order_id="ORD-001", port=rules_port)
    submit(demo_carol, order_id="ORD-003", action="RETURN", port=rules_port)

    everything = query_progress.func(ToolContext(user=demo_alice))
    one_order = query_progress.func(ToolContext(user=demo_alice), order_id="ord003")
    bad = query_progress.func(ToolContext(user=demo_alice), order_id="nonsense")

    assert [t["order_id"] for t in everything["data"]["tickets"]] == ["ORD-001"]
    assert one_order["data"]["tickets"] == []
    assert (bad["ok"], bad["code"]) == (False, "INVALID_PARAM")


def test_the_tools_take_no_user_from_their_arguments():
    for tool in (request_aftersale, query_progress):
        properties = tool.parameters["properties"]
        assert not {"user", "user_id", "username", "context"} & set(properties)
        assert tool.parameters["additionalProperties"] is False


def test_a_ticket_status_change_is_visible_through_the_progress_tool(demo_alice, rules_port):
    ticket = submit(demo_alice, order_id="ORD-001", port=rules_port).ticket
    HitlTicket.objects.filter(pk=ticket.pk).update(status=TicketStatus.APPROVED)

    envelope = query_progress.func(ToolContext(user=demo_alice), order_id="ORD-001")

    assert envelope["data"]["tickets"][0]["status"] == "APPROVED"


# -- the one rule that weighs the port's verdict against the policy ------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "model", "verdict", "flagged", "agrees"),
    [
        ("PASS", "PASS", "PASS", False, True),
        ("PASS", "REJECTED", "REJECTED", True, False),  # a model's "no" goes to a human
        ("PASS", "UNCERTAIN", "UNCERTAIN", True, False),
        ("REJECTED", "PASS", "PASS", True, False),  # a model's "yes" against the policy goes to a human
        ("REJECTED", "REJECTED", "REJECTED", True, True),  # the model alone never rejects: a human still decides
        ("UNCERTAIN", "PASS", "PASS", True, False),
        ("UNCERTAIN", "UNCERTAIN", "UNCERTAIN", True, True),
    ],
)
def test_a_models_verdict_is_one_opinion_weighed_against_the_policy(policy, model, verdict, flagged, agrees):
    decision = workflow.verdict_combine(
        Assessment(policy, "policy says", [1]), VerdictResult(verdict=model, reason="model says", policy_ids=[2])
    )

    assert (decision.verdict, decision.flagged, decision.agrees, decision.reject) == (verdict, flagged, agrees, False)
    assert (decision.reason, decision.policy_ids) == ("model says", [2])


@pytest.mark.parametrize(
    ("policy", "flagged", "reject"), [("PASS", False, False), ("UNCERTAIN", True, False), ("REJECTED", True, True)]
)
def test_an_answer_that_is_the_policy_itself_decides_as_the_policy_does(policy, flagged, reject):
    echoed = VerdictResult(verdict=policy, reason="policy says", policy_ids=[1], from_policy=True)

    decision = workflow.verdict_combine(Assessment(policy, "policy says", [1]), echoed)

    assert (decision.verdict, decision.flagged, decision.reject) == (policy, flagged, reject)
    assert (decision.reason, decision.policy_ids) == ("policy says", [1])


def test_a_port_that_claims_to_echo_the_policy_but_answers_otherwise_still_gets_the_policys_answer():
    lying = VerdictResult(verdict="PASS", reason="approved!", from_policy=True)

    decision = workflow.verdict_combine(Assessment("REJECTED", "past the window", [1]), lying)

    assert (decision.verdict, decision.reason, decision.reject) == ("REJECTED", "past the window", True)
