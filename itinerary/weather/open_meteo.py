"""The forecast adapter: Open-Meteo's daily forecast over HTTP (stdlib urllib), with an explicit timeout.

`GET {base}/v1/forecast?latitude=…&longitude=…&daily=weather_code,temperature_2m_max,temperature_2m_min,
precipitation_sum,precipitation_probability_max&timezone=Asia/Shanghai&start_date=…&end_date=…`.
Places are geocoded from the climate-normals table (no second HTTP call). Any HTTP error, timeout or unreadable
answer raises WeatherUnavailable; this module is the only place in TripDesk that calls the weather API.
"""

import datetime as dt
import json
import logging
import math
import time
import urllib.error
import urllib.parse
import urllib.request

from itinerary.weather.conditions import condition_for_wmo, condition_labels
from itinerary.weather.normals import ClimateTable, climate_table
from itinerary.weather.port import FORECAST, DayWeather, WeatherReport, WeatherUnavailable

logger = logging.getLogger("itinerary.weather")

DAILY = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max"
TIMEZONE = "Asia/Shanghai"
MAX_ANSWER_BYTES = 1_000_000
# Open-Meteo forecasts up to 16 days ahead (today included).
HORIZON_DAYS = 16


class OpenMeteoWeather:
    provider = "open_meteo"

    def __init__(self, *, base_url: str, timeout: float, table: ClimateTable | None = None) -> None:
        if urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"WEATHER_API_URL must be an http(s) URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.table = table or climate_table()

    def forecast(self, *, place: str, start: dt.date, days: int) -> WeatherReport:
        resolved = self.table.resolve(place)  # UnknownPlace before any network call
        station = resolved.station
        end = start + dt.timedelta(days=max(days, 1) - 1)
        query = urllib.parse.urlencode(
            {
                "latitude": f"{station.lat:.4f}",
                "longitude": f"{station.lon:.4f}",
                "daily": DAILY,
                "timezone": TIMEZONE,
                "start_date": start.isoformat(),
                "end_date": end.isoformat(),
            }
        )
        answer = self._get(f"{self.base_url}/v1/forecast?{query}")
        try:
            weather_days = parse_daily(answer, start=start, days=days)
        except (KeyError, TypeError, ValueError) as exc:
            logger.warning("weather answer unreadable", extra={"provider": self.provider, "error": str(exc)})
            raise WeatherUnavailable(f"unreadable forecast: {exc}") from exc
        return WeatherReport(
            place=resolved.place,
            source=self.provider,
            kind=FORECAST,
            source_note=f"Forecast by Open-Meteo (open-meteo.com, CC BY 4.0) for {station.en}",
            source_note_zh=f"Open-Meteo 数值天气预报（open-meteo.com），按{station.name}的坐标",
            days=weather_days,
            station=station.name,
            station_en=station.en,
            place_note=resolved.note_en,
            place_note_zh=resolved.note_zh,
        )

    def _get(self, url: str) -> object:
        headers = {"Accept": "application/json", "User-Agent": "TripDesk"}
        request = urllib.request.Request(url, headers=headers)  # noqa: S310 - http(s) only, checked in __init__
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - see above
                body = _read_until(response, deadline=started + self.timeout)
        except urllib.error.HTTPError as exc:
            logger.warning("weather API error", extra={"provider": self.provider, "status": exc.code})
            raise WeatherUnavailable(f"weather API answered HTTP {exc.code}") from exc
        except TimeoutError as exc:
            logger.warning("weather API timeout", extra={"provider": self.provider, "timeout_s": self.timeout})
            raise WeatherUnavailable(f"weather API did not answer within {self.timeout} s") from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            logger.warning("weather API unreachable", extra={"provider": self.provider, "error": str(exc)})
            raise WeatherUnavailable(f"weather API unreachable: {exc}") from exc
        finally:
            logger.info(
                "weather call",
                extra={"provider": self.provider, "latency_ms": int((time.monotonic() - started) * 1000)},
            )
        if len(body) > MAX_ANSWER_BYTES:
            raise WeatherUnavailable("weather API answer too large")
        try:
            return json.loads(body)
        except (UnicodeDecodeError, ValueError) as exc:
            raise WeatherUnavailable("weather API answer is not JSON") from exc


def _read_until(response, *, deadline: float) -> bytes:
    """The body, read in chunks; each read waits at most the socket timeout, and the whole read stops at the
    deadline, so a server trickling bytes cannot hold a request for longer than the timeout."""
    chunks, size = [], 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("weather API answer too slow")
        chunk = response.read(64 * 1024)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            return b"".join(chunks)


def _number(value: object, *, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name}: not a number ({value!r})")
    return float(value)


def parse_daily(answer: object, *, start: dt.date, days: int) -> list[DayWeather]:
    """Open-Meteo's `daily` block → one DayWeather per requested day. Raises ValueError/KeyError/TypeError when
    the answer is not what was asked (missing days, missing temperatures, an error object)."""
    if not isinstance(answer, dict):
        raise TypeError("answer is not an object")
    if answer.get("error"):
        raise ValueError(f"API error: {answer.get('reason', 'unknown')}")
    daily = answer["daily"]
    times = daily["time"]
    series = {name: daily[name] for name in DAILY.split(",")}
    if not isinstance(times, list) or any(not isinstance(v, list) or len(v) != len(times) for v in series.values()):
        raise ValueError("daily series of different lengths")
    by_date = {dt.date.fromisoformat(t): i for i, t in enumerate(times)}
    result = []
    for offset in range(days):
        day = start + dt.timedelta(days=offset)
        if day not in by_date:
            raise ValueError(f"no forecast for {day}")
        i = by_date[day]
        code = series["weather_code"][i]
        if isinstance(code, bool) or not isinstance(code, int | float):
            raise ValueError(f"weather_code: not a number ({code!r})")
        key = condition_for_wmo(int(code))
        english, chinese = condition_labels(key)
        low = _number(series["temperature_2m_min"][i], name="temperature_2m_min")
        high = _number(series["temperature_2m_max"][i], name="temperature_2m_max")
        rain = series["precipitation_sum"][i]
        chance = series["precipitation_probability_max"][i]
        result.append(
            DayWeather(
                date=day,
                condition=english,
                condition_zh=chinese,
                temp_min_c=min(low, high),
                temp_max_c=max(low, high),
                precipitation_mm=round(_number(rain, name="precipitation_sum"), 1) if rain is not None else None,
                precipitation_probability=(
                    max(0, min(100, round(_number(chance, name="precipitation_probability_max"))))
                    if chance is not None
                    else None
                ),
                code=key,
            )
        )
    return result
