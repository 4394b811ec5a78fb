"""TripDesk's English date formats (Django's own for everything else): short, as a chat reply says a day."""

MONTH_DAY_FORMAT = "M j"  # Dec 2
SHORT_DATETIME_FORMAT = "M j, H:i"  # Dec 2, 17:00
