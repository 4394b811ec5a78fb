"""The sandbox's inventory: flights, trains and hotels derived from a hash of the query, the same every time.

Numbers, times and hotels are stable per route or city (a real flight keeps its number every day); flight fares
also vary per day. Like an international supplier, it names things in English beside the Chinese (`airlineEn`,
`trainTypeEn`, `seatTypeEn`, `cabinEn`, `nameEn`, `addressEn`, and `fromEn` / `toEn` / `cityEn` for the cities of
CITY_ENGLISH); a city it has no English name for gets no English fields that would need one. Distances come from real coordinates for well-known cities and from a position derived from
the name for any other, so durations and fares grow with distance in a consistent way.
"""

import datetime as dt
import hashlib
import math
import random

# Latitude, longitude of cities the catalogue and travellers name most; any other name gets a hashed position.
CITY_COORDINATES: dict[str, tuple[float, float]] = {
    "北京": (39.90, 116.41),
    "天津": (39.08, 117.20),
    "上海": (31.23, 121.47),
    "杭州": (30.27, 120.16),
    "南京": (32.06, 118.80),
    "苏州": (31.30, 120.59),
    "宁波": (29.87, 121.54),
    "广州": (23.13, 113.26),
    "深圳": (22.54, 114.06),
    "珠海": (22.27, 113.58),
    "厦门": (24.48, 118.09),
    "福州": (26.07, 119.30),
    "成都": (30.57, 104.07),
    "重庆": (29.56, 106.55),
    "西安": (34.34, 108.94),
    "武汉": (30.59, 114.31),
    "长沙": (28.23, 112.94),
    "郑州": (34.75, 113.63),
    "济南": (36.65, 117.12),
    "青岛": (36.07, 120.38),
    "沈阳": (41.81, 123.43),
    "大连": (38.91, 121.61),
    "哈尔滨": (45.80, 126.53),
    "长春": (43.82, 125.32),
    "昆明": (25.04, 102.71),
    "大理": (25.61, 100.27),
    "丽江": (26.86, 100.23),
    "西双版纳": (22.01, 100.80),
    "贵阳": (26.65, 106.63),
    "桂林": (25.27, 110.29),
    "南宁": (22.82, 108.37),
    "海口": (20.04, 110.20),
    "三亚": (18.25, 109.51),
    "拉萨": (29.65, 91.17),
    "西宁": (36.62, 101.78),
    "兰州": (36.06, 103.83),
    "敦煌": (40.14, 94.66),
    "银川": (38.49, 106.23),
    "呼和浩特": (40.84, 111.75),
    "乌鲁木齐": (43.83, 87.62),
    "博乐": (44.90, 82.07),
    "伊宁": (43.91, 81.28),
    "喀什": (39.47, 75.99),
    "阿勒泰": (47.84, 88.14),
    "黄山": (29.71, 118.34),
    "张家界": (29.12, 110.48),
    "九寨沟": (33.26, 103.92),
    "南昌": (28.68, 115.86),
    "合肥": (31.82, 117.23),
    "太原": (37.87, 112.55),
    "石家庄": (38.04, 114.51),
}

# The English names of CITY_COORDINATES' cities (the sandbox imports nothing of the site, so it keeps its own).
CITY_ENGLISH: dict[str, str] = {
    "北京": "Beijing",
    "天津": "Tianjin",
    "上海": "Shanghai",
    "杭州": "Hangzhou",
    "南京": "Nanjing",
    "苏州": "Suzhou",
    "宁波": "Ningbo",
    "广州": "Guangzhou",
    "深圳": "Shenzhen",
    "珠海": "Zhuhai",
    "厦门": "Xiamen",
    "福州": "Fuzhou",
    "成都": "Chengdu",
    "重庆": "Chongqing",
    "西安": "Xi'an",
    "武汉": "Wuhan",
    "长沙": "Changsha",
    "郑州": "Zhengzhou",
    "济南": "Jinan",
    "青岛": "Qingdao",
    "沈阳": "Shenyang",
    "大连": "Dalian",
    "哈尔滨": "Harbin",
    "长春": "Changchun",
    "昆明": "Kunming",
    "大理": "Dali",
    "丽江": "Lijiang",
    "西双版纳": "Xishuangbanna",
    "贵阳": "Guiyang",
    "桂林": "Guilin",
    "南宁": "Nanning",
    "海口": "Haikou",
    "三亚": "Sanya",
    "拉萨": "Lhasa",
    "西宁": "Xining",
    "兰州": "Lanzhou",
    "敦煌": "Dunhuang",
    "银川": "Yinchuan",
    "呼和浩特": "Hohhot",
    "乌鲁木齐": "Urumqi",
    "博乐": "Bole",
    "伊宁": "Yining",
    "喀什": "Kashgar",
    "阿勒泰": "Altay",
    "黄山": "Huangshan",
    "张家界": "Zhangjiajie",
    "九寨沟": "Jiuzhaigou",
    "南昌": "Nanchang",
    "合肥": "Hefei",
    "太原": "Taiyuan",
    "石家庄": "Shijiazhuang",
}

