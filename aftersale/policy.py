"""The after-sale policy: which passages a request is judged against, and the deterministic assessment of it.

**Retrieval** (`policy_passages`): the active policies of the order's category are ranked by keyword overlap with
the request: the reason's words (质量问题 / quality for a quality problem, 无理由 for a no-reason return …), the
action's words (退货 / return / no-reason for a return, 退款 / refund / 48 for a refund), words for
the order's status when it is closed (an order already refunded or completed), and the order's item names. A word
found in a policy's title or tags counts twice, in its text once; ties keep the older policy first. The top
passages are what the verdict reads and what the ticket keeps as evidence.

**Assessment** (`policy_assess`): the rules of the demo policies (their wording: demo/data/policies.json), as code
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
Each answer's reason is a code with facts (`PolicyFinding`, `REASONS`), worded in the reader's language when it is
read: a Chinese traveller reads it in Chinese, an English approver in English, from the same ticket.
The workflow computes the assessment for every request and hands it to the LLM port with the facts; the `rules`
adapter answers with it, a model's opinion is weighed against it (`aftersale.services.workflow`).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from aftersale import conf
from aftersale.models import BizOrder, OrderCategory, OrderStatus, Policy, TicketAction
from aftersale.selectors import order_facts
from assistant.llm.verdict import PASS, REJECTED, UNCERTAIN, Assessment

TOP_PASSAGES = 3
RETURN_WINDOW_DAYS = 7
QUALITY_WINDOW_DAYS = 15  # the demo's quality policy: "自签收之日起15天内"
QUALITY, NO_REASON, TICKET, NOT_RECEIVED = "QUALITY", "NO_REASON", "TICKET", "NOT_RECEIVED"
REASON_KINDS = (QUALITY, NO_REASON, TICKET, NOT_RECEIVED)
REFUND_NOTICE = timedelta(hours=48)
CLOSED_STATUSES = frozenset({"REFUNDED", "PART_REFUNDED", "RETURNED", "CANCELLED", "COMPLETED"})

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
    "PART_REFUNDED": ("已经退款", "already refunded"),
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
        for key in ("name", "name_en"):
            name = item.get(key) if isinstance(item, dict) else None
            if isinstance(name, str) and name.strip():
                words.append(name.strip())
    return [word.lower() for word in dict.fromkeys(words)]


def _score(policy: Policy, words: list[str]) -> int:
    heading = " ".join([policy.title, *(str(tag) for tag in policy.tags or [])]).lower()
    text = policy.text.lower()
    return sum(2 if word in heading else 1 if word in text else 0 for word in words)


# -- assessment ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyFinding:
    """The policy's answer to one request as data: the verdict, a reason code with its facts, the cited passages.

    The reason's words are composed from the code when they are read (`reason`, `policy_reason_text`), in the
    active language: the same finding reads in Chinese to a Chinese traveller and in English to an English
    approver. Tickets keep the code and facts in their evidence (`as_data`), so the console words them afresh.
    """

    verdict: str
    code: str
    facts: dict[str, Any] = field(default_factory=dict)
    policy_ids: list[Any] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return policy_reason_text(self.code, self.facts)

    def assessment(self) -> Assessment:
        """The finding as the LLM port's `Assessment` (its reason worded in the active language)."""
        return Assessment(self.verdict, self.reason, list(self.policy_ids))

    def as_data(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "reason_code": self.code,
            "reason_facts": dict(self.facts),
            "policy_ids": list(self.policy_ids),
        }


