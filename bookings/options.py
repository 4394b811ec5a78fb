"""Bookable options: what the supplier offers, read into one shape, and the one place that ranks them against what
the traveller wants.

    ref = option_ref(biz_type="FLIGHT", number="MU5101", date=day, origin="上海", destination="成都", seat="经济舱")
    parse_option_ref(ref)                       # OptionRef, or ValueError
    ranked = rank_options("FLIGHT", options_from_supplier("FLIGHT", answer, passengers=1), wants)
    ranked.options, ranked.matched, ranked.unmet

The rules (both channels and every caller use these; nothing else ranks options):
- Time bands are departure times, local clock, inclusive: MORNING 05:00–10:59, NOON 11:00–13:59, AFTERNOON
  12:00–17:59, EVENING 18:00–23:59, RED_EYE 21:00–05:59 (across midnight). "早上的" means an early flight, not an
  11:35 one (that is 中午); the afternoon and noon bands overlap on purpose, as do evening and red-eye. A departure outside the band is as near as its distance in minutes to the band.
- Sort: CHEAPEST (total price), FASTEST (duration), EARLIEST / LATEST (departure); without one, the cheapest.
  Ties keep the supplier's order.
- A price cap is per person for flights and trains, per night for hotels (what travellers mean by "500以内的酒店").
- A hotel star is exact unless `star_or_above`; with no hotel of that star the nearest star is offered ("四星左右"
  in a city without 4★ hotels shows the 3★ and 5★ ones).
- An avoided vendor ("不要东航的") is the same match, the other way round; it weighs more than a price cap.
- The vendor is a case-insensitive substring of the airline or hotel name: an airline's after the vendor lexicon
  (core/vendors.json: 东航, China Eastern, MU → 东方航空), a hotel's as said.
- When nothing meets every want, the options are the nearest ones and `unmet` names what could not be met: an option
  is judged first by the most important wants it misses (WANT_IMPORTANCE, most important first), then by how far it
  misses them, then by the sort. So the least important wants are the first to be given up.
"""

import datetime as dt
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from core.vendors import airline_by_code, vendors_named_in

BIZ_TYPES = ("FLIGHT", "HOTEL", "TRAIN")
REF_SEPARATOR = "|"
MAX_REF_CHARS = 200

# Departure bands in minutes after midnight, [first, last] inclusive; RED_EYE wraps past midnight.
TIME_BANDS: dict[str, tuple[int, int]] = {
    "MORNING": (5 * 60, 10 * 60 + 59),
    "NOON": (11 * 60, 13 * 60 + 59),
    "AFTERNOON": (12 * 60, 17 * 60 + 59),
    "EVENING": (18 * 60, 23 * 60 + 59),
    "RED_EYE": (21 * 60, 5 * 60 + 59),
}
SORTS = ("CHEAPEST", "FASTEST", "EARLIEST", "LATEST")
SEAT_CLASSES = ("ECONOMY", "SECOND", "FIRST", "BUSINESS", "SLEEPER", "HARD_SEAT")
# The schema's seat class → the supplier's labels, per product, in order of preference.
SEAT_LABELS: dict[str, dict[str, tuple[str, ...]]] = {
    "FLIGHT": {
        "ECONOMY": ("经济舱",),
        "SECOND": ("经济舱",),
        "FIRST": ("头等舱",),
        "BUSINESS": ("公务舱", "商务舱"),
    },
    "TRAIN": {
        "ECONOMY": ("二等座",),
        "SECOND": ("二等座",),
        "FIRST": ("一等座",),
        "BUSINESS": ("商务座",),
        "SLEEPER": ("软卧", "硬卧", "动卧"),
        "HARD_SEAT": ("硬座",),
    },
}
# The seat a train option gets when no class was asked for (the one most travellers buy).
DEFAULT_TRAIN_SEATS = ("二等座", "硬座", "一等座")
# Wants in order of importance: an option missing a want earlier in the list is worse than one missing any number
# of later ones. A named flight or train comes first; a direct flight is the first thing given up.
WANT_IMPORTANCE = (
    "number",
    "time_band",
    "avoid_time_band",
    "avoid_vendor",
    "max_price",
    "seat_class",
    "star",
    "vendor",
    "direct",
)


