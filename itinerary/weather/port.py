"""The weather port: what TripDesk asks of any weather source, and what it gets back.

Two adapters implement it: `normals` (offline monthly climate normals from a shipped file) and `open_meteo`
(a real forecast over HTTP). A report always says which kind it is, so a climate normal is never shown as a forecast.
"""

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal, Protocol

FORECAST = "forecast"
CLIMATE_NORMALS = "climate_normals"
ReportKind = Literal["forecast", "climate_normals"]


class WeatherError(Exception):
    """Base of the weather port's errors."""


class WeatherUnavailable(WeatherError):
    """The weather source did not answer usably (HTTP error, timeout, unreadable answer)."""


class UnknownPlace(WeatherError):
    """The place is not one TripDesk has weather for."""

    def __init__(self, place: str) -> None:
        super().__init__(f"no weather known for {place!r}")
        self.place = place


@dataclass(frozen=True)
class DayWeather:
    date: dt.date
    condition: str  # English label, e.g. "Partly cloudy"
    condition_zh: str  # e.g. "多云"
    temp_min_c: float
    temp_max_c: float
    precipitation_mm: float | None  # None when the forecast gives no amount
    precipitation_probability: int | None  # percent; for normals, the month's share of wet days
    code: str = ""  # the condition's key, e.g. "partly_cloudy"


@dataclass(frozen=True)
class WeatherReport:
    place: str  # as asked
    source: str  # the adapter: "normals" or "open_meteo"
    kind: ReportKind
    source_note: str  # where the numbers come from, in English
    days: list[DayWeather]
    source_note_zh: str = ""
    station: str = ""  # the place whose numbers these are (a scenic spot's city, a province's capital)
    station_en: str = ""
    place_note: str = ""  # a caveat about the place (altitude, typhoons), English
    place_note_zh: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def is_forecast(self) -> bool:
        return self.kind == FORECAST


class WeatherPort(Protocol):
    provider: str

    def forecast(self, *, place: str, start: dt.date, days: int) -> WeatherReport:
        """The weather at `place` for `days` days from `start`. Raises UnknownPlace or WeatherUnavailable."""
        ...
