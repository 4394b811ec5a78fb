"""The after-sale policy (`aftersale.policy`: retrieval and the deterministic assessment), the `rules` adapter
answering with that assessment, and the openai adapter against a local OpenAI-compatible server (real HTTP, real
SDK), alone and inside the workflow, where its verdict is weighed against the policy."""

import json
import logging
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from aftersale.models import BizOrder, HitlTicket
from aftersale.policy import policy_assess, policy_passages
from aftersale.selectors import order_facts
from aftersale.services.workflow import aftersale_request_submit
from assistant.llm.openai_adapter import OpenAILLM
from assistant.llm.port import LLMError
from assistant.llm.rules import RulesLLM
from assistant.llm.verdict import Assessment, VerdictRequest
from assistant.models import LLMCall
from demo.orders import DEMO_ORDERS, DEMO_POLICIES
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply

# The fixture, until tests/conftest.py imports it for every test (a plain import would trip ruff's F811).
fake_openai = fixtures.fake_openai

# The reasons asserted here are English; tests/aftersale/test_language.py reads them in Chinese.
pytestmark = pytest.mark.usefixtures("english")

SITE = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=SITE)  # a Tuesday morning, site time
TODAY = NOW.date()
# The demo policies with the ids they would have: 1…7 in seeding order.
POLICIES = {
    category: [
        {"id": n, "title": p["title"], "text": p["text"]}
        for n, p in enumerate(DEMO_POLICIES, start=1)
        if p["category"] == category
    ]
    for category in ("GOODS", "ACTIVITY")
}
NO_REASON_RETURN, QUALITY, GOODS_REFUND_TIMING, ACTIVITY_48H, CLOSED_ORDERS, CANCELLED_BY_ORGANISER, _ = range(1, 8)
DEMO = {spec.order_id: spec for spec in DEMO_ORDERS}
ENGINE = RulesLLM()


def demo_facts(spec, now=NOW) -> dict:
    """A demo order's facts as `order_facts` gives them, seeded at `now` (as demo.orders.order_fields does)."""
    today = now.date()
    items = list(spec.items) or [{"name": spec.activity_title, "qty": 1, "price": 1200}]
    return {
        "order_id": spec.order_id,
        "category": str(spec.category),
        "status": str(spec.status),
        "amount": "1200.00",
        "items": items,
        "paid_at": (now - timedelta(days=spec.paid_days_ago)).isoformat(),
        "delivered_at": (now - timedelta(days=spec.delivered_days_ago)).isoformat()
        if spec.delivered_days_ago is not None
        else None,
        "service_date": (today + timedelta(days=spec.service_in_days)).isoformat()
        if spec.service_in_days is not None
        else None,
    }


def ask(facts: dict, action: str, now: datetime = NOW) -> Assessment:
    return policy_assess(action=action, order=facts, policies=POLICIES[facts["category"]], today=now.date(), now=now)


def goods(status="DELIVERED", delivered=None, **extra) -> dict:
    return {
        "order_id": "ORD-100",
        "category": "GOODS",
        "status": status,
        "amount": "99.00",
        "items": [{"name": "水壶", "qty": 1, "price": 99}],
        "paid_at": (NOW - timedelta(days=20)).isoformat(),
        "delivered_at": delivered.isoformat() if delivered else None,
        "service_date": None,
        **extra,
    }


def activity(service_date: date, status="PAID") -> dict:
    return {
        "order_id": "ORD-200",
        "category": "ACTIVITY",
        "status": status,
        "amount": "1200.00",
        "items": [{"name": "赛里木湖环湖骑行一日游", "qty": 1, "price": 1200}],
        "paid_at": (NOW - timedelta(days=5)).isoformat(),
        "delivered_at": None,
        "service_date": service_date.isoformat(),
    }


