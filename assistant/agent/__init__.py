"""Channel 2: the agent loop, the tool registry and the hooks around tool calls (see DESIGN.md, "Tools")."""

from assistant.agent.hooks import Hook, ToolInvocation
from assistant.agent.loop import AgentResult, AgentStep, LLMCallRecord, collect_cards, run_agent
from assistant.agent.registry import ToolRegistry, build_registry, default_registry

__all__ = [
    "AgentResult",
    "AgentStep",
    "Hook",
    "LLMCallRecord",
    "ToolInvocation",
    "ToolRegistry",
    "build_registry",
    "collect_cards",
    "default_registry",
    "run_agent",
]
