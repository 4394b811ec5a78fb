"""Day-by-day travel plans: real catalogue activities placed on the days of a trip, with each day's weather.

Reads only (the catalogue and the weather port); nothing is stored. The choices a plan makes:

- **Dates.** A trip lasts `days` days (default 3, at most 14) from `start`. Without a start the trip begins on
  the next Saturday after today: leisure trips usually start at a weekend, it leaves at least a day to prepare,
  and the reply states the dates so the traveller can change them.
- **Which activities.** Published activities of the destination whose window overlaps the trip, within the
  budget, that the traveller may join by the facts they gave (`itinerary.matching.eligible`: the same rule as
  search; an unknown fact filters nothing).
- **Where they go.** An activity is placed on a day inside its [start_date, end_date] window and never twice. A
  day holds at most two: at most one full-day outing (一日游), and beside it only an evening one (夜游, shows). Day
  activities are spread one per day first, then a second where one fits; the choice favours popularity, tags the
  plan has not used yet, activities whose window is about to close, and indoor activities on days rain is likely;
  an activity left out is then slotted in where moving one or two others makes room.
  A multi-day tour (两日游, 五日游 …) departs on a day inside its window and fills its days alone; tours only fill
  stretches no day activity could, and a tour whose length the title does not say is never placed.
- **Weather.** Each day carries the weather port's day (a forecast, or climate normals, labelled as such) and
  flags derived from it: rain likely (≥ 60 % chance or ≥ 5 mm), snow, freezing, severe cold, heat.
"""

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from itinerary.matching import ANONYMOUS, Viewer, eligible
from itinerary.models import Activity
from itinerary.selectors import ActivityQuery, activity_search
from itinerary.weather import DayWeather, UnknownPlace, WeatherLookup, WeatherPort, weather_lookup
from itinerary.weather.conditions import SNOWY, WET

DEFAULT_DAYS = 3
MAX_DAYS = 14
MAX_PER_DAY = 2
MAX_CANDIDATES = 200  # the most popular rows of the window are plenty to fill 14 days
REPAIR_LIMIT = 30  # left-out activities the placement tries to slot in by moving others
REPAIR_DEPTH = 2  # how many placed activities one insertion may move

RAIN_PROBABILITY = 60
RAIN_MM = 5.0
HOT_C = 33
SEVERE_COLD_C = -15

# Flags of a day (the reply templates turn them into words).
FREE_DAY = "free_day"
TOUR_CONTINUES = "tour_continues"
RAIN_LIKELY = "rain_likely"
INDOOR_FIRST = "indoor_first"
SNOW_LIKELY = "snow_likely"
FREEZING = "freezing"
SEVERE_COLD = "severe_cold"
HOT = "hot"

# How an activity uses a day, read from its title and tags.
FULL_DAY = "full_day"
EVENING = "evening"
SHORT = "short"
TOUR = "tour"

_NUMERALS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_SPAN = re.compile(r"(\d{1,2}|[一二两三四五六七八九十])(?:日|天)")
_GENERIC_TAGS = frozenset({"一日游", "多日游"})
_EVENING_WORDS = ("夜", "晚会", "星空", "露营")
_INDOOR_TAGS = frozenset({"演出", "美食", "手工", "茶文化", "购物"})
_INDOOR_WORDS = ("博物馆", "烹饪", "川剧", "音乐厅", "扎染", "室内", "展览", "茶园与制茶")


def default_start(today: dt.date) -> dt.date:
    """The next Saturday after today (tomorrow at the earliest)."""
    return today + dt.timedelta(days=(5 - today.weekday()) % 7 or 7)


def _catalogue_title(activity: Activity) -> str:
    """The catalogue's Chinese title, which the words below read (not the reader's: `activity.title` is)."""
    return activity.title_zh_hans or ""


def activity_span_days(activity: Activity) -> int | None:
    """How many days an activity takes: N for "N日游/N天", 1 for a day activity, None for a multi-day tour
    whose length its title does not say."""
    return _span_days(_catalogue_title(activity), tuple(map(str, activity.tags or ())))


def activity_day_use(activity: Activity) -> str:
    """tour, full_day (一日游), evening (夜游, shows, stargazing) or short (anything else within a day)."""
    return _day_use(_catalogue_title(activity), tuple(map(str, activity.tags or ())))