# --- option refs -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionRef:
    """One bookable thing: a flight or train (number, date, route, seat) or a hotel (id, stay, city)."""

    biz_type: str
    number: str
    date: dt.date
    origin: str = ""
    destination: str = ""
    seat: str = ""
    check_out: dt.date | None = None
    city: str = ""

    @property
    def nights(self) -> int:
        return (self.check_out - self.date).days if self.check_out else 0


def _clean(part: Any) -> str:
    return str(part or "").replace(REF_SEPARATOR, " ").strip()


def option_ref(
    *,
    biz_type: str,
    number: str,
    date: dt.date,
    origin: str = "",
    destination: str = "",
    seat: str = "",
    check_out: dt.date | None = None,
    city: str = "",
) -> str:
    """The ref of an option: `FLIGHT|MU5101|2026-12-19|上海|成都|经济舱`, `TRAIN|G101|2026-12-02|北京|天津|二等座`,
    `HOTEL|HDL001|2026-12-10|2026-12-12|大理|`."""
    biz_type = biz_type.upper()
    if biz_type == "HOTEL":
        if check_out is None:
            raise ValueError("a hotel option needs its check-out date")
        parts = [biz_type, _clean(number).upper(), date.isoformat(), check_out.isoformat(), _clean(city), ""]
    else:
        parts = [biz_type, _clean(number).upper(), date.isoformat(), _clean(origin), _clean(destination), _clean(seat)]
    ref = REF_SEPARATOR.join(parts)
    if len(ref) > MAX_REF_CHARS:
        raise ValueError("option ref too long")
    return ref


def parse_option_ref(ref: object) -> OptionRef:
    """The option a ref names; ValueError (with a message for the traveller's model) when it is not a ref."""
    if not isinstance(ref, str) or not ref.strip() or len(ref) > MAX_REF_CHARS:
        raise ValueError("not an option ref")
    parts = [p.strip() for p in ref.strip().split(REF_SEPARATOR)]
    if len(parts) != 6 or parts[0].upper() not in BIZ_TYPES or not parts[1]:
        raise ValueError("not an option ref (like FLIGHT|MU5101|2026-12-19|上海|成都|经济舱)")
    biz_type, number = parts[0].upper(), parts[1].upper()
    try:
        day = dt.date.fromisoformat(parts[2])
        if biz_type == "HOTEL":
            check_out = dt.date.fromisoformat(parts[3])
            if check_out <= day:
                raise ValueError("check-out must be after check-in")
            if not parts[4]:
                raise ValueError("a hotel option names its city")
            return OptionRef(biz_type, number, day, check_out=check_out, city=parts[4])
    except ValueError as exc:
        raise ValueError(f"not an option ref: {exc}") from None
    if not parts[3] or not parts[4]:
        raise ValueError("a flight or train option names its route")
    return OptionRef(biz_type, number, day, origin=parts[3], destination=parts[4], seat=parts[5])


