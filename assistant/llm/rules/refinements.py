"""What a sentence says to refine a result on screen: the kinds of activity wanted or not ("换成摄影类的", "不要徒步",
"any food tours instead?", "no hiking"), who comes along ("有适合带父母的吗", "anything for kids"), that it asks
about one of the options shown ("第一个的详情", "tell me more about the second one"), what to wear or pack
("要带什么衣服", "what should I pack") and a day moved from the one shown ("and the day after?", "第二天呢").

The words are data (`kinds.json`: a kind's words in both languages, who comes along); the grammar here says which
words are wanted and which are refused: a refusal word (不要, 别, no, without, instead of …) before a kind word in
the same clause refuses it. The engine masks places first, so 大理古城 is a place, never an interest in old towns.
"""

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

Span = tuple[int, int]
KINDS_FILE = Path(__file__).resolve().parent / "kinds.json"

# A refusal before a kind word, in the same clause (no punctuation between): "不要徒步", "别安排爬山", "no hiking",
# "without the hiking", "instead of hiking", "not into photography".
_REFUSED_BEFORE = re.compile(
    r"(?:不要|不想|不喜欢|不爱|不用|不含|不去|别|去掉|除了|除开|排除|避开|没兴趣|不感兴趣|不考虑|讨厌|怕|受不了)"
    r"[^，,。.!！?？;；]{0,6}$"
    r"|\b(?:no|not|without|skip(?:ping)?|avoid(?:ing)?|except|hate|dislike|instead of|rather than|other than|"
    r"not into|don'?t (?:want|like|do|fancy)|no more|nothing with|anything but|less|sick of|tired of|enough)\b"
    r"[^,.!?;]{0,22}$",
    re.I,
)
# A refusal after it: "徒步就算了", "徒步不要了", "hiking is out".
_REFUSED_AFTER = re.compile(
    r"^[^，,。.!！?？;；]{0,3}(?:就算了|算了|不要了?|不去了?|不想|免了|太累)|^\s*(?:is|are)? ?(?:out|off the list)\b",
    re.I,
)

_DETAILS = re.compile(
    r"详情|详细|细节|具体(?:介绍|内容|情况|安排|说说|讲讲)?|介绍(?:一下|下)?|说说|讲讲|怎么样|如何|是什么|包含什么|包括什么|"
    r"\b(?:details?|more (?:info|information|about)|tell me (?:more )?about|what(?:'s| is) (?:in|included|it like)|"
    r"describe|how is|what about)\b",
    re.I,
)
_PACKING = re.compile(
    r"带(?:些|点)?什么|穿(?:些|点)?什么|衣服|穿衣|穿搭|行李|装备|准备(?:些|点)?什么|要带|该带|需要带|厚衣|外套|"
    r"\b(?:what (?:should|shall|do|must|to) (?:i |we )?(?:pack|bring|wear|take)|packing(?: list)?|pack for|"
    r"(?:need|have) to (?:pack|bring|wear)|wear|clothes|clothing|jacket|coat)\b",
    re.I,
)
# A day counted from the one shown: "and the day after?", "the next day", "第二天呢", "再后一天", "前一天呢".
_NEXT_DAY = re.compile(
    r"\bthe day after\b(?!\s+(?:tomorrow|that one))|\b(?:the )?(?:next|following) day\b|\bday after that\b|"
    r"第二天(?=\s*(?:呢|的|天气|怎么样|如何|会|下雨|冷|热|$))|(?<![提推延挪])再?(?:往)?后一天|隔天|次日",
    re.I,
)
_DAY_BEFORE = re.compile(r"\bthe day before\b|\bprevious day\b|(?<![提推延挪])前一天", re.I)


@dataclass
class Refinement:
    interests: list[str] = field(default_factory=list)
    avoid_interests: list[str] = field(default_factory=list)
    audience: str | None = None
    details: bool = False
    packing: bool = False
    day_shift: int | None = None
    spans: list[Span] = field(default_factory=list)

    def signals(self) -> list[str]:
        """What the fitted scorer is told this reader found (kinds, not words)."""
        found = {
            "kind_wanted": bool(self.interests),
            "kind_refused": bool(self.avoid_interests),
            "audience": self.audience is not None,
            "details": self.details,
            "packing": self.packing,
            "day_moved": self.day_shift is not None,
        }
        return [name for name, on in found.items() if on]


@cache
def _lexicon() -> tuple[tuple[tuple[str, re.Pattern], ...], tuple[tuple[str, re.Pattern], ...]]:
    data = json.loads(KINDS_FILE.read_text(encoding="utf-8"))

    def patterns(table: dict) -> tuple[tuple[str, re.Pattern], ...]:
        found = []
        for name, words in table.items():
            zh = "|".join(map(re.escape, sorted(words.get("zh", []), key=len, reverse=True)))
            en = "|".join(words.get("en", []))
            alternatives = [part for part in (zh, rf"\b(?:{en})\b" if en else "") if part]
            found.append((name, re.compile("|".join(alternatives), re.I)))
        return tuple(found)

    return patterns(data["interests"]), patterns(data["audiences"])


def read_refinement(text: str) -> Refinement:
    """The refinements the sentence says (places already masked out of `text`)."""
    interests, audiences = _lexicon()
    found = Refinement()
    for name, pattern in interests:
        for match in pattern.finditer(text):
            refused = _REFUSED_BEFORE.search(text[: match.start()]) or _REFUSED_AFTER.search(text[match.end() :])
            (found.avoid_interests if refused else found.interests).append(name)
            found.spans.append(match.span())
    found.interests = [n for n in dict.fromkeys(found.interests) if n not in found.avoid_interests]
    found.avoid_interests = list(dict.fromkeys(found.avoid_interests))
    for name, pattern in audiences:
        if match := pattern.search(text):
            found.audience = found.audience or name
            found.spans.append(match.span())
    found.details = bool(_DETAILS.search(text))
    found.packing = bool(_PACKING.search(text))
    if match := _NEXT_DAY.search(text):
        found.day_shift = 1
        found.spans.append(match.span())
    elif match := _DAY_BEFORE.search(text):
        found.day_shift = -1
        found.spans.append(match.span())
    return found
