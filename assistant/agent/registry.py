"""The tool registry: which tools the agent may call, their schemas, and one guarded way to call them.

`ToolRegistry.call` never raises into the loop. In order: an unknown tool → UNKNOWN_TOOL; arguments the tool's
signature does not accept, or too long → INVALID_PARAM (nothing parsed further, the tool not run); then what the
call needs (`Tool.needs_for`, see `call_permission`): the traveller's confirmation → `may_write_now` (a pending
action, unless the confirmation service is carrying one out); then
pre-acting hooks by priority (one may answer instead of the tool); the tool
itself (an exception or a non-envelope answer → INTERNAL_ERROR, logged); post-acting hooks by priority (side
effects, failures logged and swallowed). Nothing here is keyed on a tool's name: what a tool needs is declared on it.

Apps declare `TOOLS` (and `HOOKS`) in their own `tools.py`; `default_registry()` collects them, so no app imports
the agent.
"""

import importlib
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from assistant.agent.hooks import HookLike, ToolInvocation
from assistant.agent.steps import step_record
from assistant.pending import pending_action_create, pending_action_executing
from core.envelope import Code, fail, is_envelope
from core.errors import ApplicationError
from core.tools import Needs, Risk, Tool, ToolArgumentsError, ToolContext

logger = logging.getLogger("assistant.agent")

# The modules where apps declare their tools; a module that does not exist (yet) is skipped.
APP_TOOL_MODULES = ("itinerary.tools", "bookings.tools", "aftersale.tools", "assistant.tools")
# The kind of the envelope answering a write that waits for the traveller's yes (the confirmation card).
CONFIRMATION_KIND = "confirmation"
# How much of an unknown tool name is repeated back to the model.
NAME_ECHO_CHARS = 64


@dataclass(frozen=True)
class PreparedCall:
    """A call whose tool exists and whose arguments are valid: what it is, what it risks and what it needs."""

    tool: Tool
    arguments: dict[str, Any]
    risk: Risk
    needs: Needs

    @property
    def changes_something(self) -> bool:
        return self.risk != Risk.READ


