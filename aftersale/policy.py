"""The after-sale policy: which passages a request is judged against, and the deterministic assessment of it.

**Retrieval** (`policy_passages`): the active policies of the order's category are ranked by keyword overlap with
the request: the reason's words (质量问题 / quality for a quality problem, 无理由 for a no-reason return …), the
action's words (退货 / return / no-reason for a return, 退款 / refund / 48 for a refund), words for
the order's status when it is closed (an order already refunded or completed), and the order's item names. A word
found in a policy's title or tags counts twice, in its text once; ties keep the older policy first. The top
passages are what the verdict reads and what the ticket keeps as evidence.

**Assessment** (`policy_assess`): the rules of the demo policies (see aftersale/demo.py for their wording), as code
over the order's facts and the moment of the request, never over free text:

- an order already refunded, returned, cancelled or completed → REJECTED;
- the traveller's reason picks the policy first (`reason_kind`, as understood from their words; None → by action):
  - QUALITY, goods delivered: within 15 days of delivery (the 15th day included) → PASS under the quality policy
    (return or exchange, the platform pays shipping), whether they asked for a return or a refund; later →
    REJECTED (the manufacturer's warranty applies); not delivered yet → UNCERTAIN (a human looks);
  - NOT_RECEIVED, goods: paid and not delivered → PASS (a refund); marked delivered → UNCERTAIN (a human checks
    the delivery with the courier);
  - NO_REASON and TICKET go by the action, as below (the 7-day no-reason window, the 48-hour ticket rule);
- goods RETURN: delivered at most 7 days ago (the 7th day included, site calendar days) → PASS, later → REJECTED;
  not delivered yet → UNCERTAIN (a refund would be the right request: a human decides);
- goods REFUND: paid and not delivered → PASS; delivered → REJECTED (ask for a return);
- activity REFUND: the start (00:00 of the service date, site time zone) more than 48 hours away → PASS; within
  48 hours or past → REJECTED;
- anything else → UNCERTAIN.

Each answer cites the passages it rests on, when they were retrieved: a passage is recognised by its wording.
The workflow computes the assessment for every request and hands it to the LLM port with the facts; the `rules`
adapter answers with it, a model's opinion is weighed against it (`aftersale.services.workflow`).
"""

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from aftersale.models import BizOrder, Policy
from aftersale.selectors import order_facts
from assistant.llm.verdict import PASS, REJECTED, UNCERTAIN, Assessment

TOP_PASSAGES = 3
RETURN_WINDOW_DAYS = 7
QUALITY_WINDOW_DAYS = 15  # the demo's quality policy: "自签收之日起15天内"
QUALITY, NO_REASON, TICKET, NOT_RECEIVED = "QUALITY", "NO_REASON", "TICKET", "NOT_RECEIVED"
REASON_KINDS = (QUALITY, NO_REASON, TICKET, NOT_RECEIVED)
REFUND_NOTICE = timedelta(hours=48)
CLOSED_STATUSES = frozenset({"REFUNDED", "RETURNED", "CANCELLED", "COMPLETED"})

ACTION_WORDS: dict[str, tuple[str, ...]] = {
    "RETURN": ("退货", "无理由", "7天", "return", "no-reason", "7 days"),
    "REFUND": ("退款", "refund", "48"),
}
REASON_WORDS: dict[str, tuple[str, ...]] = {
    QUALITY: ("质量问题", "破损", "quality", "defect"),
    NO_REASON: ("无理由", "7天", "no-reason"),
    TICKET: ("门票", "活动", "48", "ticket"),
    NOT_RECEIVED: ("未收到", "未发货", "not delivered", "not received"),
}
STATUS_WORDS: dict[str, tuple[str, ...]] = {
    "COMPLETED": ("已完成", "已使用", "completed"),
    "REFUNDED": ("已经退款", "already refunded"),
    "RETURNED": ("已退货", "returned"),
    "CANCELLED": ("取消", "cancelled"),
}

# How a passage is recognised (lower-cased title + text contains one of the markers).
NO_REASON_RETURN = ("无理由", "no-reason")
QUALITY_RETURN = ("质量问题", "quality problem")
GOODS_REFUND_AFTER_RETURN = ("退货商品", "returned goods")
ACTIVITY_48_HOURS = ("48小时以上", "more than 48 hours")
CLOSED_ORDERS = ("已完成", "orders that are completed")


