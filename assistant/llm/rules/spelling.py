"""English words typed with a slip of the finger: "wether in beijng" → "weather in beijing", "filght" → "flight".

The English counterpart of `homophones.py`. The words a typo may become are the lexicon's own: the one-word English
names of the gazetteer (with the catalogue's places) and the English cue words of the readers (each literal word of
their patterns that the pattern reads on its own: "weather", "cancel", "weekend" …), so a word the readers learn
is spelled tolerantly without a list of its own. SymSpell finds, per typed word, the lexicon words within one edit
(two for a word of 8 letters or more); the word is corrected only when one of them is nearest, or of two as near one is the typed word's letters swapped or
far more common ("tiket": ticket, not tibet).

Ordinary words stay as they are: a word of the lexicon, or one of English (symspellpy's frequency dictionary of
82,765 words: "whether", "where", "tour", "rain", "mary"), is never changed, unless it is rare, the lexicon word one
edit away is far more common, and the words around go with that word and not with it ("wether in", a ram, beside
"weather in"; symspellpy's counts of word pairs). Words shorter than 4 letters, one syllable of pinyin (a Chinese
name: "Xuan" is no 西安), words in capitals (codes), words touching digits, hyphens or dots (ORD-123, example.com),
contractions ("doesn't"), and names (two capitalised words running, "Li Xuan") are left alone, and Chinese text has
no English words to touch.
"""

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from importlib import resources

from symspellpy import SymSpell, Verbosity

MIN_LETTERS = 4
LONG_WORD = 8  # from this length two edits are allowed
RARE = 500_000  # an English word seen less often than this in symspellpy's counts may be a slip for a lexicon word,
RARE_RATIO = 200  # if that word is this many times more common, alone and beside the words around ("wether in")
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
def pinyin_syllables() -> frozenset[str]:
    """Every toneless pinyin syllable (xuan, lian, zhang …), from pypinyin's readings of the characters."""
    from pypinyin.phonetic_symbol import phonetic_symbol
    from pypinyin.pinyin_dict import pinyin_dict

    toneless = str.maketrans({k: v.rstrip("0123456789") for k, v in phonetic_symbol.items() if len(k) == 1})
    return frozenset(r.translate(toneless) for readings in pinyin_dict.values() for r in readings.split(","))


@lru_cache(maxsize=8)
def bigram_counts(words: frozenset[str]) -> dict[str, int]:
    """symspellpy's counts of English word pairs ("weather in"), of the pairs that hold one of `words`."""
    pairs: dict[str, int] = {}
    path = resources.files("symspellpy").joinpath("frequency_bigramdictionary_en_243_342.txt")
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            first, second, count = line.split()
            if first in words or second in words:
                pairs[f"{first} {second}"] = int(count)
    return pairs


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
            word = self._word(typed.lower(), lambda match=match: _neighbours(text, match))
            if word is None:
                continue
            out.append(text[last : match.start()])
            out.append(word.capitalize() if typed[0].isupper() else word)
            last = match.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)

    def _word(self, typed: str, around: Callable[[], tuple[str, str]]) -> str | None:
        """The lexicon's word `typed` is a slip of, or None; the words `around` it are read only for a rare word."""
        if typed in self._cache:
            word = self._cache[typed]
        else:
            word = self._lookup(typed)
            if len(self._cache) < 20000:
                self._cache[typed] = word
        english = typed in self.english or any(stem in self.english for stem in _stems(typed))
        if word is not None and english and not self._said_so(typed, word, *around()):
            return None  # a rare word of English ("wether") is the common one only where the words around say so
        return word

    def _said_so(self, typed: str, word: str, before: str, after: str) -> bool:
        """The common word goes with a neighbour ("weather in") where the rare word does not ("wether in")."""
        pairs = bigram_counts(self.lexicon)  # read once, when a rare word first needs it
        near = max(pairs.get(f"{before} {word}", 0), pairs.get(f"{word} {after}", 0))
        rare = max(pairs.get(f"{before} {typed}", 0), pairs.get(f"{typed} {after}", 0))
        return near > 0 and near >= RARE_RATIO * rare

    def _lookup(self, typed: str) -> str | None:
        if typed in self.lexicon or typed in pinyin_syllables():
            return None
        if any(stem in self.lexicon for stem in _stems(typed)):
            return None  # a lexicon word with an ending of English ("airplanes"), not a slip for it
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
        if known is not None and (
            found[0].distance > 1 or known >= RARE or known * RARE_RATIO > self.english.get(word, 0)
        ):
            return None  # an English word of its own ("whether", "tour", "rain")
        if found[0].distance > 1 and self._compound(typed):
            return None  # two common words run together ("airplanes"), not a long word mistyped twice
        return word

    def _compound(self, typed: str) -> bool:
        english = self.english
        return any(
            english.get(typed[:i], 0) >= COMMON
            and max(english.get(word, 0) for word in (typed[i:], *_stems(typed[i:]))) >= COMMON
            for i in range(3, len(typed) - 2)
        )


COMMON = 1_000_000  # a word seen this often in symspellpy's counts is a common word

