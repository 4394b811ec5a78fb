"""Places: provinces, cities, scenic spots and a few destinations abroad, in Chinese and English.

The data comes from `places.json` (built by `build_places.py`), loaded once per process. Chinese names are found by
longest match at each position; English names on word boundaries. Ordinary words that contain a place name
("大理石", "北海道" …) are matched first and win, so they never yield the place inside them.
"""

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from assistant.llm.rules.homophones import SoundIndex
from assistant.llm.rules.text import ascii_lower

DATA_FILE = Path(__file__).resolve().parent / "places.json"

PROVINCE = "province"
CITY = "city"
SPOT = "spot"
COUNTY = "county"
ABROAD = "abroad"
CATALOGUE = "catalogue"


@dataclass(frozen=True)
class Place:
    name: str
    kind: str
    city: str | None = None
    province: str | None = None

    @property
    def is_prefecture_city(self) -> bool:
        return self.kind == CITY and self.city == self.name


@dataclass(frozen=True)
class PlaceMatch:
    start: int
    end: int
    place: Place


_BLOCKED = Place("", "blocked")
_EN_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)?")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def _en_key(alias: str) -> tuple[str, ...]:
    return tuple(t.replace("'", "") for t in _EN_TOKEN_RE.findall(ascii_lower(alias).replace("-", " ")))


class Gazetteer:
    """Finds places in a sentence. Build once; `find` is read-only and thread-safe."""

    def __init__(self, data: dict, extra_places: tuple[str, ...] = ()) -> None:
        self.zh: dict[str, Place] = {}
        self.en: dict[tuple[str, ...], Place] = {}
        for word in data.get("blockers", []):
            self.zh[word] = _BLOCKED
        for item in data.get("provinces", []):
            place = Place(item["name"], PROVINCE, None, item["name"])
            self._add(place, item["zh"], item["en"])
        for item in data.get("places", []):
            place = Place(item["name"], item["kind"], item.get("city"), item.get("province"))
            self._add(place, item["zh"], item["en"])
        for name in extra_places:
            if not isinstance(name, str) or not name.strip():
                continue
            name = name.strip()[:50]
            if _CJK_RE.search(name):
                if len(name) >= 2 and name not in self.zh:
                    self.zh[name] = Place(name, CATALOGUE)
            else:
                key = _en_key(name)
                if key and key not in self.en and len("".join(key)) >= 3:
                    self.en[key] = Place(name, CATALOGUE)
        self.max_zh = max((len(k) for k in self.zh), default=1)
        self.max_en = max((len(k) for k in self.en), default=1)
        self.first_chars = {k[0] for k in self.zh}
        self.first_words = {k[0] for k in self.en}
        # Places a traveller names on their own, by sound (杭洲 → 杭州): not counties, nor words that contain a place.
        self.sounds = SoundIndex(
            word
            for word, place in self.zh.items()
            if place is not _BLOCKED
            and word == place.name
            and (place.kind in (PROVINCE, SPOT, ABROAD, CATALOGUE) or place.is_prefecture_city)
        )

    def _add(self, place: Place, zh: list[str], en: list[str]) -> None:
        for word in zh:
            if len(word) >= 2:
                self.zh.setdefault(word, place)
        for alias in en:
            key = _en_key(alias)
            if key:
                self.en.setdefault(key, place)

    def find(self, text: str) -> list[PlaceMatch]:
        """Every place named in `text`, in order of appearance, without overlaps (longest name wins)."""
        matches = self._find_zh(text) + self._find_en(text)
        matches.sort(key=lambda m: m.start)
        return matches

    def sounding(self, text: str, taken: list[tuple[int, int]]) -> list[PlaceMatch]:
        """Places typed with a wrong character of the same sound, outside the `taken` spans (杭洲 → 杭州)."""
        return [PlaceMatch(s.start, s.end, self.zh[s.name]) for s in self.sounds.find(text, taken)]

    def _find_zh(self, text: str) -> list[PlaceMatch]:
        found: list[PlaceMatch] = []
        i, n = 0, len(text)
        zh, first_chars = self.zh, self.first_chars
        while i < n:
            if text[i] not in first_chars:
                i += 1
                continue
            for length in range(min(self.max_zh, n - i), 1, -1):
                place = zh.get(text[i : i + length])
                if place is not None:
                    if place is not _BLOCKED:
                        found.append(PlaceMatch(i, i + length, place))
                    i += length
                    break
            else:
                i += 1
        return found

    def _find_en(self, text: str) -> list[PlaceMatch]:
        lowered = ascii_lower(text).replace("-", " ")
        tokens = [(_strip_possessive(m.group()), m.start(), m.end()) for m in _EN_TOKEN_RE.finditer(lowered)]
        found: list[PlaceMatch] = []
        i = 0
        while i < len(tokens):
            if tokens[i][0] not in self.first_words:  # no English name starts with this word
                i += 1
                continue
            for length in range(min(self.max_en, len(tokens) - i), 0, -1):
                key = tuple(t[0] for t in tokens[i : i + length])
                place = self.en.get(key)
                if place is not None:
                    found.append(PlaceMatch(tokens[i][1], tokens[i + length - 1][2], place))
                    i += length
                    break
            else:
                i += 1
        return found


def _strip_possessive(token: str) -> str:
    """ "zhangjiajie's" → "zhangjiajie"; "xi'an" → "xian"."""
    if token.endswith("'s"):
        token = token[:-2]
    return token.replace("'", "")


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=8)
def gazetteer(extra_places: tuple[str, ...] = ()) -> Gazetteer:
    """The shared gazetteer (one per set of extra catalogue places)."""
    return Gazetteer(_data(), extra_places)


@lru_cache(maxsize=1)
def _english_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for item in (*_data()["provinces"], *_data()["places"]):
        if item.get("en"):
            for name in (item["name"], *item["zh"]):
                names.setdefault(name, item["en"][0])
    return names


def english_name(place: str) -> str | None:
    """The usual English name of a Chinese place name (杭州 → Hangzhou), None when the lists know none."""
    return _english_names().get(str(place or "").strip())
