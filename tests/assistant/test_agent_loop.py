"""The agent loop (channel 2) against a local OpenAI-compatible server: real HTTP through the real SDK, scripted
tool calls, and what the loop sends back (`tool` messages matched by `tool_call_id`)."""

import datetime as dt
import json
from typing import Annotated

import pytest
from pydantic import Field

from assistant.agent import AgentResult, ToolRegistry, run_agent
from assistant.llm.audit import audited
from assistant.llm.messages import MAX_RAW_ARGUMENT_CHARS
from assistant.llm.openai_adapter import OpenAILLM
from assistant.models import LLMCall
from core.envelope import ok
from core.tools import Needs, Risk, ToolContext, tool
from tests.support import fixtures
from tests.support.fake_openai import Reply

fake_openai = fixtures.fake_openai


class Traveller:
    """A signed-in user as the registry sees one."""

    pk = 7
    is_authenticated = True


CONTEXT = ToolContext(
    user=Traveller(), conversation_id="conv-1", today=dt.date(2026, 12, 1), request_text="add two numbers"
)
START = [
    {"role": "system", "content": "You are a test agent."},
    {"role": "user", "content": "add two numbers and note it"},
]


@tool(risk=Risk.READ)
def add(context: ToolContext, a: int, b: int) -> dict:
    """Add two integers."""
    return ok({"sum": a + b, "cards": [{"type": "sum", "value": a + b}]})


@pytest.fixture
def notes() -> list[str]:
    return []


@pytest.fixture
def registry(notes) -> ToolRegistry:
    # A change that needs no confirmation: the loop's own guards are under test (pending actions and the loop:
    # tests/assistant/test_agent_guards.py and test_pending_actions.py).
    @tool(risk=Risk.WRITE, needs=Needs.NOTHING)
    def record(context: ToolContext, note: Annotated[str, Field(min_length=1, max_length=100)]) -> dict:
        """Write a note down."""
        notes.append(note)
        return ok({"recorded": note})

    return ToolRegistry([add, record])


@pytest.fixture
def port(fake_openai) -> OpenAILLM:
    return OpenAILLM(base_url=fake_openai.base_url, api_key="sk-test-agent-0000", model="scripted", timeout=5)


def run(port, registry, max_iterations: int = 6) -> AgentResult:
    return run_agent(port=port, registry=registry, context=CONTEXT, messages=list(START), max_iterations=max_iterations)


def tool_messages(request) -> list[dict]:
    return [m for m in request.messages if m["role"] == "tool"]


def call(call_id: str, name: str, arguments) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments}


# -- the protocol round trip ------------------------------------------------------------------------------------


def test_a_scripted_tool_call_runs_the_tool_and_sends_its_envelope_back_by_tool_call_id(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("call_add", "add", {"a": 2, "b": 3})]),
        Reply(content="2 + 3 = 5"),
    )

    result = run(port, registry)

    assert [(s.tool, s.arguments, s.call_id) for s in result.steps] == [("add", {"a": 2, "b": 3}, "call_add")]
    assert result.steps[0].envelope["data"]["sum"] == 5
    second = fake_openai.requests[1]
    assistant = second.messages[2]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["id"] == "call_add"
    assert assistant["tool_calls"][0]["function"]["name"] == "add"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"a": 2, "b": 3}
    [answer] = tool_messages(second)
    assert answer["tool_call_id"] == "call_add"
    assert json.loads(answer["content"]) == result.steps[0].envelope
    assert result.final_text == "2 + 3 = 5"
    assert (result.iterations, result.capped, result.error) == (2, False, None)


def test_the_tools_are_offered_with_their_schemas_and_never_the_context(fake_openai, port, registry):
    fake_openai.enqueue(Reply(content="nothing to do"))

    run(port, registry)

    offered = fake_openai.requests[0].json["tools"]
    assert [t["function"]["name"] for t in offered] == ["add", "record"]
    assert "context" not in json.dumps(offered)


