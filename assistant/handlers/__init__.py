"""The dispatcher's handlers, one module per area; importing this package registers them all."""

from assistant.handlers import activities, aftersale, bookings, plans, travel  # noqa: F401