# -- the policy on the demo orders -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order_id", "action", "verdict", "cited"),
    [
        ("ORD-001", "REFUND", "PASS", [ACTIVITY_48H]),  # the activity in 20 days
        ("ORD-002", "RETURN", "REJECTED", [NO_REASON_RETURN]),  # delivered 15 days ago
        ("ORD-003", "RETURN", "PASS", [NO_REASON_RETURN]),  # delivered 2 days ago
        ("ORD-004", "RETURN", "PASS", [NO_REASON_RETURN]),  # delivered 3 days ago
        ("ORD-005", "REFUND", "REJECTED", [ACTIVITY_48H]),  # the activity tomorrow
        ("ORD-006", "REFUND", "PASS", [ACTIVITY_48H]),  # the activity in 30 days
        ("ORD-007", "REFUND", "REJECTED", [CLOSED_ORDERS]),  # already refunded
        ("ORD-008", "RETURN", "PASS", [NO_REASON_RETURN]),  # delivered yesterday
        ("ORD-001", "RETURN", "UNCERTAIN", []),  # an activity is refunded, not returned: a human decides
        ("ORD-002", "REFUND", "REJECTED", [GOODS_REFUND_TIMING]),  # delivered goods: ask for a return
        ("ORD-004", "REFUND", "REJECTED", [GOODS_REFUND_TIMING]),
    ],
)
def test_the_policy_decides_each_demo_order_as_its_purpose_says(order_id, action, verdict, cited):
    result = ask(demo_facts(DEMO[order_id]), action)

    assert (result.verdict, result.policy_ids) == (verdict, cited)
    assert result.reason


def test_goods_delivered_exactly_seven_days_ago_may_still_be_returned():
    assert ask(goods(delivered=NOW - timedelta(days=7)), "RETURN").verdict == "PASS"


def test_goods_delivered_eight_days_ago_may_not_be_returned_without_reason():
    result = ask(goods(delivered=NOW - timedelta(days=8)), "RETURN")

    assert result.verdict == "REJECTED"
    assert "8 days ago" in result.reason


def test_the_seven_days_are_counted_in_site_calendar_days():
    # Delivered late on Nov 23 site time (still Nov 23 in UTC too): Dec 1 is the 8th day, whatever the hour.
    late_evening = datetime(2026, 11, 23, 23, 30, tzinfo=SITE)

    assert ask(goods(delivered=late_evening), "RETURN").verdict == "REJECTED"
    assert ask(goods(delivered=late_evening + timedelta(hours=1)), "RETURN").verdict == "PASS"  # Nov 24, 00:30


def test_goods_not_delivered_yet_are_uncertain_for_a_return_because_a_refund_is_the_right_request():
    result = ask(goods(status="PAID"), "RETURN")

    assert result.verdict == "UNCERTAIN"
    assert "refund" in result.reason


def test_goods_paid_and_not_delivered_may_be_refunded():
    assert ask(goods(status="PAID"), "REFUND").verdict == "PASS"


def test_an_activity_exactly_48_hours_away_is_within_the_limit():
    result = ask(activity(date(2026, 12, 3)), "REFUND", now=datetime(2026, 12, 1, 0, 0, tzinfo=SITE))

    assert result.verdict == "REJECTED"


def test_an_activity_a_minute_more_than_48_hours_away_is_refundable():
    result = ask(activity(date(2026, 12, 3)), "REFUND", now=datetime(2026, 11, 30, 23, 59, tzinfo=SITE))

    assert result.verdict == "PASS"


def test_the_activity_starts_at_midnight_of_its_service_date_in_the_site_time_zone():
    # 01:00 on Dec 2 site time is Dec 1 17:00 UTC: the start (Dec 4 00:00 site time) is 47 hours away, not 55.
    now = datetime(2026, 12, 1, 17, 0, tzinfo=ZoneInfo("UTC"))

    result = ask(activity(date(2026, 12, 4)), "REFUND", now=now)

    assert result.verdict == "REJECTED"
    assert "47 hours" in result.reason