# Whether a capitalised word is English or a name (`english_word`). The word list holds names too (Queenstown is
# seen 1.2 million times, Melbourne 17 million), so a count alone says "English" only for the words English writes
# with a capital anyway: in the middle of a sentence weekdays, months, "Christmas", "I" (all above this) …
CAPITALISED_WORD = 50_000_000
# … and, first in a sentence, where every word has a capital, any word seen this often ("Sushi", "Kosher", "Lisbon");
# a name as rare as Zermatt, Tbilisi or Queenstown stays a name.
FIRST_WORD = 2_000_000
# Or English inflects it: a plural or other form seen at least 1/50 as often as the word ("huskies", "lanterns"; not
# the stray "berlins"), or the word is one of an English stem seen at least 1/10 as often ("hikes", "sledding"; "Wales"
# is no form of "wale").
FORM_SHARE = 50
STEM_SHARE = 10
_FORM_ENDINGS = ("s", "es", "ed", "ing", "ly")  # not "-er": a hamburger is no form of Hamburg
_CONTRACTION = re.compile(r"'(?:s|m|re|ve|ll|d|t)$")
_ADJECTIVE_ENDINGS = ("ish", "ese")  # "Spanish", "Portuguese": a people or a language, no place


def english_word(word: str, *, first: bool = False) -> bool:
    """Whether a word written with a capital is a word of English rather than a name ("Friday", "Cheap", "Hiking",
    "The", "Spanish" are English; "Tbilisi", "Queenstown", "Tromsø" are names). `first`: the word starts a sentence,
    where its capital says nothing. A letter beyond English's (ø, ß) makes a name; accents are read without ("Café")."""
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(ch))
    folded = _CONTRACTION.sub("", folded.replace("’", "'")).replace("'", "")  # "I'm", "Nara's"; "Xi'an" is one word
    parts = [part for part in folded.split("-") if part]
    if not parts or not folded.isascii():
        return False
    if len(parts) > 1:
        return all(english_word(part, first=first) for part in parts)
    counts, said = english_counts(), parts[0]
    count = counts.get(said, 0)
    if count >= (FIRST_WORD if first else CAPITALISED_WORD):
        return True
    if said.endswith("ing") and len(said) > 4:
        return not is_pinyin(said)  # a verb's -ing form, an activity ("Paragliding", "Glamping"); "Nanning" is pinyin
    if count and said.endswith(_ADJECTIVE_ENDINGS) and len(said) > 5:
        return True
    if count and any(counts.get(form, 0) * FORM_SHARE >= count for form in _forms(said)):
        return True
    return any(counts.get(stem, 0) * STEM_SHARE >= max(count, 1) for stem in _stems(said, shortest=3))


def is_pinyin(word: str) -> bool:
    """Whether a lower-case word is a run of pinyin syllables ("kunming", "anxi", "pudacuo")."""
    syllables = _voiced_syllables()
    reach = [True] + [False] * len(word)
    for start in range(len(word)):
        if reach[start]:
            for end in range(start + 1, min(len(word), start + 6) + 1):
                reach[end] = reach[end] or word[start:end] in syllables
    return reach[-1]


@lru_cache(maxsize=1)
def _voiced_syllables() -> frozenset[str]:
    """The pinyin syllables with a vowel (not the interjections "m", "ng", "hm": "jumping" is no ju-m-ping)."""
    return frozenset(s for s in pinyin_syllables() if re.search("[aeiouüv]", s))


def _forms(word: str):
    """English forms of a word ("husky": huskies; "hike": hikes, hiked, hiking)."""
    for ending in _FORM_ENDINGS:
        yield word + ending
    if word.endswith("e"):
        yield from (word + "d", word[:-1] + "ing")
    if word.endswith("y"):
        yield from (word[:-1] + "ies", word[:-1] + "ied")


def _neighbours(text: str, match: re.Match) -> tuple[str, str]:
    """The words right before and after a word (lower case; "" at an end)."""
    before = re.search(r"([A-Za-z]+)\W*$", text[: match.start()])
    after = re.match(r"\W*([A-Za-z]+)", text[match.end() :])
    return (before.group(1).lower() if before else "", after.group(1).lower() if after else "")


def _stems(word: str, shortest: int = MIN_LETTERS):
    """The word without an ending of English ("airplanes": airplane; "hiking": hik, hike; with `shortest` 3,
    "sledding": sled, "huskies": husky)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= shortest:
            stem = word[: -len(ending)]
            yield stem
            if ending in ("ing", "ed", "er", "ers"):
                yield stem + "e"
                if shortest < MIN_LETTERS and len(stem) > 3 and stem[-1] == stem[-2]:
                    yield stem[:-1]
            if shortest < MIN_LETTERS and ending in ("es", "ed") and stem.endswith("i"):
                yield stem[:-1] + "y"


def _in_name(text: str, match: re.Match) -> bool:
    """A capitalised word beside another capitalised word is part of a name ("Li Xuan", "John Smith")."""
    before = re.search(r"([A-Za-z]+)\s+$", text[: match.start()])
    after = re.match(r"\s+([A-Za-z]+)", text[match.end() :])
    return any(m is not None and m.group(1)[0].isupper() for m in (before, after))
