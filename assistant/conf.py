"""The settings the assistant reads, in one place, each read when it is asked for (so a test's `settings` override
holds): its own (`ASSISTANT_*`) and the others a turn depends on (the site's language, the supplier's timeout)."""

from django.conf import settings


def llm_provider() -> str:
    """Which model adapter answers (ASSISTANT_LLM_PROVIDER: rules, openai …)."""
    return settings.ASSISTANT_LLM_PROVIDER


def llm_connection() -> tuple:
    """The remote model's (base URL, API key, model, timeout): ASSISTANT_LLM_BASE_URL / _API_KEY / _MODEL / _TIMEOUT."""
    return (
        settings.ASSISTANT_LLM_BASE_URL,
        settings.ASSISTANT_LLM_API_KEY,
        settings.ASSISTANT_LLM_MODEL,
        settings.ASSISTANT_LLM_TIMEOUT,
    )


def llm_api_key() -> str:
    """The model's API key (ASSISTANT_LLM_API_KEY), empty when unset."""
    return getattr(settings, "ASSISTANT_LLM_API_KEY", "") or ""


def agent_enabled() -> bool:
    """Channel 2, the agent loop, serves the turns (ASSISTANT_AGENT_ENABLED)."""
    return settings.ASSISTANT_AGENT_ENABLED


def agent_max_iterations() -> int:
    """How many model calls one agent turn may make (ASSISTANT_AGENT_MAX_ITERATIONS)."""
    return settings.ASSISTANT_AGENT_MAX_ITERATIONS


def agent_max_writes_per_turn() -> int:
    """How many writes one agent turn may ask for (ASSISTANT_AGENT_MAX_WRITES_PER_TURN)."""
    return settings.ASSISTANT_AGENT_MAX_WRITES_PER_TURN


def clarify_below():
    """A reading less sure than this is asked back ("did you mean …?"), not acted on (ASSISTANT_CLARIFY_BELOW)."""
    return settings.ASSISTANT_CLARIFY_BELOW


def daily_turn_limit() -> int:
    """How many turns one traveller may send a day (ASSISTANT_DAILY_TURN_LIMIT)."""
    return settings.ASSISTANT_DAILY_TURN_LIMIT


def session_ttl() -> int:
    """Seconds a conversation's memory is kept in the cache (ASSISTANT_SESSION_TTL)."""
    return settings.ASSISTANT_SESSION_TTL


def pending_action_ttl() -> int:
    """Seconds a confirmation card waits for the traveller's answer (ASSISTANT_PENDING_ACTION_TTL)."""
    return settings.ASSISTANT_PENDING_ACTION_TTL


def platform_timeout():
    """One supplier call's timeout (PLATFORM_TIMEOUT, the bookings app's): a confirmed action's claim outlasts it."""
    return settings.PLATFORM_TIMEOUT


def site_language() -> str:
    """The site's default language (LANGUAGE_CODE)."""
    return settings.LANGUAGE_CODE
