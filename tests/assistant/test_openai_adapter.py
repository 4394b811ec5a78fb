"""The openai adapter of the LLM port, against a local OpenAI-compatible server (real HTTP, real SDK)."""

import json
import logging
import socket
import threading
from datetime import date

import pytest

from assistant.llm.deadline import environment_proxy
from assistant.llm.messages import ChatResult, tool_result_message
from assistant.llm.openai_adapter import OpenAILLM
from assistant.llm.port import LLMError, UnderstandContext
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply

# The fixture, until tests/conftest.py imports it for every test (a plain import would trip ruff's F811).
fake_openai = fixtures.fake_openai

API_KEY = "sk-test-4f2b9c1d8e7a"
TODAY = date(2026, 12, 1)
CONTEXT = UnderstandContext(today=TODAY)
GOOD_INTENT = {
    "intent": "SEARCH_ACTIVITIES",
    "destination_keywords": ["赛里木湖"],
    "province": "新疆",
    "city": None,
    "origin": None,
    "date_start": "2026-12-05",
    "date_end": "2026-12-06",
    "days": 7,
    "max_price": 2000,
    "biz_type": None,
    "order_id": None,
    "booking_id": None,
    "aftersale_action": None,
    "need_clarification": False,
    "clarify_question": None,
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_activities",
        "description": "Search the activity catalogue.",
        "parameters": {"type": "object", "properties": {"keyword": {"type": "string"}}},
    },
}


def adapter_for(server, timeout: float = 5.0) -> OpenAILLM:
    return OpenAILLM(base_url=server.base_url, api_key=API_KEY, model="test-model", timeout=timeout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- understand: good answers -----------------------------------------------------------------------------------


def test_a_good_answer_gives_the_intent_and_the_real_token_counts(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT, prompt_tokens=321, completion_tokens=54))

    result = adapter_for(fake_openai).understand("下周末去赛里木湖玩7天，预算两千", context=CONTEXT)

    assert result.intent.intent == "SEARCH_ACTIVITIES"
    assert result.intent.destination_keywords == ["赛里木湖"]
    assert result.intent.date_start == date(2026, 12, 5)
    assert result.intent.max_price == 2000
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (321, 54)
    assert result.usage.latency_ms >= 0


def test_the_request_asks_for_a_json_object_at_temperature_zero_with_the_users_text(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT))

    adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    body = fake_openai.last_request.json
    assert body["model"] == "test-model"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0
    assert body["messages"][-1] == {"role": "user", "content": "去大理"}


def test_the_system_prompt_carries_todays_date_and_the_intent_contract(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT))

    adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    prompt = fake_openai.last_request.system_prompt
    assert "2026-12-01" in prompt
    assert "Tuesday" in prompt
    for word in ("SEARCH_ACTIVITIES", "OUT_OF_SCOPE", "FLIGHT", "REFUND", "destination_keywords", "YYYY-MM-DD"):
        assert word in prompt
    assert "No earlier turn is waiting" in prompt


def test_the_system_prompt_carries_the_pending_intent_of_the_previous_turn(fake_openai):
    fake_openai.enqueue(Reply(content={"intent": "AFTERSALE", "order_id": "ORD-001"}))

    adapter_for(fake_openai).understand("ORD-001", context=UnderstandContext(today=TODAY, pending_intent="AFTERSALE"))

    assert "understood as: AFTERSALE" in fake_openai.last_request.system_prompt


def test_the_authorization_header_carries_the_api_key(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT))

    adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert fake_openai.last_request.authorization == f"Bearer {API_KEY}"


def test_bad_field_values_become_null(fake_openai):
    fake_openai.enqueue(Reply(content={"intent": "BOOK", "days": "abc", "biz_type": "BOAT", "date_start": "soon"}))

    intent = adapter_for(fake_openai).understand("订个船", context=CONTEXT).intent

    assert intent.intent == "BOOK"
    assert intent.days is None
    assert intent.biz_type is None
    assert intent.date_start is None


def test_the_system_prompt_asks_the_model_for_what_the_dialogue_decides_from(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT))

    adapter_for(fake_openai).understand("确认", context=CONTEXT)

    prompt = fake_openai.last_request.system_prompt
    for field in ("follow_up", "asks_activities", "same_time", "mobile", "answer"):
        assert f'"{field}":' in prompt  # in the JSON contract
        assert f"- `{field}`:" in prompt  # and described


def test_the_models_dialogue_fields_are_read_and_validated(fake_openai):
    reading = {"intent": "OUT_OF_SCOPE", "answer": "yes", "mobile": 13800000000, "same_time": True}
    fake_openai.enqueue(Reply(content={**reading, "asks_activities": True, "follow_up": True}))

    intent = adapter_for(fake_openai).understand("就这样", context=CONTEXT).intent

    assert (intent.answer, intent.mobile) == ("YES", "13800000000")
    assert (intent.same_time, intent.asks_activities) == (True, True)


