"""Event reasons worded for their reader: the stored reason stays as the service wrote it (the audit record, in
stable English), and is translated when it is shown.

An app that owns events declares its reasons as templates: a pattern that reads the stored text into named values
(ids, amounts, attempts, codes) and a gettext message with the same names. `reason_text` words a stored reason with
the first template that reads all of it; a value may be worded again (a status by its label, a nested reason by the
same table). A reason no template reads (an approver's own words, a supplier's message) is shown as it was written.

    TEMPLATES = (ReasonTemplate(r"execution started \\(attempt (?P<attempt>\\d+)\\)",
                                gettext_lazy("execution started (attempt %(attempt)s)")),)
    reason_text("execution started (attempt 2)", TEMPLATES)   # "开始执行（第 2 次尝试）" in Chinese
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ReasonTemplate:
    """One kind of stored reason: `pattern` (a regular expression matched against the whole reason) and `message`
    (a lazy gettext message with `%(name)s` for each group); `words` says how to word a group's value."""

    pattern: str
    message: Any
    words: Mapping[str, Callable[[str], str]] = field(default_factory=dict)

    def read(self, reason: str) -> str | None:
        match = re.fullmatch(self.pattern, reason, flags=re.S)
        if match is None:
            return None
        values = {name: self.words.get(name, str)(found or "") for name, found in match.groupdict().items()}
        return str(self.message) % values


def reason_text(reason: Any, templates: Iterable[ReasonTemplate]) -> str:
    """The stored `reason` in the active language: the first template that reads all of it, or the text as is."""
    text = str(reason or "").strip()
    for template in templates:
        worded = template.read(text)
        if worded is not None:
            return worded
    return text


def label_of(choices) -> Callable[[str], str]:
    """Words a stored code (any case) by its label in `choices` (a TextChoices); an unknown code stays as it is."""

    def word(code: str) -> str:
        upper = code.upper()
        return str(choices(upper).label) if upper in choices.values else code

    return word
