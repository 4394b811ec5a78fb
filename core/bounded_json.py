"""JSON with limits, plain Python (no DRF): nothing deeper than MAX_JSON_DEPTH is handed to `json.loads`, whose C
decoder recurses once per level (100,000 `[` is a RecursionError, a 500), and no lone surrogate comes out.

`bounded_loads` is for any JSON text that comes from outside (a request body, a model's answer or tool arguments,
a supplier's answer); the API's parser (`core.parsers.BoundedJSONParser`) reads request bodies with it.
"""

import json
import operator
import re
from itertools import accumulate, count

# Far deeper than any body, answer or argument of this API (a plan request nests five levels), far below the
# interpreter's recursion limit.
MAX_JSON_DEPTH = 32

# A whole JSON string (escapes included; possessive, so one long string is one linear step); anything not a bracket.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
# An opening bracket steps 2, a closing one 0: the running sum minus the position is the depth (see below).
_STEP = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})


# A \uD800-\uDFFF escape: only such an escape can put a surrogate into decoded text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONTooDeep(ValueError):
    """The text nests arrays and objects deeper than allowed; it was not decoded."""


class JSONNotUnicode(ValueError):
    """A string of the text is a lone surrogate escape (`"\\ud800"`): valid JSON syntax, but no Unicode text, which
    no database column, log line or UTF-8 answer can hold."""


def _lone_surrogate_in(value) -> bool:
    stack = [value]  # iterative, though the depth is bounded already
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `text` nests brackets outside strings deeper than `limit`, without recursion: strings dropped, the
    brackets left, and the deepest level of their running count, in linear passes that run in C (0.2 s for
    2.5 MB of brackets). An unterminated string's brackets count, which only refuses text that is not JSON."""
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if len(skeleton) <= limit:
        return False
    steps = skeleton.translate(_STEP).encode("latin-1")
    if b"\x02" * (limit + 1) in steps:  # the usual attack, a run of openings, found at once
        return True
    return max(map(operator.sub, accumulate(steps), count(1))) > limit


def bounded_loads(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, **kwargs):
    """`json.loads(text)`, refusing a text nested deeper than `max_depth` before it is decoded (JSONTooDeep) and one
    whose strings hold a lone surrogate (JSONNotUnicode); both are ValueErrors, like every JSON error."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")  # a UnicodeDecodeError is a ValueError too
    if json_depth_exceeds(text, max_depth):
        raise JSONTooDeep(f"JSON nested deeper than {max_depth} levels")
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:  # unreachable after the scan; kept so no caller ever sees one
        raise JSONTooDeep(f"JSON nested deeper than {max_depth} levels") from None
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate_in(value):
        raise JSONNotUnicode("a JSON string holds a lone surrogate (\\ud800-\\udfff), which is not text")
    return value
