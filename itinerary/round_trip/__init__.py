"""The round trip (PLAN_ITINERARY): compare outbound × hotel × return for a traveller, keep the result, book a plan.

What other apps and the pages call is exported here; the rooms inside are:

- `comparison`: the use case `round_trip_compare` (and `round_trip_problems`, what is wrong with a trip);
- `candidates`: the supplier's searches, as the traveller, turned into the engine's candidates;
- `engine`: `plan_itinerary`, the objective maths (plain Python and NumPy, no Django), over `plan_types` (what it
  is asked and answers), `reading` (checking the request) and `search` (the search over pairs);
- `store`: where plan results are kept (the cache, for ITINERARY_PLAN_TTL seconds);
- `booking`: booking a compared plan (`plan_booking_preview`, `plan_book`), part after part.
"""

from itinerary.round_trip.booking import PlanBookingError, plan_book, plan_booking_preview
from itinerary.round_trip.comparison import (
    RoundTripComparison,
    RoundTripError,
    round_trip_compare,
    round_trip_problems,
)
from itinerary.round_trip.engine import plan_itinerary
from itinerary.round_trip.plan_types import (
    MAX_CANDIDATES,
    PLAN_NAMES,
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    PlanResult,
    TravelPolicy,
)
from itinerary.round_trip.store import PlanStoreError, plan_load, plan_store, plan_summary, plan_ttl

__all__ = [
    "MAX_CANDIDATES",
    "PLAN_NAMES",
    "HotelOption",
    "Leg",
    "PlanBookingError",
    "PlanInputError",
    "PlanRequest",
    "PlanResult",
    "PlanStoreError",
    "RoundTripComparison",
    "RoundTripError",
    "TravelPolicy",
    "plan_book",
    "plan_booking_preview",
    "plan_itinerary",
    "plan_load",
    "plan_store",
    "plan_summary",
    "plan_ttl",
    "round_trip_compare",
    "round_trip_problems",
]
