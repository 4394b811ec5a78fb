"""The weather port: climate normals offline, Open-Meteo over HTTP against a local server, and the fallback."""

import datetime as dt
import json
import threading
import time
import urllib.parse
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assistant.knowledge import destination_entries
from demo.catalogue import demo_activity_data
from itinerary.weather import (
    CLIMATE_NORMALS,
    FORECAST,
    OUT_OF_RANGE,
    UNAVAILABLE,
    ClimateNormalsWeather,
    OpenMeteoWeather,
    UnknownPlace,
    WeatherUnavailable,
    climate_table,
    get_weather_port,
    weather_lookup,
)
from itinerary.weather.conditions import CONDITIONS

TODAY = dt.date(2026, 12, 1)
DESTINATIONS = destination_entries()


def demo_places() -> set[str]:
    return {name for entry in demo_activity_data() for name in (entry["city"], entry["province"])}


# --- a local Open-Meteo -------------------------------------------------------------------------------------------


def recorded_answer(start: dt.date, days: int, **overrides) -> dict:
    """An answer shaped like Open-Meteo's /v1/forecast (daily block, units, metadata)."""
    dates = [(start + dt.timedelta(days=i)).isoformat() for i in range(days)]
    week = {
        "weather_code": [61, 3, 95, 0, 2, 80, 71],
        "temperature_2m_max": [25.8, 26.4, 24.1, 27.0, 26.9, 25.2, 24.0],
        "temperature_2m_min": [20.1, 20.6, 19.8, 21.0, 20.4, 19.9, 19.5],
        "precipitation_sum": [6.4, 0.0, 12.2, 0.0, 0.1, 2.3, 0.0],
        "precipitation_probability_max": [85, 10, 90, 0, 15, 55, None],
    }
    daily = {"time": dates, **{name: [values[i % 7] for i in range(days)] for name, values in week.items()}}
    daily.update(overrides)
    return {
        "latitude": 18.25,
        "longitude": 109.5,
        "generationtime_ms": 0.31,
        "utc_offset_seconds": 28800,
        "timezone": "Asia/Shanghai",
        "timezone_abbreviation": "GMT+8",
        "elevation": 6.0,
        "daily_units": {
            "time": "iso8601",
            "weather_code": "wmo code",
            "temperature_2m_max": "°C",
            "temperature_2m_min": "°C",
            "precipitation_sum": "mm",
            "precipitation_probability_max": "%",
        },
        "daily": daily,
    }


@dataclass
class Answer:
    """One scripted answer; `body` may be a function of the request's query parameters."""

    status: int = 200
    body: object = ""
    delay: float = 0.0


def answer_for_the_asked_days(**overrides) -> Answer:
    """An answer whose days are the ones the request asked for (start_date … end_date)."""

    def body(params: dict[str, str]) -> dict:
        start, end = dt.date.fromisoformat(params["start_date"]), dt.date.fromisoformat(params["end_date"])
        return recorded_answer(start, (end - start).days + 1, **overrides)

    return Answer(body=body)


@dataclass
class FakeOpenMeteo:
    """Answers /v1/forecast on 127.0.0.1 with scripted answers (the default when the queue is empty)."""

    default: Answer = field(default_factory=Answer)
    queue: deque = field(default_factory=deque)
    requests: list = field(default_factory=list)
    url: str = ""

    def enqueue(self, *answers: Answer) -> None:
        self.queue.extend(answers)

    def next_answer(self, path: str) -> Answer:
        self.requests.append(path)
        return self.queue.popleft() if self.queue else self.default

    def params(self, index: int = -1) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.requests[index]).query))


def start_fake_open_meteo():
    fake = FakeOpenMeteo()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            answer = fake.next_answer(self.path)
            if answer.delay:
                time.sleep(answer.delay)
            body = answer.body
            if callable(body):
                body = body(dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))
            body = body if isinstance(body, str) else json.dumps(body)
            data = body.encode()
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                pass

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    return fake, server


@pytest.fixture
def open_meteo():
    fake, server = start_fake_open_meteo()
    yield fake
    server.shutdown()
    server.server_close()


def adapter(fake: FakeOpenMeteo, timeout: float = 2.0) -> OpenMeteoWeather:
    return OpenMeteoWeather(base_url=fake.url, timeout=timeout)


# --- climate normals ----------------------------------------------------------------------------------------------


