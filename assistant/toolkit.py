"""What a tool is: a plain typed function with a JSON schema, a risk tier, and a context the model never sees.

Tools live in each app's `tools.py` and return the envelope of DESIGN.md; the registry and the agent loop
(`assistant.agent`) call them. This module imports no app, so any app may define tools.
"""

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

logger = logging.getLogger(__name__)


class Risk(StrEnum):
    READ = "READ"
    WRITE = "WRITE"
    HIGH = "HIGH"


class Code(StrEnum):
    """Envelope codes used across the apps."""

    OK = "OK"
    INVALID_PARAM = "INVALID_PARAM"
    BOOKING_NOT_FOUND = "BOOKING_NOT_FOUND"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    PLATFORM_CANCEL_FAILED = "PLATFORM_CANCEL_FAILED"
    PLATFORM_UNAVAILABLE = "PLATFORM_UNAVAILABLE"
    PLATFORM_REJECTED = "PLATFORM_REJECTED"
    ORDER_NOT_FOUND = "ORDER_NOT_FOUND"
    ORDER_NOT_OWNED = "ORDER_NOT_OWNED"
    INELIGIBLE = "INELIGIBLE"
    TICKET_PENDING = "TICKET_PENDING"
    RATE_LIMITED = "RATE_LIMITED"
    LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    DUPLICATE_CALL = "DUPLICATE_CALL"


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


@dataclass(frozen=True)
class ToolContext:
    """Who is asking, in which conversation and language. Built by code from the authenticated request;
    never from the model's arguments."""

    user: Any
    conversation_id: str | None = None
    language: str = "zh-hans"
    today: dt.date | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict
    risk: Risk
    func: Callable[..., dict]
    tags: frozenset[str] = field(default_factory=frozenset)

    def schema(self) -> dict:
        """The OpenAI tool-calling schema of this tool (what the model sees; never the context)."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def tool(*, name: str, parameters: dict, risk: Risk, tags: tuple[str, ...] = ()) -> Callable[[Callable], Tool]:
    """Declare a tool: `func(context: ToolContext, **arguments) -> envelope`; its docstring is the description."""

    def wrap(func: Callable[..., dict]) -> Tool:
        description = " ".join((func.__doc__ or name).split())
        return Tool(
            name=name, description=description, parameters=parameters, risk=risk, func=func, tags=frozenset(tags)
        )

    return wrap
