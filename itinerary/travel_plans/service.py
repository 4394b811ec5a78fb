"""The day-by-day travel plan of both chat channels, over `planner.travel_plan_make`."""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from itinerary.matching import viewer_for
from itinerary.services.activities import ActivityKinds
from itinerary.travel_plans.planner import DEFAULT_DAYS, TravelPlan, travel_plan_make
from itinerary.weather import WeatherPort


@dataclass(frozen=True)
class TravelPlanResult:
    plan: TravelPlan
    province: str | None = None  # the province as asked (a wider place to suggest when nothing fits)
    max_price: int | None = None


def travel_plan_for(
    *,
    user,
    today: dt.date,
    destination: str,
    keywords: Sequence[str] | None = None,
    city: str | None = None,
    province: str | None = None,
    days: int | None = None,
    start: dt.date | None = None,
    end: dt.date | None = None,
    max_price: int | None = None,
    cheapest_first: bool = False,
    kinds: ActivityKinds | None = None,
    weather_port: WeatherPort | None = None,
) -> TravelPlanResult:
    """A plan of `days` days at `destination` (from `start`/`end` when no number of days is given, else
    DEFAULT_DAYS) with the activities `user` may join. Activities come from the keywords, else the city or the
    province, else the destination itself; the weather from the destination, else the city it lies in."""
    keywords = [k for k in (keywords or []) if k]
    if not keywords and destination not in (city, province):
        keywords = [destination]  # a destination named alone is searched like a keyword
    if not days and start and end:
        days = abs((end - start).days) + 1
        start = min(start, end)
    # A scenic spot's weather is its city's when it has no station of its own.
    weather_places = [destination, city]
    plan = travel_plan_make(
        destination=destination,
        today=today,
        keywords=keywords,
        province=province if not keywords else None,
        city=city if not keywords else None,
        start=start,
        days=days or DEFAULT_DAYS,
        max_price=max_price,
        cheapest_first=cheapest_first,
        kinds=kinds,
        viewer=viewer_for(user=user, today=today),
        weather_places=list(dict.fromkeys(p for p in weather_places if p)),
        weather_port=weather_port,
    )
    return TravelPlanResult(plan=plan, province=province or None, max_price=max_price)