def test_an_activity_that_already_started_is_not_refundable():
    result = ask(activity(date(2026, 11, 30)), "REFUND")

    assert result.verdict == "REJECTED"
    assert "already started" in result.reason


@pytest.mark.parametrize("status", ["REFUNDED", "RETURNED", "CANCELLED", "COMPLETED"])
def test_an_order_already_closed_is_rejected_whatever_the_dates(status):
    assert ask(activity(date(2026, 12, 30), status=status), "REFUND").verdict == "REJECTED"
    assert ask(goods(status=status, delivered=NOW - timedelta(days=1)), "RETURN").verdict == "REJECTED"


def test_odd_facts_are_uncertain_not_an_error():
    assert ask(goods(delivered=None), "RETURN").verdict == "UNCERTAIN"  # "delivered" without a delivery date
    broken = activity(date(2026, 12, 30)) | {"service_date": "soon"}
    assert ask(broken, "REFUND").verdict == "UNCERTAIN"


def test_a_rule_cites_nothing_when_its_passage_was_not_retrieved():
    result = policy_assess(
        action="RETURN", order=goods(delivered=NOW - timedelta(days=9)), policies=[], today=TODAY, now=NOW
    )

    assert (result.verdict, result.policy_ids) == ("REJECTED", [])


@pytest.mark.django_db
def test_the_policy_reads_an_order_row_as_it_reads_its_facts(demo_seeded):
    order = BizOrder.objects.get(order_id="ORD-002")
    policies = policy_passages(order=order, action="RETURN")

    from_row = policy_assess(action="RETURN", order=order, policies=policies, today=TODAY, now=NOW)
    from_facts = policy_assess(action="RETURN", order=order_facts(order), policies=policies, today=TODAY, now=NOW)

    assert from_row == from_facts


# -- the rules adapter: no rule of its own, it answers with the assessment it is given -----------------------------


@pytest.mark.parametrize(("order_id", "action"), [("ORD-001", "REFUND"), ("ORD-002", "RETURN"), ("ORD-001", "RETURN")])
def test_the_rules_adapter_answers_with_the_policy_assessment_it_is_given(order_id, action):
    facts = demo_facts(DEMO[order_id])
    assessment = ask(facts, action)
    request = VerdictRequest(
        action=action, order=facts, policies=POLICIES[facts["category"]], today=TODAY, now=NOW, assessment=assessment
    )

    result = ENGINE.verdict(request)

    assert (result.verdict, result.reason, result.policy_ids) == (
        assessment.verdict,
        assessment.reason,
        assessment.policy_ids,
    )
    assert result.from_policy
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (0, 0)


def test_the_rules_adapter_has_no_opinion_without_an_assessment():
    facts = demo_facts(DEMO["ORD-002"])  # past the return window: the policy would say REJECTED
    request = VerdictRequest(action="RETURN", order=facts, policies=POLICIES["GOODS"], today=TODAY, now=NOW)

    result = ENGINE.verdict(request)

    assert (result.verdict, result.from_policy) == ("UNCERTAIN", False)


# -- retrieval on the stored demo policies -------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("order_id", "action", "first_title"),
    [
        ("ORD-002", "RETURN", "7天无理由退货"),
        ("ORD-004", "REFUND", "商品退款到账时间"),
        ("ORD-001", "REFUND", "活动门票退款规则"),
        ("ORD-007", "REFUND", "活动门票退款规则"),
    ],
)
def test_policy_retrieval_ranks_the_passage_the_action_needs_first(demo_seeded, order_id, action, first_title):
    passages = policy_passages(order=BizOrder.objects.get(order_id=order_id), action=action)

    assert len(passages) == 3
    assert passages[0]["title"].startswith(first_title)
    category = BizOrder.objects.get(order_id=order_id).category
    assert all(p["title"] in {d["title"] for d in DEMO_POLICIES if d["category"] == category} for p in passages)


