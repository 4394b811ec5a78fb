"""Lunar festivals and solar terms are read for any year the data holds (1901-2100), without importing jionlp on a
turn; an eve or a festival's day word is that day."""

import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM
from assistant.llm.rules.build_festivals import LUNAR, qingming
from assistant.llm.rules.dates import extract_dates, festival, festival_day
from assistant.llm.rules.dates.holidays import _FESTIVAL_LENGTH, _festival_in

# The hand-kept table the data replaced (2026-2030): the first day of each festival's span (春节's is its eve).
OLD_TABLE = {
    "春节": {2026: "02-16", 2027: "02-05", 2028: "01-25", 2029: "02-12", 2030: "02-02"},
    "清明": {2026: "04-04", 2027: "04-03", 2028: "04-02", 2029: "04-03", 2030: "04-04"},
    "端午": {2026: "06-19", 2027: "06-09", 2028: "05-28", 2029: "06-16", 2030: "06-05"},
    "中秋": {2026: "09-25", 2027: "09-15", 2028: "10-03", 2029: "09-22", 2030: "09-12"},
}


def d(text):
    return date.fromisoformat(text)


@pytest.mark.parametrize("name", sorted(OLD_TABLE))
def test_the_years_of_the_old_table_read_as_before(name):
    for year, first in OLD_TABLE[name].items():
        start = d(f"{year}-{first}")
        assert _festival_in(name, year) == (start, start + timedelta(days=_FESTIVAL_LENGTH[name] - 1))
    for year, first in OLD_TABLE["春节"].items():
        assert _festival_in("除夕", year) == (d(f"{year}-{first}"),) * 2


@pytest.mark.parametrize(
    ("name", "year", "day"),
    [
        ("春节", 2031, "2031-01-23"),
        ("端午", 2031, "2031-06-24"),
        ("中秋", 2031, "2031-10-01"),
        ("清明", 2031, "2031-04-05"),
        ("春节", 2045, "2045-02-17"),
        ("中秋", 2045, "2045-09-25"),
        ("春节", 2100, "2100-02-09"),
        ("清明", 2100, "2100-04-05"),
        ("清明", 2000, "2000-04-04"),
        ("清明", 2024, "2024-04-04"),
    ],
)
def test_festival_days_beyond_2030(name, year, day):
    assert festival_day(name, year) == d(day)


@pytest.mark.parametrize("year", [1950, 2031, 2045, 2077, 2100])
def test_the_lunar_days_agree_with_jionlp(year):
    jionlp = pytest.importorskip("jionlp")
    for name, (month, day) in LUNAR.items():
        assert festival_day(name, year) == jionlp.lunar2solar(year, month, day).date()


def test_qingming_agrees_with_jionlp_but_where_its_century_formula_is_a_day_off():
    import time

    jionlp = pytest.importorskip("jionlp")
    for year in range(2001, 2100, 7):
        parsed = jionlp.parse_time(f"{year}年清明", time_base=time.time())["time"][0][:10]
        assert f"{year}-{qingming(year)}" == parsed == str(festival_day("清明", year))


def test_outside_the_data_there_is_no_festival_and_no_error():
    assert festival_day("中秋", 2101) is None
    assert festival_day("中秋", 1900) is None
    assert festival("中秋", date(2100, 10, 1)) is None


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("明年春节", "2031-01-22", "2031-01-28"),
        ("Chinese New Year", "2031-01-22", "2031-01-28"),
        ("除夕", "2031-01-22", None),
        ("中秋节", "2031-10-01", "2031-10-03"),
        ("mid-autumn festival", "2031-10-01", "2031-10-03"),
    ],
)
def test_next_years_festivals_on_a_late_2030_day(text, start, end):
    found = extract_dates(text, date(2030, 11, 20))
    assert (found.start, found.end) == (d(start), d(end) if end else None)


