"""Day-by-day travel plans: the pure placement rules, and plans built from catalogue rows and the weather port."""

import datetime as dt
import random
from decimal import Decimal

import pytest

from itinerary.matching import Viewer
from itinerary.travel_plans.planner import (
    EVENING,
    FREE_DAY,
    FULL_DAY,
    INDOOR_FIRST,
    MAX_DAYS,
    RAIN_LIKELY,
    SHORT,
    TOUR,
    TOUR_CONTINUES,
    activity_day_use,
    activity_span_days,
    default_start,
    travel_plan_assign,
    travel_plan_make,
    weather_flags,
)
from itinerary.weather import CLIMATE_NORMALS, FORECAST, DayWeather, WeatherReport
from tests.factories import ActivityFactory

TODAY = dt.date(2026, 12, 1)  # a Tuesday
SATURDAY = dt.date(2026, 12, 5)


def day(offset: int) -> dt.date:
    return SATURDAY + dt.timedelta(days=offset)


def built(title, start=SATURDAY, end=None, *, tags=("文化",), popularity=10, **extra):
    """An unsaved activity (the placement rules need no database)."""
    return ActivityFactory.build(
        title=title,
        city="大理",
        province="云南",
        start_date=start,
        end_date=end or start + dt.timedelta(days=30),
        tags=list(tags),
        popularity=popularity,
        **extra,
    )


def dali(title, start=TODAY, end=None, *, tags=("文化",), popularity=10, **extra):
    return ActivityFactory(
        title=title,
        city="大理",
        province="云南",
        start_date=start,
        end_date=end or start + dt.timedelta(days=40),
        tags=list(tags),
        popularity=popularity,
        **extra,
    )


class StubForecast:
    """A forecast port with fixed days: rain on the dates given, dry otherwise."""

    provider = "stub"

    def __init__(self, rainy=(), cold=False):
        self.rainy, self.cold = set(rainy), cold
        self.asked = []

    def forecast(self, *, place, start, days):
        self.asked.append((place, start, days))
        weather_days = []
        for i in range(days):
            date = start + dt.timedelta(days=i)
            wet = date in self.rainy
            weather_days.append(
                DayWeather(
                    date=date,
                    condition="Moderate rain" if wet else "Clear",
                    condition_zh="中雨" if wet else "晴",
                    temp_min_c=-25 if self.cold else 8,
                    temp_max_c=-14 if self.cold else 17,
                    precipitation_mm=12.0 if wet else 0.0,
                    precipitation_probability=90 if wet else 5,
                    code="moderate_rain" if wet else "clear",
                )
            )
        return WeatherReport(place=place, source="stub", kind=FORECAST, source_note="stub", days=weather_days)


# --- the pure rules -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("today", "start"),
    [
        (dt.date(2026, 12, 1), dt.date(2026, 12, 5)),  # Tuesday → this Saturday
        (dt.date(2026, 12, 4), dt.date(2026, 12, 5)),  # Friday → tomorrow
        (dt.date(2026, 12, 5), dt.date(2026, 12, 12)),  # Saturday → next Saturday
        (dt.date(2026, 12, 6), dt.date(2026, 12, 12)),  # Sunday → next Saturday
    ],
)
def test_without_a_start_date_a_trip_begins_on_the_next_saturday(today, start):
    assert default_start(today) == start


@pytest.mark.parametrize(
    ("title", "tags", "span", "use"),
    [
        ("大理洱海骑行一日游", ["骑行", "一日游"], 1, FULL_DAY),
        ("大理古城夜游", ["夜游"], 1, EVENING),
        ("西安《长恨歌》实景演出", ["演出", "夜游"], 1, EVENING),
        ("大理周城扎染亲子体验", ["手工"], 1, SHORT),
        ("黄山日出云海两日游", ["多日游"], 2, TOUR),
        ("喀纳斯青年旅舍徒步三日营", ["多日游"], 3, TOUR),
        ("稻城亚丁川西小环线八日游", ["多日游"], 8, TOUR),
        ("大理女子瑜伽徒步疗愈营", ["徒步", "多日游"], None, TOUR),
    ],
)
def test_how_long_an_activity_takes_is_read_from_its_title_and_tags(title, tags, span, use):
    activity = built(title, tags=tags)
    assert (activity_span_days(activity), activity_day_use(activity)) == (span, use)


def test_activities_are_spread_one_per_day_before_a_day_gets_a_second():
    activities = [built(f"大理手作体验{i}", tags=[f"标签{i}"], popularity=100 - i) for i in range(4)]

    placed = travel_plan_assign(activities=activities, start=SATURDAY, days=3)

    assert [len(d) for d in placed.by_day] == [2, 1, 1]