# --- what the traveller wants ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BookingWants:
    """What the traveller asked of the options (all optional)."""

    time_band: str | None = None
    avoid_time_band: str | None = None  # a band the traveller does not want to leave in
    sort: str | None = None
    direct: bool | None = None
    seat_class: str | None = None
    star: int | None = None
    star_or_above: bool = False
    vendor: str | None = None
    avoid_vendor: str | None = None  # an airline or hotel the traveller does not want
    number: str | None = None
    max_price: Decimal | None = None

    def __post_init__(self) -> None:
        # Bad values become None, as the intent schema does: a want that cannot be read is not a want.
        fix = object.__setattr__
        fix(self, "time_band", _upper_in(self.time_band, TIME_BANDS))
        fix(self, "avoid_time_band", _upper_in(self.avoid_time_band, TIME_BANDS))
        fix(self, "sort", _upper_in(self.sort, SORTS))
        fix(self, "seat_class", _upper_in(self.seat_class, SEAT_CLASSES))
        fix(self, "star", self.star if isinstance(self.star, int) and 1 <= self.star <= 5 else None)
        fix(self, "star_or_above", bool(self.star_or_above and self.star))
        fix(self, "vendor", (str(self.vendor).strip() or None) if self.vendor else None)
        fix(self, "avoid_vendor", (str(self.avoid_vendor).strip() or None) if self.avoid_vendor else None)
        fix(self, "number", "".join(str(self.number).split()).upper() or None if self.number else None)
        fix(self, "direct", self.direct if isinstance(self.direct, bool) else None)
        price = None
        if self.max_price is not None:
            try:
                price = Decimal(str(self.max_price))
            except ArithmeticError:
                price = None
        fix(self, "max_price", price if price is not None and price > 0 else None)

    @classmethod
    def from_mapping(cls, values: Any) -> "BookingWants":
        """From a dict or an object with these attributes (an Intent); unknown names are ignored."""
        names = cls.__dataclass_fields__
        if isinstance(values, dict):
            return cls(**{k: v for k, v in values.items() if k in names})
        return cls(**{k: getattr(values, k) for k in names if hasattr(values, k)})

    def given(self, biz_type: str | None = None) -> dict[str, Any]:
        """The wants that were expressed (and apply to this product), JSON-ready."""
        values = {k: v for k, v in asdict(self).items() if v not in (None, False, "")}
        if "max_price" in values:
            values["max_price"] = str(values["max_price"])
        if biz_type == "HOTEL":
            for name in ("time_band", "avoid_time_band", "direct", "seat_class", "number"):
                values.pop(name, None)
            if values.get("sort") in ("FASTEST", "EARLIEST", "LATEST"):
                values.pop("sort")
        elif biz_type in ("FLIGHT", "TRAIN"):
            values.pop("star", None)
            values.pop("star_or_above", None)
            if biz_type == "TRAIN":
                values.pop("direct", None)
        return values


def _upper_in(value: Any, allowed) -> str | None:
    text = str(value or "").strip().upper()
    return text if text in allowed else None


# --- the supplier's items as options -----------------------------------------------------------------------------


