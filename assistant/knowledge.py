"""Destination tips from the local knowledge file `assistant/knowledge/destinations.json`.

The file is hand-written travel knowledge (best season, what to bring, one practical tip) in Chinese and English,
one entry per destination of the catalogue. It is read once per process; editing it needs a restart.
"""

import json
from functools import cache
from pathlib import Path
from typing import Any

DESTINATIONS_FILE = Path(__file__).resolve().parent / "knowledge" / "destinations.json"

# A query keyword shorter than this matches nothing: one character ("湖", "a") is contained in too many entries.
MIN_KEYWORD_LENGTH = 2


@cache
def destination_entries() -> tuple[dict[str, Any], ...]:
    """Every entry of the knowledge file, in file order."""
    with DESTINATIONS_FILE.open(encoding="utf-8") as handle:
        return tuple(json.load(handle))


def _normalise(keyword: object) -> str:
    return str(keyword or "").strip().casefold()


def _score(query: list[str], entry: dict[str, Any]) -> tuple[int, int, int]:
    """(query keywords matched, of them matched exactly, 1 if the destination's own name was given)."""
    entry_keywords = [_normalise(k) for k in entry["keywords"]]
    matched = exact = 0
    for word in query:
        if word in entry_keywords:
            matched += 1
            exact += 1
        elif any(word in keyword or keyword in word for keyword in entry_keywords if keyword):
            matched += 1
    names_destination = int(_normalise(entry["destination"]) in query)
    return matched, exact, names_destination


def tip_for(keywords: list[str], language: str) -> dict[str, Any] | None:
    """The tip of the destination that overlaps most with `keywords`, in `language`; None when nothing overlaps.

    A keyword matches an entry when, case-insensitively, it equals one of the entry's keywords or one contains the
    other ("赛里木湖环湖骑行" matches "赛里木湖"). Ties go to more exact matches, then to the entry whose own
    name was given, then to the first in the file. `language` is "en…" for English, anything else for Chinese.
    Returns the entry (every field of the file, both languages) plus the fields in `language`: "name",
    "best_season", "bring", "tip", and "language" ("zh" or "en").
    """
    query = []
    for keyword in keywords or []:
        word = _normalise(keyword)
        if len(word) >= MIN_KEYWORD_LENGTH and word not in query:
            query.append(word)
    if not query:
        return None

    best: dict[str, Any] | None = None
    best_score = (0, 0, 0)
    for entry in destination_entries():
        score = _score(query, entry)
        if score[0] and score > best_score:
            best, best_score = entry, score
    if best is None:
        return None

    lang = "en" if _normalise(language).startswith("en") else "zh"
    return {
        **best,
        "keywords": list(best["keywords"]),
        "name": best.get("destination_en", best["destination"]) if lang == "en" else best["destination"],
        "best_season": best[f"best_season_{lang}"],
        "bring": best[f"bring_{lang}"],
        "tip": best[f"tip_{lang}"],
        "language": lang,
    }
