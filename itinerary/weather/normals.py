"""Climate normals: the offline adapter, and the table of places every adapter resolves names with.

`itinerary/data/climate_normals.json` holds, per station, monthly normals (mean daily min/max °C, monthly
precipitation, wet days, the typical sky) and the station's coordinates, which the forecast adapter uses to ask
for a forecast. A scenic spot or a catalogue city is an alias of its station; a province means its capital.
"""

import calendar
import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from itinerary.weather.conditions import condition_labels
from itinerary.weather.port import CLIMATE_NORMALS, DayWeather, UnknownPlace, WeatherReport

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "climate_normals.json"

_SPACES = re.compile(r"\s+")
_SUFFIXES = ("特别行政区", "自治区", "市", "省")


@dataclass(frozen=True)
class MonthNormal:
    min_c: float
    max_c: float
    precip_mm: float
    wet_days: float
    condition: str


@dataclass(frozen=True)
class Station:
    name: str
    en: str
    province: str
    lat: float
    lon: float
    elevation_m: int
    note_zh: str
    note_en: str
    months: tuple[MonthNormal, ...]  # January first


@dataclass(frozen=True)
class Resolved:
    """A place as asked, the station whose numbers stand for it, and the caveat that goes with it."""

    place: str
    station: Station
    note_zh: str
    note_en: str
    via_province: bool = False


def _key(name: str) -> str:
    return _SPACES.sub(" ", name.strip().casefold().replace("’", "'"))


class ClimateTable:
    """The stations and every name that leads to one. Built once per process; read-only afterwards."""

    def __init__(self, data: dict) -> None:
        self.source: str = data["source"]
        self.source_zh: str = data["source_zh"]
        self.stations: dict[str, Station] = {}
        self._names: dict[str, tuple[str, str, str]] = {}  # key → (station, note_zh, note_en)
        self._provinces: dict[str, str] = {}
        for name, raw in data["stations"].items():
            station = Station(
                name=name,
                en=raw["en"],
                province=raw["province"],
                lat=float(raw["lat"]),
                lon=float(raw["lon"]),
                elevation_m=int(raw["elevation_m"]),
                note_zh=raw.get("note_zh", ""),
                note_en=raw.get("note_en", ""),
                months=tuple(MonthNormal(*row) for row in raw["months"]),
            )
            if len(station.months) != 12:
                raise ValueError(f"{name}: 12 months of normals expected")
            self.stations[name] = station
            for alias in (name, station.en, *raw.get("aliases", [])):
                self._names.setdefault(_key(alias), (name, station.note_zh, station.note_en))
        for alias, raw in data.get("places", {}).items():
            self._names[_key(alias)] = (raw["station"], raw.get("note_zh", ""), raw.get("note_en", ""))
        for province, capital in data.get("provinces", {}).items():
            self._provinces[_key(province)] = capital
        for english, province in data.get("province_names_en", {}).items():
            self._provinces[_key(english)] = data["provinces"][province]

    def resolve(self, place: str) -> Resolved:
        """The station for a place name (Chinese or English, with or without 市/省). Raises UnknownPlace."""
        asked = (place or "").strip()
        for key in self._candidates(asked):
            if key in self._names:
                station, note_zh, note_en = self._names[key]
                return Resolved(asked, self.stations[station], note_zh, note_en)
            if key in self._provinces:
                capital = self.stations[self._provinces[key]]
                return Resolved(asked, capital, "", "", via_province=True)
        raise UnknownPlace(asked)

    def knows(self, place: str) -> bool:
        try:
            self.resolve(place)
        except UnknownPlace:
            return False
        return True

    @staticmethod
    def _candidates(place: str) -> list[str]:
        key = _key(place)
        if not key:
            return []
        found = [key]
        for suffix in _SUFFIXES:
            if key.endswith(suffix) and len(key) - len(suffix) >= 2:
                found.append(key[: -len(suffix)])
        return found


@cache
def climate_table() -> ClimateTable:
    with DATA_FILE.open(encoding="utf-8") as handle:
        return ClimateTable(json.load(handle))


def normal_day(station: Station, day: dt.date) -> DayWeather:
    """A day as its calendar month usually is: the month's mean min/max, its mean daily precipitation, and the
    share of the month's days that are wet as the chance of rain."""
    month = station.months[day.month - 1]
    length = calendar.monthrange(day.year, day.month)[1]
    english, chinese = condition_labels(month.condition)
    return DayWeather(
        date=day,
        condition=english,
        condition_zh=chinese,
        temp_min_c=float(month.min_c),
        temp_max_c=float(month.max_c),
        precipitation_mm=round(month.precip_mm / length, 1),
        precipitation_probability=min(100, round(100 * month.wet_days / length)),
        code=month.condition,
    )


class ClimateNormalsWeather:
    """The offline adapter: every day is its month's climate normal, labelled as such."""

    provider = "normals"

    def __init__(self, table: ClimateTable | None = None) -> None:
        self.table = table or climate_table()

    def forecast(self, *, place: str, start: dt.date, days: int) -> WeatherReport:
        resolved = self.table.resolve(place)
        station = resolved.station
        return WeatherReport(
            place=resolved.place,
            source=self.provider,
            kind=CLIMATE_NORMALS,
            source_note=f"Climate normals for {station.en}: {self.table.source}",
            source_note_zh=f"{station.name}的气候常年值：{self.table.source_zh}",
            days=[normal_day(station, start + dt.timedelta(days=i)) for i in range(max(days, 0))],
            station=station.name,
            station_en=station.en,
            place_note=resolved.note_en,
            place_note_zh=resolved.note_zh,
            extra={"month_precip_mm": station.months[start.month - 1].precip_mm},
        )
