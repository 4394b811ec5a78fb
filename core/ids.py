"""Identifiers, normalised once at the boundary: `" ord-001 "` → `ORD-001`, `" bk20261201001 "` → `BK20261201001`.

Every way in (intent validation, tools, pages, API views, services) uses these, so one id has one spelling.
"""

import re

ORDER_ID_RE = re.compile(r"^ORD-\d{3,}$")
BOOKING_ID_RE = re.compile(r"^BK\d{11,}$")
_ORDER_ID_LOOSE = re.compile(r"ORD-?(\d{3,})")


def normalise_order_id(raw: object) -> str | None:
    """' ord-001 ' → 'ORD-001'; anything that is not an order id → None."""
    if not isinstance(raw, str) or len(raw) > 64:
        return None
    text = raw.strip().upper().replace("_", "-")
    match = _ORDER_ID_LOOSE.fullmatch(text)
    return f"ORD-{match.group(1)}" if match else None


def normalise_booking_id(raw: object) -> str | None:
    """' bk20261201001 ' → 'BK20261201001'; anything that is not a booking id → None."""
    if not isinstance(raw, str) or len(raw) > 64:
        return None
    text = raw.strip().upper()
    return text if BOOKING_ID_RE.fullmatch(text) else None