def test_normals_for_sanya_in_december_are_labelled_as_climate_normals_with_their_source():
    report = ClimateNormalsWeather().forecast(place="三亚", start=dt.date(2026, 12, 2), days=7)

    assert report.kind == CLIMATE_NORMALS and not report.is_forecast
    assert report.source == "normals"
    assert "not a forecast" in report.source_note and "China Meteorological Administration" in report.source_note
    assert "不是天气预报" in report.source_note_zh
    assert [d.date for d in report.days] == [dt.date(2026, 12, 2) + dt.timedelta(days=i) for i in range(7)]
    first = report.days[0]
    assert (first.temp_min_c, first.temp_max_c) == (20, 26)
    assert first.condition_zh == "多云" and first.condition == "Partly cloudy"
    assert 0 < first.precipitation_probability < 30  # December is Sanya's dry season


def test_harbin_in_january_is_bitterly_cold_and_sayram_lake_is_colder_than_bole_below_it():
    normals = ClimateNormalsWeather()
    harbin = normals.forecast(place="哈尔滨", start=dt.date(2027, 1, 10), days=1).days[0]
    lake = normals.forecast(place="赛里木湖", start=dt.date(2027, 7, 10), days=1).days[0]
    town = normals.forecast(place="博乐", start=dt.date(2027, 7, 10), days=1).days[0]

    assert harbin.temp_min_c <= -20 and harbin.temp_max_c <= -10
    assert lake.temp_max_c < town.temp_max_c - 8


@pytest.mark.parametrize("entry", DESTINATIONS, ids=[e["destination"] for e in DESTINATIONS])
def test_every_catalogue_destination_has_climate_normals(entry):
    for name in (entry["destination"], *entry["keywords"]):
        report = ClimateNormalsWeather().forecast(place=name, start=dt.date(2026, 12, 1), days=1)
        assert report.kind == CLIMATE_NORMALS and report.days, name


def test_every_city_and_province_of_the_demo_catalogue_and_the_main_booking_cities_have_normals():
    table = climate_table()
    main_cities = ["北京", "上海", "杭州", "成都", "广州", "深圳", "西安", "天津", "南京", "重庆", "昆明", "乌鲁木齐"]
    missing = [p for p in (*demo_places(), *main_cities) if not table.knows(p)]
    assert missing == []


def test_every_station_has_twelve_plausible_months_and_coordinates_in_china():
    table = climate_table()
    assert len(table.stations) >= 60
    for station in table.stations.values():
        assert 18 <= station.lat <= 54 and 73 <= station.lon <= 135, station.name
        assert len(station.months) == 12
        for month in station.months:
            assert -40 < month.min_c < month.max_c < 42, station.name
            assert 0 <= month.precip_mm < 600 and 0 <= month.wet_days <= 28, station.name
            assert month.condition in CONDITIONS, (station.name, month.condition)


def test_a_scenic_spot_is_answered_with_its_station_city_and_the_spot_note():
    report = ClimateNormalsWeather().forecast(place="长城", start=TODAY, days=1)

    assert report.place == "长城" and report.station == "北京"
    assert "八达岭" in report.place_note_zh and "Badaling" in report.place_note


def test_a_province_is_answered_with_its_capital_and_a_city_suffix_is_understood():
    normals = ClimateNormalsWeather()

    assert normals.forecast(place="云南", start=TODAY, days=1).station == "昆明"
    assert normals.forecast(place="Yunnan", start=TODAY, days=1).station == "昆明"
    assert normals.forecast(place="三亚市", start=TODAY, days=1).station == "三亚"
    assert normals.forecast(place=" sanya ", start=TODAY, days=1).station == "三亚"


def test_an_unknown_place_raises_unknown_place():
    with pytest.raises(UnknownPlace) as raised:
        ClimateNormalsWeather().forecast(place="火星基地", start=TODAY, days=7)
    assert raised.value.place == "火星基地"


def test_the_normals_are_the_default_provider(settings):
    settings.WEATHER_PROVIDER = "normals"
    assert get_weather_port().provider == "normals"
    settings.WEATHER_PROVIDER = "open_meteo"
    assert get_weather_port().provider == "open_meteo"
    settings.WEATHER_PROVIDER = "crystal_ball"
    with pytest.raises(ValueError, match="WEATHER_PROVIDER"):
        get_weather_port()


# --- Open-Meteo against a local server ----------------------------------------------------------------------------


def test_the_forecast_adapter_asks_open_meteo_for_the_station_and_window_and_parses_the_answer(open_meteo):
    start = dt.date(2026, 12, 2)
    open_meteo.default = Answer(body=recorded_answer(start, 7))

    report = adapter(open_meteo).forecast(place="亚龙湾", start=start, days=7)

    params = open_meteo.params()
    assert open_meteo.requests[0].startswith("/v1/forecast?")
    assert (params["latitude"], params["longitude"]) == ("18.2500", "109.5100")  # 亚龙湾 → the Sanya station
    assert params["daily"] == (
        "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max"
    )
    assert params["timezone"] == "Asia/Shanghai"
    assert (params["start_date"], params["end_date"]) == ("2026-12-02", "2026-12-08")
    assert report.kind == FORECAST and report.source == "open_meteo" and report.station == "三亚"
    assert "Open-Meteo" in report.source_note
    first, stormy, last = report.days[0], report.days[2], report.days[6]
    assert (first.condition_zh, first.temp_min_c, first.temp_max_c) == ("小雨", 20.1, 25.8)
    assert (first.precipitation_mm, first.precipitation_probability) == (6.4, 85)
    assert stormy.condition == "Thunderstorms" and stormy.code == "thunderstorm"
    assert last.condition_zh == "小雪" and last.precipitation_probability is None  # null stays unknown


