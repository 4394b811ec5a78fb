"""Hooks around tool calls: code that runs before (pre-acting) and after (post-acting) every tool the agent calls.

Hooks run for calls the registry let through (valid arguments, and what the call needs: an approver's decision or
the traveller's confirmation, which the registry enforces from the tool's declaration, not a hook). A pre-acting hook
may still stop a call by returning an envelope; the tool is then not run. A post-acting hook is a side effect (record
a booking): it sees the call and its envelope and can change neither; its failures are logged and never reach the
loop. A hook holds no business rule: the service does.

Apps declare hooks in their `tools.py` (`HOOKS: list[Hook]`) next to their tools, so they never import the agent.
"""

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from core.tools import Tool, ToolContext


@dataclass(frozen=True)
class ToolInvocation:
    """One call of one tool, as the hooks see it. `arguments` are already validated against the tool's schema.

    `short_circuited_by` is the name of the pre-acting hook that stopped the call, by answering or by failing
    (post-acting hooks see it; None when the tool itself ran).
    """

    tool: Tool
    arguments: dict[str, Any]
    context: ToolContext
    call_id: str = ""
    short_circuited_by: str | None = None

    @property
    def name(self) -> str:
        return self.tool.name


@runtime_checkable
class HookLike(Protocol):
    """What the registry needs of a hook (any object with these four members will do)."""

    name: str
    priority: int

    def pre_acting(self, call: ToolInvocation) -> dict | None: ...

    def post_acting(self, call: ToolInvocation, result: dict) -> None: ...


class Hook:
    """Base class of hooks: override what you need. Lower `priority` runs first (pre and post alike)."""

    name: str = "hook"
    priority: int = 100

    def pre_acting(self, call: ToolInvocation) -> dict | None:
        """Return an envelope to answer instead of the tool (the tool is then not run), or None to go on."""
        return None

    def post_acting(self, call: ToolInvocation, result: dict) -> None:
        """A side effect after the call; `result` is the envelope the model will see. Never raise on purpose."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} priority={self.priority}>"
