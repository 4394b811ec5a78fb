"""Choosing the weather adapter, and asking for a place's weather with the normals as the safety net."""

import datetime as dt
import logging
from dataclasses import dataclass

from itinerary import conf
from itinerary.weather.normals import ClimateNormalsWeather
from itinerary.weather.open_meteo import HORIZON_DAYS, OpenMeteoWeather
from itinerary.weather.port import WeatherPort, WeatherReport, WeatherUnavailable

logger = logging.getLogger("itinerary.weather")

# Open-Meteo's forecast endpoint also answers for the recent past.
PAST_DAYS = 92

UNAVAILABLE = "unavailable"  # the forecast source failed (error, timeout, unreadable answer)
OUT_OF_RANGE = "out_of_range"  # the days lie beyond what a forecast can cover


@dataclass(frozen=True)
class WeatherLookup:
    report: WeatherReport
    fallback: str | None = None  # why climate normals stand in for the forecast; None when nothing fell back


def get_weather_port(provider: str | None = None) -> WeatherPort:
    """The adapter named by `provider` (default: WEATHER_PROVIDER). `normals` works offline."""
    name = provider.lower() if provider else conf.weather_provider()
    if name == "normals":
        return ClimateNormalsWeather()
    if name == "open_meteo":
        return OpenMeteoWeather(base_url=conf.weather_api_url(), timeout=conf.weather_timeout())
    raise ValueError(f"Unknown WEATHER_PROVIDER {name!r}: use 'normals' or 'open_meteo'")


def weather_lookup(
    *, place: str, start: dt.date, days: int, today: dt.date, port: WeatherPort | None = None
) -> WeatherLookup:
    """The weather at `place` for `days` days from `start`, from the configured source. When that source is a
    forecast and it fails, or the days are beyond its reach, the climate normals answer instead and the lookup
    says why. Raises UnknownPlace when no source knows the place."""
    port = port or get_weather_port()
    if port.provider == ClimateNormalsWeather.provider:
        return WeatherLookup(port.forecast(place=place, start=start, days=days))
    normals = ClimateNormalsWeather()
    end = start + dt.timedelta(days=days - 1)
    if start < today - dt.timedelta(days=PAST_DAYS) or end >= today + dt.timedelta(days=HORIZON_DAYS):
        return WeatherLookup(normals.forecast(place=place, start=start, days=days), OUT_OF_RANGE)
    try:
        return WeatherLookup(port.forecast(place=place, start=start, days=days))
    except WeatherUnavailable as exc:
        logger.warning("forecast unavailable, answering with climate normals", extra={"error": str(exc)})
        return WeatherLookup(normals.forecast(place=place, start=start, days=days), UNAVAILABLE)