def test_bad_dialogue_field_values_become_null_or_false(fake_openai):
    reading = {"intent": "OUT_OF_SCOPE", "answer": "MAYBE", "mobile": "12345", "same_time": "yes"}
    fake_openai.enqueue(Reply(content={**reading, "asks_activities": 1}))

    intent = adapter_for(fake_openai).understand("嗯…", context=CONTEXT).intent

    assert (intent.answer, intent.mobile) == (None, None)
    assert (intent.same_time, intent.asks_activities) == (False, False)


def test_unknown_fields_are_dropped(fake_openai):
    fake_openai.enqueue(Reply(content={"intent": "RECOMMEND", "sql": "DROP TABLE", "run": "rm -rf /"}))

    intent = adapter_for(fake_openai).understand("推荐一下", context=CONTEXT).intent

    assert intent.intent == "RECOMMEND"
    assert "sql" not in intent.model_dump()
    assert "run" not in intent.model_dump()


def test_json_wrapped_in_a_code_fence_is_still_read(fake_openai):
    fake_openai.enqueue(Reply(content='```json\n{"intent": "QUERY_WEATHER", "city": "大理"}\n```'))

    intent = adapter_for(fake_openai).understand("大理天气", context=CONTEXT).intent

    assert (intent.intent, intent.city) == ("QUERY_WEATHER", "大理")


# -- understand: invalid answers --------------------------------------------------------------------------------


def test_content_that_is_not_json_is_invalid_and_keeps_the_real_token_counts(fake_openai):
    fake_openai.enqueue(Reply(content="Sure! You want to go to Dali.", prompt_tokens=250, completion_tokens=12))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "INVALID"
    assert (caught.value.usage.prompt_tokens, caught.value.usage.completion_tokens) == (250, 12)


def test_json_without_an_intent_is_invalid(fake_openai):
    fake_openai.enqueue(Reply(content={"city": "大理"}))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "INVALID"
    assert "intent" in str(caught.value)


def test_an_unknown_intent_is_invalid(fake_openai):
    fake_openai.enqueue(Reply(content={"intent": "TRANSFER_MONEY"}))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("给我转账", context=CONTEXT)

    assert caught.value.kind == "INVALID"


def test_a_json_array_is_invalid(fake_openai):
    fake_openai.enqueue(Reply(content=[{"intent": "RECOMMEND"}]))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("推荐一下", context=CONTEXT)

    assert caught.value.kind == "INVALID"


# -- understand: failures ---------------------------------------------------------------------------------------


def test_a_503_is_an_error_and_is_not_retried(fake_openai):
    fake_openai.enqueue(Reply(status=503, error_message="The engine is currently overloaded"))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "ERROR"
    assert "503" in str(caught.value)
    assert len(fake_openai.requests) == 1


def test_a_429_is_an_error_and_is_not_retried(fake_openai):
    fake_openai.enqueue(Reply(status=429, error_message="Rate limit reached"))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "ERROR"
    assert len(fake_openai.requests) == 1


def test_a_401_is_an_error_whose_message_and_log_never_contain_the_key(fake_openai, caplog):
    fake_openai.enqueue(Reply(status=401, error_message=f"Incorrect API key provided: {API_KEY}"))

    with caplog.at_level(logging.INFO, logger="assistant.llm"), pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "ERROR"
    assert "401" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert API_KEY not in repr(caught.value.args)
    assert API_KEY not in caplog.text


def test_a_model_slower_than_the_timeout_is_a_timeout_after_one_request(fake_openai):
    fake_openai.enqueue(Reply(content=GOOD_INTENT, delay=HANG))
    adapter = adapter_for(fake_openai, timeout=0.5)

    with pytest.raises(LLMError) as caught:
        adapter.understand("去大理", context=CONTEXT)

    assert caught.value.kind == "TIMEOUT"
    assert len(fake_openai.requests) == 1  # not retried: one timeout is all a turn waits


def _trickle_seconds(server, reply: Reply) -> int:
    """How long the fake server takes to send `reply` at a byte a second: at least its body's length."""
    return len(json.dumps(server._completion(reply, {})).encode())