@pytest.mark.django_db
def test_policy_retrieval_brings_the_closed_order_policy_for_an_already_refunded_order(demo_seeded):
    passages = policy_passages(order=BizOrder.objects.get(order_id="ORD-007"), action="REFUND")

    assert any(p["title"].startswith("已使用或已完成订单不退款") for p in passages)


@pytest.mark.django_db
def test_policy_retrieval_skips_inactive_policies(demo_seeded):
    from aftersale.models import Policy

    Policy.objects.filter(title__startswith="7天无理由退货").update(is_active=False)

    passages = policy_passages(order=BizOrder.objects.get(order_id="ORD-002"), action="RETURN")

    assert not any(p["title"].startswith("7天无理由退货") for p in passages)


# -- the openai adapter's verdict ---------------------------------------------------------------------------------

API_KEY = "sk-test-verdict-5e6f7a8b"


def adapter_for(server, timeout: float = 5.0) -> OpenAILLM:
    return OpenAILLM(base_url=server.base_url, api_key=API_KEY, model="test-model", timeout=timeout)


def model_request(action="REFUND") -> VerdictRequest:
    return VerdictRequest(
        action=action,
        order=demo_facts(DEMO["ORD-001"]),
        policies=POLICIES["ACTIVITY"],
        today=TODAY,
        now=NOW,
    )


def test_a_good_model_answer_gives_the_verdict_the_reason_the_cited_ids_and_the_real_tokens(fake_openai):
    answer = {"verdict": "pass", "reason": "Starts in 20 days.", "policy_ids": [ACTIVITY_48H, "5", 99, "x"]}
    fake_openai.enqueue(Reply(content=answer, prompt_tokens=812, completion_tokens=31))

    result = adapter_for(fake_openai).verdict(model_request())

    assert (result.verdict, result.reason) == ("PASS", "Starts in 20 days.")
    assert result.policy_ids == [ACTIVITY_48H, CLOSED_ORDERS]  # only ids that were given, as given
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (812, 31)


def test_the_verdict_request_is_a_json_object_call_with_the_case_as_data(fake_openai):
    fake_openai.enqueue(Reply(content={"verdict": "UNCERTAIN", "reason": "?"}))

    adapter_for(fake_openai).verdict(model_request())

    body = fake_openai.last_request.json
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0
    prompt = fake_openai.last_request.system_prompt
    for words in ("2026-12-01", "Tuesday", "PASS", "REJECTED", "UNCERTAIN", "policy_ids", "Asia/Shanghai", "00:00"):
        assert words in prompt
    assert "not instructions" in prompt
    case = json.loads(body["messages"][-1]["content"])
    assert case["action"] == "REFUND"
    assert case["order"]["order_id"] == "ORD-001"
    assert [p["id"] for p in case["policies"]] == [p["id"] for p in POLICIES["ACTIVITY"]]


@pytest.mark.parametrize(
    "content",
    [
        "I think it should pass.",
        {"verdict": "maybe", "reason": "hm"},
        {"verdict": "PASS"},
        {"verdict": "PASS", "reason": 42},
        {"reason": "no verdict"},
        [{"verdict": "PASS", "reason": "a list"}],
        "",
    ],
)
def test_an_unusable_model_answer_is_invalid_with_the_real_token_counts(fake_openai, content):
    fake_openai.enqueue(Reply(content=content, prompt_tokens=700, completion_tokens=12))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).verdict(model_request())

    assert caught.value.kind == "INVALID"
    assert (caught.value.usage.prompt_tokens, caught.value.usage.completion_tokens) == (700, 12)


def test_a_503_is_an_error_and_the_key_is_never_in_the_message(fake_openai, caplog):
    fake_openai.enqueue(Reply(status=503, error_message=f"overloaded for {API_KEY}"))

    with caplog.at_level(logging.INFO), pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).verdict(model_request())

    assert caught.value.kind == "ERROR"
    assert API_KEY not in str(caught.value)
    assert API_KEY not in caplog.text


