"""The agent loop (channel 2) against a local OpenAI-compatible server: real HTTP through the real SDK, scripted
tool calls, and what the loop sends back (`tool` messages matched by `tool_call_id`)."""

import datetime as dt
import json

import pytest

from assistant.agent import AgentResult, ToolRegistry, collect_cards, run_agent
from assistant.llm.openai_adapter import OpenAILLM
from core.envelope import ok
from core.tools import Risk, ToolContext, tool
from tests.support import fixtures
from tests.support.fake_openai import Reply

fake_openai = fixtures.fake_openai

CONTEXT = ToolContext(user=None, conversation_id="conv-1", today=dt.date(2026, 12, 1))
START = [
    {"role": "system", "content": "You are a test agent."},
    {"role": "user", "content": "add two numbers and note it"},
]


@tool(
    name="add",
    risk=Risk.READ,
    parameters={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
)
def add(context: ToolContext, a: int, b: int) -> dict:
    """Add two integers."""
    return ok({"sum": a + b, "cards": [{"type": "sum", "value": a + b}]})


@pytest.fixture
def notes() -> list[str]:
    return []


@pytest.fixture
def registry(notes) -> ToolRegistry:
    @tool(
        name="record",
        risk=Risk.WRITE,
        parameters={
            "type": "object",
            "properties": {"note": {"type": "string", "minLength": 1}},
            "required": ["note"],
            "additionalProperties": False,
        },
    )
    def record(context: ToolContext, note: str) -> dict:
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
    assert "'note' is a required property" in answers[1]["message"]
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
    assert [c.outcome for c in result.llm_calls] == ["OK", "ERROR"]
    assert "503" in result.llm_calls[1].error
    assert (result.capped, result.final_text) == (False, None)


def test_usage_is_summed_over_every_model_call_and_recorded_per_call(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2})], prompt_tokens=100, completion_tokens=20),
        Reply(tool_calls=[call("c2", "add", {"a": 3, "b": 4})], prompt_tokens=150, completion_tokens=25),
        Reply(content="3 and 7", prompt_tokens=200, completion_tokens=9),
    )

    result = run(port, registry)

    assert [(c.usage.prompt_tokens, c.usage.completion_tokens) for c in result.llm_calls] == [
        (100, 20),
        (150, 25),
        (200, 9),
    ]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (450, 54)
    assert result.usage.latency_ms == sum(c.usage.latency_ms for c in result.llm_calls)
    assert all(c.outcome == "OK" for c in result.llm_calls)


def test_the_callers_messages_are_not_changed_and_the_transcript_is_returned(fake_openai, port, registry):
    messages = list(START)
    fake_openai.enqueue(Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2})]), Reply(content="3"))

    result = run_agent(port=port, registry=registry, context=CONTEXT, messages=messages, max_iterations=4)

    assert messages == START
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool", "assistant"]


def test_cards_are_collected_from_successful_steps_only(fake_openai, port, registry):
    fake_openai.enqueue(
        Reply(tool_calls=[call("c1", "add", {"a": 1, "b": 2}), call("c2", "add", {"a": "x", "b": 2})]),
        Reply(content="3"),
    )

    result = run(port, registry)

    assert collect_cards(result) == [{"type": "sum", "value": 3}]