def test_two_tool_calls_in_one_answer_both_run_and_both_are_answered_in_order(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 1}), call("c2", "record", {"note": "sum is 2"})]),
        Reply(content="done"),
    )

    result = run(port, registry)

    assert [s.call_id for s in result.steps] == ["c1", "c2"]
    assert notes == ["sum is 2"]
    answers = tool_messages(fake_openai.requests[1])
    assert [m["tool_call_id"] for m in answers] == ["c1", "c2"]
    assert [json.loads(m["content"])["ok"] for m in answers] == [True, True]


def test_an_unknown_tool_is_answered_with_unknown_tool_and_the_loop_goes_on(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "delete_everything", {})]),
        Reply(tool_calls=[call("c2", "add", {"a": 4, "b": 5})]),
        Reply(content="ok"),
    )

    result = run(port, registry)

    first_answer = json.loads(tool_messages(fake_openai.requests[1])[0]["content"])
    assert (first_answer["ok"], first_answer["code"]) == (False, "UNKNOWN_TOOL")
    assert [s.envelope["ok"] for s in result.steps] == [False, True]
    assert result.final_text == "ok"


def test_arguments_that_break_the_schema_are_refused_without_running_the_tool(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "record", {"note": ""}), call("c2", "record", {"text": "x"})]),
        Reply(content="sorry"),
    )

    result = run(port, registry)

    answers = [json.loads(m["content"]) for m in tool_messages(fake_openai.requests[1])]
    assert [a["code"] for a in answers] == ["INVALID_PARAM", "INVALID_PARAM"]
    assert "note" in answers[0]["message"]
    assert "note" in answers[1]["message"] and "text" in answers[1]["message"]
    assert notes == []
    assert all(not s.ok for s in result.steps)


def test_unparseable_arguments_are_refused_without_running_the_tool(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "record", '{"note": "unterminated')]),
        Reply(content="sorry"),
    )

    result = run(port, registry)

    [answer] = tool_messages(fake_openai.requests[1])
    envelope = json.loads(answer["content"])
    assert (answer["tool_call_id"], envelope["code"]) == ("c1", "INVALID_PARAM")
    assert "not valid JSON" in envelope["message"]
    assert notes == []
    assert result.steps[0].envelope == envelope


def test_a_write_repeated_word_for_word_in_one_turn_is_not_run_twice(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "record", {"note": "book it"})]),
        Reply(tool_calls=[call("c2", "record", {"note": "book it"})]),
        Reply(content="done"),
    )

    result = run(port, registry)

    assert notes == ["book it"]
    assert result.steps[1].envelope["code"] == "DUPLICATE_CALL"
    assert result.steps[1].envelope["data"]["previous"] == result.steps[0].envelope


# -- where the loop stops ----------------------------------------------------------------------------------------


def test_at_the_cap_the_loop_stops_asking_the_model_and_keeps_its_steps(fake_openai, port, registry):
    fake_openai.set_default(Reply(tool_calls=[call("", "add", {"a": 1, "b": 2})], content="thinking"))

    result = run(port, registry, max_iterations=3)

    assert len(fake_openai.requests) == 3
    assert (result.capped, result.iterations, result.error) == (True, 3, None)
    assert [s.tool for s in result.steps] == ["add", "add", "add"]
    assert all(s.ok for s in result.steps)
    assert result.final_text == "thinking"  # kept for the audit, not a reply
    assert result.messages[-1]["role"] == "tool"


def test_a_model_error_mid_loop_stops_it_with_the_error_and_keeps_what_was_done(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "record", {"note": "first"})], prompt_tokens=30, completion_tokens=5),
        Reply(status=503, error_message="overloaded"),
    )

    result = run(port, registry)

    assert len(fake_openai.requests) == 2
    assert result.error is not None and result.error.kind == "ERROR"
    assert "503" in str(result.error)
    assert notes == ["first"]
    assert [s.call_id for s in result.steps] == ["c1"]
    assert (result.capped, result.final_text) == (False, None)


def test_usage_is_summed_over_every_model_call(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2})], prompt_tokens=100, completion_tokens=20),
        Reply(tool_calls=[call("c2", "add", {"a": 3, "b": 4})], prompt_tokens=150, completion_tokens=25),
        Reply(content="3 and 7", prompt_tokens=200, completion_tokens=9),
    )

    result = run(port, registry)

    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (450, 54)


