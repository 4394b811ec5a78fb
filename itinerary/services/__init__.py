"""The itinerary app's use cases, one module per concern:

- `catalogue`: writes to the activity catalogue (`activity_save` keeps system tags in line);
- `activities`: activity search, recommendation and detail, personalised for the user;
- `weather`: the weather report of a place for the days asked;
- the round trip (comparison, engine, plan store, plan booking) and the day-by-day travel plans are packages of
  their own, `itinerary.round_trip` and `itinerary.travel_plans`.

Both chat channels call these (through `itinerary.tools`), as do the pages.
"""

from itinerary.services.activities import (
    ActivityError,
    ActivityKinds,
    ActivityRecommendation,
    ActivitySearchResult,
    activity_detail,
    activity_recommend,
    activity_search_for,
)
from itinerary.services.catalogue import (
    BACKFILL_BATCH_SIZE,
    activity_create,
    activity_save,
    activity_system_tags_backfill,
)
from itinerary.services.weather import UnknownWeatherPlace, WeatherReportResult, weather_report

__all__ = [
    "BACKFILL_BATCH_SIZE",
    "ActivityError",
    "ActivityKinds",
    "ActivityRecommendation",
    "ActivitySearchResult",
    "UnknownWeatherPlace",
    "WeatherReportResult",
    "activity_create",
    "activity_detail",
    "activity_recommend",
    "activity_save",
    "activity_search_for",
    "activity_system_tags_backfill",
    "weather_report",
]
