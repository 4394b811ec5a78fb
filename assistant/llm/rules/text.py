"""Text clean-up shared by the parsers: one normal form, and masking of spans already understood."""

import re
import unicodedata

MAX_INPUT_CHARS = 2000

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
_SPACES_RE = re.compile(r"[ \t\r\n\u3000]+")
# ASCII-only lower-casing keeps every offset stable (str.lower() may change the length of some letters).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# The letters of the Latin alphabets (a name keeps its own: "Tromsø", "Zürich", "Hội An").
LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
# Chinese and Latin letters run together in mixed sentences ("明天weather如何", "Xiamen有什么activities"): a space
# between them gives the English words their word boundaries (Python counts CJK characters as word characters).
_SCRIPT_CHANGE_RE = re.compile(rf"(?<=[\u3400-\u9fff])(?=[{LATIN}])|(?<=[{LATIN}])(?=[\u3400-\u9fff])")
_PUNCT = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "。": ".", "、": ",", "～": "~", "—": "-", "–": "-"})


def normalise(text: object) -> str:
    """NFKC (full-width digits and letters to ASCII), no control characters, a space where Chinese and Latin
    letters meet, single spaces, at most 2000 chars."""
    if not isinstance(text, str):
        return ""
    text = text[: MAX_INPUT_CHARS * 2]
    text = unicodedata.normalize("NFKC", text)
    text = _CONTROL_RE.sub(" ", text)
    text = text.translate(_PUNCT)
    text = _SCRIPT_CHANGE_RE.sub(" ", text)
    text = _SPACES_RE.sub(" ", text).strip()
    return text[:MAX_INPUT_CHARS]


def ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def mask(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace the given spans by spaces (same length, so later offsets stay valid)."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        for i in range(max(start, 0), min(end, len(chars))):
            chars[i] = " "
    return "".join(chars)
