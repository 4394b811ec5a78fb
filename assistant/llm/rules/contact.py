"""The traveller's name and mobile in their own words ("张三 13800000000", "passenger: Li Lei, mobile 138…"): the
offline adapter's contact reader, reached from outside the port through `assistant.llm.contacts`."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from assistant.llm.rules.ids import PHONE_RE


@dataclass(frozen=True)
class Contact:
    name: str | None
    mobile: str | None


_ZH_LABEL_RE = re.compile(r"乘机人|乘车人|乘客|旅客|入住人|住客|联系人|姓名|名字")
_ZH_NAME_RE = re.compile(r"\s*(?:[:：]|是|为|叫)?\s*(?P<name>[\u4e00-\u9fff·]{2,5})")
_ZH_NAME_STOP_RE = re.compile(r"电话|手机|号码|联系|的|和|及|先生|女士|订|预订|入住|坐|乘")
_EN_LABEL_RE = re.compile(
    r"\b(?:passengers?|guests?|travell?ers?|contact|name)\b\s*(?:[:：]|is\b|=)?\s*"
    r"(?P<name>[A-Za-z][A-Za-z.\-]*(?:\s+[A-Za-z][A-Za-z.\-]*){0,2})",
    re.I,
)
_EN_FOR_RE = re.compile(r"\bfor\s+(?P<name>[A-Z][A-Za-z.\-]*(?:\s+[A-Z][A-Za-z.\-]*){0,2})")
_EN_STOP_WORDS = {
    "mobile", "phone", "tel", "telephone", "cell", "number", "no", "and", "with", "on", "from", "to", "at", "in",
    "is", "the", "a", "please", "thanks", "thank", "contact", "name", "by", "via", "his", "her", "my",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
    "tonight", "next", "this", "me", "us", "two", "one", "nights", "night", "people", "adults", "house", "houses",
    "room", "rooms", "hotel", "flight", "flights", "train", "trains", "ticket", "tickets", "seat", "seats",
}  # fmt: skip
# A bare "张三 13800000000" (the answer to "who is travelling?"): a short name right before the mobile.
_ZH_BESIDE_MOBILE_RE = re.compile(
    r"(?:^|[\s,，:：;；])(?P<name>[\u4e00-\u9fff·]{2,4})\s*[,，]?\s*(?:手机号?|电话)?\s*[:：]?\s*(?=(?:\+?86)?1[3-9])"
)
_NOT_NAMES = re.compile(
    r"机票|航班|酒店|高铁|火车|动车|车票|电话|手机|联系|乘客|乘机|入住|订票|预订|帮我|谢谢|号码|客栈"
)


def find_contact(user_texts: Iterable[str]) -> Contact:
    """The traveller's name and mobile from the newest user message that gives each."""
    name = mobile = None
    for text in user_texts:
        if mobile is None:
            match = PHONE_RE.search(text)
            if match:
                digits = re.sub(r"\D", "", match.group())
                mobile = digits[-11:]
        if name is None:
            name = _name(text)
        if name and mobile:
            break
    return Contact(name=name, mobile=mobile)


def _name(text: str) -> str | None:
    for label in _ZH_LABEL_RE.finditer(text):
        match = _ZH_NAME_RE.match(text, label.end())
        if not match:
            continue
        raw = match.group("name")
        stop = _ZH_NAME_STOP_RE.search(raw)
        raw = raw[: stop.start()] if stop else raw[:4]
        if 2 <= len(raw) <= 4:
            return raw
    for pattern in (_EN_LABEL_RE, _EN_FOR_RE):
        for match in pattern.finditer(text):
            words = []
            for word in match.group("name").split():
                if word.lower().strip(".") in _EN_STOP_WORDS:
                    break
                words.append(word)
            if words:
                return " ".join(w.capitalize() if w.islower() else w for w in words)
    match = _ZH_BESIDE_MOBILE_RE.search(text)
    if match and not _NOT_NAMES.search(match.group("name")):
        return match.group("name")
    return None
