"""The tool registry: tools declared from their signatures, guarded calls that always return an envelope, what a
call needs (the traveller's confirmation) enforced before the tool runs, and the default registry
built from the apps."""

import logging
import sys
import textwrap
from typing import Annotated, Literal

import pytest
from pydantic import Field

from assistant.agent import ToolRegistry, build_registry
from assistant.agent import registry as registry_module
from assistant.agent.registry import APP_TOOL_MODULES, default_registry, reset_default_registry
from core.envelope import Code, ok
from core.tools import Needs, Risk, ToolContext, tool

RAN: list[tuple] = []


class Traveller:
    """A signed-in user as the registry sees one (no database needed)."""

    pk = 7
    is_authenticated = True


ANONYMOUS = ToolContext(user=None)
SIGNED_IN = ToolContext(user=Traveller(), request_text="帮我记一下")


@pytest.fixture(autouse=True)
def _clear():
    RAN.clear()


@tool(risk=Risk.READ)
def echo(context: ToolContext, text: Annotated[str, Field(max_length=20)], times: int = 1) -> dict:
    """Echo the text."""
    RAN.append(("echo", text))
    return ok({"kind": "echo", "text": text * times})


@tool(risk=Risk.WRITE)
def note(context: ToolContext, text: Annotated[str, Field(min_length=1, max_length=40)]) -> dict:
    """Write a note down."""
    RAN.append(("note", text))
    return ok({"kind": "note", "text": text})


def command_risk(arguments: dict) -> Risk:
    return Risk.READ if arguments["action"] == "search" else Risk.WRITE


@tool(risk=Risk.WRITE, risk_of=command_risk)
def command(context: ToolContext, action: Literal["search", "book"]) -> dict:
    """Search or book (its risk depends on the action)."""
    RAN.append(("command", action))
    return ok({"kind": "command", "action": action})


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([echo, note, command])


# -- validation and bounds ----------------------------------------------------------------------------------------


def test_the_schema_the_model_sees_comes_from_the_signature_and_never_holds_the_context(registry):
    [schema] = registry.schemas(["echo"])

    assert schema["function"]["name"] == "echo"
    assert schema["function"]["description"] == "Echo the text."
    parameters = schema["function"]["parameters"]
    assert parameters["properties"]["text"]["maxLength"] == 20
    assert parameters["required"] == ["text"]
    assert parameters["additionalProperties"] is False
    assert "context" not in parameters["properties"]


def test_valid_arguments_are_coerced_and_the_tool_runs(registry):
    result = registry.call("echo", {"text": "hi", "times": "2"}, ANONYMOUS)

    assert result["data"]["text"] == "hihi"
    assert RAN == [("echo", "hi")]


@pytest.mark.parametrize(
    "arguments, where",
    [
        ({}, "text"),
        ({"text": "x" * 21}, "text"),
        ({"text": "hi", "extra": 1}, "extra"),
        ({"text": "hi", "times": "many"}, "times"),
        (["hi"], "JSON object"),
    ],
)
def test_arguments_the_signature_does_not_accept_are_refused_and_the_tool_never_runs(registry, arguments, where):
    result = registry.call("echo", arguments, ANONYMOUS)

    assert (result["ok"], result["code"]) == (False, Code.INVALID_PARAM)
    assert where in result["message"]
    assert RAN == []


@pytest.mark.parametrize(
    ("arguments", "where"),
    [({"text": "坏了\ud800"}, "text"), ({"text": "张三\x00"}, "text"), ({"text": "hi", "k\ud800": 1}, "k\ufffd")],
    ids=["lone surrogate", "NUL", "in a key"],
)
def test_arguments_that_are_not_text_a_database_stores_are_refused_and_the_tool_never_runs(registry, arguments, where):
    result = registry.call("echo", arguments, ANONYMOUS)

    assert (result["ok"], result["code"]) == (False, Code.INVALID_PARAM)
    assert result["message"] == (
        f"echo: {where} is not text (it holds a lone surrogate or a NUL character); nothing was run"
    )
    assert RAN == []


def test_an_oversized_argument_is_refused_before_it_is_parsed(registry):
    result = registry.call("echo", {"text": "x" * 200_000}, ANONYMOUS)

    assert result["code"] == Code.INVALID_PARAM
    assert "longer than" in result["message"]
    assert RAN == []


def test_an_unknown_tool_is_answered_with_the_tools_there_are_and_a_short_echo_of_the_name(registry):
    result = registry.call("x" * 10_000, {}, ANONYMOUS)

    assert result["code"] == Code.UNKNOWN_TOOL
    assert "echo" in result["message"] and len(result["message"]) < 300


def test_a_tool_that_raises_gives_an_internal_error_envelope_and_a_log_line(caplog):
    @tool(risk=Risk.READ)
    def explode(context: ToolContext) -> dict:
        """Explodes."""
        raise RuntimeError("database password is hunter2")

    with caplog.at_level(logging.ERROR, logger="assistant.agent"):
        result = ToolRegistry([explode]).call("explode", {}, ANONYMOUS, call_id="c1")

    assert (result["ok"], result["code"]) == (False, Code.INTERNAL_ERROR)
    assert "hunter2" not in result["message"]  # the model is not told internals
    assert any(r.exc_info for r in caplog.records)