@pytest.mark.django_db
def test_through_the_audited_port_every_model_call_writes_its_own_audit_row(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2})], prompt_tokens=100, completion_tokens=20),
        Reply(status=503, error_message="overloaded"),
    )
    audited_port = audited(port)

    result = run(audited_port, registry)

    assert result.error is not None
    rows = LLMCall.objects.order_by("pk")
    assert [(c.purpose, c.outcome, c.prompt_tokens) for c in rows] == [("agent", "OK", 100), ("agent", "ERROR", 0)]
    assert "503" in rows[1].error
    assert [c.pk for c in audited_port.calls] == [c.pk for c in rows]


def test_the_callers_messages_are_not_changed_and_the_transcript_is_returned(fake_openai, port, registry):
    messages = list(START)
    fake_openai.enqueue(Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2})]), Reply(content="3"))

    result = run_agent(port=port, registry=registry, context=CONTEXT, messages=messages, max_iterations=4)

    assert messages == START
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool", "assistant"]


# -- the cap on changes and the bounds of arguments ----------------------------------------------------------------


def test_changes_over_the_cap_are_answered_write_limit_and_not_run(fake_openai, port, registry, notes):
    fake_openai.enqueue(
        Reply(tool_calls=[call(f"c{i}", "record", {"note": f"note {i}"}) for i in range(5)]),
        Reply(content="done"),
    )

    result = run_agent(
        port=port, registry=registry, context=CONTEXT, messages=list(START), max_iterations=4, max_writes=2
    )

    assert notes == ["note 0", "note 1"]
    assert [s.envelope["code"] for s in result.steps] == ["OK", "OK", "WRITE_LIMIT", "WRITE_LIMIT", "WRITE_LIMIT"]
    assert result.writes == 2
    answers = [json.loads(m["content"]) for m in tool_messages(fake_openai.requests[1])]
    assert [a["code"] for a in answers][2:] == ["WRITE_LIMIT"] * 3
    assert "at most 2" in answers[2]["message"]


def test_the_cap_holds_across_the_model_calls_of_one_run_and_reads_are_not_counted(
    fake_openai, port, registry, notes, settings
):
    settings.ASSISTANT_AGENT_MAX_WRITES_PER_TURN = 1
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "record", {"note": "first"}), call("c2", "add", {"a": 1, "b": 1})]),
        Reply(tool_calls=[call("c3", "record", {"note": "second"}), call("c4", "add", {"a": 2, "b": 2})]),
        Reply(content="done"),
    )

    result = run(port, registry)

    assert notes == ["first"]
    assert [s.envelope["code"] for s in result.steps] == ["OK", "OK", "WRITE_LIMIT", "OK"]


def test_an_oversized_argument_text_is_refused_unparsed_and_not_sent_back_to_the_model(
    fake_openai, port, registry, notes
):
    huge = json.dumps({"note": "x" * 200_000})
    assert len(huge) > MAX_RAW_ARGUMENT_CHARS
    fake_openai.enqueue(Reply(tool_calls=[call("c1", "record", huge)]), Reply(content="sorry"))

    result = run(port, registry)

    [step] = result.steps
    assert (step.envelope["code"], step.arguments) == ("INVALID_PARAM", {})
    assert "characters long" in step.envelope["message"]
    assert notes == []
    echoed = fake_openai.requests[1].messages[2]["tool_calls"][0]["function"]["arguments"]
    assert echoed == "{}"


def test_an_argument_under_the_text_bound_but_over_the_tools_bound_is_refused_by_the_tool_bound(
    fake_openai, port, registry, notes
):
    fake_openai.enqueue(Reply(tool_calls=[call("c1", "record", {"note": "x" * 20_000})]), Reply(content="sorry"))

    result = run(port, registry)

    assert result.steps[0].envelope["code"] == "INVALID_PARAM"
    assert "longer than" in result.steps[0].envelope["message"]
    assert notes == []