@pytest.mark.parametrize(
    ("text", "start"),
    [("2045年中秋", "2045-09-25"), ("端午节", "2100-06-12"), ("dragon boat festival", "2100-06-12")],
)
def test_far_years_read_from_a_day_in_that_year(text, start):
    today = date(2045, 9, 1) if "2045" in text else date(2100, 5, 1)
    assert extract_dates(text, today).start == d(start)


def test_reading_a_festival_does_not_import_jionlp():
    code = (
        "import sys\n"
        "from datetime import date\n"
        "from assistant.llm.rules.dates import extract_dates\n"
        "found = extract_dates('中秋节去杭州', date(2044, 8, 1))\n"
        "assert found.start == date(2044, 10, 5), found\n"
        "assert 'jionlp' not in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, cwd=root)


@pytest.mark.parametrize(
    ("year", "day"), [(2000, "2000-12-21"), (2020, "2020-12-21"), (2023, "2023-12-22"), (2026, "2026-12-22")]
)
def test_winter_solstice_is_the_day_the_sun_reaches_270_degrees_in_beijing(year, day):
    assert festival_day("冬至", year) == d(day)


@pytest.fixture(scope="module")
def llm():
    return RulesLLM()


@pytest.mark.parametrize(
    ("word", "start", "end"),
    [
        ("平安夜", "2026-12-24", None),
        ("圣诞", "2026-12-25", None),
        ("跨年夜", "2026-12-31", None),
        ("跨年", "2026-12-31", "2027-01-01"),
        ("元旦", "2027-01-01", "2027-01-03"),
        ("除夕", "2027-02-05", None),
        ("大年初一", "2027-02-06", None),
        ("春节", "2027-02-05", "2027-02-11"),
        ("情人节", "2027-02-14", None),
        ("元宵节", "2027-02-20", None),
        ("清明", "2027-04-03", "2027-04-05"),
        ("五一", "2027-05-01", "2027-05-05"),
        ("端午", "2027-06-09", "2027-06-11"),
        ("七夕", "2027-08-08", None),
        ("中秋", "2027-09-15", "2027-09-17"),
        ("国庆", "2027-10-01", "2027-10-07"),
        ("重阳节", "2027-10-08", None),
        ("冬至", "2026-12-22", None),
    ],
)
def test_a_festival_word_reads_as_its_day_or_its_days_off_on_1_december_2026(llm, word, start, end):
    got = llm.understand(f"{word}去哈尔滨玩", context=UnderstandContext(today=date(2026, 12, 1))).intent
    assert (got.destination_keywords, got.date_start, got.date_end) == (["哈尔滨"], d(start), d(end) if end else None)


@pytest.mark.parametrize(
    ("words", "start", "end"),
    [
        ("Christmas Eve", "2026-12-24", None),
        ("Christmas Day", "2026-12-25", None),
        ("New Year's Eve", "2026-12-31", None),
        ("New Year's Day", "2027-01-01", None),
        ("New Year", "2027-01-01", "2027-01-03"),
        ("Valentine's Day", "2027-02-14", None),
        ("the Lantern Festival", "2027-02-20", None),
    ],
)
def test_an_english_festival_name_reads_as_its_day(llm, words, start, end):
    got = llm.understand(f"hotel in Harbin for {words}", context=UnderstandContext(today=date(2026, 12, 1))).intent
    assert (got.intent, got.date_start, got.date_end) == ("BOOK", d(start), d(end) if end else None)


@pytest.mark.parametrize(
    ("word", "start"),
    [
        ("除夕", "2026-02-16"),
        ("大年初一", "2026-02-17"),
        ("元宵", "2026-03-03"),
        ("七夕", "2026-08-19"),
        ("重阳", "2026-10-18"),
        ("冬至", "2026-12-22"),
        ("平安夜", "2026-12-24"),
    ],
)
def test_early_in_2026_a_festival_day_word_reads_as_its_day_that_year(llm, word, start):
    got = llm.understand(f"{word}去哈尔滨玩", context=UnderstandContext(today=date(2026, 1, 10))).intent
    assert (got.date_start, got.date_end) == (d(start), None)
