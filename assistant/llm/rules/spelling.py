"""English words typed with a slip of the finger: "wether in beijng" → "weather in beijing", "filght" → "flight".

The English counterpart of `homophones.py`. The words a typo may become are the lexicon's own: the one-word English
names of the gazetteer (with the catalogue's places) and the English cue words of the readers (each literal word of
their patterns that the pattern reads on its own: "weather", "cancel", "weekend" …), so a word the readers learn
is spelled tolerantly without a list of its own. SymSpell finds, per typed word, the lexicon words within one edit
(two for a word of 8 letters or more); the word is corrected only when one of them is nearest, or of two as near one is the typed word's letters swapped or
far more common ("tiket": ticket, not tibet).

Ordinary words stay as they are: a word of the lexicon, or one of English (symspellpy's frequency dictionary of
82,765 words: "whether", "where", "tour", "rain", "mary"), is never changed, unless it is so rare beside the lexicon
word one edit away that it is that word mistyped ("wether", a ram, beside "weather"). Words shorter than 4 letters,
words in capitals (codes), words touching digits, hyphens or dots (ORD-123, example.com), and names (two capitalised
words running, "Li Xuan") are left alone, and Chinese text has no English words to touch.
"""

import re
from functools import lru_cache
from importlib import resources

from symspellpy import SymSpell, Verbosity

MIN_LETTERS = 4
LONG_WORD = 8  # from this length two edits are allowed
RARE_RATIO = 200  # an English word this many times rarer than the lexicon word one edit away is that word mistyped
TIE_RATIO = 5  # of two lexicon words as near, the one this many times more common is meant ("tiket": ticket, not tibet)
# A word of letters alone: not part of a code, an address or a contraction ("doesn't"); "beijng's" is a word.
_WORD_RE = re.compile(r"(?<![A-Za-z0-9_@/.'-])[A-Za-z]{4,}(?![A-Za-z0-9_@/-]|'(?!s\b)|\.[A-Za-z0-9])")
# Endings of English words the word list holds without them ("airplanes": airplane).
_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly")
_LETTERS_RE = re.compile(r"[a-z]{4,}")
_ENGLISH_RE = re.compile(r"[A-Za-z]{4}")


def _patterns(value: object):
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _patterns(item)


@lru_cache(maxsize=4)
def cue_words(modules: tuple) -> frozenset[str]:
    """The literal English words (4+ letters) of the patterns the readers' modules hold: a run of letters of a
    pattern that the pattern reads as a word on its own ("weather" of `\\b(?:weather|forecast|…)\\b`) or that is an
    English word ("hotels" of `hotels? in`); not a piece of one ("lation" of `cancel(?:l?ed|l?ing|lation)?`)."""
    english = english_counts()
    words: set[str] = set()
    for module in modules:
        for value in vars(module).values():
            for pattern in _patterns(value):
                for word in set(_LETTERS_RE.findall(pattern.pattern.lower())):
                    match = pattern.search(word)
                    if word in english or (match is not None and match.group() == word):
                        words.add(word)
    return frozenset(words)


@lru_cache(maxsize=1)
def english_counts() -> dict[str, int]:
    """symspellpy's English word frequencies (82,765 words)."""
    text = resources.files("symspellpy").joinpath("frequency_dictionary_en_82_765.txt").read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    for line in text.splitlines():
        word, _, count = line.partition(" ")
        if word:
            counts[word] = int(count)
    return counts


class Speller:
    """Corrects the English words of a sentence to the lexicon's words. Build once; `correct` is read-only."""

    def __init__(self, place_words, cue_modules: tuple) -> None:
        english = english_counts()
        self.lexicon = frozenset(
            w for w in (*cue_words(cue_modules), *place_words) if len(w) >= MIN_LETTERS and w.isalpha()
        )
        self.english = english
        self._symspell = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        for word in self.lexicon:
            self._symspell.create_dictionary_entry(word, max(english.get(word, 0), 1))
        self._cache: dict[str, str | None] = {}

    def correct(self, text: str, names_ok: bool = True) -> str:
        """`text` with its mistyped English words corrected (same text when none is)."""
        if not _ENGLISH_RE.search(text):
            return text
        out: list[str] = []
        last = 0
        for match in _WORD_RE.finditer(text):
            typed = match.group()
            if typed.isupper() or (typed[0].isupper() and (not names_ok or _in_name(text, match))):
                continue
            word = self._word(typed.lower())
            if word is None:
                continue
            out.append(text[last : match.start()])
            out.append(word.capitalize() if typed[0].isupper() else word)
            last = match.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)

    def _word(self, typed: str) -> str | None:
        if typed in self._cache:
            return self._cache[typed]
        word = self._lookup(typed)
        if len(self._cache) < 20000:
            self._cache[typed] = word
        return word

    def _lookup(self, typed: str) -> str | None:
        if typed in self.lexicon:
            return None
        distance = 2 if len(typed) >= LONG_WORD else 1
        found = self._symspell.lookup(typed, Verbosity.CLOSEST, max_edit_distance=distance)
        if not found:
            return None
        if len(found) > 1:  # two as near: two letters swapped ("xain": xian, not rain), or one far more common
            swapped = [s for s in found if sorted(s.term) == sorted(typed)]
            if len(swapped) == 1:
                found = swapped
            elif found[0].count < TIE_RATIO * found[1].count:
                return None  # no best candidate
        word = found[0].term
        known = self.english.get(typed)
        if known is None:
            known = next((self.english[stem] for stem in _stems(typed) if stem in self.english), None)
        if known is not None and (found[0].distance > 1 or known * RARE_RATIO > self.english.get(word, 0)):
            return None  # an English word of its own ("whether", "tour", "rain")
        if found[0].distance > 1 and self._compound(typed):
            return None  # two common words run together ("airplanes"), not a long word mistyped twice
        return word

    def _compound(self, typed: str) -> bool:
        english = self.english
        return any(
            english.get(typed[:i], 0) >= COMMON
            and max(english.get(typed[i:], 0), *(english.get(stem, 0) for stem in _stems(typed[i:]))) >= COMMON
            for i in range(3, len(typed) - 2)
        )


COMMON = 1_000_000  # a word seen this often in symspellpy's counts is a common word


def _stems(word: str):
    """The word without an ending of English ("airplanes": airplane; "hiking": hik, hike)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= MIN_LETTERS:
            stem = word[: -len(ending)]
            yield stem
            if ending in ("ing", "ed", "er", "ers"):
                yield stem + "e"


def _in_name(text: str, match: re.Match) -> bool:
    """A capitalised word beside another capitalised word is part of a name ("Li Xuan", "John Smith")."""
    before = re.search(r"([A-Za-z]+)\s+$", text[: match.start()])
    after = re.match(r"\s+([A-Za-z]+)", text[match.end() :])
    return any(m is not None and m.group(1)[0].isupper() for m in (before, after))
