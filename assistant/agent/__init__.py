"""Channel 2: the agent loop, the tool registry and the hooks around tool calls (see DESIGN.md, "Tools")."""

from assistant.agent.hooks import Hook, ToolInvocation
from assistant.agent.loop import AgentResult, AgentStep, run_agent
from assistant.agent.registry import PreparedCall, ToolRegistry, build_registry, default_registry, may_write_now

__all__ = [
    "AgentResult",
    "AgentStep",
    "Hook",
    "PreparedCall",
    "ToolInvocation",
    "ToolRegistry",
    "build_registry",
    "default_registry",
    "may_write_now",
    "run_agent",
]
