"""The intent JSON of DESIGN.md: what the model returns in channel 1, validated here.

Unknown fields are dropped; a bad value becomes null (or the field's empty default) instead of failing the
whole answer; only a missing or unknown `intent` makes the answer invalid.
"""

from datetime import date
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from core.ids import normalise_booking_id, normalise_order_id


class IntentName(StrEnum):
    SEARCH_ACTIVITIES = "SEARCH_ACTIVITIES"
    RECOMMEND = "RECOMMEND"
    QUERY_WEATHER = "QUERY_WEATHER"
    MAKE_TRAVEL_PLAN = "MAKE_TRAVEL_PLAN"
    PLAN_ITINERARY = "PLAN_ITINERARY"
    BOOK = "BOOK"
    CANCEL_BOOKING = "CANCEL_BOOKING"
    AFTERSALE = "AFTERSALE"
    QUERY_PROGRESS = "QUERY_PROGRESS"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"


class BizTypeName(StrEnum):
    FLIGHT = "FLIGHT"
    HOTEL = "HOTEL"
    TRAIN = "TRAIN"


class AftersaleActionName(StrEnum):
    REFUND = "REFUND"
    RETURN = "RETURN"


MAX_ALSO = 2  # requests besides the main one in one sentence

# Slots a later turn may fill in for an earlier one (the conversation's memory).
SLOT_NAMES = (
    "destination_keywords",
    "province",
    "city",
    "origin",
    "date_start",
    "date_end",
    "days",
    "max_price",
    "biz_type",
    "order_id",
    "booking_id",
    "aftersale_action",
)


class Intent(BaseModel):
    """One understood sentence."""

    model_config = ConfigDict(extra="ignore", use_enum_values=True)

    intent: IntentName
    destination_keywords: list[str] = []
    province: str | None = None
    city: str | None = None
    origin: str | None = None
    date_start: date | None = None
    date_end: date | None = None
    days: int | None = None
    max_price: int | None = None
    biz_type: BizTypeName | None = None
    order_id: str | None = None
    booking_id: str | None = None
    aftersale_action: AftersaleActionName | None = None
    need_clarification: bool = False
    clarify_question: str | None = None
    # A second (and third) request in the same sentence ("帮我规划三天丽江行程，顺便查天气"): answered after the main
    # one, with the same slots. Unknown names are dropped, never the main intent again, at most MAX_ALSO.
    also: list[IntentName] = []

    @field_validator("destination_keywords", mode="wrap")
    @classmethod
    def _keywords(cls, value: Any, handler: Any) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [v.strip()[:50] for v in value if isinstance(v, str) and v.strip()][:5]

    @field_validator("province", "city", "origin", "clarify_question", mode="wrap")
    @classmethod
    def _text_or_null(cls, value: Any, handler: Any) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return None
        return value.strip()[:200]

    @field_validator("days", "max_price", mode="wrap")
    @classmethod
    def _positive_int_or_null(cls, value: Any, handler: Any) -> int | None:
        if isinstance(value, bool):
            return None
        try:
            number = int(float(value))
        except (TypeError, ValueError):
            return None
        return number if number > 0 else None

    @field_validator("date_start", "date_end", "biz_type", "aftersale_action", mode="wrap")
    @classmethod
    def _valid_or_null(cls, value: Any, handler: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().upper() if not value[:1].isdigit() else value.strip()
        try:
            return handler(value)
        except ValidationError:
            return None

    @field_validator("need_clarification", mode="wrap")
    @classmethod
    def _bool(cls, value: Any, handler: Any) -> bool:
        return value is True

    @field_validator("order_id", mode="wrap")
    @classmethod
    def _order_id(cls, value: Any, handler: Any) -> str | None:
        return normalise_order_id(value)

    @field_validator("booking_id", mode="wrap")
    @classmethod
    def _booking_id(cls, value: Any, handler: Any) -> str | None:
        return normalise_booking_id(value)

    @field_validator("also", mode="wrap")
    @classmethod
    def _also(cls, value: Any, handler: Any) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            return []
        names: list[str] = []
        for item in value:
            name = item.strip().upper() if isinstance(item, str) else None
            if name in IntentName.__members__ and name != IntentName.OUT_OF_SCOPE and name not in names:
                names.append(name)
        return names

    @model_validator(mode="after")
    def _also_is_another_request(self) -> "Intent":
        if self.intent == IntentName.OUT_OF_SCOPE:
            self.also = []
        else:
            self.also = [name for name in self.also if name != self.intent][:MAX_ALSO]
        return self

    def slots(self) -> dict[str, Any]:
        """The filled slots, as JSON-ready values."""
        data = self.model_dump(mode="json", include=set(SLOT_NAMES))
        return {k: v for k, v in data.items() if v not in (None, [], "")}
