"""The tool registry: guarded calls that always return an envelope, and the default registry built from the apps."""

import logging
import sys
import textwrap

import pytest

from assistant.agent import ToolRegistry, build_registry
from assistant.agent import registry as registry_module
from assistant.agent.registry import APP_TOOL_MODULES, default_registry, reset_default_registry
from core.envelope import ok
from core.tools import Risk, ToolContext, tool

CONTEXT = ToolContext(user=None)


def make_tool(name="echo", func=None, parameters=None):
    def echo(context: ToolContext, text: str) -> dict:
        """Echo the text."""
        return ok({"text": text})

    parameters = parameters or {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    return tool(name=name, risk=Risk.READ, parameters=parameters)(func or echo)


def test_a_tool_that_raises_gives_an_internal_error_envelope_and_a_log_line(caplog):
    def explode(context: ToolContext, text: str) -> dict:
        """Explodes."""
        raise RuntimeError("database password is hunter2")

    registry = ToolRegistry([make_tool("explode", explode)])

    with caplog.at_level(logging.ERROR, logger="assistant.agent"):
        result = registry.call("explode", {"text": "x"}, CONTEXT, call_id="c1")

    assert (result["ok"], result["code"]) == (False, "INTERNAL_ERROR")
    assert "hunter2" not in result["message"]  # the model is not told internals
    assert any(r.exc_info for r in caplog.records)


def test_a_tool_that_answers_something_else_than_an_envelope_gives_an_internal_error():
    registry = ToolRegistry([make_tool("sloppy", lambda context, text: {"text": text})])

    assert registry.call("sloppy", {"text": "x"}, CONTEXT)["code"] == "INTERNAL_ERROR"


def test_arguments_the_function_cannot_take_are_invalid_even_when_the_schema_allows_them():
    registry = ToolRegistry([make_tool()])  # the schema does not forbid additional properties

    result = registry.call("echo", {"text": "hi", "extra": 1}, CONTEXT)

    assert result["code"] == "INVALID_PARAM"
    assert "extra" in result["message"]


def test_formats_declared_in_the_schema_are_checked():
    parameters = {"type": "object", "properties": {"text": {"type": "string", "format": "date"}}, "required": ["text"]}
    registry = ToolRegistry([make_tool(parameters=parameters)])

    assert registry.call("echo", {"text": "2026-12-05"}, CONTEXT)["ok"] is True
    assert registry.call("echo", {"text": "5 Dec"}, CONTEXT)["code"] == "INVALID_PARAM"


def test_a_second_tool_with_the_same_name_or_a_broken_schema_is_refused():
    registry = ToolRegistry([make_tool()])

    with pytest.raises(ValueError, match="already registered"):
        registry.register(make_tool())
    with pytest.raises(ValueError, match="invalid parameters schema"):
        registry.register(make_tool("bad", parameters={"type": "object", "properties": {"text": {"type": 3}}}))


def test_scoping_to_an_unknown_tool_is_a_programming_error():
    with pytest.raises(KeyError, match="ghost"):
        ToolRegistry([make_tool()]).scoped(["echo", "ghost"])


@pytest.fixture
def modules_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("td_good_tools", "td_broken_tools"):
        sys.modules.pop(name, None)


def test_build_registry_collects_tools_and_hooks_and_skips_modules_that_do_not_exist(modules_dir):
    (modules_dir / "td_good_tools.py").write_text(
        textwrap.dedent(
            '''
            from assistant.agent.hooks import Hook
            from core.envelope import ok
            from core.tools import Risk, tool

            @tool(name="hello", risk=Risk.READ, parameters={"type": "object", "properties": {}})
            def hello(context):
                """Say hello."""
                return ok("hi")

            class Audit(Hook):
                name = "audit"

            TOOLS = [hello]
            HOOKS = [Audit()]
            '''
        )
    )

    registry = build_registry(["td_missing_tools", "td_good_tools", "td_missing_pkg.tools"])

    assert registry.names == ["hello"]
    assert [h.name for h in registry.hooks] == ["audit"]


def test_build_registry_does_not_hide_an_import_error_inside_an_existing_module(modules_dir):
    (modules_dir / "td_broken_tools.py").write_text("import td_no_such_dependency\n")

    with pytest.raises(ModuleNotFoundError, match="td_no_such_dependency"):
        build_registry(["td_broken_tools"])


def test_the_default_registry_is_built_once_from_the_apps_tools_modules(modules_dir, monkeypatch):
    (modules_dir / "td_good_tools.py").write_text(
        "from assistant.toolkit import Risk, ok, tool\n"
        "TOOLS = [tool(name='hello', risk=Risk.READ, parameters={'type': 'object'})(lambda context: ok())]\n"
    )
    assert set(APP_TOOL_MODULES) == {"itinerary.tools", "bookings.tools", "aftersale.tools"}
    monkeypatch.setattr(registry_module, "APP_TOOL_MODULES", ("td_good_tools", "td_missing_app.tools"))
    reset_default_registry()
    try:
        first = default_registry()
        assert default_registry() is first
        assert first.names == ["hello"]
    finally:
        reset_default_registry()
