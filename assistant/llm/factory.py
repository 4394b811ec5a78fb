"""Choose the LLM port adapter from settings (ASSISTANT_LLM_PROVIDER)."""

from django.conf import settings

from assistant.llm.port import LLMPort


def get_llm_port(provider: str | None = None) -> LLMPort:
    """The adapter named by `provider` (default: the setting). `rules` needs no key and works offline."""
    name = (provider or settings.ASSISTANT_LLM_PROVIDER).lower()
    if name == "rules":
        from assistant.llm.rules import RulesLLM

        return RulesLLM()
    if name == "openai":
        from assistant.llm.openai_adapter import OpenAILLM

        return OpenAILLM(
            base_url=settings.ASSISTANT_LLM_BASE_URL,
            api_key=settings.ASSISTANT_LLM_API_KEY,
            model=settings.ASSISTANT_LLM_MODEL,
            timeout=settings.ASSISTANT_LLM_TIMEOUT,
        )
    raise ValueError(f"Unknown ASSISTANT_LLM_PROVIDER {name!r}: use 'rules' or 'openai'")
