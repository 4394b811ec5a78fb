"""TripDesk's Chinese date formats (Django's own for everything else): a day without leading zeros."""

MONTH_DAY_FORMAT = "n月j日"  # 12月2日
SHORT_DATETIME_FORMAT = "n月j日 H:i"  # 12月2日 17:00
