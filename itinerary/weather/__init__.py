"""The weather port (DESIGN.md: itinerary owns the weather): one interface, two adapters, one lookup.

from itinerary.weather import weather_lookup, UnknownPlace
found = weather_lookup(place="三亚", start=today, days=7, today=today)
found.report.kind  # "forecast" or "climate_normals"; found.fallback says why normals stood in
"""

from itinerary.weather.lookup import OUT_OF_RANGE, UNAVAILABLE, WeatherLookup, get_weather_port, weather_lookup
from itinerary.weather.normals import ClimateNormalsWeather, climate_table
from itinerary.weather.open_meteo import OpenMeteoWeather
from itinerary.weather.port import (
    CLIMATE_NORMALS,
    FORECAST,
    DayWeather,
    UnknownPlace,
    WeatherError,
    WeatherPort,
    WeatherReport,
    WeatherUnavailable,
)

__all__ = [
    "CLIMATE_NORMALS",
    "FORECAST",
    "OUT_OF_RANGE",
    "UNAVAILABLE",
    "ClimateNormalsWeather",
    "DayWeather",
    "OpenMeteoWeather",
    "UnknownPlace",
    "WeatherError",
    "WeatherLookup",
    "WeatherPort",
    "WeatherReport",
    "WeatherUnavailable",
    "climate_table",
    "get_weather_port",
    "weather_lookup",
]