def test_a_day_never_holds_two_full_day_outings_and_pairs_one_only_with_an_evening():
    outings = [built(f"大理一日游{i}", tags=["一日游", f"t{i}"], popularity=100 - i) for i in range(3)]
    workshop = built("大理扎染体验", tags=["手工"], popularity=90)
    evening = built("大理古城夜游", tags=["夜游"], popularity=80)

    placed = travel_plan_assign(activities=[*outings, workshop, evening], start=SATURDAY, days=2)

    for chosen in placed.by_day:
        uses = [activity_day_use(a) for a in chosen]
        assert uses.count(FULL_DAY) <= 1
        assert FULL_DAY not in uses or set(uses) <= {FULL_DAY, EVENING}
    assert [activity_day_use(a) for a in placed.by_day[0]] == [FULL_DAY, EVENING]
    assert workshop not in placed.by_day[0] + placed.by_day[1]  # no room beside a full day


def test_an_activity_available_only_on_the_last_day_is_kept_for_that_day():
    popular = [built(f"大理热门{i}", tags=[f"t{i}"], popularity=1000) for i in range(2)]
    last_day_only = built("大理周一限定", start=day(1), end=day(1), tags=["x"], popularity=1)

    placed = travel_plan_assign(activities=[*popular, last_day_only], start=SATURDAY, days=2)

    assert last_day_only in placed.by_day[1]


def test_an_activity_the_date_order_left_out_is_slotted_in_by_moving_others():
    cycling = built("洱海骑行一日游", tags=["骑行", "一日游"], popularity=100)
    workshop = built("周城扎染体验", tags=["手工"], popularity=90)
    evening = built("古城夜游", tags=["夜游"], popularity=80)
    hike = built("苍山徒步一日游", tags=["徒步", "一日游"], popularity=70)
    monday_only = built("周一限定茶会", start=day(2), end=day(2), tags=["茶文化"], popularity=1)

    placed = travel_plan_assign(activities=[cycling, workshop, evening, hike, monday_only], start=SATURDAY, days=3)

    assert sorted(a.title for d in placed.by_day for a in d) == sorted(
        a.title for a in (cycling, workshop, evening, hike, monday_only)
    )
    assert monday_only in placed.by_day[2]


def test_a_new_kind_of_activity_is_preferred_over_a_slightly_more_popular_repeat():
    cycling = [built(f"洱海骑行{i}", tags=["骑行", "湖泊"], popularity=100) for i in range(2)]
    food = built("大理美食游", tags=["美食"], popularity=90)

    placed = travel_plan_assign(activities=[*cycling, food], start=SATURDAY, days=2)

    assert food in placed.by_day[1]


def test_a_multi_day_tour_fills_a_free_stretch_it_fits_and_its_later_days_hold_nothing_else():
    single = built("大理扎染体验", tags=["手工"])
    tour = built("大理苍山徒步两日游", tags=["多日游", "徒步"], start=day(1), end=day(1))
    too_long = built("大理丽江双城六日游", tags=["多日游"])
    unknown_length = built("大理女子瑜伽徒步疗愈营", tags=["多日游"])

    placed = travel_plan_assign(activities=[single, tour, too_long, unknown_length], start=SATURDAY, days=3)

    assert placed.by_day == [[single], [tour], []]
    assert placed.tours == {1: (tour, 2)}
    assert placed.unplaced_tours == 2


def test_on_a_rainy_day_an_indoor_activity_is_preferred():
    hike = built("苍山徒步一日游", tags=["徒步", "户外", "一日游"], popularity=100)
    cooking = built("大理白族菜烹饪一日课", tags=["美食", "一日游"], popularity=60)  # only one full day fits

    dry = travel_plan_assign(activities=[hike, cooking], start=SATURDAY, days=1)
    wet = travel_plan_assign(activities=[hike, cooking], start=SATURDAY, days=1, rainy=frozenset({SATURDAY}))

    assert dry.by_day[0][0] is hike
    assert wet.by_day[0][0] is cooking


@pytest.mark.parametrize("seed", range(25))
def test_whatever_the_catalogue_every_activity_is_placed_once_inside_its_window(seed):
    rng = random.Random(seed)
    kinds = [
        ("一日游", ["一日游"]),
        ("夜游", ["夜游"]),
        ("体验", ["手工"]),
        ("两日游", ["多日游"]),
        ("三日游", ["多日游"]),
    ]
    activities = []
    for i in range(rng.randint(0, 25)):
        word, tags = rng.choice(kinds)
        start = SATURDAY + dt.timedelta(days=rng.randint(-5, 8))
        end = start + dt.timedelta(days=rng.randint(0, 6))
        activities.append(built(f"大理{word}{i}", start, end, tags=[*tags, rng.choice("ABCDE")], popularity=i))
    days = rng.randint(1, 9)

    placed = travel_plan_assign(activities=activities, start=SATURDAY, days=days)

    everything = [a for chosen in placed.by_day for a in chosen]
    assert len(everything) == len({id(a) for a in everything})
    tour_days = {first + k for first, (_, span) in placed.tours.items() for k in range(1, span)}
    for index, chosen in enumerate(placed.by_day):
        date = SATURDAY + dt.timedelta(days=index)
        assert len(chosen) <= 2
        assert all(a.start_date <= date <= a.end_date for a in chosen)
        if index in tour_days:
            assert chosen == []
    for first, (tour, span) in placed.tours.items():
        assert placed.by_day[first] == [tour] and first + span <= days


