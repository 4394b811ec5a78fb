"""The intent JSON of DESIGN.md: what the model returns in channel 1, validated here.

Unknown fields are dropped; a bad value becomes null (or the field's empty default) instead of failing the
whole answer; only a missing or unknown `intent` makes the answer invalid.
"""

import math
import re
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
    HANDOVER = "HANDOVER"  # 转人工 / 投诉 / talk to a person: the conversation goes to staff
    OUT_OF_SCOPE = "OUT_OF_SCOPE"


class BizTypeName(StrEnum):
    FLIGHT = "FLIGHT"
    HOTEL = "HOTEL"
    TRAIN = "TRAIN"


class TimeBand(StrEnum):
    """When the traveller wants to leave: 早上/上午 morning, 中午 noon, 下午 afternoon, 晚上 evening, 红眼 red-eye.
    The hours of each band are a rule of `bookings` (one place), not of the understanding."""

    MORNING = "MORNING"
    NOON = "NOON"
    AFTERNOON = "AFTERNOON"
    EVENING = "EVENING"
    RED_EYE = "RED_EYE"


class SortName(StrEnum):
    CHEAPEST = "CHEAPEST"  # 最便宜 / 便宜一点 / cheapest / cheaper
    FASTEST = "FASTEST"  # 最快 / 用时最短 / fastest / quicker
    EARLIEST = "EARLIEST"  # 最早 / earliest
    LATEST = "LATEST"  # 最晚 / latest
    PRICIEST = "PRICIEST"  # 贵一点的 / 高端一点 / pricier / more upscale (activities: dearest first)
    TOP_RATED = "TOP_RATED"  # 评价好一点的 / 口碑好 / better rated (activities: the most popular first)


class InterestName(StrEnum):
    """A kind of activity, the catalogue's system tags (`itinerary.tagging.SYSTEM_TAGS`, the same words)."""

    HIKING = "hiking"  # 徒步 / 爬山 / hiking / trekking
    PHOTOGRAPHY = "photography"  # 摄影 / 拍照 / photography / photo tours
    FAMILY = "family"  # 亲子 / family
    FOOD = "food"  # 美食 / 小吃 / food / cooking
    CULTURE = "culture"  # 文化 / 历史 / 博物馆 / culture / museums
    SKIING = "skiing"
    CYCLING = "cycling"
    BEACH = "beach"
    SNOW = "snow"
    LAKE = "lake"
    ANCIENT_TOWN = "ancient_town"
    HOT_SPRING = "hot_spring"
    NATURE = "nature"
    ADVENTURE = "adventure"
    NIGHTLIFE = "nightlife"
    SHOPPING = "shopping"


class AudienceName(StrEnum):
    """Who comes along, when it decides what suits (the rule of what suits them is `itinerary.tagging`'s)."""

    KIDS = "KIDS"  # 带孩子 / 亲子 / with kids / for children
    ELDERLY = "ELDERLY"  # 带父母 / 老人 / with my parents / seniors


class BookingOrdinalName(StrEnum):
    """Which of the traveller's own bookings, by when they were made (not when they travel)."""

    NEWEST = "NEWEST"  # 最新的 / 最近订的 / the latest / the last one
    OLDEST = "OLDEST"  # 第一个订的 / 最早订的 / the first one I booked


class SeatClassName(StrEnum):
    """The words' class; `bookings` maps it to the supplier's seat or cabin of each product."""

    ECONOMY = "ECONOMY"  # 经济舱 / economy
    SECOND = "SECOND"  # 二等座 / second class
    FIRST = "FIRST"  # 一等座 / 头等舱 / first class
    BUSINESS = "BUSINESS"  # 商务座 / 公务舱 / 商务舱 / business
    SLEEPER = "SLEEPER"  # 卧铺 / 软卧 / 硬卧 / sleeper
    HARD_SEAT = "HARD_SEAT"  # 硬座


class OptionFactName(StrEnum):
    """What a traveller may ask of the options on screen; the answer is read from the options by code."""

    PRICE = "PRICE"  # 多少钱 / how much
    DURATION = "DURATION"  # 多久 / how long
    DEPARTURE = "DEPARTURE"  # 几点出发 / what time does it leave
    ARRIVAL = "ARRIVAL"  # 几点到 / when does it land
    VENDOR = "VENDOR"  # 哪家航空 / which airline
    SEAT_CLASS = "SEAT_CLASS"  # 什么舱 / which class
    DIRECT = "DIRECT"  # 是直飞吗 / is it direct
    STAR = "STAR"  # 几星 / how many stars


class SocialName(StrEnum):
    GREETING = "GREETING"  # 你好 / hi
    THANKS = "THANKS"  # 谢谢 / thanks
    HELP = "HELP"  # 你能做什么 / help
    GOODBYE = "GOODBYE"  # 再见 / bye