def test_an_unknown_place_is_refused_before_any_http_call(open_meteo):
    with pytest.raises(UnknownPlace):
        adapter(open_meteo).forecast(place="火星基地", start=TODAY, days=7)
    assert open_meteo.requests == []


def test_a_server_error_is_weather_unavailable(open_meteo):
    open_meteo.default = Answer(status=500, body={"error": True, "reason": "Internal error"})

    with pytest.raises(WeatherUnavailable, match="500"):
        adapter(open_meteo).forecast(place="三亚", start=TODAY, days=7)


def test_an_api_refusal_is_weather_unavailable(open_meteo):
    open_meteo.default = Answer(status=400, body={"error": True, "reason": "Parameter 'start_date' is out of range"})

    with pytest.raises(WeatherUnavailable):
        adapter(open_meteo).forecast(place="三亚", start=TODAY, days=7)


def test_a_slow_answer_times_out_within_the_timeout(open_meteo):
    open_meteo.default = Answer(body=recorded_answer(TODAY, 7), delay=3)

    with pytest.raises(WeatherUnavailable, match="within"):  # the answer was on its way: the timeout cut it off
        adapter(open_meteo, timeout=0.5).forecast(place="三亚", start=TODAY, days=7)


@pytest.mark.parametrize(
    "answer",
    [
        Answer(body="<html>502 Bad Gateway</html>"),
        Answer(body="{"),
        Answer(body=[1, 2, 3]),
        Answer(body={"latitude": 18.25}),
        Answer(body=recorded_answer(TODAY, 3)),  # fewer days than asked
        Answer(body=recorded_answer(TODAY, 7, temperature_2m_max=[None] * 7)),
        Answer(body=recorded_answer(TODAY, 7, weather_code=["sunny"] * 7)),
        Answer(body=recorded_answer(TODAY, 7, precipitation_sum=[1.0])),  # series of different lengths
    ],
    ids=["html", "truncated", "list", "no-daily", "missing-days", "null-temperatures", "text-codes", "ragged"],
)
def test_a_garbage_answer_is_weather_unavailable(open_meteo, answer):
    open_meteo.default = answer

    with pytest.raises(WeatherUnavailable):
        adapter(open_meteo).forecast(place="三亚", start=TODAY, days=7)


def test_an_unreachable_server_is_weather_unavailable():
    fake, server = start_fake_open_meteo()
    server.shutdown()
    server.server_close()

    with pytest.raises(WeatherUnavailable):
        adapter(fake, timeout=1.0).forecast(place="三亚", start=TODAY, days=7)


# --- the lookup: the forecast, or the normals and why -------------------------------------------------------------


def test_the_lookup_answers_with_the_forecast_when_it_works(open_meteo):
    open_meteo.default = Answer(body=recorded_answer(TODAY, 7))

    found = weather_lookup(place="三亚", start=TODAY, days=7, today=TODAY, port=adapter(open_meteo))

    assert found.fallback is None and found.report.kind == FORECAST


def test_when_the_forecast_fails_the_lookup_falls_back_to_normals_and_says_so(open_meteo):
    open_meteo.default = Answer(status=503, body="busy")

    found = weather_lookup(place="三亚", start=TODAY, days=7, today=TODAY, port=adapter(open_meteo))

    assert found.fallback == UNAVAILABLE
    assert found.report.kind == CLIMATE_NORMALS and found.report.source == "normals"
    assert len(found.report.days) == 7


def test_days_beyond_the_forecast_horizon_are_answered_with_normals_without_calling_the_api(open_meteo):
    found = weather_lookup(
        place="三亚", start=TODAY + dt.timedelta(days=20), days=5, today=TODAY, port=adapter(open_meteo)
    )

    assert found.fallback == OUT_OF_RANGE and found.report.kind == CLIMATE_NORMALS
    assert open_meteo.requests == []


def test_an_unknown_place_is_not_hidden_by_the_fallback(open_meteo):
    with pytest.raises(UnknownPlace):
        weather_lookup(place="火星基地", start=TODAY, days=7, today=TODAY, port=adapter(open_meteo))
