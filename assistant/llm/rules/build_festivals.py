"""Build `festivals.json`, the festival days of the date reader (by hand: `python -m assistant.llm.rules.build_festivals`).

Sources: jionlp's lunar calendar (`jionlp.lunar2solar`) for 春节 (正月初一), 元宵 (正月十五), 端午 (五月初五), 七夕
(七月初七), 中秋 (八月十五) and 重阳 (九月初九), over the years it covers (1901-2100); 清明 and 冬至 are solar terms, not
lunar dates: the day (Beijing time) on which the Sun's apparent longitude reaches 15° (清明) or 270° (冬至), computed
below with Meeus' low-precision solar position (about 0.01°, a quarter of an hour) rather than jionlp's century
formula, which is a day off for 清明 in 2000 and 2100. The reader reads only the JSON at
run time, so jionlp is not imported on a turn for festivals.
"""

import json
import math
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent / "festivals.json"
FIRST_YEAR, LAST_YEAR = 1901, 2100  # jionlp's lunar calendar ends in 2100 (and 春节 1900 has no 除夕 in 1900's table)
LUNAR = {"春节": (1, 1), "元宵": (1, 15), "端午": (5, 5), "七夕": (7, 7), "中秋": (8, 15), "重阳": (9, 9)}
# A solar term: the longitude of the Sun that starts it, and a window of days it always falls in (month, first, last).
SOLAR_TERMS = {"清明": (15, (3, 30), (4, 10)), "冬至": (270, (12, 15), (12, 28))}
BEIJING = timezone(timedelta(hours=8))


def _sun_longitude(moment: datetime) -> float:
    """The Sun's apparent ecliptic longitude in degrees (Meeus, Astronomical Algorithms, ch. 25, low precision)."""
    jd = moment.timestamp() / 86400 + 2440587.5
    t = (jd - 2451545.0) / 36525
    mean = 280.46646 + 36000.76983 * t + 0.0003032 * t * t
    anomaly = math.radians(357.52911 + 35999.05029 * t - 0.0001537 * t * t)
    centre = (
        (1.914602 - 0.004817 * t - 0.000014 * t * t) * math.sin(anomaly)
        + (0.019993 - 0.000101 * t) * math.sin(2 * anomaly)
        + 0.000289 * math.sin(3 * anomaly)
    )
    node = math.radians(125.04 - 1934.136 * t)
    return (mean + centre - 0.00569 - 0.00478 * math.sin(node)) % 360


def solar_term(name: str, year: int) -> str:
    """The Beijing date ("MM-DD") on which the Sun reaches the longitude of a solar term, by bisection over its window."""
    longitude, (first_month, first_day), (last_month, last_day) = SOLAR_TERMS[name]
    low = datetime(year, first_month, first_day, tzinfo=UTC)
    high = datetime(year, last_month, last_day, tzinfo=UTC)
    while high - low > timedelta(seconds=30):
        middle = low + (high - low) / 2
        if _sun_longitude(middle) < longitude:
            low = middle
        else:
            high = middle
    return high.astimezone(BEIJING).strftime("%m-%d")


def qingming(year: int) -> str:
    """The Beijing date ("MM-DD") of 清明, the Sun at longitude 15°."""
    return solar_term("清明", year)


def build() -> dict:
    import jionlp

    dates: dict[str, list[str]] = {name: [] for name in (*LUNAR, *SOLAR_TERMS)}
    for year in range(FIRST_YEAR, LAST_YEAR + 1):
        for name, (month, day) in LUNAR.items():
            solar = jionlp.lunar2solar(year, month, day)
            assert solar.year == year, (name, year, solar)
            dates[name].append(solar.strftime("%m-%d"))
        for name in SOLAR_TERMS:
            dates[name].append(solar_term(name, year))
    return {"first_year": FIRST_YEAR, "last_year": LAST_YEAR, "dates": dates}


if __name__ == "__main__":
    data = build()
    OUT.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    print(f"wrote {OUT}: {', '.join(data['dates'])} for {data['first_year']}-{data['last_year']}")