# Every reason the policy (and the workflow, when the verdict could not be had) gives, by code. Placeholders are
# named facts: days and hours are numbers, dates ISO (YYYY-MM-DD, YYYY-MM-DD HH:MM), status / action / category the
# stored codes, worded by their labels when the reason is read.
REASONS: dict[str, Any] = {
    "ORDER_CLOSED": _("The order is already %(status)s: nothing is left to refund or return."),
    "NO_RULE": _("No rule covers this request (%(action)s, %(category)s): a human decides."),
    "RETURN_NOT_DELIVERED": _("The goods have not been delivered yet: a refund, not a return, is the right request."),
    "DELIVERY_IN_FUTURE": _("The delivery date %(delivered)s is after today."),
    "RETURN_IN_WINDOW": ngettext_lazy(
        "Delivered %(days)d day ago (%(delivered)s): inside the %(window)d-day no-reason return window.",
        "Delivered %(days)d days ago (%(delivered)s): inside the %(window)d-day no-reason return window.",
        "days",
    ),
    "RETURN_PAST_WINDOW": ngettext_lazy(
        "Delivered %(days)d day ago (%(delivered)s): past the %(window)d-day no-reason return window.",
        "Delivered %(days)d days ago (%(delivered)s): past the %(window)d-day no-reason return window.",
        "days",
    ),
    "QUALITY_NOT_DELIVERED": _(
        "A quality problem was reported, but the goods are not marked delivered: a human looks."
    ),
    "QUALITY_IN_WINDOW": ngettext_lazy(
        "Quality problem reported; delivered %(days)d day ago (%(delivered)s): inside the %(window)d-day quality "
        "return window (return or exchange, the platform pays shipping; photos of the problem help the review).",
        "Quality problem reported; delivered %(days)d days ago (%(delivered)s): inside the %(window)d-day quality "
        "return window (return or exchange, the platform pays shipping; photos of the problem help the review).",
        "days",
    ),
    "QUALITY_PAST_WINDOW": ngettext_lazy(
        "Quality problem reported; delivered %(days)d day ago (%(delivered)s): past the %(window)d-day quality "
        "return window, the manufacturer's warranty applies.",
        "Quality problem reported; delivered %(days)d days ago (%(delivered)s): past the %(window)d-day quality "
        "return window, the manufacturer's warranty applies.",
        "days",
    ),
    "NOT_RECEIVED_REFUNDABLE": _("Reported not received; paid and not delivered yet: the order can be refunded."),
    "NOT_RECEIVED_BUT_DELIVERED": _(
        "Reported not received, but the order is marked delivered: a human checks the delivery with the courier."
    ),
    "REFUND_NOT_DELIVERED": _("Paid and not delivered yet: the order can be refunded."),
    "REFUND_DELIVERED": _(
        "The goods were delivered: ask for a return; the refund follows once the return is received."
    ),
    "REFUND_NO_RULE": _("A goods order that is %(status)s has no refund rule: a human decides."),
    "ACTIVITY_NO_DATE": _("The order has no service date or an unexpected status: a human decides."),
    "ACTIVITY_IN_TIME": ngettext_lazy(
        "The activity starts %(start)s, %(hours)d hour from now: more than 48 hours ahead, a full refund.",
        "The activity starts %(start)s, %(hours)d hours from now: more than 48 hours ahead, a full refund.",
        "hours",
    ),
    "ACTIVITY_STARTED": _("The activity starts %(start)s: it has already started."),
    "ACTIVITY_TOO_LATE": ngettext_lazy(
        "The activity starts %(start)s, %(hours)d hour from now: within 48 hours, no refund.",
        "The activity starts %(start)s, %(hours)d hours from now: within 48 hours, no refund.",
        "hours",
    ),
    "VERDICT_FAILED": _("The policy check could not be done (%(kind)s); a human must decide."),
}
# Facts that are stored codes, and the choices whose labels word them.
_LABELLED_FACTS = {"status": OrderStatus, "action": TicketAction, "category": OrderCategory}


def policy_reason_text(code: str, facts: Mapping[str, Any] | None = None) -> str:
    """A policy reason in the active language, from its code and facts (see REASONS); an unknown code or facts
    that do not fit the words give the code itself, never an exception."""
    template = REASONS.get(str(code or ""))
    if template is None:
        return str(code or "")
    values: dict[str, Any] = {}
    for key, value in dict(facts or {}).items():
        choices = _LABELLED_FACTS.get(key)
        if choices is not None and value in choices.values:
            value = str(choices(value).label).lower()
        values[key] = value
    try:
        return str(template % values)  # a plural's number is read from its key in `values`
    except (KeyError, TypeError, ValueError):
        return str(code)


def ticket_verdict_reason(ticket) -> str:
    """A ticket's verdict reason in the active language: worded again from its code when code gave it (the policy,
    a failed verdict), else the reason as stored (a model's own words)."""
    evidence = ticket.evidence if isinstance(ticket.evidence, dict) else {}
    verdict = evidence.get("verdict") if isinstance(evidence.get("verdict"), dict) else {}
    code = verdict.get("reason_code")
    if isinstance(code, str) and code in REASONS:
        facts = verdict.get("reason_facts")
        return policy_reason_text(code, facts if isinstance(facts, dict) else {})
    return ticket.verdict_reason or ""


def policy_assess(**request: Any) -> Assessment:
    """The policy's verdict on one request: PASS, REJECTED or UNCERTAIN, why (in the active language), and the
    cited passage ids. `policy_finding` gives the same answer as data, from the same keyword arguments; see it."""
    return policy_finding(**request).assessment()


