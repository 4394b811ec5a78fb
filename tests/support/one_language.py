"""What the one-language checks share (pages, replies, the English story): which Chinese an English text may hold —
a name's Chinese in brackets right after its English ("Hangzhou (杭州)") and the reader's own words and names — and
what an English sentence looks like inside a Chinese text."""

import re

# A name with its Chinese beside it: "Hangzhou (杭州)", "Dali (大理)"; "大理古城漫游 (Dali)" is the other way round
# and no exception.
BRACKETED_AFTER_NAME = re.compile(r"(?<=[A-Za-z.])\s?[(（][\u3400-\u9fff·・\s]+[)）]")
ENGLISH_SENTENCE = re.compile(r"\b[A-Za-z][a-z']+(?:[ ,]+[A-Za-z][a-z']+){2,}")


def without_names(text: str, names=()) -> str:
    """`text` without the names' Chinese in brackets and without `names` (the reader's own words and data), the
    longest first so a name inside another goes with it."""
    text = BRACKETED_AFTER_NAME.sub(" ", text)
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def strings(value) -> list[str]:
    """Every string inside nested dicts, lists and tuples."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []
