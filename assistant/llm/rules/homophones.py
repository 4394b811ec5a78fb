"""Place names typed with another character of the same sound: 杭洲 → 杭州, 厦们 → 厦门, 成度 → 成都, 西按 → 西安.

A pinyin keyboard offers every character of a syllable, and a traveller in a hurry picks the wrong one. A run of two
to four characters that is no word of the language (pypinyin's phrase table), sounds exactly like a well-known place
(toneless pinyin, any reading of each character) and differs from its name in one character only is that place. Only places a traveller names on their own are
indexed (provinces, prefecture cities, scenic spots, destinations abroad, the catalogue's places; not the 1,300
counties); when two of them sound alike, the one the typed run misses by a single character is meant, or neither. Ordinary words that sound like a city ("程度" like 成都,
"伤害" like 上海) are words, so they never become the city.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pypinyin import Style, lazy_pinyin, pinyin
from pypinyin.constants import PHRASES_DICT

MIN_CHARS, MAX_CHARS = 2, 4
_CJK_FIRST, _CJK_LAST = "\u3400", "\u9fff"


@dataclass(frozen=True)
class Sounded:
    """A place found by its sound: where in the text, what was typed, and the place's own name."""

    start: int
    end: int
    typed: str
    name: str


class SoundIndex:
    """Places by their toneless pinyin. Build once; `find` is read-only and thread-safe."""

    def __init__(self, names: Iterable[str]) -> None:
        index: dict[tuple[str, ...], set[str]] = {}
        for name in names:
            if not (MIN_CHARS <= len(name) <= MAX_CHARS) or not all(_CJK_FIRST <= ch <= _CJK_LAST for ch in name):
                continue
            index.setdefault(tuple(lazy_pinyin(name)), set()).add(name)  # its own reading (厦门: xia men)
        self._by_sound = {key: tuple(sorted(names)) for key, names in index.items()}
        self._first = {key[0] for key in self._by_sound}
        self.names = frozenset(name for names in self._by_sound.values() for name in names)

    def find(self, text: str, taken: list[tuple[int, int]] = ()) -> list[Sounded]:
        """Runs of `text` (outside the `taken` spans) that sound like an indexed place and are no word."""
        usable = [_CJK_FIRST <= ch <= _CJK_LAST for ch in text]  # a Chinese character no other reader took
        for start, end in taken:
            usable[max(start, 0) : max(end, 0)] = [False] * len(usable[max(start, 0) : max(end, 0)])
        found: list[Sounded] = []
        i, n = 0, len(text)
        while i < n:
            hit = self._at(text, i, usable) if usable[i] else None
            if hit is None:
                i += 1
                continue
            found.append(hit)
            i = hit.end
        return found

    def _at(self, text: str, i: int, usable: list[bool]) -> Sounded | None:
        if not self._first.intersection(_readings(text[i])):
            return None
        for length in range(MAX_CHARS, MIN_CHARS - 1, -1):
            window = text[i : i + length]
            if len(window) < length or not all(usable[i : i + length]):
                continue
            if window in PHRASES_DICT or window in self.names:
                continue  # a word of its own ("程度"), or the place spelled right (the gazetteer has it)
            name = self._sounds_like(window)
            if name is not None:
                return Sounded(i, i + length, window, name)
        return None

    def _sounds_like(self, window: str) -> str | None:
        """The one place that sounds like `window` and differs from it in one character (苏洲 is 苏州, not 宿州 of the
        same sound; "合周" (he zhou) is no 贺州 and "较合适" no 蛟河市: none of their characters is right), which is
        no particle: in "去伊宁的航班" the 的 of "宁的" is meant, not a slip for 宁德."""
        keys: list[tuple[str, ...]] = [()]
        for ch in window:
            keys = [key + (r,) for key in keys for r in _readings(ch)][:64]
        near = {name for key in keys for name in self._by_sound.get(key, ()) if _one_slip(window, name)}
        return next(iter(near)) if len(near) == 1 else None


def _one_slip(window: str, name: str) -> bool:
    """Whether `window` is `name` with one character wrong, and that character no particle."""
    slips = [typed for typed, meant in zip(window, name, strict=True) if typed != meant]
    return len(slips) == 1 and slips[0] not in _PARTICLES


# Words of grammar a pinyin keyboard gives on purpose: never the slip in a place's name.
_PARTICLES = frozenset("的了着过是在和与跟把被给也都就还又很太更最么吗呢吧啊呀哦嘛")


@lru_cache(maxsize=4096)
def _readings(ch: str) -> frozenset[str]:
    """Every toneless reading of one character (厦: xia, sha)."""
    return frozenset(pinyin(ch, style=Style.NORMAL, heteronym=True)[0])
