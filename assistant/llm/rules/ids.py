"""Identifiers in free text: order ids (ORD-001), booking ids (BK + 11 digits, also typed with the day set apart:
BK-20261128-0042), and numbers that are not money
(phone numbers, flight and train numbers) so the budget parser can skip them."""

import re

from core.ids import normalise_booking_id, normalise_order_id

ORDER_ID_RE = re.compile(r"(?<![A-Za-z0-9])ord[-_ ]?(\d{3,})(?!\d)", re.IGNORECASE)
BOOKING_ID_RE = re.compile(r"(?<![A-Za-z0-9])bk[-_ ]?(\d{8}[-_ ]?\d{3,}|\d{11,})(?!\d)", re.IGNORECASE)
PHONE_RE = re.compile(r"(?<!\d)(?:\+?86[- ]?)?1[3-9]\d[- ]?\d{4}[- ]?\d{4}(?!\d)")
# Flight numbers (CA1501, MU 5101) and train numbers (G1234, D301, K1178).
CODE_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z][A-Z0-9]\s?\d{3,4}|[GDCZTKYL]\d{1,5})(?![A-Za-z0-9])")
ID_NUMBER_RE = re.compile(r"(?<!\d)\d{15,18}[\dXx]?(?!\d)")


def find_order_id(text: str) -> tuple[str | None, tuple[int, int] | None]:
    match = ORDER_ID_RE.search(text)
    if not match:
        return None, None
    return normalise_order_id(f"ORD-{match.group(1)}"), match.span()


def find_booking_id(text: str) -> tuple[str | None, tuple[int, int] | None]:
    match = BOOKING_ID_RE.search(text)
    if not match:
        return None, None
    return normalise_booking_id("BK" + re.sub(r"[-_ ]", "", match.group(1))), match.span()


def non_money_spans(text: str) -> list[tuple[int, int]]:
    """Spans of phone numbers, flight/train numbers and ID-card numbers."""
    spans = [m.span() for m in PHONE_RE.finditer(text)]
    spans += [m.span() for m in CODE_RE.finditer(text)]
    spans += [m.span() for m in ID_NUMBER_RE.finditer(text)]
    return spans
