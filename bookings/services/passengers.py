"""Who travels: the passengers as the supplier takes them, and who travels on a booking (to book them again)."""

import re

from bookings.models import BookingRecord
from bookings.selectors import booking_facts
from bookings.services.errors import BookingError
from core.envelope import Code

MOBILE_DIGITS_RE = re.compile(r"\D")


MOBILE_OK_RE = re.compile(r"^1\d{10}$")


MAX_PASSENGERS = 9


def _mobile(value: object) -> str:
    digits = MOBILE_DIGITS_RE.sub("", str(value or ""))
    if len(digits) == 13 and digits.startswith("86"):
        digits = digits[2:]
    return digits


def passengers_checked(passengers: object) -> list[dict]:
    """The passengers as the supplier takes them: each a name, the first (the contact) with a valid mobile.

    Raises BookingError INVALID_PARAM whose message and `data.missing` name what is missing ("name", "mobile").
    """
    people = [p for p in passengers if isinstance(p, dict)] if isinstance(passengers, list | tuple) else []
    if not people:
        raise BookingError(
            Code.INVALID_PARAM,
            "who travels: the passenger's name and mobile number are missing; nothing was booked",
            {"missing": ["name", "mobile"]},
        )
    if len(people) > MAX_PASSENGERS:
        raise BookingError(Code.INVALID_PARAM, f"at most {MAX_PASSENGERS} passengers per booking")
    checked, missing = [], []
    for index, person in enumerate(people):
        name = " ".join(str(person.get("name") or "").split())[:40]
        mobile = _mobile(person.get("mobile"))
        if not name and "name" not in missing:
            missing.append("name")
        if mobile and not MOBILE_OK_RE.match(mobile):
            raise BookingError(
                Code.INVALID_PARAM,
                f"{mobile} is not a mobile number (11 digits starting with 1)",
                {"invalid": ["mobile"]},
            )
        if index == 0 and not mobile:
            missing.append("mobile")
        checked.append({"name": name, "mobile": mobile or None})
    if missing:
        words = {"name": "the passenger's name", "mobile": "the contact's mobile number"}
        raise BookingError(
            Code.INVALID_PARAM,
            f"missing {' and '.join(words[m] for m in missing)}; nothing was booked",
            {"missing": missing},
        )
    return checked


def booking_travellers(booking: BookingRecord) -> list[dict]:
    """Who travels on a booking, with the contact's mobile (for booking them again)."""
    contact = booking.contact or {}
    if isinstance(contact.get("travellers"), list) and contact["travellers"]:
        return [dict(p) for p in contact["travellers"] if isinstance(p, dict)]
    names = booking_facts(booking)["passengers"] or [contact.get("name") or ""]
    mobile = contact.get("mobile")
    return [{"name": n, "mobile": mobile if i == 0 else None} for i, n in enumerate(names)]
