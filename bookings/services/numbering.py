"""Booking numbers: `BK` + the local date + random digits from the OS's secure generator (nothing about one number
tells another)."""

import datetime as dt
import secrets

# Booking numbers: the date, then this many random digits; a clash with an existing number is retried this often.
BOOKING_NUMBER_DIGITS = 10


BOOKING_NUMBER_ATTEMPTS = 8


def _random_digits() -> str:
    """The random part of a booking number, from the OS's secure generator: nothing about one number tells
    another (a sequence would let anyone guess their neighbours' numbers)."""
    return f"{secrets.randbelow(10**BOOKING_NUMBER_DIGITS):0{BOOKING_NUMBER_DIGITS}d}"


def new_booking_id(day: dt.date) -> str:
    """`BK` + the local date + BOOKING_NUMBER_DIGITS random digits, e.g. BK202612017305118264 (matches
    `core.ids.BOOKING_ID_RE`). Uniqueness is the column's unique constraint: a clash is retried with new digits."""
    return f"BK{day:%Y%m%d}{_random_digits()}"
