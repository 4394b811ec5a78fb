"""The approval gate: how a service asks whether a call that needs a human approver may run now.

A service that holds an approval rule (bookings' cancel above BOOKINGS_CANCEL_APPROVAL_ABOVE) asks the gate named
by the `TRIPDESK_APPROVAL_GATE` setting. The after-sale app provides it (checkpoint tickets, `hitl:` keys), so the
services that need approvals never import the app that keeps them. No gate configured: nothing that needs an
approver runs.
"""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from core.envelope import Code


@dataclass(frozen=True)
class ApprovalDecision:
    """`proceed`: the call may run now. Otherwise `code` is TICKET_PENDING (waiting) or PERMISSION_DENIED
    (rejected), `message` says so to the traveller and `data` names the ticket."""

    proceed: bool
    code: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


class ApprovalGate(Protocol):
    def __call__(
        self,
        *,
        user: Any,
        action: str,
        entity: str,
        amount: Decimal | None,
        summary: str,
        arguments: dict[str, Any],
        evidence: dict[str, Any],
    ) -> ApprovalDecision: ...


def _refuse_everything(**_: Any) -> ApprovalDecision:
    return ApprovalDecision(False, Code.PERMISSION_DENIED, "This needs an approver, and no approval desk is set up.")


def approval_gate() -> ApprovalGate:
    """The configured gate (TRIPDESK_APPROVAL_GATE), or one that refuses everything."""
    path = getattr(settings, "TRIPDESK_APPROVAL_GATE", "")
    return import_string(path) if path else _refuse_everything
