"""Hooks around tool calls: priority order, short-circuits, and post-acting hooks that fail without breaking the loop."""

import datetime as dt
import json
import logging
from typing import Annotated

import pytest
from pydantic import Field

from assistant.agent import Hook, ToolInvocation, ToolRegistry, run_agent
from assistant.llm.messages import ChatResult, ToolCall
from assistant.llm.port import Usage
from core.envelope import Code, fail, ok
from core.tools import Needs, Risk, ToolContext, tool


class Traveller:
    """A signed-in user as the registry sees one (no database needed)."""

    pk = 7
    is_authenticated = True

    def __repr__(self) -> str:
        return "alice"


ALICE = Traveller()
CONTEXT = ToolContext(user=ALICE, conversation_id="conv-7", today=dt.date(2026, 12, 1), request_text="pay 12")


class Recorder(Hook):
    """Writes what it saw into a shared journal; optionally answers or raises."""

    def __init__(self, name, priority, journal, answer=None, pre_raises=False, post_raises=False):
        self.name, self.priority, self.journal = name, priority, journal
        self.answer, self.pre_raises, self.post_raises = answer, pre_raises, post_raises

    def pre_acting(self, call: ToolInvocation):
        self.journal.append(("pre", self.name))
        if self.pre_raises:
            raise RuntimeError("pre hook broke")
        return self.answer

    def post_acting(self, call: ToolInvocation, result: dict) -> None:
        self.journal.append(("post", self.name, call.short_circuited_by, result["code"]))
        if self.post_raises:
            raise RuntimeError("post hook broke")


class ScriptedPort:
    """A port answering from a list of ChatResults (the hooks are what is under test here)."""

    provider, model = "test", "scripted"

    def __init__(self, *answers: ChatResult) -> None:
        self.answers = list(answers)

    def chat(self, messages, tools, *, state=None):
        return self.answers.pop(0)


@pytest.fixture
def ran() -> list[dict]:
    return []


@pytest.fixture
def registry(ran) -> ToolRegistry:
    # A change that needs no confirmation (the hooks are under test, not the pending actions of issue 13).
    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def pay(context: ToolContext, amount: Annotated[float, Field(gt=0)]) -> dict:
        """Pay an amount."""
        ran.append({"amount": amount, "user": context.user})
        return ok({"paid": amount})

    return ToolRegistry([pay])


def test_pre_and_post_hooks_run_in_priority_order_whatever_the_order_they_were_added(registry, ran):
    journal: list = []
    for name, priority in (("late", 900), ("early", 10), ("middle", 100)):
        registry.add_hook(Recorder(name, priority, journal))

    result = registry.call("pay", {"amount": 12}, CONTEXT, call_id="c1")

    assert result["ok"] is True
    assert journal == [
        ("pre", "early"),
        ("pre", "middle"),
        ("pre", "late"),
        ("post", "early", None, "OK"),
        ("post", "middle", None, "OK"),
        ("post", "late", None, "OK"),
    ]
    assert ran == [{"amount": 12, "user": ALICE}]


def test_a_pre_hook_that_answers_stops_the_tool_and_the_later_pre_hooks(registry, ran):
    journal: list = []
    waiting = fail(Code.TICKET_PENDING, "waiting for approval", {"ticket": "T-1"})
    registry.add_hook(Recorder("approval", 50, journal, answer=waiting))
    registry.add_hook(Recorder("after", 60, journal))

    result = registry.call("pay", {"amount": 5000}, CONTEXT)

    assert result == waiting
    assert ran == []
    assert journal == [
        ("pre", "approval"),
        ("post", "approval", "approval", "TICKET_PENDING"),
        ("post", "after", "approval", "TICKET_PENDING"),
    ]


def test_a_raising_pre_hook_stops_the_tool_with_an_internal_error_and_is_logged(registry, ran, caplog):
    journal: list = []
    registry.add_hook(Recorder("broken", 1, journal, pre_raises=True))

    with caplog.at_level(logging.ERROR, logger="assistant.agent"):
        result = registry.call("pay", {"amount": 1}, CONTEXT)

    assert (result["ok"], result["code"]) == (False, "INTERNAL_ERROR")
    assert ran == []
    assert any("pre-acting hook broken failed" in r.getMessage() and r.exc_info for r in caplog.records)


