"""How an activity shown in a reply is named among the options on screen (the conversation's `offered` refs), so a
later "第二个的详情" or "cheaper" can tell which activity was meant and what it cost, without reading the database.

A ref is "ACTIVITY|<id>|<price>": the id the detail tool takes and the price as shown.
"""

from decimal import Decimal, InvalidOperation

PREFIX = "ACTIVITY"
SEPARATOR = "|"


def activity_ref(activity_id: int, price: object) -> str:
    return SEPARATOR.join((PREFIX, str(activity_id), str(price)))


def activity_of(ref: str) -> tuple[int, Decimal] | None:
    """(id, price) of an activity ref; None for any other ref (a booking option's) or a damaged one."""
    parts = str(ref or "").split(SEPARATOR)
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1].isdigit():
        return None
    try:
        return int(parts[1]), Decimal(parts[2])
    except InvalidOperation:
        return None


def is_activity_ref(ref: str) -> bool:
    return activity_of(ref) is not None