AIRLINES = [
    ("MU", "东方航空"),
    ("CA", "中国国际航空"),
    ("CZ", "南方航空"),
    ("HU", "海南航空"),
    ("3U", "四川航空"),
    ("MF", "厦门航空"),
]
AIRLINES_EN = {
    "东方航空": "China Eastern",
    "中国国际航空": "Air China",
    "南方航空": "China Southern",
    "海南航空": "Hainan Airlines",
    "四川航空": "Sichuan Airlines",
    "厦门航空": "Xiamen Airlines",
}
AIRCRAFT = ["A320", "A321", "B737-800", "B737 MAX 8", "A330-300", "B787-9", "C919"]
HOTEL_PLACES = ["湖畔", "古城", "中心", "站前", "机场", "山景", "滨江", "花园", "老街", "国际", "云景", "星河"]
HOTEL_BRANDS = ["假日酒店", "精品酒店", "客栈", "大酒店", "度假酒店", "商务酒店", "公寓酒店", "民宿", "雅居酒店"]
# Each word of a hotel's name and street in English: 杭州山景公寓酒店 is Hangzhou Mountain View Serviced Apartments.
HOTEL_PLACES_EN = {
    "湖畔": "Lakeside",
    "古城": "Old Town",
    "中心": "Central",
    "站前": "Station",
    "机场": "Airport",
    "山景": "Mountain View",
    "滨江": "Riverside",
    "花园": "Garden",
    "老街": "Old Street",
    "国际": "International",
    "云景": "Cloud View",
    "星河": "Galaxy",
}
HOTEL_BRANDS_EN = {
    "假日酒店": "Holiday Hotel",
    "精品酒店": "Boutique Hotel",
    "客栈": "Inn",
    "大酒店": "Grand Hotel",
    "度假酒店": "Resort",
    "商务酒店": "Business Hotel",
    "公寓酒店": "Serviced Apartments",
    "民宿": "Guesthouse",
    "雅居酒店": "Elegant Stay Hotel",
}
# Nightly price range by star level.
HOTEL_PRICES = {2: (150, 300), 3: (260, 520), 4: (480, 950), 5: (850, 1500)}
TRAIN_SEATS = [("二等座", 1.0), ("一等座", 1.6), ("商务座", 3.15)]
SEATS_EN = {"二等座": "Second class", "一等座": "First class", "商务座": "Business class", "经济舱": "Economy"}
# A train's kind (the first letter of its number): its type in Chinese and in English.
TRAIN_TYPES = {"G": ("高铁", "High-speed train"), "D": ("动车", "Bullet train")}
MAX_NIGHTS = 30


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _city_english(fields: dict[str, str]) -> dict[str, str]:
    """`{"fromEn": "Beijing", …}` for the cities given (`{"fromEn": "北京", …}`) that have an English name."""
    return {key: CITY_ENGLISH[city] for key, city in fields.items() if city in CITY_ENGLISH}


def position(city: str) -> tuple[float, float]:
    """Known coordinates, or a stable position inside China's rough bounds derived from the name."""
    if city in CITY_COORDINATES:
        return CITY_COORDINATES[city]
    r = _rng("position", city)
    return (round(r.uniform(22.0, 45.0), 2), round(r.uniform(88.0, 122.0), 2))


def distance_km(origin: str, destination: str) -> int:
    """Great-circle distance with a routing factor, never under 80 km."""
    (lat1, lon1), (lat2, lon2) = position(origin), position(destination)
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    km = 2 * 6371 * math.asin(math.sqrt(a)) * 1.15
    return max(80, round(km))


def _round_to(value: float, step: int) -> int:
    return int(round(value / step) * step)


