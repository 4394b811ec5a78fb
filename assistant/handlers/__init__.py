"""The dispatcher's handlers, one module per area; importing this package registers them all in `HANDLERS`."""

from assistant.handlers import activities, aftersale, bookings, handover, plans, travel  # noqa: F401 - registers the handlers
from assistant.handlers.registry import HANDLERS

__all__ = ["HANDLERS"]
