"""Policy retrieval for the after-sale verdict: the passages a request is judged against.

The active policies of the order's category are ranked by keyword overlap with the request: the action's words
(退货 / return / no-reason for a return, 退款 / refund / 48 for a refund), words for the order's status when it is
closed (an order already refunded or completed), and the order's item names. A word found in a policy's title or
tags counts twice, in its text once; ties keep the older policy first. The top passages are what the verdict reads
and what the ticket keeps as evidence.
"""

from typing import Any

from aftersale.models import BizOrder, Policy

TOP_PASSAGES = 3

ACTION_WORDS: dict[str, tuple[str, ...]] = {
    "RETURN": ("退货", "无理由", "7天", "return", "no-reason", "7 days"),
    "REFUND": ("退款", "refund", "48"),
}
STATUS_WORDS: dict[str, tuple[str, ...]] = {
    "COMPLETED": ("已完成", "已使用", "completed"),
    "REFUNDED": ("已经退款", "already refunded"),
    "RETURNED": ("已退货", "returned"),
    "CANCELLED": ("取消", "cancelled"),
}


def policy_passages(*, order: BizOrder, action: str) -> list[dict[str, Any]]:
    """The top policy passages for this order and action, best first: `{"id", "title", "text"}` each."""
    words = _words(order=order, action=action)
    policies = list(Policy.objects.filter(category=order.category, is_active=True).order_by("id"))
    ranked = sorted(policies, key=lambda policy: -_score(policy, words))  # stable: ties stay oldest first
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
