"""Itinerary planning: the `plan_itinerary` engine (pure maths, no Django) and where its results are kept."""

from itinerary.planning.engine import (
    MAX_CANDIDATES,
    PLAN_NAMES,
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    PlanResult,
    TravelPolicy,
    plan_itinerary,
)
from itinerary.planning.store import PlanStoreError, plan_load, plan_store, plan_summary, plan_ttl

__all__ = [
    "MAX_CANDIDATES",
    "PLAN_NAMES",
    "HotelOption",
    "Leg",
    "PlanInputError",
    "PlanRequest",
    "PlanResult",
    "PlanStoreError",
    "TravelPolicy",
    "plan_itinerary",
    "plan_load",
    "plan_store",
    "plan_summary",
    "plan_ttl",
]