def _clock(date: dt.date, minutes: int) -> str:
    return (dt.datetime.combine(date, dt.time()) + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def _price(value: float) -> int | float:
    """Whole yuan or half yuan, as JSON shows them."""
    halves = round(value * 2) / 2
    return int(halves) if halves == int(halves) else halves


def _departures(r: random.Random, count: int, first: int, last: int) -> list[int]:
    """`count` departure minutes spread over [first, last], each jittered inside its slot, rounded to 5 minutes."""
    slot = (last - first) / count
    return [_round_to(first + i * slot + r.uniform(0, slot * 0.8), 5) for i in range(count)]


def flights(origin: str, destination: str, date: dt.date) -> list[dict]:
    """4–8 flights of the day, by departure time."""
    route = _rng("flight-route", origin, destination)
    day = _rng("flight-day", origin, destination, date.isoformat())
    km = distance_km(origin, destination)
    block = 35 + km / 780 * 60
    full_fare = min(2500, 450 + km * 0.7)
    numbers: set[str] = set()
    result = []
    for depart in _departures(route, route.randint(4, 8), 6 * 60 + 30, 21 * 60 + 30):
        code, airline = route.choice(AIRLINES)
        number = f"{code}{route.randint(1000, 9899)}"
        while number in numbers:
            number = f"{code}{route.randint(1000, 9899)}"
        numbers.add(number)
        minutes = max(45, _round_to(block + route.choice([-5, 0, 0, 5, 10, 15]), 5))
        fare = _round_to(300 + (full_fare - 300) * day.uniform(0.05, 1.0), 10)  # 300 up to the full fare
        result.append(
            {
                "flightNo": number,
                "airline": airline,
                "from": origin,
                "to": destination,
                "departTime": _clock(date, depart),
                "arriveTime": _clock(date, depart + minutes),
                "durationMinutes": minutes,
                "aircraft": route.choice(AIRCRAFT),
                "cabin": "经济舱",
                "price": fare,
                "airlineEn": AIRLINES_EN[airline],
                "cabinEn": SEATS_EN["经济舱"],
                **_city_english({"fromEn": origin, "toEn": destination}),
            }
        )
    return result


def trains(origin: str, destination: str, date: dt.date) -> list[dict]:
    """2–6 G/D trains of the day, by departure time; seat prices are fixed per route, as on the railway."""
    route = _rng("train-route", origin, destination)
    km = distance_km(origin, destination)
    numbers: set[str] = set()
    result = []
    for depart in _departures(route, route.randint(2, 6), 6 * 60, 20 * 60 + 30):
        kind = "G" if route.random() < 0.65 else "D"
        number = f"{kind}{route.randint(1, 2999)}"
        while number in numbers:
            number = f"{kind}{route.randint(1, 2999)}"
        numbers.add(number)
        speed = 230 if kind == "G" else 160
        minutes = _round_to(km / speed * 60 + 10 + route.randint(0, 4) * 5, 5)
        second_class = max(15.0, km * (0.46 if kind == "G" else 0.31))
        seats = [
            {"seatType": seat, "price": _price(second_class * factor), "seatTypeEn": SEATS_EN[seat]}
            for seat, factor in TRAIN_SEATS
            if kind == "G" or seat != "商务座"
        ]
        result.append(
            {
                "trainNo": number,
                "from": origin,
                "to": destination,
                "departTime": _clock(date, depart),
                "arriveTime": _clock(date, depart + minutes),
                "durationMinutes": minutes,
                "seats": seats,
                "kind": kind,
                "trainType": TRAIN_TYPES[kind][0],
                "trainTypeEn": TRAIN_TYPES[kind][1],
                **_city_english({"fromEn": origin, "toEn": destination}),
            }
        )
    return result


def city_code(city: str) -> str:
    digest = hashlib.sha256(city.encode()).digest()
    return "".join(chr(ord("A") + b % 26) for b in digest[:4])


def hotels(city: str, check_in: dt.date, check_out: dt.date) -> list[dict]:
    """4–8 hotels of the city; the nightly price is fixed per hotel, the total follows the nights."""
    r = _rng("hotels", city)
    nights = (check_out - check_in).days
    code = city_code(city)
    places = r.sample(HOTEL_PLACES, r.randint(4, 8))
    result = []
    for i, place in enumerate(places):
        star = r.choice([2, 3, 3, 4, 4, 5])
        low, high = HOTEL_PRICES[star]
        per_night = _round_to(r.uniform(low, high), 10)
        brand, rating, street_no = r.choice(HOTEL_BRANDS), round(r.uniform(3.9, 4.9), 1), r.randint(1, 299)
        hotel = {
            "hotelId": f"H{code}{i + 1:02d}",
            "name": f"{city}{place}{brand}",
            "city": city,
            "star": star,
            "rating": rating,
            "address": f"{city}{place}路{street_no}号",
            "checkInDate": check_in.isoformat(),
            "checkOutDate": check_out.isoformat(),
            "pricePerNight": per_night,
            "nights": nights,
            "totalPrice": per_night * nights,
        }
        city_en = CITY_ENGLISH.get(city)
        if city_en:
            place_en = HOTEL_PLACES_EN[place]
            hotel |= {
                "nameEn": f"{city_en} {place_en} {HOTEL_BRANDS_EN[brand]}",
                "cityEn": city_en,
                "addressEn": f"{street_no} {place_en} Road, {city_en}",
            }
        result.append(hotel)
    return result
