"""Every interface string has its other language: each msgid the pages, the reply templates and the code use is in
the catalogue of the language it is not written in (an English msgid in locale/zh_Hans, a Chinese one, a data word
such as 经济舱, in locale/en), so no reply or page falls back to the msgid's language in the middle of the other.

The msgids are read the way `makemessages` reads them: `{% translate %}` / `{% blocktranslate %}` in every template
under templates/, and gettext calls with a literal in the apps' Python (not the tests, not the offline reader's word
lists, which are data). A msgid whose translation would be the same text (a name, a code, a format such as
"%(start)s – %(end)s") is found in the catalogue all the same: it must be listed there.
"""

import ast
import re
from pathlib import Path

import pytest
from django.template import engines
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.utils.translation import trans_real

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3400-\u9fff]")
PYTHON_DIRS = ("assistant", "itinerary", "bookings", "aftersale", "core", "config", "demo", "operations")
SKIPPED = ("migrations", "assistant/llm/rules")
GETTEXT = {
    "_": 0,
    "gettext": 0,
    "gettext_lazy": 0,
    "gettext_noop": 0,
    "ngettext": 0,
    "ngettext_lazy": 0,
    "pgettext": 1,
    "pgettext_lazy": 1,
    "npgettext": 1,
    "npgettext_lazy": 1,
}
CONTEXT_SEPARATOR = "\x04"
# Shown as they are in every language: the language switcher names each language in itself.
UNTRANSLATED = {"简体中文", "English"}


def _template_msgids(path: Path) -> list[tuple[str, str]]:
    """(msgid, where) of each translate tag with a literal in one template."""
    source = path.read_text(encoding="utf-8")
    engine = engines["django"].engine
    found = []
    try:
        nodelist = engine.from_string(source).nodelist
    except Exception as exc:  # a template that does not compile is its own failure, found by its page's tests
        pytest.fail(f"{path}: {exc}")
    for node in nodelist.get_nodes_by_type(TranslateNode):
        var = node.filter_expression.var
        literal = getattr(var, "literal", None)
        if isinstance(literal, str) and not node.filter_expression.filters:
            context = node.message_context.resolve({}) if node.message_context else None
            found.append((_keyed(literal, context), f"{path.relative_to(ROOT)}"))
    for node in nodelist.get_nodes_by_type(BlockTranslateNode):
        singular, _vars = node.render_token_list(node.singular)
        context = node.message_context.resolve({}) if node.message_context else None
        found.append((_keyed(singular, context), f"{path.relative_to(ROOT)}"))
    return found


def _python_msgids(path: Path) -> list[tuple[str, str]]:
    found = []
    for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(call, ast.Call):
            continue
        name = getattr(call.func, "id", None) or getattr(call.func, "attr", None)
        if name not in GETTEXT or len(call.args) <= GETTEXT[name]:
            continue
        message = call.args[GETTEXT[name]]
        context = call.args[0] if GETTEXT[name] else None
        if not (isinstance(message, ast.Constant) and isinstance(message.value, str)):
            continue
        if context is not None and not (isinstance(context, ast.Constant) and isinstance(context.value, str)):
            continue
        key = _keyed(message.value, context.value if context is not None else None)
        found.append((key, f"{path.relative_to(ROOT)}:{call.lineno}"))
    return found


def _keyed(msgid: str, context: str | None) -> str:
    return f"{context}{CONTEXT_SEPARATOR}{msgid}" if context else msgid


def used_msgids() -> list[tuple[str, str]]:
    used = []
    for path in sorted((ROOT / "templates").rglob("*")):
        if path.suffix in (".html", ".txt"):
            used += _template_msgids(path)
    for folder in PYTHON_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not any(part in str(path.relative_to(ROOT)) for part in SKIPPED):
                used += _python_msgids(path)
    return [(msgid, where) for msgid, where in used if msgid.strip()]


def catalogue(language: str) -> dict:
    return trans_real.translation(language)._catalog


def test_the_msgids_are_found_where_they_are_used():
    used = dict(used_msgids())

    # a reply template, a page, a presenter's chip, a card's label, a data word written in Chinese
    assert "Sorry, I can't help with that. I'm the TripDesk travel assistant" in " ".join(used)
    assert "My bookings" in used and "Check-in" in used
    assert any("Book plan %(number)s" in msgid for msgid in used)
    assert any(CJK.search(msgid) for msgid in used)


def test_every_msgid_in_use_has_its_translation():
    chinese, english = catalogue("zh-hans"), catalogue("en")
    missing = []
    for msgid, where in used_msgids():
        if msgid in UNTRANSLATED:
            continue
        wanted, other = (english, "en") if CJK.search(msgid) else (chinese, "zh_Hans")
        translated = wanted.get(msgid)
        if translated is None:  # a plural msgid is kept under (msgid, 0)
            translated = wanted.get((msgid, 0))
        if not translated:
            missing.append(f"{where}: no {other} translation of {msgid!r}")
    assert not missing, f"{len(missing)} msgids without a translation:\n" + "\n".join(sorted(set(missing)))