# -- retrieval -----------------------------------------------------------------------------------------------------


def reason_kind_of(value: Any) -> str | None:
    """A reason kind as the policy knows it (QUALITY, NO_REASON, TICKET, NOT_RECEIVED), or None."""
    kind = str(value).strip().upper() if isinstance(value, str) else None
    return kind if kind in REASON_KINDS else None


def policy_passages(*, order: BizOrder, action: str, reason_kind: str | None = None) -> list[dict[str, Any]]:
    """The top policy passages for this order, action and reason, best first: `{"id", "title", "text"}` each."""
    words = _words(order=order, action=action)
    reason_words = [word.lower() for word in REASON_WORDS.get(reason_kind_of(reason_kind) or "", ())]
    policies = list(Policy.objects.filter(category=order.category, is_active=True).order_by("id"))
    # The reason's words weigh three times the others: "坏了，我要退货" is about the quality policy before the
    # no-reason one, though both speak of returns.
    ranked = sorted(  # stable: ties stay oldest first
        policies, key=lambda policy: -(_score(policy, words) + 3 * _score(policy, reason_words))
    )
    return [{"id": p.id, "title": p.title, "text": p.text} for p in ranked[:TOP_PASSAGES]]


def _words(*, order: BizOrder, action: str) -> list[str]:
    words = list(ACTION_WORDS.get(action.upper(), ()))
    words += STATUS_WORDS.get(order.status, ())
    for item in order.items or []:
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str) and name.strip():
            words.append(name.strip())
    return [word.lower() for word in dict.fromkeys(words)]


def _score(policy: Policy, words: list[str]) -> int:
    heading = " ".join([policy.title, *(str(tag) for tag in policy.tags or [])]).lower()
    text = policy.text.lower()
    return sum(2 if word in heading else 1 if word in text else 0 for word in words)


# -- assessment ----------------------------------------------------------------------------------------------------


def policy_assess(
    *,
    action: str,
    order: BizOrder | Mapping[str, Any],
    policies: list[dict[str, Any]],
    today: date,
    now: datetime,
    reason_kind: str | None = None,
) -> Assessment:
    """The policy's verdict on one request: PASS, REJECTED or UNCERTAIN, why, and the cited passage ids.

    `order` is the order row or its facts (`order_facts`); `policies` the retrieved passages; `today` the site's
    date and `now` the current moment (aware); `reason_kind` why the traveller asks (QUALITY, NO_REASON, TICKET,
    NOT_RECEIVED; None: the action decides which rule). Pure; raises nothing on odd facts: they are UNCERTAIN.
    """
    facts = order_facts(order) if isinstance(order, BizOrder) else dict(order)
    case = _Case(action=str(action).upper(), order=facts, policies=list(policies or []), today=today, now=now)
    status = str(facts.get("status") or "").upper()
    category = str(facts.get("category") or "").upper()
    kind = reason_kind_of(reason_kind)

    if status in CLOSED_STATUSES:
        return Assessment(
            REJECTED,
            f"The order is already {status.lower()}: nothing is left to {case.action.lower()}.",
            case.cite(CLOSED_ORDERS),
        )
    if category == "GOODS" and kind == QUALITY:
        return _goods_quality(case, status)
    if category == "GOODS" and kind == NOT_RECEIVED:
        return _goods_not_received(case, status)
    if category == "GOODS" and case.action == "RETURN":
        return _goods_return(case, status)
    if category == "GOODS" and case.action == "REFUND":
        return _goods_refund(case, status)
    if category == "ACTIVITY" and case.action == "REFUND":
        return _activity_refund(case, status)
    return Assessment(
        UNCERTAIN, f"No rule covers a {case.action.lower()} of this {category.lower() or 'unknown'} order.", []
    )


class _Case:
    def __init__(self, *, action: str, order: dict, policies: list[dict], today: date, now: datetime) -> None:
        self.action, self.order, self.policies, self.today, self.now = action, order, policies, today, now

    def cite(self, markers: tuple[str, ...]) -> list[Any]:
        for passage in self.policies:
            words = f"{passage.get('title', '')} {passage.get('text', '')}".lower()
            if any(marker.lower() in words for marker in markers):
                return [passage.get("id")]
        return []