def test_weather_flags_are_derived_from_the_numbers():
    def weather(**kw):
        base = dict(
            date=SATURDAY,
            condition="Clear",
            condition_zh="晴",
            temp_min_c=10,
            temp_max_c=20,
            precipitation_mm=0.0,
            precipitation_probability=10,
            code="clear",
        )
        return DayWeather(**{**base, **kw})

    assert weather_flags(weather()) == ()
    assert weather_flags(weather(precipitation_probability=70)) == (RAIN_LIKELY,)
    assert weather_flags(weather(precipitation_mm=8.0)) == (RAIN_LIKELY,)
    assert weather_flags(weather(precipitation_probability=None, code="showers")) == (RAIN_LIKELY,)
    assert "snow_likely" in weather_flags(weather(code="heavy_snow"))
    assert weather_flags(weather(temp_min_c=-24, temp_max_c=-13)) == ("severe_cold",)
    assert weather_flags(weather(temp_min_c=-6, temp_max_c=-1)) == ("freezing",)
    assert weather_flags(weather(temp_min_c=27, temp_max_c=35)) == ("hot",)


# --- plans from rows ----------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_plan_uses_only_published_rows_of_the_destination_within_the_budget():
    kept = dali("大理洱海骑行一日游", tags=["骑行", "一日游"], price=Decimal("380"))
    dali("大理已下架的团", is_published=False)
    dali("大理豪华私人游", price=Decimal("5000"))
    ActivityFactory(title="三亚冲浪课", city="三亚", province="海南", start_date=TODAY, end_date=day(30))

    plan = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, days=3, max_price=2000)

    assert plan.activities == [kept]
    assert plan.found == 1 and plan.free_days == 2
    assert [d.flags[:1] for d in plan.days] == [(), (FREE_DAY,), (FREE_DAY,)]


@pytest.mark.django_db
def test_a_plan_starts_on_the_next_saturday_by_default_or_on_the_day_asked():
    dali("大理扎染体验", tags=["手工"])

    by_default = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY)
    asked = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, start=day(10), days=2)

    assert (by_default.start, by_default.end, by_default.defaulted_start) == (SATURDAY, day(2), True)
    assert (asked.start, asked.end, asked.defaulted_start) == (day(10), day(11), False)


@pytest.mark.django_db
def test_each_day_carries_the_weather_and_a_rainy_day_puts_indoor_options_first():
    hike = dali("苍山徒步", tags=["徒步", "户外"], popularity=100)
    cooking = dali("大理白族菜烹饪课", tags=["美食"], popularity=60)
    port = StubForecast(rainy={SATURDAY})

    plan = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, days=2, weather_port=port)

    assert port.asked == [("大理", SATURDAY, 2)]
    assert plan.weather.report.kind == FORECAST
    first, second = plan.days
    assert first.weather.date == SATURDAY and second.weather.date == day(1)
    assert first.activities[0] == cooking and {RAIN_LIKELY, INDOOR_FIRST} <= set(first.flags)
    assert second.activities == (hike,) and RAIN_LIKELY not in second.flags


@pytest.mark.django_db
def test_a_plan_is_capped_at_fourteen_days_and_says_what_was_asked():
    dali("大理扎染体验", tags=["手工"])

    plan = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, days=30)

    assert len(plan.days) == MAX_DAYS and plan.requested_days == 30 and plan.capped


@pytest.mark.django_db
def test_a_place_without_weather_still_gets_its_plan_without_weather():
    ActivityFactory(title="火星基地一日游", city="火星基地", province="火星", start_date=TODAY, end_date=day(20))

    plan = travel_plan_make(destination="火星基地", keywords=["火星基地"], today=TODAY, days=2)

    assert plan.weather is None and plan.has_activities
    assert all(d.weather is None for d in plan.days)


@pytest.mark.django_db
def test_the_weather_of_a_plan_is_climate_normals_by_default():
    dali("大理扎染体验", tags=["手工"])

    plan = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, days=2)

    assert plan.weather.report.kind == CLIMATE_NORMALS and plan.weather.fallback is None
    assert plan.days[0].weather.temp_max_c == 16  # Dali in December


@pytest.mark.django_db
def test_activities_the_traveller_may_not_join_are_left_out():
    dali("大理女子摄影营", gender_restriction="FEMALE", tags=["摄影"])
    open_to_all = dali("大理扎染体验", tags=["手工"])

    plan = travel_plan_make(
        destination="大理", keywords=["大理"], today=TODAY, days=2, viewer=Viewer(age=40, gender="MALE")
    )

    assert plan.activities == [open_to_all]


@pytest.mark.django_db
def test_a_tour_continuing_into_a_day_is_said_on_that_day():
    tour = dali("大理苍山徒步两日游", tags=["多日游", "徒步"], start=SATURDAY, end=SATURDAY)

    plan = travel_plan_make(destination="大理", keywords=["大理"], today=TODAY, days=3)

    first, second, third = plan.days
    assert first.activities == (tour,)
    assert second.activities == () and second.tour.activity == tour and (second.tour.day, second.tour.of) == (2, 2)
    assert TOUR_CONTINUES in second.flags and not second.is_free
    assert third.is_free and FREE_DAY in third.flags