@pytest.mark.parametrize("headers_first", [False, True], ids=["from-the-status-line", "the-body-only"])
def test_a_model_that_trickles_its_answer_a_byte_a_second_is_cut_at_the_timeout(fake_openai, headers_first):
    trickle = Reply(content=GOOD_INTENT, trickle=1.0, headers_first=headers_first)
    fake_openai.enqueue(trickle)

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai, timeout=1.0).understand("去大理", context=CONTEXT)

    assert caught.value.kind == "TIMEOUT"
    assert str(caught.value) == "the model did not answer within 1 s"
    assert len(fake_openai.requests) == 1
    # Ended long before the trickle would have (every read came within a second: no read timeout ever fired).
    assert _trickle_seconds(fake_openai, trickle) > 400
    assert caught.value.usage.latency_ms < 100_000


def test_after_a_call_cut_at_the_timeout_the_next_call_is_answered(fake_openai):
    fake_openai.enqueue(
        Reply(content=GOOD_INTENT, trickle=1.0, headers_first=True), Reply(content=GOOD_INTENT, prompt_tokens=42)
    )
    adapter = adapter_for(fake_openai, timeout=1.0)
    with pytest.raises(LLMError):
        adapter.understand("去大理", context=CONTEXT)

    answer = adapter.understand("去大理", context=CONTEXT)  # the connection read halfway is never reused

    assert answer.intent.intent == "SEARCH_ACTIVITIES" and answer.usage.prompt_tokens == 42


def test_an_http_proxy_from_the_environment_carries_the_call_under_the_same_deadline(fake_openai, monkeypatch):
    # The fake server stands in for the proxy: the request comes to it with the model's absolute address.
    for name in ("NO_PROXY", "no_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{fake_openai.port}")
    adapter = OpenAILLM(base_url="http://model.example.test/v1", api_key=API_KEY, model="m", timeout=1.0)
    fake_openai.enqueue(Reply(content=GOOD_INTENT), Reply(content=GOOD_INTENT, trickle=1.0, headers_first=True))

    answer = adapter.understand("去大理", context=CONTEXT)
    with pytest.raises(LLMError) as caught:
        adapter.understand("去大理", context=CONTEXT)

    assert answer.intent.intent == "SEARCH_ACTIVITIES"
    assert fake_openai.requests[0].target == "http://model.example.test/v1/chat/completions"
    assert caught.value.kind == "TIMEOUT"


def test_a_host_the_environment_exempts_from_the_proxy_is_reached_directly(monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("https_proxy", "proxy.internal:3128")
    monkeypatch.setenv("no_proxy", "localhost,.example.test")

    assert environment_proxy("https://api.openai.com/v1") == "http://proxy.internal:3128"
    assert environment_proxy("https://llm.example.test/v1") is None
    assert environment_proxy("http://api.openai.com/v1") is None  # no proxy named for plain http


def test_nothing_listening_is_an_error():
    adapter = OpenAILLM(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key=API_KEY, model="m", timeout=2)

    with pytest.raises(LLMError) as caught:
        adapter.understand("去大理", context=CONTEXT)

    assert caught.value.kind == "ERROR"
    assert API_KEY not in str(caught.value)


def test_every_call_logs_one_line_with_tokens_latency_and_outcome(fake_openai, caplog):
    fake_openai.enqueue(Reply(content=GOOD_INTENT, prompt_tokens=100, completion_tokens=20), Reply(content="oops"))
    adapter = adapter_for(fake_openai)

    with caplog.at_level(logging.INFO, logger="assistant.llm"):
        adapter.understand("去大理", context=CONTEXT)
        with pytest.raises(LLMError):
            adapter.understand("去大理", context=CONTEXT)

    lines = [r.getMessage() for r in caplog.records if r.name == "assistant.llm"]
    assert len(lines) == 2
    assert "provider=openai model=test-model purpose=understand prompt_tokens=100 completion_tokens=20" in lines[0]
    assert "outcome=OK" in lines[0]
    assert "outcome=INVALID" in lines[1]


def test_an_adapter_without_a_key_can_still_be_built_for_a_keyless_endpoint(fake_openai):
    fake_openai.enqueue(Reply(content={"intent": "RECOMMEND"}))
    adapter = OpenAILLM(base_url=fake_openai.base_url, api_key="", model="local", timeout=5)

    assert adapter.understand("推荐一下", context=CONTEXT).intent.intent == "RECOMMEND"


# -- chat (channel 2) -------------------------------------------------------------------------------------------


def test_a_tool_calls_answer_is_parsed_into_tool_calls(fake_openai):
    fake_openai.enqueue(
        Reply(
            tool_calls=[{"id": "call_abc", "name": "search_activities", "arguments": {"keyword": "洱海"}}],
            prompt_tokens=90,
            completion_tokens=15,
        )
    )

    result = adapter_for(fake_openai).chat([{"role": "user", "content": "洱海有什么玩的"}], [SEARCH_TOOL])

    assert isinstance(result, ChatResult)
    assert result.content is None
    assert result.finish_reason == "tool_calls"
    [call] = result.tool_calls
    assert (call.id, call.name, call.arguments, call.arguments_error) == (
        "call_abc",
        "search_activities",
        {"keyword": "洱海"},
        None,
    )
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (90, 15)
    body = fake_openai.last_request.json
    assert body["tools"] == [SEARCH_TOOL]
    assert body["tool_choice"] == "auto"


def test_a_text_answer_has_content_and_no_tool_calls(fake_openai):
    fake_openai.enqueue(Reply(content="洱海有环湖骑行。"))

    result = adapter_for(fake_openai).chat([{"role": "user", "content": "洱海有什么玩的"}], [SEARCH_TOOL])

    assert (result.content, result.tool_calls, result.finish_reason) == ("洱海有环湖骑行。", [], "stop")


def test_the_tool_call_id_makes_the_round_trip_to_the_server(fake_openai):
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "call_7", "name": "search_activities", "arguments": {"keyword": "洱海"}}]),
        Reply(content="找到 1 个活动。"),
    )
    adapter = adapter_for(fake_openai)
    messages = [{"role": "user", "content": "洱海有什么玩的"}]

    first = adapter.chat(messages, [SEARCH_TOOL])
    messages.append(first.assistant_message())
    messages.append(tool_result_message(first.tool_calls[0], {"ok": True, "code": None, "message": "", "data": []}))
    second = adapter.chat(messages, [SEARCH_TOOL])

    sent = fake_openai.last_request.messages
    assert sent[1]["role"] == "assistant"
    assert sent[1]["tool_calls"][0]["id"] == "call_7"
    assert sent[1]["tool_calls"][0]["function"] == {"name": "search_activities", "arguments": '{"keyword": "洱海"}'}
    assert sent[2]["role"] == "tool"
    assert sent[2]["tool_call_id"] == "call_7"
    assert json.loads(sent[2]["content"])["ok"] is True
    assert second.content == "找到 1 个活动。"


