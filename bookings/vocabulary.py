"""The supplier's words (it names things in Chinese, and in English beside them when it can) as the reader reads
them: seats and cabins, airlines, kinds of train, hotels and places. The one place that maps them.

Seats, airlines and kinds of train are msgids in .po files: English readers get the English (locale/en for the
supplier's Chinese seat words, the English msgids otherwise), Chinese readers the supplier's word. A hotel or a place
is named in English by the English name the supplier sent (`nameEn`, `fromEn` …, kept in an option or a booking's
details as `name_en`, `origin_en` …), else by the place lists' (the LLM port); with none, as the supplier wrote it.

    seat_name("二等座")                      # "second class" under English, "二等座" under Chinese
    airline_name("厦门航空")                  # "Xiamen Airlines" / "厦门航空"
    place_name("北京")                        # "Beijing" / "北京" (a route on a card: "Beijing → Shanghai")
    hotel_name("婺源山景民宿", city="婺源")    # no English name known: "婺源山景民宿 (Wuyuan)" / "婺源山景民宿"

The rule for places: inside a name, a title or a route (cards, booking replies, the bookings pages) a place is its
English name alone (`place_name`); the place a sentence is about is "Hangzhou (杭州)" (`itinerary.words.place_label`,
built on the same English names).
"""

from collections.abc import Mapping

from django.utils.translation import gettext, gettext_lazy, gettext_noop, pgettext, pgettext_lazy

from assistant.llm.places import english_name

SEATS = (
    gettext_noop("经济舱"),
    gettext_noop("公务舱"),
    gettext_noop("商务舱"),
    gettext_noop("头等舱"),
    gettext_noop("二等座"),
    gettext_noop("一等座"),
    gettext_noop("商务座"),
    gettext_noop("软卧"),
    gettext_noop("硬卧"),
    gettext_noop("动卧"),
    gettext_noop("硬座"),
    gettext_noop("无座"),
)

# The supplier's airline names → their English names (msgids; locale/zh_Hans gives the supplier's name back).
AIRLINES = {
    "东方航空": gettext_lazy("China Eastern"),
    "中国国际航空": gettext_lazy("Air China"),
    "南方航空": gettext_lazy("China Southern"),
    "海南航空": gettext_lazy("Hainan Airlines"),
    "四川航空": gettext_lazy("Sichuan Airlines"),
    "厦门航空": gettext_lazy("Xiamen Airlines"),
}
# A train's kind, by the first letter of its number (G101 is a high-speed train, D8 a bullet train).
TRAIN_KINDS = {"G": gettext_lazy("High-speed train"), "D": gettext_lazy("Bullet train")}
ANY_TRAIN = pgettext_lazy("a kind of train", "Train")


def _in_reader_language(chinese: str, english: str) -> str:
    """`english` for an English reader, `chinese` for a Chinese one: the .po files say which (locale/en gives
    "%(english)s", locale/zh_Hans "%(chinese)s"); a language without the entry shows both."""
    if not english or english == chinese:
        return chinese
    if not chinese:
        return english
    words = pgettext("a supplier's name, in the reader's language", "%(english)s (%(chinese)s)")
    return words % {"english": english, "chinese": chinese}


def seat_name(word: object, english: object = "") -> str:
    """A seat or cabin as the active language says it: our words for the seats we know, else the supplier's
    English (`seatTypeEn`, `cabinEn`) for an English reader, else the supplier's word."""
    text = str(word or "")
    if text in SEATS:
        return gettext(text)
    return _in_reader_language(text, str(english or ""))


def airline_name(name: object, english: object = "") -> str:
    """An airline in the active language: the name we know for it, else the supplier's English (`airlineEn`)."""
    text = str(name or "")
    known = AIRLINES.get(text)
    if known is not None:
        return str(known)
    return _in_reader_language(text, str(english or ""))


def train_kind(number: object, name: object = "", english: object = "") -> str:
    """What kind of train a number is (G: high-speed, D: bullet train) in the active language; for another kind,
    the supplier's type (`trainType`, `trainTypeEn`), else "train"."""
    letter = str(number or "")[:1].upper()
    if letter in TRAIN_KINDS:
        return str(TRAIN_KINDS[letter])
    return _in_reader_language(str(name or ""), str(english or "")) or str(ANY_TRAIN)


def english_place(place: object) -> str | None:
    """The usual English name of a Chinese place (杭州 → Hangzhou), None when the place lists know none or it is
    written in English already."""
    text = str(place or "").strip()
    if not text or text.isascii():
        return None
    return english_name(text)


def place_name(place: object, english: object = "") -> str:
    """A place inside a name, a title or a route, in the active language: its English name alone for an English
    reader (the supplier's, else the place lists'), the Chinese for a Chinese one; as written when no English name
    is known."""
    text = str(place or "").strip()
    return _in_reader_language(text, str(english or "") or english_place(text) or "")


def route_name(origin: object, destination: object, origin_en: object = "", destination_en: object = "") -> str:
    """Beijing → Shanghai / 北京 → 上海; "" without an origin."""
    if not origin:
        return ""
    return f"{place_name(origin, origin_en)} → {place_name(destination, destination_en)}"


def hotel_name(name: object, english: object = "", *, city: object = "", city_en: object = "") -> str:
    """A hotel in the active language: the supplier's English name (`nameEn`); a hotel without one is named as
    the supplier wrote it, with its city's English name beside it for an English reader ("婺源山景民宿 (Wuyuan)")."""
    text, english = str(name or ""), str(english or "")
    if english:
        return _in_reader_language(text, english)
    place = place_name(city, city_en)
    if not text or not place or place == str(city or "").strip():
        return text
    # locale/zh_Hans gives "%(name)s": a Chinese reader reads the name alone.
    return pgettext("a supplier's name, in the reader's language", "%(name)s (%(place)s)") % {
        "name": text,
        "place": place,
    }


def names_shown(item: Mapping, biz_type: str) -> dict:
    """The names of an option, a booking's facts or a card (`name`, `origin`, `destination`, `city`, `seat` or
    `seat_class`, `number`, and their English `name_en`, `origin_en` …) as the active language shows them:
    `{"name", "route", "city", "seat", "title"}`, the title as a card heads it ("Xiamen Airlines MF1197
    Beijing→Shanghai", "G101 Beijing→Tianjin", "Hangzhou Central Guesthouse 3★")."""
    get = lambda key: str(item.get(key) or "")  # noqa: E731
    city = place_name(get("city"), get("city_en")) if get("city") else ""
    seat = seat_name(get("seat") or get("seat_class"), get("seat_en") or get("seat_class_en"))
    if biz_type == "HOTEL":
        name = hotel_name(get("name"), get("name_en"), city=get("city"), city_en=get("city_en"))
        star = f" {item['star']}★" if item.get("star") else ""
        return {"name": name, "route": "", "city": city, "seat": seat, "title": f"{name or get('number')}{star}"}
    route = route_name(get("origin"), get("destination"), get("origin_en"), get("destination_en"))
    way = route.replace(" → ", "→")  # a title's route is written tight, as it always was: 北京→上海
    if biz_type == "FLIGHT":
        name = airline_name(get("name"), get("name_en"))
        title = " ".join(p for p in (name, get("number"), way) if p)
    else:
        name = train_kind(get("number"), get("name"), get("name_en"))
        title = " ".join(p for p in (get("number"), way) if p)
    return {"name": name, "route": route, "city": city, "seat": seat, "title": title}
