"""The `rules` adapter of the LLM port: deterministic understanding for Chinese and English, offline."""

from assistant.llm.rules.engine import RulesLLM

__all__ = ["RulesLLM"]
