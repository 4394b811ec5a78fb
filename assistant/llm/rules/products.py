"""What a booking is for: a flight, a hotel or a train, from the words that name it (`products.json`).

The lexicon holds the words (Chinese as written, English in the singular: a plural "s" is read too), loaded once.
What is grammar rather than a word stays here: a room counted or described before 房 ("订间房", "一间能睡觉的房",
"两个房"), a stay in nights ("住两晚", "3 nights") and a train's number (G1234, D302).
"""

import json
import re
from pathlib import Path

LEXICON_FILE = Path(__file__).resolve().parent / "products.json"

# 房 counted (间/个) and perhaps described ("能睡觉的") is a room; 房车, 房子, 房产 … are no hotel.
_ROOM = r"[间个](?:[^\s,.!?;，。！？；]{0,6}?的)?房(?![车子产贷东屋])"
_NIGHTS = (
    r"住(?:一|两|三|四|五|六|七|几|\d{1,2})\s*个?\s*晚|"
    r"\b(?:\d{1,2}|one|two|three|four|five|six|seven) nights?\b"
)
_TRAIN_NUMBER = r"(?<![A-Za-z])[GD]\d{2,4}(?!\d)"
_GRAMMAR = {"HOTEL": (_ROOM, _NIGHTS), "TRAIN": (_TRAIN_NUMBER,)}


def _pattern(kind: str, words: dict[str, list[str]]) -> re.Pattern:
    zh = [re.escape(w) for w in sorted(words.get("zh", ()), key=len, reverse=True)]
    en = [re.escape(w) for w in sorted(words.get("en", ()), key=len, reverse=True)]
    parts = [*zh, *_GRAMMAR.get(kind, ())]
    if en:
        parts.append(rf"\b(?:{'|'.join(en)})s?\b")
    return re.compile("|".join(parts), re.IGNORECASE)


def _load() -> tuple[tuple[str, re.Pattern], ...]:
    lexicon = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    return tuple((kind, _pattern(kind, words)) for kind, words in lexicon.items())


# (kind, pattern) in the lexicon's order, built once when the engine is imported.
PATTERNS = _load()