class ToolRegistry:
    """Tools by name, in registration order, with the hooks that run around every call."""

    def __init__(self, tools: Iterable[Tool] = (), hooks: Iterable[HookLike] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._hooks: list[HookLike] = []
        for tool in tools:
            self.register(tool)
        for hook in hooks:
            self.add_hook(hook)

    def __repr__(self) -> str:
        return f"ToolRegistry(tools={list(self._tools)}, hooks={[h.name for h in self._hooks]})"

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    # -- building ----------------------------------------------------------------------------------------------

    def register(self, tool: Tool) -> Tool:
        """Add a tool (declared with `core.tools.tool`; its schema comes from its signature)."""
        if not isinstance(tool, Tool):
            raise TypeError(f"not a Tool: {tool!r} (declare it with core.tools.tool)")
        existing = self._tools.get(tool.name)
        if existing is not None:
            if existing is tool:
                return tool
            raise ValueError(f"a different tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def add_hook(self, hook: HookLike) -> HookLike:
        """Add a hook; hooks run by `priority` (lower first), equal priorities in the order they were added."""
        if not isinstance(hook, HookLike) or not isinstance(hook.priority, int):
            raise TypeError(f"not a hook: {hook!r} (needs name, an int priority, pre_acting and post_acting)")
        if hook not in self._hooks:
            self._hooks.append(hook)
        return hook

    def scoped(self, names: Iterable[str]) -> "ToolRegistry":
        """A registry holding only the named tools (an unknown name is a KeyError), with the same hooks."""
        names = list(names)
        unknown = [name for name in names if name not in self._tools]
        if unknown:
            raise KeyError(f"no such tools: {', '.join(unknown)}")
        scoped = ToolRegistry()
        for name in names:
            scoped._tools[name] = self._tools[name]
        scoped._hooks = list(self._hooks)
        return scoped

    # -- reading -----------------------------------------------------------------------------------------------

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    @property
    def hooks(self) -> list[HookLike]:
        """The hooks in the order they run."""
        return sorted(self._hooks, key=lambda hook: hook.priority)  # sorted() is stable: ties keep their order

    def schemas(self, names: Iterable[str] | None = None) -> list[dict]:
        """The OpenAI tool schemas of all tools (or of the named ones that exist), in registration order."""
        wanted = None if names is None else set(names)
        return [tool.schema() for name, tool in self._tools.items() if wanted is None or name in wanted]

    # -- calling -----------------------------------------------------------------------------------------------

    def prepare(self, name: str, arguments: Any) -> PreparedCall | dict:
        """The call checked before anything runs: a PreparedCall, or the envelope refusing it (unknown tool,
        invalid or oversized arguments, a risk that cannot be told)."""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            shown = str(name)[:NAME_ECHO_CHARS]
            return fail(Code.UNKNOWN_TOOL, f"there is no tool named {shown!r}; available tools: {available}")
        try:
            validated = tool.validate(arguments)
        except ToolArgumentsError as exc:
            return fail(Code.INVALID_PARAM, str(exc))
        try:
            risk, needs = tool.effective_risk(validated), tool.needs_for(validated)
        except Exception:
            logger.exception("tool %s could not tell the risk of a call; it was not run", tool.name)
            return fail(Code.INVALID_PARAM, f"{tool.name}: what this call would do cannot be told; nothing was run")
        return PreparedCall(tool=tool, arguments=validated, risk=risk, needs=needs)

    def call(self, name: str, arguments: Any, context: ToolContext, call_id: str = "") -> dict:
        """Run one tool call through validation, its needs and the hooks; always returns an envelope, never
        raises. A call made by code (channel 1's handlers, a confirmed action): recorded as a step of the turn
        (iteration 0; channel 2's loop records the calls the model asked for itself)."""
        started = time.perf_counter()
        prepared = self.prepare(name, arguments)
        if not isinstance(prepared, PreparedCall):
            envelope = prepared
        else:
            envelope = self.call_prepared(prepared, context, call_id=call_id)
        step_record(tool=name, arguments=arguments, envelope=envelope, started=started)
        return envelope

    def call_prepared(self, prepared: PreparedCall, context: ToolContext, call_id: str = "") -> dict:
        """Run a call `prepare` accepted: what it needs first, then the hooks and the tool."""
        refusal = call_permission(prepared, context)
        if refusal is not None:
            return refusal
        tool = prepared.tool
        invocation = ToolInvocation(tool=tool, arguments=prepared.arguments, context=context, call_id=call_id)
        hooks = self.hooks

        result, stopped_by = self._pre_acting(hooks, invocation)
        if result is None:
            result = _run(tool, invocation)
        else:
            invocation = replace(invocation, short_circuited_by=stopped_by)

        for hook in hooks:
            try:
                hook.post_acting(invocation, result)
            except Exception:  # a side effect never breaks the loop
                logger.exception("post-acting hook %s failed after tool %s (call %s)", hook.name, tool.name, call_id)
        return result

    def _pre_acting(self, hooks: list[HookLike], invocation: ToolInvocation) -> tuple[dict | None, str | None]:
        """(envelope, hook name) when a hook stopped the call (by answering or by failing); (None, None) to run
        the tool."""
        for hook in hooks:
            try:
                answer = hook.pre_acting(invocation)
            except Exception:
                logger.exception(
                    "pre-acting hook %s failed before tool %s; the tool was not run", hook.name, invocation.name
                )
                return fail(Code.INTERNAL_ERROR, f"{invocation.name} was not run: a check before it failed"), hook.name
            if answer is None:
                continue
            if not is_envelope(answer):
                logger.error(
                    "pre-acting hook %s answered a %s, not an envelope; tool %s not run",
                    hook.name,
                    type(answer).__name__,
                    invocation.name,
                )
                return fail(Code.INTERNAL_ERROR, f"{invocation.name} was not run: a check before it failed"), hook.name
            return answer, hook.name
        return None, None


# -- what a call needs -------------------------------------------------------------------------------------------


def call_permission(prepared: PreparedCall, context: ToolContext) -> dict | None:
    """None when the call may run now; otherwise the envelope that answers it instead (the tool is not run)."""
    if prepared.needs == Needs.CONFIRMATION:
        return may_write_now(prepared, context)
    return None


def may_write_now(prepared: PreparedCall, context: ToolContext) -> dict | None:
    """Whether a call that needs the traveller's confirmation may run now: None (yes) or the envelope answering it.

    It runs only when the confirmation service carries out the traveller's pending action: `confirmed_action`
    names an action of this user, for this tool and these arguments, claimed for execution (checked in the
    database, not trusted as a string). Otherwise nothing runs: for a signed-in traveller, in a conversation, in a
    turn the traveller sent, the tool's `preview` describes the call and it becomes a pending action, answered
    CONFIRMATION_REQUIRED with the preview (the confirmation card). A preview that refuses (ApplicationError) is
    the answer, and nothing is pending; a tool without a preview cannot be confirmed, so it is refused.
    """
    tool = prepared.tool
    user = context.user
    if not (getattr(user, "is_authenticated", False) and getattr(user, "pk", None)):
        return fail(Code.PERMISSION_DENIED, f"{tool.name} changes something: only a signed-in traveller may")
    if context.confirmed_action:
        if pending_action_executing(
            user=user, pending_id=context.confirmed_action, tool=tool.name, arguments=prepared.arguments
        ):
            return None
        logger.warning("tool %s called with a confirmation that is not being carried out; not run", tool.name)
        return fail(Code.PERMISSION_DENIED, f"{tool.name}: that is not a confirmed action of yours; nothing was run")
    if not context.conversation_id:
        return fail(
            Code.PERMISSION_DENIED, f"{tool.name} changes something: it needs the traveller's confirmation in a chat"
        )
    if not (context.request_text or "").strip():
        return fail(
            Code.PERMISSION_DENIED,
            f"{tool.name} changes something: it runs only in a turn the traveller sent; nothing was run",
        )
    if tool.preview is None:
        return fail(Code.PERMISSION_DENIED, f"{tool.name} cannot be shown to the traveller to confirm; nothing was run")
    try:
        preview = tool.preview(context, prepared.arguments)
    except ApplicationError as exc:
        return exc.envelope()
    except Exception:
        logger.exception("tool %s could not describe a call for confirmation; it was not run", tool.name)
        return fail(Code.INTERNAL_ERROR, f"{tool.name} was not run: what it would do could not be shown")
    if not isinstance(preview, dict):
        logger.error("tool %s gave a %s preview, not a dict; not run", tool.name, type(preview).__name__)
        return fail(Code.INTERNAL_ERROR, f"{tool.name} was not run: what it would do could not be shown")
    try:
        action = pending_action_create(
            user=user,
            conversation_id=context.conversation_id,
            tool=tool.name,
            arguments=prepared.arguments,
            preview=preview,
            turn_id=context.turn_id,
        )
    except ApplicationError as exc:
        return exc.envelope()
    return fail(
        Code.CONFIRMATION_REQUIRED,
        "Nothing was done yet: the traveller must confirm.",
        {
            "kind": CONFIRMATION_KIND,
            "pending_id": str(action.pk),
            "tool": tool.name,
            "preview": action.preview,
            "expires_at": action.expires_at.isoformat(),
        },
    )


def _run(tool: Tool, invocation: ToolInvocation) -> dict:
    try:
        result = tool.run(invocation.context, invocation.arguments)
    except Exception:
        logger.exception("tool %s raised (call %s)", tool.name, invocation.call_id)
        return fail(Code.INTERNAL_ERROR, f"{tool.name} failed with an internal error; nothing further is known")
    if not is_envelope(result):
        logger.error(
            "tool %s returned %s, not an envelope (call %s)", tool.name, type(result).__name__, invocation.call_id
        )
        return fail(Code.INTERNAL_ERROR, f"{tool.name} gave an unusable answer")
    return result


# -- the default registry -------------------------------------------------------------------------------------------

_default: ToolRegistry | None = None
_default_lock = threading.Lock()


def build_registry(module_names: Iterable[str] = APP_TOOL_MODULES) -> ToolRegistry:
    """A registry of the `TOOLS` and `HOOKS` that the named modules declare; modules that do not exist are skipped.

    Only the absence of the module itself is forgiven: an ImportError inside an existing module propagates.
    """
    registry = ToolRegistry()
    for module_name in module_names:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
                logger.debug("no tools module %s; skipped", module_name)
                continue
            raise
        for tool in getattr(module, "TOOLS", ()):
            registry.register(tool)
        for hook in getattr(module, "HOOKS", ()):
            registry.add_hook(hook)
    return registry


def default_registry() -> ToolRegistry:
    """The registry of every app's tools and hooks, built on first use and then shared."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = build_registry(APP_TOOL_MODULES)
    return _default


def reset_default_registry() -> None:
    """Forget the default registry (tests that change which tools exist)."""
    global _default
    with _default_lock:
        _default = None