def _money(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return Decimal(str(value)).quantize(Decimal("0.01"))
    except ArithmeticError:
        return None


def _moment(value: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None


def overnight_days(depart: str | None, arrive: str | None) -> int:
    """How many days after the departure day the arrival is (0 the same day; the "+1" on a card)."""
    start, end = _moment(depart), _moment(arrive)
    if not start or not end:
        return 0
    return max(0, (end.date() - start.date()).days)


def _available(item: dict) -> bool:
    if item.get("soldOut") is True or item.get("available") is False:
        return False
    left = item.get("remaining", item.get("seatsLeft"))
    return not (isinstance(left, int | float) and not isinstance(left, bool) and left <= 0)


def _is_direct(item: dict) -> bool:
    """A flight without a stop (the sandbox's flights are all direct; a supplier may say `direct` or `stops`)."""
    if isinstance(item.get("direct"), bool):
        return item["direct"]
    stops = item.get("stops", item.get("transfers"))
    if isinstance(stops, list):
        return not stops
    if isinstance(stops, int) and not isinstance(stops, bool):
        return stops == 0
    return True


def _train_seat(item: dict, labels: tuple[str, ...]) -> dict | None:
    seats = [s for s in item.get("seats") or [] if isinstance(s, dict) and _available(s)]
    for label in labels:
        for seat in seats:
            if seat.get("seatType") == label:
                return seat
    return None


def _seat_labels(biz_type: str, seat_class: str | None) -> tuple[str, ...]:
    return SEAT_LABELS.get(biz_type, {}).get(seat_class or "", ())


def options_from_supplier(
    biz_type: str,
    answer: dict,
    *,
    passengers: int = 1,
    seat_class: str | None = None,
    check_in: dt.date | None = None,
    check_out: dt.date | None = None,
) -> list[dict]:
    """Every available item of a supplier search as an Option (see the bookings contract), in the supplier's order.

    A train is one option with the seat asked for (`seat_class`) when it has one, else its default seat; a flight
    carries its cabin. `total` = unit price × passengers (flights, trains) or per night × nights (hotels, one room).
    """
    biz_type = biz_type.upper()
    passengers = max(1, int(passengers or 1))
    key = {"FLIGHT": "flights", "HOTEL": "hotels", "TRAIN": "trains"}[biz_type]
    items = answer.get(key) if isinstance(answer, dict) else None
    options = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not _available(item):
            continue
        option = (
            _hotel_option(item, check_in, check_out)
            if biz_type == "HOTEL"
            else _ride_option(biz_type, item, passengers, seat_class)
        )
        if option is not None:
            options.append(option)
    return options


def option_for_ref(answer: dict, ref: OptionRef, *, passengers: int = 1) -> dict | None:
    """The option a ref names, read from a fresh supplier search of its route or city; None when the supplier no
    longer offers it (another number, date, seat or stay)."""
    key = {"FLIGHT": "flights", "HOTEL": "hotels", "TRAIN": "trains"}[ref.biz_type]
    items = answer.get(key) if isinstance(answer, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not _available(item):
            continue
        if ref.biz_type == "HOTEL":
            if str(item.get("hotelId") or "").upper() == ref.number:
                option = _hotel_option(item, ref.date, ref.check_out)
                if option and option["check_in"] == ref.date.isoformat() and option["nights"] == ref.nights:
                    return option
            continue
        number_key = "flightNo" if ref.biz_type == "FLIGHT" else "trainNo"
        if str(item.get(number_key) or "").strip().upper() != ref.number:
            continue
        option = _ride_option(ref.biz_type, item, max(1, passengers), None, exact_seat=ref.seat or None)
        if option and str(option["depart"])[:10] == ref.date.isoformat():
            return option
    return None


def _blank(biz_type: str) -> dict:
    return {
        "ref": "",
        "biz_type": biz_type,
        "number": "",
        "name": "",
        "origin": "",
        "destination": "",
        "city": "",
        "depart": None,
        "arrive": None,
        "overnight_days": 0,
        "duration_minutes": None,
        "seat_class": "",
        "star": None,
        # The supplier's English names beside its Chinese ones ("" when it sent none): see bookings.vocabulary.
        "name_en": "",
        "origin_en": "",
        "destination_en": "",
        "city_en": "",
        "seat_class_en": "",
        "unit_price": None,
        "nights": None,
        "check_in": None,
        "check_out": None,
        "total": None,
        "direct": None,
    }


def _english(names: dict) -> dict:
    """The supplier's English names that are text, as an option keeps them."""
    return {key: value.strip() for key, value in names.items() if isinstance(value, str) and value.strip()}


def _ride_option(
    biz_type: str, item: dict, passengers: int, seat_class: str | None, exact_seat: str | None = None
) -> dict | None:
    number = str((item.get("flightNo") if biz_type == "FLIGHT" else item.get("trainNo")) or "").strip().upper()
    depart, arrive = item.get("departTime"), item.get("arriveTime")
    start = _moment(depart)
    if not number or start is None:
        return None
    if biz_type == "FLIGHT" and exact_seat and exact_seat != str(item.get("cabin") or "经济舱"):
        return None
    if biz_type == "TRAIN":
        if exact_seat:
            seat = _train_seat(item, (exact_seat,))
            if seat is None:
                return None
        else:
            seat = _train_seat(item, _seat_labels("TRAIN", seat_class)) or _train_seat(item, DEFAULT_TRAIN_SEATS)
        if seat is None:
            seats = [s for s in item.get("seats") or [] if isinstance(s, dict) and _available(s)]
            seat = min(seats, key=lambda s: _money(s.get("price")) or Decimal("Infinity"), default=None)
        if seat is None:
            return None
        label, unit = str(seat.get("seatType") or ""), _money(seat.get("price"))
        name = "高铁" if number.startswith("G") else "动车" if number.startswith("D") else "列车"
        name = str(item.get("trainType") or name)
        english = {"name_en": item.get("trainTypeEn"), "seat_class_en": seat.get("seatTypeEn")}
    else:
        label, unit = str(item.get("cabin") or "经济舱"), _money(item.get("price"))
        name = str(item.get("airline") or "")
        english = {"name_en": item.get("airlineEn"), "seat_class_en": item.get("cabinEn")}
    if unit is None:
        return None
    origin, destination = str(item.get("from") or ""), str(item.get("to") or "")
    option = _blank(biz_type) | {
        "number": number,
        "name": name,
        "origin": origin,
        "destination": destination,
        "depart": str(depart),
        "arrive": str(arrive) if arrive else None,
        "overnight_days": overnight_days(depart, arrive),
        "duration_minutes": item.get("durationMinutes") if isinstance(item.get("durationMinutes"), int) else None,
        "seat_class": label,
        "unit_price": str(unit),
        "total": str(unit * passengers),
        "direct": _is_direct(item) if biz_type == "FLIGHT" else None,
        **_english({**english, "origin_en": item.get("fromEn"), "destination_en": item.get("toEn")}),
    }
    if option["duration_minutes"] is None and arrive and _moment(arrive):
        option["duration_minutes"] = int((_moment(arrive) - start).total_seconds() // 60)
    option["ref"] = option_ref(
        biz_type=biz_type, number=number, date=start.date(), origin=origin, destination=destination, seat=label
    )
    return option


def _hotel_option(item: dict, check_in: dt.date | None, check_out: dt.date | None) -> dict | None:
    number = str(item.get("hotelId") or "").strip().upper()
    try:
        check_in = dt.date.fromisoformat(str(item.get("checkInDate"))) if item.get("checkInDate") else check_in
        check_out = dt.date.fromisoformat(str(item.get("checkOutDate"))) if item.get("checkOutDate") else check_out
    except ValueError:
        return None
    unit = _money(item.get("pricePerNight"))
    if not number or check_in is None or check_out is None or unit is None or check_out <= check_in:
        return None
    nights = (check_out - check_in).days
    city = str(item.get("city") or "")
    star = item.get("star") if isinstance(item.get("star"), int) and not isinstance(item.get("star"), bool) else None
    return _blank("HOTEL") | {
        "ref": option_ref(biz_type="HOTEL", number=number, date=check_in, check_out=check_out, city=city),
        "number": number,
        "name": str(item.get("name") or ""),
        "city": city,
        "star": star,
        "unit_price": str(unit),
        "nights": nights,
        "check_in": check_in.isoformat(),
        "check_out": check_out.isoformat(),
        "total": str(unit * nights),
        **_english({"name_en": item.get("nameEn"), "city_en": item.get("cityEn")}),
    }


# --- ranking -----------------------------------------------------------------------------------------------------


@dataclass
class Ranked:
    options: list[dict]
    matched: bool
    unmet: list[str] = field(default_factory=list)


def minutes_of_day(moment: str | None) -> int | None:
    value = _moment(moment)
    return value.hour * 60 + value.minute if value else None


def in_band(minute: int, band: str) -> bool:
    first, last = TIME_BANDS[band]
    return first <= minute <= last if first <= last else minute >= first or minute <= last


def band_distance(minute: int | None, band: str) -> int:
    """Minutes from a departure to the band (0 inside it), around the clock."""
    if minute is None:
        return 24 * 60
    if in_band(minute, band):
        return 0
    first, last = TIME_BANDS[band]
    return min(min(abs(minute - edge), 24 * 60 - abs(minute - edge)) for edge in (first, last))


def vendor_names(vendor: str, biz_type: str = "FLIGHT") -> list[str]:
    """What a vendor want matches in an option's name: for a flight, the names of the airlines said in it (the vendor
    lexicon's words, the longest first, so 南航 is not read inside 海南航空) or named by its code; else, and for a
    hotel or a train, the words given (东方大酒店 is a hotel, not 东方航空's)."""
    text = vendor.strip().casefold()
    if biz_type != "FLIGHT":
        return [text]
    names = [airline.name.casefold() for airline in vendors_named_in(text, "FLIGHT")]
    airline = airline_by_code(vendor.strip().upper())
    if airline:
        names.append(airline.name.casefold())
    return list(dict.fromkeys(names)) or [text]


def _vendor_ok(option: dict, vendor: str) -> bool:
    name = str(option.get("name") or "").casefold()
    number = str(option.get("number") or "").upper()
    airline = airline_by_code(vendor.strip().upper())
    if option["biz_type"] == "FLIGHT" and airline and number.startswith(airline.iata):
        return True
    return any(n and n in name for n in vendor_names(vendor, option["biz_type"]))


def _misses(option: dict, wants: BookingWants) -> dict[str, float]:
    """The wants this option misses, each with how far (0 < distance; bigger is further)."""
    biz = option["biz_type"]
    misses: dict[str, float] = {}
    if wants.number and biz != "HOTEL" and option["number"] != wants.number:
        misses["number"] = 1
    if wants.time_band and biz != "HOTEL":
        distance = band_distance(minutes_of_day(option.get("depart")), wants.time_band)
        if distance:
            misses["time_band"] = distance
    leaves = minutes_of_day(option.get("depart"))
    if wants.avoid_time_band and biz != "HOTEL" and leaves is not None and in_band(leaves, wants.avoid_time_band):
        misses["avoid_time_band"] = 1
    if wants.max_price is not None:
        unit = Decimal(option["unit_price"])
        if unit > wants.max_price:
            misses["max_price"] = float(unit - wants.max_price)
    if wants.seat_class and biz != "HOTEL":
        labels = _seat_labels(biz, wants.seat_class)
        if option.get("seat_class") not in labels:
            misses["seat_class"] = 1
    if wants.star and biz == "HOTEL":
        star = option.get("star") or 0
        if wants.star_or_above:
            if star < wants.star:
                misses["star"] = wants.star - star
        elif star != wants.star:
            # "around": a star above is as near as one below, the cheaper side wins on the sort.
            misses["star"] = abs(star - wants.star)
    if wants.vendor and not _vendor_ok(option, wants.vendor):
        misses["vendor"] = 1
    if wants.avoid_vendor and _vendor_ok(option, wants.avoid_vendor):
        misses["avoid_vendor"] = 1
    if wants.direct is True and biz == "FLIGHT" and option.get("direct") is False:
        misses["direct"] = 1
    return misses


def _sort_key(option: dict, sort: str | None) -> tuple:
    total = Decimal(option["total"])
    depart = minutes_of_day(option.get("depart"))
    depart_at = str(option.get("depart") or "")
    duration = option.get("duration_minutes") or 0
    if sort == "FASTEST":
        return (duration, total)
    if sort == "EARLIEST" and depart is not None:
        return (depart_at, total)
    if sort == "LATEST" and depart is not None:
        return (tuple(-ord(c) for c in depart_at), total)
    return (total, depart_at)


def first_in_order(options: list[dict], sort: str) -> dict | None:
    """The option that comes first in an order (cheapest, fastest, earliest, latest), by the rule the ranking
    uses: "哪个最便宜" is answered as "最便宜的" is searched."""
    return min(options, key=lambda option: _sort_key(option, sort), default=None)


def rank_options(biz_type: str, options: list[dict], wants: BookingWants, *, limit: int = 3) -> Ranked:
    """The best `limit` options for the wants: all matching ones when any match, else the nearest ones with the
    wants they miss in `unmet` (see the module docstring)."""
    scored = []
    for index, option in enumerate(options):
        misses = _misses(option, wants)
        importance = tuple(1 if name in misses else 0 for name in WANT_IMPORTANCE)
        distances = tuple(misses.get(name, 0) for name in WANT_IMPORTANCE)
        sort = wants.sort if not (biz_type == "HOTEL" and wants.sort in ("FASTEST", "EARLIEST", "LATEST")) else None
        scored.append(((importance, distances, _sort_key(option, sort), index), option, misses))
    scored.sort(key=lambda entry: entry[0])
    matching = [(option, misses) for _key, option, misses in scored if not misses]
    if matching:
        return Ranked([option for option, _ in matching[:limit]], True, [])
    if not scored:
        return Ranked([], False, list(wants.given(biz_type)))
    best_misses = scored[0][2]
    unmet = [name for name in WANT_IMPORTANCE if name in best_misses]
    return Ranked([option for _key, option, _m in scored[:limit]], False, unmet)