# Both are read tens of thousands of times while one plan is assigned (every fit test asks them of every activity
# of the day): kept per title and tags, which is all they depend on.
@lru_cache(maxsize=4096)
def _span_days(title: str, tags: tuple) -> int | None:
    match = _SPAN.search(title)
    if match:
        raw = match.group(1)
        return int(raw) if raw.isdigit() else _NUMERALS[raw]
    if "多日游" in tags:
        return None
    return 1


@lru_cache(maxsize=4096)
def _day_use(title: str, tags: tuple) -> str:
    span = _span_days(title, tags)
    if span is None or span > 1:
        return TOUR
    if "一日游" in tags or "一日" in title:
        return FULL_DAY
    if "夜游" in tags or any(word in title for word in _EVENING_WORDS):
        return EVENING
    return SHORT


def activity_is_indoor(activity: Activity) -> bool:
    title = _catalogue_title(activity)
    if "实景" in title:  # 实景演出 are staged outdoors, on a river or a hillside
        return False
    return bool(_INDOOR_TAGS & set(activity.tags or [])) or any(w in title for w in _INDOOR_WORDS)


def rain_likely(day: DayWeather) -> bool:
    if day.precipitation_probability is not None and day.precipitation_probability >= RAIN_PROBABILITY:
        return True
    if day.precipitation_mm is not None and day.precipitation_mm >= RAIN_MM:
        return True
    return day.precipitation_probability is None and day.code in WET


def weather_flags(day: DayWeather | None) -> tuple[str, ...]:
    """What a day's weather means for plans, most important first."""
    if day is None:
        return ()
    flags = []
    if rain_likely(day):
        flags.append(RAIN_LIKELY)
    if day.code in SNOWY:
        flags.append(SNOW_LIKELY)
    if day.temp_min_c <= SEVERE_COLD_C:
        flags.append(SEVERE_COLD)
    elif day.temp_max_c <= 0:
        flags.append(FREEZING)
    if day.temp_max_c >= HOT_C:
        flags.append(HOT)
    return tuple(flags)


@dataclass(frozen=True)
class TourDay:
    """A day a multi-day tour that departed earlier still fills."""

    activity: Activity
    day: int  # 2 for the tour's second day
    of: int


@dataclass(frozen=True)
class PlannedDay:
    date: dt.date
    activities: tuple[Activity, ...]  # what starts this day, in the order to do it
    weather: DayWeather | None
    flags: tuple[str, ...]
    tour: TourDay | None = None

    @property
    def is_free(self) -> bool:
        return not self.activities and self.tour is None


@dataclass(frozen=True)
class TravelPlan:
    destination: str
    start: dt.date
    end: dt.date
    days: tuple[PlannedDay, ...]
    weather: WeatherLookup | None  # None when no weather is known for the place
    found: int  # activities of the window the traveller may join
    unplaced_tours: int  # multi-day tours among them that did not fit
    requested_days: int
    defaulted_start: bool = False
    query: ActivityQuery | None = field(default=None, compare=False)

    @property
    def activities(self) -> list[Activity]:
        return [a for day in self.days for a in day.activities]

    @property
    def has_activities(self) -> bool:
        return any(day.activities for day in self.days)

    @property
    def free_days(self) -> int:
        return sum(1 for day in self.days if day.is_free)

    @property
    def capped(self) -> bool:
        return self.requested_days > len(self.days)


@dataclass
class Assignment:
    by_day: list[list[Activity]]
    tours: dict[int, tuple[Activity, int]]  # first day index → (tour, its length)
    unplaced_tours: int


def _fits(chosen: list[Activity], candidate: Activity, use: Callable[[Activity], str]) -> bool:
    """Whether `candidate` joins the day's `chosen` (`use`: each activity's day use, read once per plan)."""
    if len(chosen) >= MAX_PER_DAY:
        return False
    uses = [use(a) for a in chosen] + [use(candidate)]
    if uses.count(FULL_DAY) > 1 or uses.count(EVENING) > 1:
        return False
    return not (FULL_DAY in uses and len(uses) > 1 and any(u not in (FULL_DAY, EVENING) for u in uses))


def _novelty(activity: Activity, seen_tags: dict[str, int]) -> float:
    tags = [t for t in (activity.tags or []) if t not in _GENERIC_TAGS]
    if not tags:
        return 0.5
    return sum(1 for t in tags if not seen_tags.get(t)) / len(tags)


