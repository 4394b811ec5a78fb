"""Text a database can store: no lone surrogate (U+D800–U+DFFF: not Unicode text, UTF-8 cannot encode it) and no
NUL character (PostgreSQL's text and jsonb refuse it).

A Python string can hold both; one from outside (a model's answer: JSON decoded by the SDK turns a `\\ud800` escape
into the code point itself) fails its row's insert, and with it the whole record it belongs to. What is about to
be used is checked (`unstorable_in`: tool arguments, a model's answer) and refused; what is recorded whatever it
holds is made storable (`storable_text`, `storable`: each surrogate becomes U+FFFD, NULs are dropped).
"""

import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"
PATH_PART_CHARS = 40
# One step of a path in a value: (the step before it, or None at the top; the key or index).
_Step = tuple[Any, str]


def storable_text(text: str) -> str:
    """`text` with every surrogate code point replaced by U+FFFD and every NUL removed."""
    if not _UNSTORABLE.search(text):
        return text
    return re.sub("[\ud800-\udfff]", REPLACEMENT, text.replace("\x00", ""))


def storable(value: Any) -> Any:
    """`value` with every string in it, dictionary keys included, made storable (`storable_text`); dictionaries,
    lists and plain tuples are copied, anything else is kept as it is."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    if type(value) is tuple:
        return tuple(storable(item) for item in value)
    return value


def unstorable_in(value: Any) -> str | None:
    """Where in `value` a string (a dictionary key or a value) holds a lone surrogate or a NUL: a path such as
    `reason` or `passengers/0/name` (itself storable), or None when every string can be stored. Iterative, each
    step linked to its parent: the depth of `value` costs no recursion and no copying."""
    stack: list[tuple[Any, _Step | None]] = [(value, None)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item):
                return _path(at)
        elif isinstance(item, dict):
            for key, child in item.items():
                where = (at, str(key))
                if isinstance(key, str) and _UNSTORABLE.search(key):
                    return _path(where)
                stack.append((child, where))
        elif isinstance(item, list | tuple):
            stack.extend((child, (at, str(i))) for i, child in enumerate(item))
    return None


def _path(at: _Step | None) -> str:
    parts = []
    while at is not None:
        at, part = at
        parts.append(storable_text(part)[:PATH_PART_CHARS])
    return "/".join(reversed(parts)) or "(the value itself)"
