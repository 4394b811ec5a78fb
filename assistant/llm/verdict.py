"""The after-sale verdict on the LLM port: what the port is asked, and what it answers.

The workflow asks whether one refund or return request meets the retrieved policies, given the order's facts and
today's date. The answer is one of three states; it is evidence for a human approver, never a decision on money.
"""

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from assistant.llm.port import Usage

PASS, REJECTED, UNCERTAIN = "PASS", "REJECTED", "UNCERTAIN"
VERDICTS = (PASS, REJECTED, UNCERTAIN)
ACTIONS = ("REFUND", "RETURN")


@dataclass(frozen=True)
class VerdictRequest:
    """One request to judge.

    - `action`: "REFUND" or "RETURN".
    - `order`: the order's facts as JSON-ready data (`aftersale.selectors.order_facts`): order_id, category, status,
      amount, items, paid_at, delivered_at, service_date (ISO strings or null).
    - `policies`: the retrieved passages, `{"id", "title", "text"}` each.
    - `today` / `now`: the site's date and the current moment (aware), which the time limits are counted from.
    """

    action: str
    order: dict[str, Any]
    policies: list[dict[str, Any]]
    today: date
    now: datetime


@dataclass
class VerdictResult:
    """The port's answer: PASS, REJECTED or UNCERTAIN, why, which policies it rests on, and what it cost."""

    verdict: str
    reason: str
    policy_ids: list[Any] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