def _goods_return(case: _Case, status: str) -> Assessment:
    delivered = _local_date(case.order.get("delivered_at"))
    if status != "DELIVERED" or delivered is None:
        return Assessment(
            UNCERTAIN, "The goods have not been delivered yet: a refund, not a return, is the right request.", []
        )
    days = (case.today - delivered).days
    cited = case.cite(NO_REASON_RETURN)
    if days < 0:
        return Assessment(UNCERTAIN, f"The delivery date {delivered.isoformat()} is after today.", cited)
    if days <= RETURN_WINDOW_DAYS:
        return Assessment(
            PASS,
            f"Delivered {days} day(s) ago ({delivered.isoformat()}): inside the 7-day no-reason return window.",
            cited,
        )
    return Assessment(
        REJECTED,
        f"Delivered {days} days ago ({delivered.isoformat()}): past the 7-day no-reason return window.",
        cited,
    )


def _goods_quality(case: _Case, status: str) -> Assessment:
    """A quality problem: the quality policy's window (longer than the no-reason one), for a return or a refund."""
    delivered = _local_date(case.order.get("delivered_at"))
    cited = case.cite(QUALITY_RETURN)
    if status != "DELIVERED" or delivered is None:
        return Assessment(
            UNCERTAIN, "A quality problem was reported, but the goods are not marked delivered: a human looks.", cited
        )
    days = (case.today - delivered).days
    if days < 0:
        return Assessment(UNCERTAIN, f"The delivery date {delivered.isoformat()} is after today.", cited)
    if days <= QUALITY_WINDOW_DAYS:
        return Assessment(
            PASS,
            f"Quality problem reported; delivered {days} day(s) ago ({delivered.isoformat()}): inside the "
            f"{QUALITY_WINDOW_DAYS}-day quality return window (return or exchange, the platform pays shipping; "
            "photos of the problem help the review).",
            cited,
        )
    return Assessment(
        REJECTED,
        f"Quality problem reported; delivered {days} days ago ({delivered.isoformat()}): past the "
        f"{QUALITY_WINDOW_DAYS}-day quality return window, the manufacturer's warranty applies.",
        cited,
    )


def _goods_not_received(case: _Case, status: str) -> Assessment:
    """Goods the traveller says never came: a refund when the order is not delivered; a human checks otherwise."""
    if status == "PAID" and not case.order.get("delivered_at"):
        return Assessment(PASS, "Reported not received; paid and not delivered yet: the order can be refunded.", [])
    return Assessment(
        UNCERTAIN,
        "Reported not received, but the order is marked delivered: a human checks the delivery with the courier.",
        [],
    )


def _goods_refund(case: _Case, status: str) -> Assessment:
    if status == "PAID" and not case.order.get("delivered_at"):
        return Assessment(PASS, "Paid and not delivered yet: the order can be refunded.", [])
    if status == "DELIVERED":
        return Assessment(
            REJECTED,
            "The goods were delivered: ask for a return; the refund follows once the return is received.",
            case.cite(GOODS_REFUND_AFTER_RETURN),
        )
    return Assessment(UNCERTAIN, f"A goods order in status {status or 'unknown'} has no refund rule.", [])


def _activity_refund(case: _Case, status: str) -> Assessment:
    service_date = _date(case.order.get("service_date"))
    if service_date is None or status not in {"PAID", "DELIVERED"}:
        return Assessment(UNCERTAIN, "The order has no service date or an unexpected status.", [])
    start = datetime.combine(service_date, time(0), tzinfo=ZoneInfo(settings.TIME_ZONE))
    left = start - case.now
    hours = left.total_seconds() / 3600
    cited = case.cite(ACTIVITY_48_HOURS)
    when = f"The activity starts {start:%Y-%m-%d %H:%M}"
    if left > REFUND_NOTICE:
        return Assessment(PASS, f"{when}, {hours:.0f} hours from now: more than 48 hours ahead, a full refund.", cited)
    if left <= timedelta(0):
        return Assessment(REJECTED, f"{when}: it has already started.", cited)
    return Assessment(REJECTED, f"{when}, {hours:.0f} hours from now: within 48 hours, no refund.", cited)


def _date(value: Any) -> date | None:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    try:
        return date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _local_date(value: Any) -> date | None:
    """The site-local calendar day of an ISO datetime (a naive one is taken as site time)."""
    if not value:
        return None
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        return None
    site = ZoneInfo(settings.TIME_ZONE)
    return (moment.astimezone(site) if moment.tzinfo else moment.replace(tzinfo=site)).date()