class AftersaleReasonName(StrEnum):
    """Why the traveller wants money back; `aftersale.policy` picks the policy for it."""

    QUALITY = "QUALITY"  # 坏了 / 质量问题 / broken / defective / damaged / wrong item
    NO_REASON = "NO_REASON"  # 不想要了 / 无理由 / changed my mind
    TICKET = "TICKET"  # a ticket or activity that cannot be used (行程取消, 去不了)
    NOT_RECEIVED = "NOT_RECEIVED"  # 没收到 / never arrived


class AnswerName(StrEnum):
    """A yes or a no to the confirmation card the last reply showed (the whole message is the answer)."""

    YES = "YES"  # 确认 / 好的 / 就订这个 / yes / go ahead / book it
    NO = "NO"  # 不要了 / 算了 / no / cancel that / never mind


class AftersaleActionName(StrEnum):
    REFUND = "REFUND"
    RETURN = "RETURN"


MAX_ALSO = 2  # requests besides the main one in one sentence
MAX_REASON_WORDS = 500  # what a ticket keeps of the traveller's reason (aftersale REQUEST_REASON_MAX_CHARS)
MOBILE = re.compile(r"1[3-9]\d{9}")  # a mainland mobile number, digits only

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
    "nights",
    "time_band",
    "avoid_time_band",
    "sort",
    "direct",
    "seat_class",
    "star",
    "star_or_above",
    "vendor",
    "avoid_vendor",
    "number",
    "passengers",
    "exclude_places",
    "interests",
    "avoid_interests",
    "audience",
)
# Slots that say what the traveller wants of a booking option (they belong to the BOOK task).
PREFERENCE_SLOTS = (
    "time_band", "avoid_time_band", "sort", "direct", "seat_class", "star", "star_or_above", "vendor", "avoid_vendor", "number"
)  # fmt: skip