def test_a_pre_hook_answering_something_else_than_an_envelope_stops_the_tool(registry, ran):
    registry.add_hook(Recorder("sloppy", 1, [], answer={"approved": True}))

    result = registry.call("pay", {"amount": 1}, CONTEXT)

    assert result["code"] == "INTERNAL_ERROR"
    assert ran == []


def test_post_hooks_see_the_call_and_its_envelope(registry):
    seen: list = []

    class Listener(Hook):
        name = "listener"

        def post_acting(self, call, result):
            seen.append((call.name, call.arguments, call.context.user, call.call_id, result))

    registry.add_hook(Listener())

    result = registry.call("pay", {"amount": 7.5}, CONTEXT, call_id="call_9")

    assert seen == [("pay", {"amount": 7.5}, ALICE, "call_9", result)]
    assert result["data"] == {"paid": 7.5}


def test_hooks_do_not_run_for_calls_that_never_reach_the_tool(registry, ran):
    @tool(risk=Risk.WRITE)
    def pay_confirmed(context: ToolContext, amount: Annotated[float, Field(gt=0)]) -> dict:
        """Pay an amount once the traveller confirmed it."""
        ran.append({"amount": amount})
        return ok({"paid": amount})

    registry.register(pay_confirmed)
    journal: list = []
    registry.add_hook(Recorder("any", 1, journal))

    assert registry.call("nope", {}, CONTEXT)["code"] == "UNKNOWN_TOOL"
    assert registry.call("pay", {"amount": -1}, CONTEXT)["code"] == "INVALID_PARAM"
    assert registry.call("pay_confirmed", {"amount": 1}, ToolContext(user=None))["code"] == "PERMISSION_DENIED"
    assert journal == [] and ran == []


def test_a_raising_post_hook_is_logged_and_the_loop_and_its_result_go_on(registry, ran, caplog):
    journal: list = []
    registry.add_hook(Recorder("broken", 1, journal, post_raises=True))
    registry.add_hook(Recorder("next", 2, journal))
    port = ScriptedPort(
        ChatResult(content=None, tool_calls=[ToolCall(id="c1", name="pay", arguments={"amount": 3})], usage=Usage()),
        ChatResult(content="paid", tool_calls=[], usage=Usage()),
    )
    messages = [{"role": "user", "content": "pay 3"}]

    with caplog.at_level(logging.ERROR, logger="assistant.agent"):
        result = run_agent(port=port, registry=registry, context=CONTEXT, messages=messages, max_iterations=4)

    assert result.finished and result.final_text == "paid"
    assert result.steps[0].envelope == {"ok": True, "code": "OK", "message": "", "data": {"paid": 3}}
    assert json.loads(result.messages[2]["content"])["ok"] is True
    assert ("post", "next", None, "OK") in journal  # the hook after the broken one still ran
    assert ran == [{"amount": 3, "user": ALICE}]
    [record] = [r for r in caplog.records if "post-acting hook broken failed" in r.getMessage()]
    assert record.exc_info is not None


def test_the_context_never_appears_in_the_schemas_and_cannot_be_a_parameter(registry):
    schemas = registry.schemas()

    assert schemas == [
        {
            "type": "function",
            "function": {
                "name": "pay",
                "description": "Pay an amount.",
                "parameters": registry.get("pay").parameters,
            },
        }
    ]
    assert "context" not in json.dumps(schemas)

    with pytest.raises(TypeError, match="context"):

        @tool(risk=Risk.READ)
        def sneaky(user: str) -> dict:
            """Tries to take the context from the model."""
            return ok()


def test_a_scoped_registry_keeps_the_same_hooks(registry):
    journal: list = []
    registry.add_hook(Recorder("audit", 1, journal))

    @tool(risk=Risk.READ)
    def peek(context: ToolContext) -> dict:
        """Look."""
        return ok()

    registry.register(peek)
    scoped = registry.scoped(["peek"])

    assert [s["function"]["name"] for s in scoped.schemas()] == ["peek"]
    assert scoped.call("pay", {"amount": 1}, CONTEXT)["code"] == "UNKNOWN_TOOL"
    assert scoped.call("peek", {}, CONTEXT)["ok"] is True
    assert journal == [("pre", "audit"), ("post", "audit", None, "OK")]
