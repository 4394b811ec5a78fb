"""Choose the LLM port adapter from settings (ASSISTANT_LLM_PROVIDER), one instance per configuration.

The port imports no app: what the `rules` engine needs to know about the catalogue (its place names) reaches it in
each call's `UnderstandContext.places`, read by the caller (`assistant.selectors.catalogue_places`).
"""

from functools import cache

from assistant import conf
from assistant.llm.port import LLMPort

# The provider of the offline engine: the default, and the stand-in whenever a model fails.
OFFLINE = "rules"


def is_offline(port: LLMPort) -> bool:
    """Whether the port is the offline engine itself (no model behind it)."""
    return str(port.provider).lower() == OFFLINE


def get_llm_port(provider: str | None = None) -> LLMPort:
    """The adapter named by `provider` (default: the setting). `rules` needs no key and works offline."""
    name = (provider or conf.llm_provider()).lower()
    return _build(name, *conf.llm_connection())


@cache
def _build(name: str, base_url: str, api_key: str, model: str, timeout: float) -> LLMPort:
    """Adapters hold a connection pool (openai) or loaded gazetteers (rules): build each configuration once."""
    if name == OFFLINE:
        from assistant.llm.rules import RulesLLM

        return RulesLLM()
    if name == "openai":
        from assistant.llm.openai_adapter import OpenAILLM

        return OpenAILLM(
            base_url=base_url,
            api_key=api_key,
            model=model,
            timeout=timeout,
        )
    raise ValueError(f"Unknown ASSISTANT_LLM_PROVIDER {name!r}: use 'rules' or 'openai'")
