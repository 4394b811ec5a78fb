"""Dates relative to `today`: 今天/明天, 本周末/下周/下周五, 12月5日, 12.5, Dec 5, next weekend, 国庆, 月底 …

Each expression found is a `Mention` (a day or a span of days, with its place in the text). Two mentions joined by
到/至/-/to, or a second one followed by 回/返/back, form a range; a bare weekday or day in the second place is read
relative to the first ("下周五…周日回" → Fri to the Sunday after it). Festivals fall on their next occurrence that is
not already over. Weeks start on Monday.

The readers: `absolute` (a month and a day, a day of the month), `relative` (counted from today or from another day),
`holidays` (festivals and the days off around them), `expressions` (every mention of a sentence, in order), `ranges`
(the sentence's range and nights), `past` (days already over), `fallback` (what only jionlp reads).
"""

from assistant.llm.rules.dates import absolute, expressions, fallback, holidays, past, ranges, relative
from assistant.llm.rules.dates.days import DateRange, Mention
from assistant.llm.rules.dates.expressions import mentions
from assistant.llm.rules.dates.fallback import jionlp_fallback
from assistant.llm.rules.dates.holidays import festival, festival_day
from assistant.llm.rules.dates.past import RECENT_PAST_DAYS, past_day
from assistant.llm.rules.dates.ranges import extract_dates, nights, nights_span, one_night, resolve_after
from assistant.llm.rules.dates.relative import day_offset, day_shift

# The modules whose patterns read dates (the speller learns their English words: `spelling.cue_words`).
READERS = (absolute, expressions, fallback, holidays, past, ranges, relative)

__all__ = [
    "READERS",
    "RECENT_PAST_DAYS",
    "DateRange",
    "Mention",
    "day_offset",
    "day_shift",
    "extract_dates",
    "festival",
    "festival_day",
    "jionlp_fallback",
    "mentions",
    "nights",
    "nights_span",
    "one_night",
    "past_day",
    "resolve_after",
]
