"""The weather report use case: which place answers, which days were asked, and an unknown place."""

import datetime as dt

import pytest

from core.envelope import Code
from itinerary.services import UnknownWeatherPlace, weather_report

TODAY = dt.date(2026, 12, 1)


def test_without_a_day_the_report_is_a_week_and_today_and_the_next_two_days_are_asked():
    found = weather_report(place="三亚", today=TODAY)

    assert found.place == "三亚" and found.lookup.report.kind == "climate_normals"
    assert [d.date for d in found.lookup.report.days] == [TODAY + dt.timedelta(days=i) for i in range(7)]
    assert (found.start, found.end) == (TODAY, TODAY + dt.timedelta(days=2))
    assert [d.date for d in found.asked] == [TODAY, TODAY + dt.timedelta(days=1), TODAY + dt.timedelta(days=2)]


def test_one_day_asked_is_that_day_and_the_week_starts_there():
    day = dt.date(2026, 12, 5)

    found = weather_report(place="大理", start=day, today=TODAY)

    assert found.lookup.report.days[0].date == day and [d.date for d in found.asked] == [day]


def test_an_asked_range_longer_than_the_week_is_cut_at_the_week():
    found = weather_report(place="大理", start=dt.date(2026, 12, 5), end=dt.date(2026, 12, 30), today=TODAY)

    assert found.end == dt.date(2026, 12, 11) and len(found.asked) == 7


def test_a_range_given_backwards_is_the_first_day_only():
    found = weather_report(place="大理", start=dt.date(2026, 12, 5), end=dt.date(2026, 12, 3), today=TODAY)

    assert (found.start, found.end) == (dt.date(2026, 12, 5), dt.date(2026, 12, 5))


def test_a_place_without_a_station_is_answered_by_its_city_but_keeps_its_name():
    found = weather_report(place="某小众村落", city="大理", today=TODAY)

    assert found.place == "某小众村落" and found.lookup.report.station == "大理"


def test_an_unknown_place_and_city_is_a_not_found_error_naming_the_place():
    with pytest.raises(UnknownWeatherPlace) as refused:
        weather_report(place="火星基地", city="月球", today=TODAY)

    assert refused.value.code == Code.NOT_FOUND and refused.value.data == {"place": "火星基地"}