def travel_plan_assign(
    *,
    activities: Sequence[Activity],
    start: dt.date,
    days: int,
    rainy: frozenset[dt.date] = frozenset(),
    cheapest_first: bool = False,
    liked: frozenset[str] = frozenset(),
) -> Assignment:
    """Place activities on the trip's days (pure: no database, no clock). See the module docstring for the rules.
    `cheapest_first`: the traveller asked for a cheaper trip; a lower price weighs more than popularity.
    `liked`: system tags the traveller likes; an activity of one of them outweighs popularity and novelty."""
    dates = [start + dt.timedelta(days=i) for i in range(days)]
    trip_end = dates[-1]
    top = max((a.popularity for a in activities), default=0) or 1
    dearest = float(max((a.price for a in activities), default=0) or 1)
    by_day: list[list[Activity]] = [[] for _ in dates]
    used: set = set()
    seen_tags: dict[str, int] = {}
    # Every fit test asks the day use of every activity of the day, tens of thousands of times for one plan: read
    # once per activity here (every activity placed is one of `activities`).
    uses = {id(a): activity_day_use(a) for a in activities}

    def use(activity: Activity) -> str:
        return uses[id(activity)]

    def remember(activity: Activity) -> None:
        used.add(activity.pk if activity.pk is not None else id(activity))
        for tag in activity.tags or []:
            seen_tags[tag] = seen_tags.get(tag, 0) + 1

    def is_used(activity: Activity) -> bool:
        return (activity.pk if activity.pk is not None else id(activity)) in used

    def score(activity: Activity, day: dt.date) -> float:
        last_chance_days = (min(activity.end_date, trip_end) - day).days + 1
        value = activity.popularity / top + 0.6 * _novelty(activity, seen_tags) + 0.5 / last_chance_days
        if day in rainy and activity_is_indoor(activity):
            value += 0.8  # outweighs most popularity gaps: a wet day is better spent indoors
        if cheapest_first:
            value += 2.0 * (1 - float(activity.price) / dearest)  # outweighs popularity and novelty together
        if liked & set(activity.system_tags or ()):
            value += 2.5  # what they said they like goes in before what is only popular
        return value

    def best(options: list[Activity], day: dt.date) -> Activity | None:
        if not options:
            return None
        return min(options, key=lambda a: (-score(a, day), -a.popularity, a.price, a.pk or 0, _catalogue_title(a)))

    singles = [a for a in activities if use(a) != TOUR]
    for round_ in range(MAX_PER_DAY):  # one per day first, then a second where one fits
        for index, day in enumerate(dates):
            chosen = by_day[index]
            if len(chosen) > round_:
                continue
            options = [
                a for a in singles if not is_used(a) and a.start_date <= day <= a.end_date and _fits(chosen, a, use)
            ]
            if round_ == 0:  # a day is built round a daytime activity; evenings join in the second round
                options = [a for a in options if use(a) != EVENING] or options
            pick = best(options, day)
            if pick is not None:
                chosen.append(pick)
                remember(pick)

    # Greedy by date can leave out an activity that fits once another moves (a Monday-only workshop behind a
    # full-day hike that could as well go on Sunday): try to slot each left-out one in, moving at most two others.
    def insert(activity: Activity, depth: int, banned: frozenset[int]) -> bool:
        open_days = [
            i for i, d in enumerate(dates) if i not in banned and activity.start_date <= d <= activity.end_date
        ]
        for i in open_days:
            if _fits(by_day[i], activity, use):
                by_day[i].append(activity)
                return True
        if depth == 0:
            return False
        for i in open_days:
            saved = by_day[i]
            for other in saved:
                rest = [a for a in saved if a is not other]
                if not _fits(rest, activity, use):
                    continue
                by_day[i] = [*rest, activity]
                if insert(other, depth - 1, frozenset({i})):  # anywhere but back where it was
                    return True
                by_day[i] = saved
        return False

    left_out = [a for a in singles if not is_used(a) and a.start_date <= trip_end and a.end_date >= start]
    left_out.sort(key=lambda a: (-a.popularity, a.price, a.pk or 0, _catalogue_title(a)))
    for activity in left_out[:REPAIR_LIMIT]:
        if insert(activity, REPAIR_DEPTH, frozenset()):
            remember(activity)

    tours: dict[int, tuple[Activity, int]] = {}
    tour_options = [a for a in activities if use(a) == TOUR]
    index = 0
    while index < len(dates):
        if by_day[index]:
            index += 1
            continue
        free_run = 0
        while index + free_run < len(dates) and not by_day[index + free_run]:
            free_run += 1
        day = dates[index]
        options = [
            a
            for a in tour_options
            if not is_used(a)
            and (span := activity_span_days(a)) is not None
            and span <= free_run
            and a.start_date <= day <= a.end_date
        ]
        pick = best(options, day)
        if pick is None:
            index += 1
            continue
        span = activity_span_days(pick)
        tours[index] = (pick, span)
        by_day[index] = [pick]  # the tour's later days stay empty: it fills them alone
        remember(pick)
        index += span
    unplaced = sum(1 for a in tour_options if not is_used(a))
    return Assignment(by_day=by_day, tours=tours, unplaced_tours=unplaced)


