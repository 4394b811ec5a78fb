"""Absolute dates: a day said by its month and day ("12月5日", "12.5", "2026-12-05", "Dec 5", "the 5th of December"),
a bare day of the month ("5号", "the 5th") and a month ("in December")."""

import re

from assistant.llm.rules.dates.days import _EN_MONTHS, _NUM
from assistant.llm.rules.numbers import CN_NUM_CHARS

_ZH_FULL_DATE_RE = re.compile(
    rf"(?:(?P<y>\d{{4}})\s*年\s*)?(?P<m>{_NUM})\s*月\s*(?P<d>{_NUM})\s*(?:日|号)?(?:\s*(?:-|~|到|至)\s*"
    rf"(?P<d2>{_NUM})\s*(?:日|号))?"
)
_ISO_DATE_RE = re.compile(r"(?<!\d)(?P<y>20\d{2})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")
_DOT_DATE_RE = re.compile(
    r"(?<![\d.,¥$])(?<!评分)(?<!rated )(?<!rating )(?P<m>1[0-2]|0?[1-9])[./](?P<d>3[01]|[12]\d|0?[1-9])"
    r"(?![\d.%]|\s*(?:[kKwW万千元块分+]|以上|及以上|个|天|人|折|倍|星|公里|km|小时|stars?|or (?:above|higher|more)))"
)
_ZH_DAY_ONLY_RE = re.compile(
    rf"(?<![月\d{CN_NUM_CHARS}])(?P<d>{_NUM})\s*号(?![线楼门床位码]|\s*(?:方案|选项|套餐|房|桌|option))"
)
# "12月10日入住，12日退房": a bare "N日" is a day of the month when a stay or travel verb follows it, or when it
# comes after a full date with nothing of a length around it ("3日游", "玩3日" stay lengths).
_ZH_DAY_RI_RE = re.compile(rf"(?<![月\d{CN_NUM_CHARS}第])(?P<d>{_NUM})\s*日(?![游内前后])")
_DAY_RI_VERB_AFTER = re.compile(
    r"^\s*(?:入住|退房|离店|出发|返回|回来|回|返|到达|抵达|走|离开|那天|当天|的(?:航班|机票|高铁|火车|动车|票|酒店))"
)
_DAY_RI_NOT_BEFORE = re.compile(r"(?:玩|待|呆|住|共|一共|总共|游|行程|为期|连续|连住|大概|差不多)\s*$")


_EN_MONTH_DAY_RE = re.compile(
    rf"\b(?P<mon>{_EN_MONTHS})\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<y>20\d{{2}}))?"
    rf"(?:\s*(?:-|to|until|till|through|thru)\s*(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:{_EN_MONTHS})))?",
    re.IGNORECASE,
)
_EN_DAY_MONTH_RE = re.compile(
    rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s*(?:-|to)\s*(?P<d0>\d{{1,2}})(?:st|nd|rd|th)?)?\s+(?:of\s+)?"
    rf"(?P<mon>{_EN_MONTHS})\b\.?(?:,?\s*(?P<y>20\d{{2}}))?",
    re.IGNORECASE,
)
_EN_THE_NTH_RE = re.compile(
    r"\b(?:on\s+)?the\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:" + _EN_MONTHS + "))", re.I
)


_EN_MONTH_ONLY_RE = re.compile(
    rf"\b(?P<p>in|during|for|this|next|early|late|mid|end of|the end of)\s+(?P<mon>{_EN_MONTHS})\b(?!\s*\d)",
    re.IGNORECASE,
)
