"""The tool envelope of DESIGN.md, `{"ok", "code", "message", "data"}`, and the codes used across the apps."""

from enum import StrEnum
from typing import Any


class Code(StrEnum):
    """Envelope codes used across the apps (and the `code` of every API error body)."""

    OK = "OK"
    INVALID_PARAM = "INVALID_PARAM"
    BOOKING_NOT_FOUND = "BOOKING_NOT_FOUND"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    PLATFORM_CANCEL_FAILED = "PLATFORM_CANCEL_FAILED"
    PLATFORM_UNAVAILABLE = "PLATFORM_UNAVAILABLE"
    PLATFORM_REJECTED = "PLATFORM_REJECTED"
    ORDER_NOT_FOUND = "ORDER_NOT_FOUND"
    ORDER_NOT_OWNED = "ORDER_NOT_OWNED"  # an internal reason only: travellers get ORDER_NOT_FOUND (no existence oracle)
    NOT_FOUND = "NOT_FOUND"
    PLAN_NOT_FOUND = "PLAN_NOT_FOUND"
    PLAN_STORE_UNAVAILABLE = "PLAN_STORE_UNAVAILABLE"
    INELIGIBLE = "INELIGIBLE"
    TICKET_PENDING = "TICKET_PENDING"
    CANCEL_IN_PROGRESS = "CANCEL_IN_PROGRESS"
    RATE_LIMITED = "RATE_LIMITED"
    WRITE_LIMIT = "WRITE_LIMIT"
    LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    DUPLICATE_CALL = "DUPLICATE_CALL"
    INVALID_TRANSITION = "INVALID_TRANSITION"
    NOT_AUTHENTICATED = "NOT_AUTHENTICATED"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    # The pending actions of issue 13: a WRITE waits for the traveller's yes.
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    ACTION_NOT_FOUND = "ACTION_NOT_FOUND"
    ACTION_EXPIRED = "ACTION_EXPIRED"
    ACTION_IN_PROGRESS = "ACTION_IN_PROGRESS"
    ACTION_DECLINED = "ACTION_DECLINED"
    NO_MATCH = "NO_MATCH"  # nothing matches what was asked (options offered instead)
    # A booking's life (issue 18): paying, and an order the supplier let expire.
    BOOKING_EXPIRED = "BOOKING_EXPIRED"
    PAYMENT_FAILED = "PAYMENT_FAILED"


def ok(data: Any = None, message: str = "") -> dict:
    return {"ok": True, "code": Code.OK.value, "message": message, "data": data}


def fail(code: Code | str, message: str, data: Any = None) -> dict:
    return {"ok": False, "code": str(code), "message": message, "data": data}


def is_envelope(value: Any) -> bool:
    """True for a tool envelope: a dict with a boolean `ok`, a string `code`, a `message` and a `data` key."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("ok"), bool)
        and isinstance(value.get("code"), str)
        and isinstance(value.get("message"), str)
        and "data" in value
    )
