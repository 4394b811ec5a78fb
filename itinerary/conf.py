"""The Django settings the itinerary app reads, in one place, read when asked (so a test's `settings` override holds).

Every setting of the app is a function here; the app's code calls these instead of reading `django.conf.settings`.
Django's own settings (LANGUAGE_CODE, AUTH_USER_MODEL, DATA_UPLOAD_MAX_MEMORY_SIZE) and django-modeltranslation's
languages are read where Django's API needs them.
"""

from django.conf import settings


def plan_ttl() -> int:
    """How long a compared round-trip plan stays retrievable, in seconds: ITINERARY_PLAN_TTL (3600 by default)."""
    return int(getattr(settings, "ITINERARY_PLAN_TTL", 3600))


def weather_provider() -> str:
    """The weather adapter, `normals` (offline) or `open_meteo`: WEATHER_PROVIDER (`normals` when blank)."""
    return (settings.WEATHER_PROVIDER or "normals").lower()


def weather_api_url() -> str:
    """The forecast API `open_meteo` asks: WEATHER_API_URL."""
    return settings.WEATHER_API_URL


def weather_timeout():
    """Seconds one forecast request may take: WEATHER_TIMEOUT."""
    return settings.WEATHER_TIMEOUT
