"""What a tool is, declared once: a typed function, its risk tier, what a call needs, and a context the model
never sees.

    @tool(risk=Risk.READ)
    def weather_report(context: ToolContext, place: Annotated[str, Field(max_length=40)], date: dt.date | None = None):
        '''The docstring is what the model reads.'''

The JSON schema the model sees is generated from the signature (a pydantic model of every parameter but
`context`); the same model validates and bounds the arguments before the function runs. `needs` says what a call
needs besides valid arguments: nothing (READ) or the traveller's confirmation (WRITE); the agent loop and the
registry enforce it, never a rule keyed on a tool's name. A tool whose risk depends on what it is asked to do (one
supplier command line may search or book) gives `risk_of(arguments)`. An approver's decision is a service's rule,
not a tool's declaration: the service asks `core.approvals.approval_gate` (bookings' cancel above its amount).

Tools live in each app's `tools.py`, return the envelope of `core.envelope` and never raise into the loop.
"""

import datetime as dt
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from core.text import unstorable_in

# Arguments longer than this (as JSON) are refused before they are parsed into a model or reach a query.
MAX_ARGUMENT_CHARS = 8000
CONTEXT_ARGUMENT = "context"


class Risk(StrEnum):
    READ = "READ"
    WRITE = "WRITE"


class Needs(StrEnum):
    """What one call needs before it may run."""

    NOTHING = "NOTHING"
    CONFIRMATION = "CONFIRMATION"  # the traveller's own yes


DEFAULT_NEEDS = {Risk.READ: Needs.NOTHING, Risk.WRITE: Needs.CONFIRMATION}


@dataclass(frozen=True)
class ToolContext:
    """Who is asking, in which conversation and language, and the model port for tools that ask it something.
    Built by code from the authenticated request; never from the model's arguments."""

    user: Any
    conversation_id: str | None = None
    language: str = "zh-hans"
    today: dt.date | None = None
    port: Any = None
    request_text: str = ""
    # One id per chat turn: what a call changes on the supplier is keyed by it, so a call redelivered within the
    # turn (a retried task, a repeated tool call) has one effect while a new turn may book the same thing again.
    turn_id: str = ""
    # The id of the traveller's pending action being carried out: set only by the confirmation service
    # (`assistant.actions`), never by a request or the model; a WRITE runs only with it (issue 13).
    confirmed_action: str = ""

    @property
    def scope(self) -> str | None:
        """The key of what this turn changes on the supplier (one effect per turn), or None outside a turn."""
        return f"turn:{self.turn_id}" if self.turn_id else None


class ToolArgumentsError(ValueError):
    """The arguments cannot be given to the tool; the message says which and why (for the model to correct)."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    func: Callable[..., dict]
    risk: Risk
    needs: Needs
    arguments_model: type[BaseModel]
    risk_of: Callable[[dict], Risk] | None = None
    max_argument_chars: int = MAX_ARGUMENT_CHARS
    tags: frozenset[str] = field(default_factory=frozenset)
    # What a call that needs the traveller's confirmation will do, shown on the confirmation card:
    # (context, validated arguments) -> {"title", "rows": [[label, value], ...], "amount", "terms", "subject"};
    # raises core.errors.ApplicationError to refuse the call before anything is pending.
    preview: Callable[[ToolContext, dict], dict] | None = None

    @property
    def parameters(self) -> dict:
        """The JSON schema of the arguments (what the model sees; never the context)."""
        return _schema(self.arguments_model)

    def schema(self) -> dict:
        """The OpenAI tool-calling schema of this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def validate(self, arguments: Any) -> dict[str, Any]:
        """The arguments, validated, coerced and bounded; raises ToolArgumentsError. Size is checked first, so an
        oversized argument costs no parsing; then that every string is text a database can store (no lone
        surrogate, no NUL), so nothing a tool writes, or the turn's record, fails on it after a change was made."""
        if not isinstance(arguments, dict):
            raise ToolArgumentsError(f"{self.name}: arguments must be a JSON object, got {type(arguments).__name__}")
        size = argument_size(arguments, limit=self.max_argument_chars)
        if size > self.max_argument_chars:
            raise ToolArgumentsError(
                f"{self.name}: arguments are longer than {self.max_argument_chars} characters; nothing was run"
            )
        where = unstorable_in(arguments)
        if where is not None:
            raise ToolArgumentsError(
                f"{self.name}: {where} is not text (it holds a lone surrogate or a NUL character); nothing was run"
            )
        try:
            parsed = self.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolArgumentsError(f"{self.name}: invalid arguments: {_describe(exc)}") from None
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}

    def effective_risk(self, arguments: dict) -> Risk:
        """The risk of this call: `risk_of(arguments)` when the tool declares it, else the tool's tier."""
        if self.risk_of is None:
            return self.risk
        return Risk(self.risk_of(arguments))

    def needs_for(self, arguments: dict) -> Needs:
        """What this call needs: the declared `needs` for a tool of fixed risk, else what its effective risk needs."""
        if self.risk_of is None:
            return self.needs
        return DEFAULT_NEEDS[self.effective_risk(arguments)]

    def run(self, context: ToolContext, arguments: dict) -> dict:
        """Call the function with validated arguments (see `validate`)."""
        return self.func(context, **arguments)


