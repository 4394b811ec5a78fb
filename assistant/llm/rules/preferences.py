"""Deterministic preference scoring (the `rules` adapter): stated preferences → a 0..100 score per candidate.

The traveller's words name preferences (Chinese or English, simple negations understood: "不想坐飞机" is a
preference for the train). Each stated preference scores the candidates it applies to, within their own group
(outbound legs, return legs, hotels), so a hotel never competes with a flight:

| preference | said as | applies to | 100 for | 0 for |
| --- | --- | --- | --- | --- |
| cheap | 便宜 / 省钱 / 实惠 / cheap / on a budget | every candidate | the cheapest of its group | the dearest |
| fast | 快 / 省时 / 早到 / fast / quick | legs | the shortest of its group | the longest |
| train | 高铁 / 火车 / 动车 / train / 不坐飞机 | legs | trains | flights |
| flight | 飞机 / 航班 / fly / flight / 不坐火车 | legs | flights | trains |
| luxury | 五星 / 豪华 / 高档 / luxury / 5-star | hotels | the most stars | the fewest |
| budget_hotel | 经济型 / 快捷酒店 / budget hotel / hostel | hotels | the fewest stars | the most |

Between the ends, scores are linear (min–max); a group where all values are equal scores 50. A candidate's
score is the mean over the preferences that apply to it; nothing stated (or nothing applying) → 50.
"""

import re
from collections.abc import Sequence

from assistant.llm.preferences import NEUTRAL, PREFERENCES, PreferenceCandidate
from assistant.llm.rules.text import ascii_lower, normalise

# Negations first: their spans are removed before the positive cues are read.
_NEGATED = (
    (
        "train",
        re.compile(
            r"(?:不|别|不要|不想|不愿意?|不喜欢|讨厌|怕)(?:再)?(?:坐|乘|搭)?(?:飞机|航班)|"
            r"\b(?:no|not|don'?t|do not|never|avoid|hate)\s+(?:\w+\s+){0,3}?(?:fly|flying|flights?|planes?)\b"
        ),
    ),
    (
        "flight",
        re.compile(
            r"(?:不|别|不要|不想|不愿意?|不喜欢|讨厌|怕)(?:再)?(?:坐|乘|搭)?(?:高铁|火车|动车|列车)|"
            r"\b(?:no|not|don'?t|do not|never|avoid|hate)\s+(?:\w+\s+){0,3}?(?:trains?|rail)\b"
        ),
    ),
)
_CUES: dict[str, re.Pattern[str]] = {
    "budget_hotel": re.compile(
        r"经济型|快捷酒店|青旅|便宜(?:一?点|些)?的?(?:酒店|住宿|宾馆)|"
        r"\b(?:budget|cheap|cheaper|economy)\s+(?:hotels?|rooms?|stay)|\bhostels?\b"
    ),
    "luxury": re.compile(
        r"五星|5星|豪华|高档|奢华|高端|好(?:一?点|些)的?(?:酒店|住宿)|"
        r"\b(?:luxury|luxurious|upscale|high[- ]end|five[- ]stars?|5[- ]stars?)\b"
    ),
    "cheap": re.compile(
        r"便宜|省钱|实惠|划算|性价比|不要太贵|别太贵|不贵|少花钱|预算有限|"
        r"\b(?:cheap|cheaper|cheapest|inexpensive|affordable|low[- ]cost|save money|on a budget)\b"
    ),
    "fast": re.compile(
        r"(?<![愉痛凉爽])快(?![乐递捷])|省时|时间短|早(?:一?点)?到|"
        r"\b(?:fast|faster|fastest|quick|quicker|quickest|shortest|less time|save time|arrive early)\b"
    ),
    "train": re.compile(r"高铁|火车|动车|列车|\b(?:trains?|rail|railway|high[- ]speed)\b"),
    "flight": re.compile(r"飞机|航班|机票|坐飞|\b(?:fly|flying|flights?|planes?|by air)\b"),
}


def stated_preferences(text: str) -> tuple[str, ...]:
    """The preferences the text states, in the order of PREFERENCES."""
    work = ascii_lower(normalise(text))
    found: set[str] = set()
    for name, pattern in _NEGATED:
        if pattern.search(work):
            found.add(name)
            work = pattern.sub(" ", work)
    for name, pattern in _CUES.items():
        if pattern.search(work):
            found.add(name)
            if name == "budget_hotel":  # "便宜的酒店" is about the hotel; the word 便宜 should not count twice
                work = pattern.sub(" ", work)
    return tuple(name for name in PREFERENCES if name in found)


def _scaled(value: float, low: float, high: float, *, lower_is_better: bool) -> float:
    if high == low:
        return NEUTRAL
    fraction = (value - low) / (high - low)
    return 100.0 * (1.0 - fraction if lower_is_better else fraction)


def _by_value(group: Sequence[PreferenceCandidate], value, *, lower_is_better: bool) -> dict[str, float]:
    values = {c.id: value(c) for c in group if value(c) is not None}
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    return {cid: _scaled(v, low, high, lower_is_better=lower_is_better) for cid, v in values.items()}


def _component(name: str, group: Sequence[PreferenceCandidate]) -> dict[str, float]:
    """The scores one preference gives within one group (ids it does not apply to are absent)."""
    legs = [c for c in group if c.kind != "hotel"]
    hotels = [c for c in group if c.kind == "hotel"]
    if name == "cheap":
        return _by_value(group, lambda c: c.price, lower_is_better=True)
    if name == "fast":
        return _by_value(legs, lambda c: c.duration_minutes, lower_is_better=True)
    if name in ("train", "flight"):
        return {c.id: 100.0 if c.mode == name.upper() else 0.0 for c in legs}
    if name == "luxury":
        return _by_value(hotels, lambda c: c.star, lower_is_better=False)
    if name == "budget_hotel":
        return _by_value(hotels, lambda c: c.star, lower_is_better=True)
    return {}


def preference_scores_for(text: str, candidates: Sequence[PreferenceCandidate]) -> tuple[dict[str, float], tuple]:
    """(candidate id → 0..100 for every candidate, the preferences stated)."""
    stated = stated_preferences(text)
    parts: dict[str, list[float]] = {c.id: [] for c in candidates}
    groups: dict[str, list[PreferenceCandidate]] = {}
    for candidate in candidates:
        groups.setdefault(candidate.kind, []).append(candidate)
    for name in stated:
        for group in groups.values():
            for cid, score in _component(name, group).items():
                parts[cid].append(score)
    scores = {cid: round(sum(values) / len(values), 2) if values else NEUTRAL for cid, values in parts.items()}
    return scores, stated
