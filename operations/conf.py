"""The settings the operations page and /metrics read (config/settings/observability.py defines them), read here
only, at each use: a test or a deployment that changes one sees it at once."""

from decimal import Decimal

from django.conf import settings


def llm_price_per_1k_tokens() -> Decimal:
    """The model's price per 1,000 tokens (prompt and completion alike), for the estimated cost on the page."""
    return Decimal(settings.LLM_PRICE_PER_1K_TOKENS)


def metrics_token() -> str:
    """The bearer token a Prometheus scrape sends to /metrics ("" when none is set: staff only)."""
    return settings.METRICS_TOKEN