def tool(
    *,
    risk: Risk,
    needs: Needs | None = None,
    name: str | None = None,
    risk_of: Callable[[dict], Risk] | None = None,
    max_argument_chars: int = MAX_ARGUMENT_CHARS,
    tags: tuple[str, ...] = (),
    preview: Callable[[ToolContext, dict], dict] | None = None,
) -> Callable[[Callable[..., dict]], Tool]:
    """Declare a tool from `func(context: ToolContext, **typed arguments) -> envelope`; its docstring is the
    description the model reads, its signature the schema."""

    def wrap(func: Callable[..., dict]) -> Tool:
        tool_name = name or func.__name__
        return Tool(
            name=tool_name,
            description=" ".join((func.__doc__ or tool_name).split()),
            func=func,
            risk=Risk(risk),
            needs=Needs(needs) if needs else DEFAULT_NEEDS[Risk(risk)],
            arguments_model=_arguments_model(tool_name, func),
            risk_of=risk_of,
            max_argument_chars=max_argument_chars,
            tags=frozenset(tags),
            preview=preview,
        )

    return wrap


def _arguments_model(tool_name: str, func: Callable) -> type[BaseModel]:
    signature = inspect.signature(func)
    parameters = list(signature.parameters.values())
    if not parameters or parameters[0].name != CONTEXT_ARGUMENT:
        raise TypeError(f"tool {tool_name!r}: the first parameter must be `{CONTEXT_ARGUMENT}`")
    hints = typing.get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in parameters[1:]:
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(f"tool {tool_name!r}: parameter {parameter.name!r} must be a plain or keyword parameter")
        if parameter.name not in hints:
            raise TypeError(f"tool {tool_name!r}: parameter {parameter.name!r} needs a type annotation")
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    model_name = "".join(part.title() for part in tool_name.split("_")) + "Arguments"
    return create_model(model_name, __config__=ConfigDict(extra="forbid", str_strip_whitespace=True), **fields)


def _schema(model: type[BaseModel]) -> dict:
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in (schema.get("properties") or {}).values():
        prop.pop("title", None)
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def _describe(exc: ValidationError, limit: int = 3) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    parts = []
    for error in errors[:limit]:
        where = "/".join(str(part) for part in error.get("loc", ()))
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


def argument_size(value: Any, *, limit: int) -> int:
    """How many characters `value` takes as JSON, counting only until `limit` is passed (so a huge or deeply
    nested argument costs at most `limit` steps, never a recursion error)."""
    size, stack = 0, [value]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, dict):
            size += 2 + sum(len(str(key)) + 4 for key in item)
            if size <= limit:
                stack.extend(item.values())
        elif isinstance(item, list | tuple):
            size += 2 + len(item)
            if size <= limit:
                stack.extend(item)
        elif isinstance(item, str):
            size += len(item) + 2
        else:
            size += len(json.dumps(item, default=str))
    return size
