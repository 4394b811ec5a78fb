"""The itinerary app's use cases, one module per concern:

- `catalogue`: writes to the activity catalogue (`activity_save` keeps system tags in line);
- the read use cases of both chat channels (activity search and detail, weather report, travel plan, round-trip
  comparison) live beside it, each in its own module, and are re-exported here.
"""

from itinerary.services.catalogue import (
    BACKFILL_BATCH_SIZE,
    activity_create,
    activity_save,
    activity_system_tags_backfill,
)

__all__ = ["BACKFILL_BATCH_SIZE", "activity_create", "activity_save", "activity_system_tags_backfill"]