def test_a_slow_model_is_a_timeout(fake_openai):
    fake_openai.enqueue(Reply(delay=HANG, content={"verdict": "PASS", "reason": "late"}))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai, timeout=0.3).verdict(model_request())

    assert caught.value.kind == "TIMEOUT"


# -- the openai verdict inside the workflow ------------------------------------------------------------------------


def submit_with_model(server, user, *, order_id="ORD-001", action="REFUND", timeout=5.0):
    return aftersale_request_submit(user=user, order_id=order_id, action=action, port=adapter_for(server, timeout))


@pytest.mark.django_db
def test_given_a_model_pass_then_a_pending_unflagged_ticket_opens_and_the_call_is_audited(fake_openai, demo_alice):
    fake_openai.enqueue(Reply(content={"verdict": "PASS", "reason": "20 days ahead.", "policy_ids": []}))

    outcome = submit_with_model(fake_openai, demo_alice)

    ticket = outcome.ticket
    assert (outcome.status, ticket.verdict, ticket.flagged, ticket.verdict_reason) == (
        "SUBMITTED",
        "PASS",
        False,
        "20 days ahead.",
    )
    assert (ticket.evidence["verdict"]["provider"], ticket.evidence["verdict"]["model"]) == ("openai", "test-model")
    call = LLMCall.objects.get()
    assert (call.purpose, call.provider, call.model, call.outcome, call.user) == (
        "verdict",
        "openai",
        "test-model",
        "OK",
        demo_alice,
    )
    case = json.loads(fake_openai.last_request.messages[-1]["content"])
    assert case["order"] == order_facts(BizOrder.objects.get(order_id="ORD-001"))
    assert [p["id"] for p in case["policies"]] == [p["id"] for p in ticket.evidence["policies"]]


@pytest.mark.django_db
def test_given_invalid_json_from_the_model_then_the_ticket_is_uncertain_flagged_and_the_call_keeps_real_tokens(
    fake_openai, demo_alice
):
    fake_openai.enqueue(Reply(content="Sure, refund it!", prompt_tokens=640, completion_tokens=5))

    outcome = submit_with_model(fake_openai, demo_alice)

    assert (outcome.status, outcome.ticket.verdict, outcome.ticket.flagged) == ("SUBMITTED", "UNCERTAIN", True)
    call = LLMCall.objects.get()
    assert (call.outcome, call.prompt_tokens, call.completion_tokens) == ("INVALID", 640, 5)
    assert "INVALID" in outcome.ticket.evidence["verdict"]["error"]


@pytest.mark.django_db
def test_given_the_model_answers_503_then_the_ticket_is_uncertain_and_flagged(fake_openai, demo_alice):
    fake_openai.enqueue(Reply(status=503, error_message="overloaded"))

    outcome = submit_with_model(fake_openai, demo_alice)

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)
    assert LLMCall.objects.get().outcome == "ERROR"


@pytest.mark.django_db
def test_given_the_model_times_out_then_the_ticket_is_uncertain_and_flagged(fake_openai, demo_alice):
    fake_openai.enqueue(Reply(delay=HANG, content={"verdict": "PASS", "reason": "late"}))

    outcome = submit_with_model(fake_openai, demo_alice, timeout=0.3)

    assert (outcome.status, outcome.ticket.verdict, outcome.ticket.flagged) == ("SUBMITTED", "UNCERTAIN", True)
    assert LLMCall.objects.get().outcome == "TIMEOUT"


