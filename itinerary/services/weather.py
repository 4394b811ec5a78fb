"""The weather report of both chat channels: a place's weather for the days asked, from the weather port.

A scenic spot often has no station of its own: the city it lies in is tried next. A province never stands in for
a place inside it (its capital's weather says little about a spot hundreds of kilometres away), so callers pass a
province only when it is the place asked.
"""

import datetime as dt
from dataclasses import dataclass

from core.envelope import Code
from core.errors import ApplicationError
from itinerary.weather import DayWeather, UnknownPlace, WeatherLookup, WeatherPort, weather_lookup

# The report always covers a week from the first day asked; the answer speaks of the days asked within it.
REPORT_DAYS = 7
# No day named: today and the next two.
DEFAULT_ASKED_DAYS = 3


class UnknownWeatherPlace(ApplicationError):
    """No weather source knows the place (nor the city it was said to be in)."""

    default_code = Code.NOT_FOUND

    def __init__(self, place: str) -> None:
        super().__init__(Code.NOT_FOUND, f"no weather known for {place!r}", {"place": place})
        self.place = place


@dataclass(frozen=True)
class WeatherReportResult:
    place: str  # the place asked (the reply's name for it, even when its city's station answered)
    lookup: WeatherLookup  # the week from `start`: a forecast or climate normals, and why normals stood in
    start: dt.date
    end: dt.date  # the last day asked (inside the week)

    @property
    def asked(self) -> list[DayWeather]:
        return [d for d in self.lookup.report.days if self.start <= d.date <= self.end]


def weather_report(
    *,
    place: str,
    city: str | None = None,
    start: dt.date | None = None,
    end: dt.date | None = None,
    today: dt.date,
    port: WeatherPort | None = None,
) -> WeatherReportResult:
    """The weather at `place` (else at `city`, the city the place is in) for a week from `start` (default: today),
    and which of its days were asked: `start`..`end` within that week, or with no date today and the next two.
    Raises UnknownWeatherPlace when no source knows either name."""
    first = start or today
    found = None
    for candidate in dict.fromkeys(p for p in (place, city) if p):
        try:
            found = weather_lookup(place=candidate, start=first, days=REPORT_DAYS, today=today, port=port)
            break
        except UnknownPlace:
            continue
    if found is None:
        raise UnknownWeatherPlace(place)
    last = (end or first) if start else first + dt.timedelta(days=DEFAULT_ASKED_DAYS - 1)
    last = min(max(last, first), first + dt.timedelta(days=REPORT_DAYS - 1))
    return WeatherReportResult(place=place, lookup=found, start=first, end=last)
