"""The rare Chinese time expressions the grammar leaves to jionlp (上旬, 农历, 正月初三 …)."""

import re
from datetime import date

from assistant.llm.rules.dates.days import _NUM, DateRange, _safe_date

# Expressions our grammar leaves to jionlp (slow to import, so only loaded when one of these appears).
_RARE_TIME_RE = re.compile(
    rf"上旬|中旬|下旬|正月|腊月|农历|元宵|七夕|重阳|冬至|小年|初[一二三四五六七八九十]|"
    rf"(?:{_NUM})\s*(?:个)?\s*(?:周|星期|礼拜|月)(?:以后|之后|后)"
)


def jionlp_fallback(text: str, today: date) -> DateRange | None:
    """Ask jionlp about Chinese time expressions the grammar above does not read; None when it has no answer."""
    match = _RARE_TIME_RE.search(text)
    if not match:
        return None
    try:
        import time as _time

        import jionlp

        for base in (today, _safe_date(today.year + 1, today.month, min(today.day, 28))):
            if base is None:
                continue
            found = jionlp.ner.extract_time(text, time_base=_time.mktime(base.timetuple()), with_parsing=True)
            for item in found:
                span = (item.get("detail") or {}).get("time")
                if not isinstance(span, list) or len(span) != 2:
                    continue
                first = date.fromisoformat(str(span[0])[:10])
                last = date.fromisoformat(str(span[1])[:10])
                if last < today or last < first:
                    continue
                offset = item.get("offset") or (match.start(), match.end())
                return DateRange(max(first, today), last if last != first else None, (tuple(offset),))
    except Exception:  # jionlp is a helper here; its failure means "no date", never a failed turn
        return None
    return None