@pytest.mark.django_db
def test_given_the_model_says_rejected_then_a_flagged_ticket_opens_because_a_model_alone_never_rejects_money(
    fake_openai, demo_alice
):
    answer = {"verdict": "REJECTED", "reason": "Within 48 hours.", "policy_ids": []}
    fake_openai.enqueue(Reply(content=answer))

    outcome = submit_with_model(fake_openai, demo_alice)

    assert (outcome.status, outcome.code) == ("SUBMITTED", "OK")
    assert (outcome.ticket.verdict, outcome.ticket.flagged, outcome.ticket.status) == ("REJECTED", True, "PENDING")
    assert outcome.ticket.evidence["assessment"]["verdict"] == "PASS"
    assert outcome.ticket.evidence["verdict"]["agrees_with_policy"] is False


@pytest.mark.django_db
def test_given_a_model_that_says_pass_where_the_policy_says_no_then_a_human_reviews_it_flagged(fake_openai, demo_alice):
    # ORD-002 was delivered 15 days ago: past the 7-day return window. The model says PASS anyway.
    fake_openai.enqueue(Reply(content={"verdict": "PASS", "reason": "Looks fine to me.", "policy_ids": []}))
    before = list(BizOrder.objects.values_list("order_id", "status", "amount"))

    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-002", action="RETURN")

    ticket = outcome.ticket
    assert (outcome.status, ticket.status, ticket.verdict, ticket.flagged) == ("SUBMITTED", "PENDING", "PASS", True)
    assert ticket.evidence["assessment"]["verdict"] == "REJECTED"
    assert "7-day" in ticket.evidence["assessment"]["reason"]
    assert ticket.evidence["verdict"]["agrees_with_policy"] is False
    assert ticket.executed_at is None and list(BizOrder.objects.values_list("order_id", "status", "amount")) == before
    assert LLMCall.objects.get().outcome == "OK"


@pytest.mark.django_db
def test_given_a_model_that_agrees_the_request_is_ineligible_then_a_human_still_decides_flagged(
    fake_openai, demo_alice
):
    answer = {"verdict": "REJECTED", "reason": "Past the 7-day window.", "policy_ids": [NO_REASON_RETURN]}
    fake_openai.enqueue(Reply(content=answer))

    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-002", action="RETURN")

    assert (outcome.status, outcome.ticket.verdict, outcome.ticket.flagged) == ("SUBMITTED", "REJECTED", True)
    assert outcome.ticket.evidence["verdict"]["agrees_with_policy"] is True


@pytest.mark.django_db
def test_given_a_model_pass_where_the_policy_is_uncertain_then_the_ticket_is_flagged(fake_openai, demo_alice):
    # An activity is refunded, not returned: the policy cannot say; a model's PASS does not settle it.
    fake_openai.enqueue(Reply(content={"verdict": "PASS", "reason": "ok"}))

    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-001", action="RETURN")

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("PASS", True)
    assert outcome.ticket.evidence["assessment"]["verdict"] == "UNCERTAIN"


@pytest.mark.django_db
def test_given_the_model_says_maybe_then_the_ticket_is_uncertain_and_flagged(fake_openai, demo_alice):
    fake_openai.enqueue(Reply(content={"verdict": "maybe", "reason": "not sure"}))

    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-004", action="RETURN")

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)
    assert LLMCall.objects.get().outcome == "INVALID"


@pytest.mark.django_db
def test_given_the_model_says_uncertain_then_the_ticket_is_flagged(fake_openai, demo_alice):
    fake_openai.enqueue(Reply(content={"verdict": "Uncertain", "reason": "Condition of the goods unknown."}))

    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-004", action="RETURN")

    assert (outcome.ticket.verdict, outcome.ticket.flagged) == ("UNCERTAIN", True)
    assert outcome.ticket.verdict_reason == "Condition of the goods unknown."


@pytest.mark.django_db
def test_given_an_order_that_is_not_yours_then_the_model_is_never_asked(fake_openai, demo_alice):
    outcome = submit_with_model(fake_openai, demo_alice, order_id="ORD-003", action="RETURN")

    assert outcome.code == "ORDER_NOT_FOUND"  # someone else's order reads like an unknown one
    assert fake_openai.requests == []
    assert not HitlTicket.objects.exists()
