"""How a test points the site's assistant at its scripted model (the `fake_openai` fixture's local server)."""

from tests.support.fake_openai import FakeOpenAI


def use_scripted_model(
    settings,
    server: FakeOpenAI | str,
    *,
    key: str = "sk-test",
    model: str = "scripted-model",
    agent: bool | None = None,
    timeout: float | None = None,
    max_iterations: int | None = None,
    daily_turn_limit: int | None = None,
):
    """The openai provider at `server` (a `FakeOpenAI`, or a base URL, e.g. one where nothing listens) with API key
    `key` and model `model`: a test that checks a key never leaks passes its own. The rest is set only when given, so
    a test keeps whatever it left alone: `agent` (ASSISTANT_AGENT_ENABLED: channel 2), `timeout`
    (ASSISTANT_LLM_TIMEOUT), `max_iterations` (ASSISTANT_AGENT_MAX_ITERATIONS), `daily_turn_limit`
    (ASSISTANT_DAILY_TURN_LIMIT). Gives `settings` back, for a fixture that returns it."""
    settings.ASSISTANT_LLM_PROVIDER = "openai"
    settings.ASSISTANT_LLM_BASE_URL = server if isinstance(server, str) else server.base_url
    settings.ASSISTANT_LLM_API_KEY = key
    settings.ASSISTANT_LLM_MODEL = model
    if agent is not None:
        settings.ASSISTANT_AGENT_ENABLED = agent
    if timeout is not None:
        settings.ASSISTANT_LLM_TIMEOUT = timeout
    if max_iterations is not None:
        settings.ASSISTANT_AGENT_MAX_ITERATIONS = max_iterations
    if daily_turn_limit is not None:
        settings.ASSISTANT_DAILY_TURN_LIMIT = daily_turn_limit
    return settings
