"""The after-sale verdict on the LLM port: what the port is asked, and what it answers.

The workflow asks whether one refund or return request meets the retrieved policies, given the order's facts and
today's date. With the request comes aftersale's own policy assessment (`aftersale.policy.policy_assess`, code):
the `rules` adapter answers with it unchanged, a model gives its own opinion. The answer is one of three states;
it is one input of the workflow's decision and evidence for a human approver, never a decision on money.
"""

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from assistant.llm.errors import Usage

PASS, REJECTED, UNCERTAIN = "PASS", "REJECTED", "UNCERTAIN"
VERDICTS = (PASS, REJECTED, UNCERTAIN)
ACTIONS = ("REFUND", "RETURN")


@dataclass(frozen=True)
class Assessment:
    """The deterministic policy's answer to one request: PASS, REJECTED or UNCERTAIN, why, and the passages
    (ids of the retrieved policies) it rests on."""

    verdict: str
    reason: str
    policy_ids: list[Any] = field(default_factory=list)

    def as_data(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reason": self.reason, "policy_ids": list(self.policy_ids)}


@dataclass(frozen=True)
class VerdictRequest:
    """One request to judge.

    - `action`: "REFUND" or "RETURN".
    - `order`: the order's facts as JSON-ready data (`aftersale.selectors.order_facts`): order_id, category, status,
      amount, items, paid_at, delivered_at, service_date (ISO strings or null).
    - `policies`: the retrieved passages, `{"id", "title", "text"}` each.
    - `today` / `now`: the site's date and the current moment (aware), which the time limits are counted from.
    - `assessment`: aftersale's deterministic policy assessment of the same request (None: not computed).
    """

    action: str
    order: dict[str, Any]
    policies: list[dict[str, Any]]
    today: date
    now: datetime
    assessment: Assessment | None = None


@dataclass
class VerdictResult:
    """The port's answer: PASS, REJECTED or UNCERTAIN, why, which policies it rests on, and what it cost.

    `from_policy` is True when the answer IS the request's policy assessment, unchanged (the `rules` adapter has no
    opinion of its own); a model's answer leaves it False.
    """

    verdict: str
    reason: str
    policy_ids: list[Any] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    from_policy: bool = False
