"""Day-by-day travel plans (MAKE_TRAVEL_PLAN): real catalogue activities placed on the days of a trip, with each
day's weather. What other apps call is exported here; the rooms inside are:

- `service`: `travel_plan_for`, the use case both chat channels run (the trip from what the traveller said);
- `planner`: `travel_plan_make`, the choices a plan makes (dates, which activities, where they go, the weather).
"""

from itinerary.travel_plans.planner import (
    DEFAULT_DAYS,
    INDOOR_FIRST,
    MAX_DAYS,
    TravelPlan,
    rain_likely,
    travel_plan_make,
)
from itinerary.travel_plans.service import TravelPlanResult, travel_plan_for

__all__ = [
    "DEFAULT_DAYS",
    "INDOOR_FIRST",
    "MAX_DAYS",
    "TravelPlan",
    "TravelPlanResult",
    "rain_likely",
    "travel_plan_for",
    "travel_plan_make",
]