def test_a_tool_that_answers_something_else_than_an_envelope_gives_an_internal_error():
    @tool(risk=Risk.READ)
    def sloppy(context: ToolContext) -> dict:
        """Sloppy."""
        return {"text": "no envelope"}

    assert ToolRegistry([sloppy]).call("sloppy", {}, ANONYMOUS)["code"] == Code.INTERNAL_ERROR


def test_a_second_tool_with_the_same_name_or_something_that_is_no_tool_is_refused(registry):
    @tool(risk=Risk.READ, name="echo")
    def other_echo(context: ToolContext) -> dict:
        """Another echo."""
        return ok()

    with pytest.raises(ValueError, match="already registered"):
        registry.register(other_echo)
    with pytest.raises(TypeError, match="not a Tool"):
        registry.register(lambda context: ok())
    registry.register(echo)  # the same tool again is harmless


def test_a_tool_cannot_take_its_context_from_the_model():
    with pytest.raises(TypeError, match="context"):

        @tool(risk=Risk.READ)
        def sneaky(user: str) -> dict:
            """Tries to be told who the user is."""
            return ok()


def test_scoping_to_an_unknown_tool_is_a_programming_error(registry):
    with pytest.raises(KeyError, match="ghost"):
        registry.scoped(["echo", "ghost"])


# -- what a call needs --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [SIGNED_IN, ToolContext(user=Traveller(), request_text="帮我记一下", confirmed_action="yes-it-is-confirmed")],
    ids=["outside a conversation", "a confirmation that names no pending action"],
)
def test_a_call_that_changes_something_never_runs_on_the_traveller_s_word_alone(registry, context):
    result = registry.call("note", {"text": "book it"}, context)

    assert (result["ok"], result["code"]) == (False, Code.PERMISSION_DENIED)  # pending actions: test_pending_actions
    assert RAN == []


@pytest.mark.parametrize(
    "context",
    [ANONYMOUS, ToolContext(user=Traveller()), ToolContext(user=Traveller(), request_text="   ")],
    ids=["nobody signed in", "no request of the traveller", "a blank request"],
)
def test_a_call_that_changes_something_is_refused_without_a_traveller_or_their_request(registry, context):
    result = registry.call("note", {"text": "book it"}, context)

    assert (result["ok"], result["code"]) == (False, Code.PERMISSION_DENIED)
    assert RAN == []


def test_a_tool_whose_risk_depends_on_the_arguments_needs_what_that_call_needs(registry):
    search = registry.prepare("command", {"action": "search"})
    book = registry.prepare("command", {"action": "book"})

    assert (search.risk, search.needs) == (Risk.READ, Needs.NOTHING)
    assert (book.risk, book.needs) == (Risk.WRITE, Needs.CONFIRMATION)
    assert registry.call("command", {"action": "search"}, ANONYMOUS)["ok"] is True
    assert registry.call("command", {"action": "book"}, ANONYMOUS)["code"] == Code.PERMISSION_DENIED
    assert RAN == [("command", "search")]


# -- the default registry -----------------------------------------------------------------------------------------


@pytest.fixture
def modules_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("td_good_tools", "td_broken_tools"):
        sys.modules.pop(name, None)


GOOD_TOOLS = '''
    from assistant.agent.hooks import Hook
    from core.envelope import ok
    from core.tools import Risk, tool

    @tool(risk=Risk.READ)
    def hello(context):
        """Say hello."""
        return ok("hi")

    class Audit(Hook):
        name = "audit"

    TOOLS = [hello]
    HOOKS = [Audit()]
    '''


def test_build_registry_collects_tools_and_hooks_and_skips_modules_that_do_not_exist(modules_dir):
    (modules_dir / "td_good_tools.py").write_text(textwrap.dedent(GOOD_TOOLS))

    registry = build_registry(["td_missing_tools", "td_good_tools", "td_missing_pkg.tools"])

    assert registry.names == ["hello"]
    assert [h.name for h in registry.hooks] == ["audit"]


def test_build_registry_does_not_hide_an_import_error_inside_an_existing_module(modules_dir):
    (modules_dir / "td_broken_tools.py").write_text("import td_no_such_dependency\n")

    with pytest.raises(ModuleNotFoundError, match="td_no_such_dependency"):
        build_registry(["td_broken_tools"])


def test_the_default_registry_is_built_once_from_the_apps_tools_modules(modules_dir, monkeypatch):
    (modules_dir / "td_good_tools.py").write_text(textwrap.dedent(GOOD_TOOLS))
    assert set(APP_TOOL_MODULES) == {"itinerary.tools", "bookings.tools", "aftersale.tools", "assistant.tools"}
    monkeypatch.setattr(registry_module, "APP_TOOL_MODULES", ("td_good_tools", "td_missing_app.tools"))
    reset_default_registry()
    try:
        first = default_registry()
        assert default_registry() is first
        assert first.names == ["hello"]
    finally:
        reset_default_registry()