def test_unparseable_arguments_give_empty_arguments_and_an_error_to_tell_the_model(fake_openai):
    fake_openai.enqueue(Reply(tool_calls=[{"id": "call_1", "name": "search_activities", "arguments": '{"keyword": '}]))

    [call] = adapter_for(fake_openai).chat([{"role": "user", "content": "hi"}], [SEARCH_TOOL]).tool_calls

    assert call.arguments == {}
    assert "not valid JSON" in call.arguments_error
    assert call.raw_arguments == '{"keyword": '


def test_arguments_that_are_not_an_object_give_an_error(fake_openai):
    fake_openai.enqueue(Reply(tool_calls=[{"id": "call_1", "name": "search_activities", "arguments": "[1, 2]"}]))

    [call] = adapter_for(fake_openai).chat([{"role": "user", "content": "hi"}], [SEARCH_TOOL]).tool_calls

    assert call.arguments == {}
    assert "JSON object" in call.arguments_error


def test_chat_without_tools_sends_no_tool_choice(fake_openai):
    fake_openai.enqueue(Reply(content="好的。"))

    adapter_for(fake_openai).chat([{"role": "user", "content": "总结一下"}], [])

    assert "tools" not in fake_openai.last_request.json
    assert "tool_choice" not in fake_openai.last_request.json


def test_chat_maps_a_503_to_an_error(fake_openai):
    fake_openai.enqueue(Reply(status=503))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai).chat([{"role": "user", "content": "hi"}], [SEARCH_TOOL])

    assert caught.value.kind == "ERROR"


def test_chat_maps_a_slow_model_to_a_timeout(fake_openai):
    fake_openai.enqueue(Reply(content="late", delay=HANG))

    with pytest.raises(LLMError) as caught:
        adapter_for(fake_openai, timeout=0.5).chat([{"role": "user", "content": "hi"}], [SEARCH_TOOL])

    assert caught.value.kind == "TIMEOUT"


# -- the fake server itself -------------------------------------------------------------------------------------


def test_the_fake_answers_concurrent_slow_requests_in_parallel(fake_openai):
    from concurrent.futures import ThreadPoolExecutor

    # Each answer waits until all ten requests are inside the server: a server answering one at a time never gets
    # there (the barrier breaks, the request fails).
    inside = threading.Barrier(10, timeout=60)

    def answer(request):
        inside.wait()
        return Reply(content={"intent": "RECOMMEND"})

    fake_openai.set_default(answer)
    adapter = adapter_for(fake_openai, timeout=90)

    with ThreadPoolExecutor(max_workers=10) as pool:
        results = list(pool.map(lambda _: adapter.understand("推荐", context=CONTEXT), range(10)))

    assert [r.intent.intent for r in results] == ["RECOMMEND"] * 10