def _day_order(activities: list[Activity], *, rain: bool) -> list[Activity]:
    """Daytime before evening; on a rainy day, indoor daytime activities first."""
    return sorted(
        activities,
        key=lambda a: (activity_day_use(a) == EVENING, rain and not activity_is_indoor(a)),
    )


def travel_plan_make(
    *,
    destination: str,
    today: dt.date,
    keywords: Sequence[str] = (),
    province: str | None = None,
    city: str | None = None,
    start: dt.date | None = None,
    days: int | None = None,
    max_price: int | None = None,
    cheapest_first: bool = False,
    kinds=None,
    viewer: Viewer = ANONYMOUS,
    weather_places: Sequence[str] = (),
    weather_port: WeatherPort | None = None,
) -> TravelPlan:
    """A day-by-day plan of `days` days at `destination` from `start`, built from the published catalogue and the
    weather port. `weather_places` are the names to ask the weather for, in order (default: the destination).
    `kinds` (`itinerary.services.ActivityKinds`): the kinds the traveller likes go in first, the kinds avoided and
    what does not suit who comes along stay out."""
    requested = days or DEFAULT_DAYS
    length = max(1, min(requested, MAX_DAYS))
    defaulted_start = start is None
    first = max(start, today) if start else default_start(today)
    last = first + dt.timedelta(days=length - 1)
    query = ActivityQuery.build(
        today=today,
        keywords=list(keywords),
        province=province,
        city=city,
        date_start=first,
        date_end=last,
        max_price=max_price,
        **(kinds.query_arguments() if kinds is not None else {}),
    )
    # The kinds liked order the candidates (a plan keeps its other days filled); the rest of the query filters.
    liked = set(query.interests)
    found = list(eligible(activity_search(replace(query, interests=())), viewer=viewer)[:MAX_CANDIDATES])

    weather = None
    for place in weather_places or (destination,):
        try:
            weather = weather_lookup(place=place, start=first, days=length, today=today, port=weather_port)
            break
        except UnknownPlace:
            continue
    by_date = {d.date: d for d in weather.report.days} if weather else {}
    rainy = frozenset(d for d, w in by_date.items() if rain_likely(w))

    assignment = travel_plan_assign(
        activities=found, start=first, days=length, rainy=rainy, cheapest_first=cheapest_first, liked=frozenset(liked)
    )
    tour_days: dict[int, TourDay] = {}
    for index, (tour, span) in assignment.tours.items():
        for offset in range(1, span):
            tour_days[index + offset] = TourDay(activity=tour, day=offset + 1, of=span)

    planned = []
    for index, chosen in enumerate(assignment.by_day):
        day = first + dt.timedelta(days=index)
        day_weather = by_date.get(day)
        flags = list(weather_flags(day_weather))
        rain = RAIN_LIKELY in flags
        ordered = _day_order(chosen, rain=rain)
        if rain and ordered and activity_is_indoor(ordered[0]) and activity_day_use(ordered[0]) != EVENING:
            flags.append(INDOOR_FIRST)
        tour = tour_days.get(index)
        if tour:
            flags.append(TOUR_CONTINUES)
        elif not ordered:
            flags.insert(0, FREE_DAY)
        planned.append(
            PlannedDay(date=day, activities=tuple(ordered), weather=day_weather, flags=tuple(flags), tour=tour)
        )
    return TravelPlan(
        destination=destination,
        start=first,
        end=last,
        days=tuple(planned),
        weather=weather,
        found=len(found),
        unplaced_tours=assignment.unplaced_tours,
        requested_days=requested,
        defaulted_start=defaulted_start,
        query=query,
    )