def _real(value: Any) -> float | None:
    """A number a model may send as a number or as text; None for anything else (true/false, NaN, infinity)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _integer(value: Any) -> int | None:
    number = _real(value)
    return int(number) if number is not None else None


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
    # -- what a booking should be (issue 13); the rules that apply them live in `bookings` ----------------------
    nights: int | None = None  # 住两晚: the stay's length (date_end = date_start + nights)
    time_band: TimeBand | None = None
    avoid_time_band: TimeBand | None = None  # 不要晚上的 / not in the evening: no departure in that band
    sort: SortName | None = None
    direct: bool | None = None  # 直飞 / nonstop
    seat_class: SeatClassName | None = None
    star: int | None = None  # 四星 → 4
    star_or_above: bool = False  # 四星以上 / 4 stars or above
    vendor: str | None = None  # an airline or hotel name the traveller named (东航, 如家, Hilton)
    avoid_vendor: str | None = None  # an airline or hotel the traveller does not want (不要东航的 / no China Eastern)
    number: str | None = None  # a flight or train number (MU5101, G101)
    passengers: list[dict] = []  # [{"name": "张三", "mobile": "13800000000"}] (mobile may be null)
    # -- the dialogue (issue 13) --------------------------------------------------------------------------------
    pick: int | None = None  # 第二个 / the second one: 1-based position among the options last shown
    exclude_places: list[str] = []  # 不想去三亚 / 除了三亚 / not Sanya
    correction: bool = False  # 不对，是苏州不是杭州 / I meant X: the sentence's slots replace the remembered ones
    follow_up: bool = False  # the sentence only changes slots of the task at hand (那丽江呢 / 改成四天吧 / 便宜一点的)
    # The sentence asks what there is to do or see (有什么好玩的 / 景点 / things to do): with a place of its own it is a
    # request for that place's activities, never a follow-up of another task ("三亚 1块钱以内的活动").
    asks_activities: bool = False
    # The sentence points back at the time of the task at hand (杭州那天天气怎么样 / that day): a side question about
    # another place keeps the task's dates.
    same_time: bool = False
    # A mobile number the sentence gives, with or without a name ("13800000000" alone answers "who travels?").
    mobile: str | None = None
    # The whole message is a yes or a no to the open confirmation card (确认 / 算了 / yes / never mind); None for
    # anything else: new content, a question, a place, "第二个", "换个早一点的".
    answer: AnswerName | None = None
    # Options that missed a want were shown and the traveller now only says how to order them ("ok the cheapest",
    # "最早的那个"): they accept the nearest, the first of them in that order is prepared. Set by the dialogue.
    accept_nearest: bool = False
    # The sentence changed nothing a booking's search reads (a pick, who travels): the options found again are those
    # on screen, so they are not listed again. Set by the dialogue.
    same_options: bool = False
    # 再加一天 / 多住两晚 / one more day (+N) or 少玩一天 (-N): the trip at hand gets longer or shorter by that many
    # days (a plan) or nights (a stay, a round trip). The dialogue applies it to the remembered length.
    length_change: int | None = None
    # -- refining a result (issue 28): the kind of activity wanted or not, who comes along ------------------------
    interests: list[InterestName] = []  # 换成摄影类的 / 喜欢美食 / any food tours / we like food and photography
    avoid_interests: list[InterestName] = []  # 不要徒步 / no hiking
    audience: AudienceName | None = None  # 有适合带父母的吗 / anything for kids
    # The sentence asks about one of the options shown ("第一个的详情", "tell me more about the second one"): with
    # `pick`, that option's details, never a booking.
    details: bool = False
    # The sentence asks what to wear or pack ("要带什么衣服", "what should I pack"): the weather answer says it.
    packing: bool = False
    # A question about the options on screen ("第一个多少钱？多久？", "is the second one direct?", "哪个最便宜"): the
    # facts asked, of which option (its position) or of the first in an order; the booking goes on unchanged. A
    # sentence that also takes the option ("第二个多少钱？那就订它吧") carries `pick` too.
    asks_option: list[OptionFactName] = []
    asked_option: int | None = None
    asked_order: SortName | None = None
    # -- how sure the reading is (issue 14): 0..1, and the other readings worth offering when it is low -------------
    confidence: float | None = None
    alternatives: list[IntentName] = []
    rebook: bool = False  # 改签 / change my flight: date_start is the new date
    pay: bool = False  # BOOK: 帮我付款 / pay for my booking: pay a booking waiting for payment (booking_id, biz_type)
    # QUERY_PROGRESS: 我的订单付款了吗 / my booking status: how the traveller's bookings stand (not an after-sale request)
    booking_status: bool = False
    original_date: date | None = None  # the date of the booking being changed, when named (12月19号的机票改签到20号)
    # BOOK: the day the traveller asked to travel on is already over (昨天, yesterday, last Friday, a date just gone):
    # that day, with date_start null; the reply says it has passed and asks for another date, keeping the rest.
    past_date: date | None = None
    # A rebooking by a relative amount ("往后推一天" +1, "move it a day earlier" -1): the new date is the booking's
    # day moved by that many days (date_start stays empty: the booking's day is not known here).
    day_shift: int | None = None
    # A day said from the date the conversation already has: a day of the week with no week named ("不对，是周四",
    # "Thursday then"; 0 Monday … 6 Sunday) is that day in the week of that date; a day before or after it ("前一天",
    # "the day after": -1 / +1) is counted from it. The dialogue applies them (`date_start` is the reader's reading
    # from today, used when the conversation has no date).
    weekday: int | None = None
    day_offset: int | None = None
    # A cancel, a rebooking or a payment names one of the traveller's bookings by when it was made (最新的那个订单 /
    # the latest one / 第一个订的): the newest or the oldest of those that fit the other hints.
    booking_ordinal: BookingOrdinalName | None = None
    # HANDOVER: the traveller complains (投诉 / I want to make a complaint), not only asks for a person.
    complaint: bool = False
    social: SocialName | None = None  # greeting, thanks, help (answered by the OUT_OF_SCOPE handler)
    aftersale_reason: AftersaleReasonName | None = None
    # AFTERSALE: the traveller's own words for why (行程有变, it arrived broken), read by code from their messages
    # (`assistant.reason_words`, set by the dialogue): a model's reading says *that* a reason was given, never what
    # the approver reads. What the request tool is given as the reason.
    aftersale_words: str | None = None
    # A second (and third) request in the same sentence ("帮我规划三天丽江行程，顺便查天气"): answered after the main
    # one, with the same slots. Unknown names are dropped, never the main intent again, at most MAX_ALSO.
    also: list[IntentName] = []
    # BOOK: the other products the same sentence books ("机票和上海的酒店", "a train there and a hotel for 2 nights"):
    # the first product is booked now, these are kept and taken up after it (a hotel in the city of arrival).
    also_book: list[BizTypeName] = []

    @field_validator("interests", "avoid_interests", mode="wrap")
    @classmethod
    def _interests(cls, value: Any, handler: Any) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            return []
        names = [v.strip().lower() for v in value if isinstance(v, str)]
        known = {tag.value for tag in InterestName}
        return [n for n in dict.fromkeys(names) if n in known][:5]

    @field_validator("destination_keywords", "exclude_places", mode="wrap")
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

    @field_validator("aftersale_words", mode="wrap")
    @classmethod
    def _words_or_null(cls, value: Any, handler: Any) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return None
        return value.strip()[:MAX_REASON_WORDS]

    @field_validator("vendor", "avoid_vendor", "number", mode="wrap")
    @classmethod
    def _short_text_or_null(cls, value: Any, handler: Any) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return None
        return value.strip()[:40]

    @field_validator("mobile", mode="wrap")
    @classmethod
    def _mobile_or_null(cls, value: Any, handler: Any) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool):  # a model may send 13800000000 unquoted
            value = str(value)
        if not isinstance(value, str):
            return None
        digits = re.sub(r"\D", "", value[:40])[-11:]
        return digits if MOBILE.fullmatch(digits) else None

    @field_validator("passengers", mode="wrap")
    @classmethod
    def _passengers(cls, value: Any, handler: Any) -> list[dict]:
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list):
            return []
        people = []
        for item in value[:9]:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
                continue
            mobile = item.get("mobile")
            if isinstance(mobile, int) and not isinstance(mobile, bool):  # a model may send 13800000000 unquoted
                mobile = str(mobile)
            mobile = mobile.strip()[:20] if isinstance(mobile, str) and mobile.strip() else None
            people.append({"name": item["name"].strip()[:40], "mobile": mobile})
        return people

    @field_validator("also_book", mode="wrap")
    @classmethod
    def _also_book(cls, value: Any, handler: Any) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            return []
        names = [v.strip().upper() for v in value if isinstance(v, str)]
        return [n for n in dict.fromkeys(names) if n in BizTypeName.__members__][:2]

    @field_validator("asks_option", mode="wrap")
    @classmethod
    def _option_facts(cls, value: Any, handler: Any) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            return []
        names = [v.strip().upper() for v in value if isinstance(v, str)]
        return [n for n in dict.fromkeys(names) if n in OptionFactName.__members__]

    @field_validator("nights", "star", "pick", "asked_option", mode="wrap")
    @classmethod
    def _small_int_or_null(cls, value: Any, handler: Any) -> int | None:
        number = _integer(value)
        return number if number is not None and 0 < number <= 60 else None

    @field_validator("direct", mode="wrap")
    @classmethod
    def _bool_or_null(cls, value: Any, handler: Any) -> bool | None:
        return value if isinstance(value, bool) else None

    @field_validator("confidence", mode="wrap")
    @classmethod
    def _unit_or_null(cls, value: Any, handler: Any) -> float | None:
        number = _real(value)
        return min(max(number, 0.0), 1.0) if number is not None else None

    @field_validator("alternatives", mode="wrap")
    @classmethod
    def _alternatives(cls, value: Any, handler: Any) -> list[str]:
        if not isinstance(value, list | tuple):
            return []
        names = [v.strip().upper() for v in value if isinstance(v, str)]
        return [n for n in dict.fromkeys(names) if n in IntentName.__members__][:3]

    @field_validator("length_change", mode="wrap")
    @classmethod
    def _small_change_or_null(cls, value: Any, handler: Any) -> int | None:
        number = _integer(value)
        return number if number and -30 <= number <= 30 else None

    @field_validator("weekday", mode="wrap")
    @classmethod
    def _weekday_or_null(cls, value: Any, handler: Any) -> int | None:
        number = _integer(value)
        return number if number is not None and 0 <= number <= 6 else None

    @field_validator("day_offset", mode="wrap")
    @classmethod
    def _offset_or_null(cls, value: Any, handler: Any) -> int | None:
        number = _integer(value)
        return number if number and -30 <= number <= 30 else None

    @field_validator("days", "max_price", mode="wrap")
    @classmethod
    def _positive_int_or_null(cls, value: Any, handler: Any) -> int | None:
        number = _integer(value)
        return number if number is not None and number > 0 else None

    @field_validator(
        "date_start",
        "date_end",
        "original_date",
        "past_date",
        "day_shift",
        "booking_ordinal",
        "biz_type",
        "aftersale_action",
        "time_band",
        "avoid_time_band",
        "sort",
        "asked_order",
        "seat_class",
        "social",
        "aftersale_reason",
        "answer",
        "audience",
        mode="wrap",
    )
    @classmethod
    def _valid_or_null(cls, value: Any, handler: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().upper() if not value[:1].isdigit() else value.strip()
        try:
            return handler(value)
        except ValidationError:
            return None

    @field_validator(
        "need_clarification",
        "star_or_above",
        "correction",
        "follow_up",
        "rebook",
        "accept_nearest",
        "same_options",
        "pay",
        "booking_status",
        "asks_activities",
        "same_time",
        "details",
        "packing",
        mode="wrap",
    )
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
        return {k: v for k, v in data.items() if v not in (None, [], "", False)}