def policy_finding(
    *,
    action: str,
    order: BizOrder | Mapping[str, Any],
    policies: list[dict[str, Any]],
    today: date,
    now: datetime,
    reason_kind: str | None = None,
) -> PolicyFinding:
    """The policy's verdict on one request: PASS, REJECTED or UNCERTAIN, its reason code and facts, and the cited
    passage ids.

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
        return PolicyFinding(REJECTED, "ORDER_CLOSED", {"status": status}, case.cite(CLOSED_ORDERS))
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
    return PolicyFinding(UNCERTAIN, "NO_RULE", {"action": case.action, "category": category or "?"})


class _Case:
    def __init__(self, *, action: str, order: dict, policies: list[dict], today: date, now: datetime) -> None:
        self.action, self.order, self.policies, self.today, self.now = action, order, policies, today, now

    def cite(self, markers: tuple[str, ...]) -> list[Any]:
        for passage in self.policies:
            words = f"{passage.get('title', '')} {passage.get('text', '')}".lower()
            if any(marker.lower() in words for marker in markers):
                return [passage.get("id")]
        return []


def _goods_return(case: _Case, status: str) -> PolicyFinding:
    """A no-reason return: the no-reason window from delivery."""
    cited = case.cite(NO_REASON_RETURN)
    return _in_window(case, status, "RETURN", RETURN_WINDOW_DAYS, cited, cited_if_not_delivered=[])


def _goods_quality(case: _Case, status: str) -> PolicyFinding:
    """A quality problem: the quality policy's window (longer than the no-reason one), for a return or a refund."""
    cited = case.cite(QUALITY_RETURN)
    return _in_window(case, status, "QUALITY", QUALITY_WINDOW_DAYS, cited, cited_if_not_delivered=cited)


def _in_window(
    case: _Case, status: str, rule: str, window_days: int, cited: list, *, cited_if_not_delivered: list
) -> PolicyFinding:
    """Delivered goods within `window_days` of delivery pass the rule (`{rule}_IN_WINDOW`), later ones are rejected
    (`{rule}_PAST_WINDOW`); goods not delivered, or delivered in the future, are for a person to judge."""
    delivered = _local_date(case.order.get("delivered_at"))
    if status != "DELIVERED" or delivered is None:
        return PolicyFinding(UNCERTAIN, f"{rule}_NOT_DELIVERED", {}, cited_if_not_delivered)
    days = (case.today - delivered).days
    if days < 0:
        return PolicyFinding(UNCERTAIN, "DELIVERY_IN_FUTURE", {"delivered": delivered.isoformat()}, cited)
    window = {"days": days, "delivered": delivered.isoformat(), "window": window_days}
    if days <= window_days:
        return PolicyFinding(PASS, f"{rule}_IN_WINDOW", window, cited)
    return PolicyFinding(REJECTED, f"{rule}_PAST_WINDOW", window, cited)


def _goods_not_received(case: _Case, status: str) -> PolicyFinding:
    """Goods the traveller says never came: a refund when the order is not delivered; a human checks otherwise."""
    if status == "PAID" and not case.order.get("delivered_at"):
        return PolicyFinding(PASS, "NOT_RECEIVED_REFUNDABLE")
    return PolicyFinding(UNCERTAIN, "NOT_RECEIVED_BUT_DELIVERED")


def _goods_refund(case: _Case, status: str) -> PolicyFinding:
    if status == "PAID" and not case.order.get("delivered_at"):
        return PolicyFinding(PASS, "REFUND_NOT_DELIVERED")
    if status == "DELIVERED":
        return PolicyFinding(REJECTED, "REFUND_DELIVERED", {}, case.cite(GOODS_REFUND_AFTER_RETURN))
    return PolicyFinding(UNCERTAIN, "REFUND_NO_RULE", {"status": status or "?"})


def _activity_refund(case: _Case, status: str) -> PolicyFinding:
    service_date = _date(case.order.get("service_date"))
    if service_date is None or status not in {"PAID", "DELIVERED"}:
        return PolicyFinding(UNCERTAIN, "ACTIVITY_NO_DATE")
    start = datetime.combine(service_date, time(0), tzinfo=conf.site_zone())
    left = start - case.now
    hours = round(left.total_seconds() / 3600)
    cited = case.cite(ACTIVITY_48_HOURS)
    when = {"start": f"{start:%Y-%m-%d %H:%M}"}
    if left > REFUND_NOTICE:
        return PolicyFinding(PASS, "ACTIVITY_IN_TIME", {**when, "hours": hours}, cited)
    if left <= timedelta(0):
        return PolicyFinding(REJECTED, "ACTIVITY_STARTED", when, cited)
    return PolicyFinding(REJECTED, "ACTIVITY_TOO_LATE", {**when, "hours": hours}, cited)


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
    site = conf.site_zone()
    return (moment.astimezone(site) if moment.tzinfo else moment.replace(tzinfo=site)).date()
