"""The `openai` adapter of the LLM port: any OpenAI-compatible endpoint through the openai SDK.

One client per adapter, an explicit timeout and no SDK retries: a slow or failing model is reported at once as an
`LLMError` and the caller degrades, instead of the SDK silently multiplying the wait. The timeout bounds the whole
call, not each read (`assistant.llm.deadline`): an endpoint that trickles its answer is cut at the timeout too.
Every call logs one line (logger `assistant.llm`) with provider, model, purpose, tokens, latency and outcome; the
API key never appears in a log line or an error message.
"""

import json
import logging
import time
from datetime import date, datetime
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

import openai
from pydantic import ValidationError

from assistant.llm.deadline import call_deadline, deadline_http_client
from assistant.llm.messages import ChatResult, ToolCall, parse_tool_call
from assistant.llm.port import LLMError, UnderstandContext, Understanding, Usage, release_db_connection
from assistant.llm.preferences import MAX_SCORE, MIN_SCORE, PREFERENCES, PreferenceCandidate, PreferenceScores
from assistant.llm.schema import Intent
from assistant.llm.verdict import VERDICTS, VerdictRequest, VerdictResult
from core.bounded_json import bounded_loads
from core.text import storable_text, unstorable_in

logger = logging.getLogger("assistant.llm")

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
# The SDK refuses to build a client without a key; keyless local endpoints (Ollama, vLLM) ignore this one.
NO_KEY = "no-key-configured"
REDACTED = "[redacted]"
WEEKDAYS = ("Monday 星期一", "Tuesday 星期二", "Wednesday 星期三", "Thursday 星期四", "Friday 星期五",
            "Saturday 星期六", "Sunday 星期日")  # fmt: skip

TIMEOUT, INVALID, ERROR, OK = "TIMEOUT", "INVALID", "ERROR", "OK"


@cache
def _prompt(name: str) -> Template:
    return Template((PROMPTS_DIR / name).read_text(encoding="utf-8"))


def understand_system_prompt(context: UnderstandContext) -> str:
    """The system prompt for one sentence: the intent JSON contract, today's date and any open question."""
    if context.pending_intent:
        pending = (
            f"The previous turn was understood as: {context.pending_intent[:500]}. It is still waiting for details. "
            "If this message only adds details (a place, a date, a budget, an order or booking number, a wish about "
            "the option, a pick, the passengers …), keep that intent, fill in the fields this message gives and set "
            "follow_up to true."
        )
    else:
        pending = "No earlier turn is waiting for details."
    today: date = context.today
    return _prompt("understand_system.md").substitute(
        today=today.isoformat(), weekday=WEEKDAYS[today.weekday()], pending=pending
    )


def verdict_system_prompt(request: VerdictRequest) -> str:
    """The system prompt of one verdict: the three states, the answer's shape, today and the current time."""
    now: datetime = request.now
    return _prompt("verdict_system.md").substitute(
        today=request.today.isoformat(),
        weekday=WEEKDAYS[request.today.weekday()],
        now=now.isoformat(timespec="minutes"),
        time_zone=getattr(now.tzinfo, "key", None) or str(now.tzinfo),
    )


def verdict_user_content(request: VerdictRequest) -> str:
    """The case as JSON data: the request, the order's facts and the policy passages (never instructions)."""
    case = {"action": request.action, "order": request.order, "policies": request.policies}
    return json.dumps(case, ensure_ascii=False, default=str)


class OpenAILLM:
    """The LLM port over an OpenAI-compatible chat-completions endpoint."""

    provider = "openai"

    def __init__(self, *, base_url: str, api_key: str, model: str, timeout: float) -> None:
        self.model = model
        self.timeout = float(timeout)
        self._api_key = api_key or ""
        # One client per process, shared by the web server's threads: the SDK's connection pool allows 1000
        # connections at once (100 kept alive), more than a process has threads, so no thread queues for one. Its
        # transport keeps each call's deadline (`_create`).
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or NO_KEY,
            timeout=self.timeout,
            max_retries=0,
            http_client=deadline_http_client(base_url=base_url, timeout=self.timeout),
        )

    def __repr__(self) -> str:
        return f"OpenAILLM(model={self.model!r}, timeout={self.timeout:g})"

    # -- the port -------------------------------------------------------------------------------------------------

    def understand(self, text: str, *, context: UnderstandContext) -> Understanding:
        """Turn one sentence into an `Intent`. Raises LLMError (TIMEOUT, INVALID or ERROR)."""
        messages = [
            {"role": "system", "content": understand_system_prompt(context)},
            {"role": "user", "content": text},
        ]
        completion, usage = self._create(
            "understand", messages=messages, response_format={"type": "json_object"}, temperature=0
        )
        try:
            intent = _parse_intent(_first_message(completion).content)
        except _Invalid as exc:
            self._log("understand", usage, INVALID, str(exc))
            raise LLMError(INVALID, f"the model's answer is not a valid intent: {exc}", usage) from None
        self._log("understand", usage, OK)
        return Understanding(intent=intent, usage=usage)

    def verdict(self, request: VerdictRequest) -> VerdictResult:
        """Judge one refund or return against the policy passages. Raises LLMError (TIMEOUT, INVALID or ERROR)."""
        messages = [
            {"role": "system", "content": verdict_system_prompt(request)},
            {"role": "user", "content": verdict_user_content(request)},
        ]
        completion, usage = self._create(
            "verdict", messages=messages, response_format={"type": "json_object"}, temperature=0
        )
        try:
            verdict, reason, policy_ids = _parse_verdict(_first_message(completion).content, request.policies)
        except _Invalid as exc:
            self._log("verdict", usage, INVALID, str(exc))
            raise LLMError(INVALID, f"the model's answer is not a valid verdict: {exc}", usage) from None
        self._log("verdict", usage, OK)
        return VerdictResult(verdict=verdict, reason=reason, policy_ids=policy_ids, usage=usage)

    def preference_scores(self, text: str, candidates: list[PreferenceCandidate]) -> PreferenceScores:
        """Score each candidate 0..100 for the stated preferences (JSON mode). Unknown ids are dropped; a score that
        is not a number from 0 to 100 makes the whole answer INVALID. Raises LLMError (TIMEOUT, INVALID or ERROR)."""
        messages = [
            {"role": "system", "content": _prompt("preferences_system.md").substitute()},
            {"role": "user", "content": preferences_user_content(text, candidates)},
        ]
        completion, usage = self._create(
            "preference", messages=messages, response_format={"type": "json_object"}, temperature=0
        )
        try:
            scores, stated = _parse_preference_scores(_first_message(completion).content, candidates)
        except _Invalid as exc:
            self._log("preference", usage, INVALID, str(exc))
            raise LLMError(INVALID, f"the model's answer is not valid preference scores: {exc}", usage) from None
        self._log("preference", usage, OK)
        return PreferenceScores(scores=scores, usage=usage, stated=stated)

    def chat(self, messages: list[dict], tools: list[dict], *, state: Any = None) -> ChatResult:
        """One turn of the tool-calling loop (channel 2). Raises LLMError (TIMEOUT, INVALID or ERROR). `state` (the
        code's own state, for the offline adapter) is not sent: the model reads the messages."""
        params: dict[str, Any] = {"messages": messages, "temperature": 0}
        if tools:  # the API rejects tool_choice without tools
            params["tools"] = tools
            params["tool_choice"] = "auto"
        completion, usage = self._create("chat", **params)
        try:
            message = _first_message(completion)
        except _Invalid as exc:
            self._log("chat", usage, INVALID, str(exc))
            raise LLMError(INVALID, f"the model's answer is unusable: {exc}", usage) from None
        calls = [_tool_call(raw) for raw in message.tool_calls or []]
        self._log("chat", usage, OK)
        # The model's words are kept for the audit and sent back with its calls: as text that can be (a lone
        # surrogate in the next request would fail it).
        content = message.content if message.content is None else storable_text(str(message.content))
        return ChatResult(
            content=content,
            tool_calls=calls,
            usage=usage,
            finish_reason=completion.choices[0].finish_reason,
        )

    # -- one HTTP call --------------------------------------------------------------------------------------------

    def _create(self, purpose: str, **params: Any) -> tuple[Any, Usage]:
        """Call chat.completions; map every failure to LLMError, logging it. Returns the completion and its usage.

        The thread's database connection is given back first (outside a transaction), so users waiting on the
        model hold no PostgreSQL connection: every model call of the site (understanding, the agent loop, the
        after-sale verdict, preference scores) passes here."""
        release_db_connection()
        started = time.monotonic()
        try:
            with call_deadline(self.timeout):  # connecting, sending, every read and the total
                completion = self._client.chat.completions.create(model=self.model, **params)
        except openai.APITimeoutError:
            usage = Usage(latency_ms=_ms_since(started))
            self._log(purpose, usage, TIMEOUT)
            raise LLMError(TIMEOUT, f"the model did not answer within {self.timeout:g} s", usage) from None
        except openai.APIStatusError as exc:
            usage = Usage(latency_ms=_ms_since(started))
            detail = self._redact(_error_detail(exc.body))
            self._log(purpose, usage, ERROR, f"HTTP {exc.status_code}")
            message = f"the model endpoint answered HTTP {exc.status_code}" + (f": {detail}" if detail else "")
            raise LLMError(ERROR, message, usage) from None
        except openai.APIConnectionError:
            usage = Usage(latency_ms=_ms_since(started))
            self._log(purpose, usage, ERROR, "connection failed")
            raise LLMError(ERROR, "could not connect to the model endpoint", usage) from None
        except Exception as exc:  # anything else the SDK raises: still a degraded answer, never a crash
            usage = Usage(latency_ms=_ms_since(started))
            self._log(purpose, usage, ERROR, type(exc).__name__)
            raise LLMError(ERROR, f"the model call failed ({type(exc).__name__})", usage) from None
        raw_usage = getattr(completion, "usage", None)
        usage = Usage(
            prompt_tokens=int(getattr(raw_usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(raw_usage, "completion_tokens", 0) or 0),
            latency_ms=_ms_since(started),
        )
        return completion, usage

    def _log(self, purpose: str, usage: Usage, outcome: str, detail: str = "") -> None:
        fields = {
            "provider": self.provider,
            "model": self.model,
            "purpose": purpose,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "latency_ms": usage.latency_ms,
            "outcome": outcome,
        }
        line = " ".join(f"{key}={value}" for key, value in fields.items())
        if detail:
            line += f" detail={self._redact(detail)[:200]!r}"
        logger.log(logging.INFO if outcome == OK else logging.WARNING, "llm call %s", line, extra={"llm": fields})

    def _redact(self, text: str) -> str:
        # A very short key would blank out ordinary letters; such keys are not secrets worth the noise.
        if len(self._api_key) >= 4:
            text = text.replace(self._api_key, REDACTED)
        return text


class _Invalid(Exception):
    """The model answered, but not with something usable."""


def _loads(text: str) -> Any:
    """The model's JSON answer; too deep a nesting is refused before decoding (never a RecursionError), and so is
    a string that is not text a database can store (a lone surrogate, escaped or as the SDK decoded it, or a NUL):
    its intent, verdict or scores would fail the rows they go into."""
    try:
        data = bounded_loads(text)
    except json.JSONDecodeError as exc:
        raise _Invalid(f"not JSON ({exc.msg} at position {exc.pos})") from None
    except ValueError as exc:  # nested too deep, or a lone surrogate
        raise _Invalid(str(exc)) from None
    where = unstorable_in(data)
    if where is not None:
        raise _Invalid(f"{where} is not text (it holds a lone surrogate or a NUL character)")
    return data


def _first_message(completion: Any) -> Any:
    choices = getattr(completion, "choices", None) or []
    if not choices or getattr(choices[0], "message", None) is None:
        raise _Invalid("no choices in the answer")
    return choices[0].message


def _parse_intent(content: str | None) -> Intent:
    if not content or not content.strip():
        raise _Invalid("empty content")
    text = _strip_code_fence(content.strip())
    data = _loads(text)
    if not isinstance(data, dict):
        raise _Invalid(f"JSON {type(data).__name__}, not an object")
    if isinstance(data.get("intent"), str):
        data["intent"] = data["intent"].strip().upper()
    try:
        return Intent.model_validate(data)
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in err["loc"]) or "answer" for err in exc.errors()})
        raise _Invalid(f"missing or unknown {', '.join(fields)}") from None


def _json_object(content: str | None) -> dict:
    if not content or not content.strip():
        raise _Invalid("empty content")
    data = _loads(_strip_code_fence(content.strip()))
    if not isinstance(data, dict):
        raise _Invalid(f"JSON {type(data).__name__}, not an object")
    return data


def _parse_verdict(content: str | None, policies: list[dict]) -> tuple[str, str, list[Any]]:
    """(verdict, reason, policy ids) from the model's JSON; only ids of the given passages are kept."""
    data = _json_object(content)
    verdict = data.get("verdict")
    if not isinstance(verdict, str) or verdict.strip().upper() not in VERDICTS:
        raise _Invalid(f"verdict must be one of {', '.join(VERDICTS)}, got {str(verdict)[:40]!r}")
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise _Invalid("reason must be a string")
    given = {str(p.get("id")): p.get("id") for p in policies}
    raw_ids = data.get("policy_ids")
    cited = raw_ids if isinstance(raw_ids, list) else []
    policy_ids = list(dict.fromkeys(given[str(i)] for i in cited if isinstance(i, str | int) and str(i) in given))
    return verdict.strip().upper(), reason.strip()[:2000], policy_ids


def preferences_user_content(text: str, candidates: list[PreferenceCandidate]) -> str:
    """What the traveller said and the candidates, as JSON data (never instructions)."""
    case = {"traveller_said": text, "candidates": [c.as_json() for c in candidates]}
    return json.dumps(case, ensure_ascii=False)


def _parse_preference_scores(
    content: str | None, candidates: list[PreferenceCandidate]
) -> tuple[dict[str, float], tuple[str, ...]]:
    """(id → score for the given ids, the stated preferences); unknown ids and unknown preference words are dropped."""
    data = _json_object(content)
    raw = data.get("scores")
    if not isinstance(raw, dict):
        raise _Invalid("scores must be an object of candidate id → number")
    known = {c.id for c in candidates}
    scores: dict[str, float] = {}
    for cid, value in raw.items():
        if cid not in known:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise _Invalid(f"the score of {cid[:60]!r} is not a number")
        if not MIN_SCORE <= value <= MAX_SCORE:
            raise _Invalid(f"the score of {cid[:60]!r} is outside 0..100: {value}")
        scores[cid] = float(value)
    words = data.get("preferences")
    said = {w.strip().lower() for w in words if isinstance(w, str)} if isinstance(words, list) else set()
    return scores, tuple(name for name in PREFERENCES if name in said)


def _strip_code_fence(text: str) -> str:
    """Some compatible servers wrap JSON in ```json fences despite json_object mode."""
    if text.startswith("```") and text.endswith("```"):
        text = text[3:-3]
        first_line, _, rest = text.partition("\n")
        return (rest if first_line.strip().isalpha() or not first_line.strip() else text).strip()
    return text


def _tool_call(raw: Any) -> ToolCall:
    function = getattr(raw, "function", None)
    if function is None:  # a custom (free-text) tool call: not part of our protocol
        name = storable_text(getattr(getattr(raw, "custom", None), "name", "") or "")
        error = "only function tools are supported"
        return ToolCall(id=storable_text(raw.id or ""), name=name, arguments={}, arguments_error=error)
    return parse_tool_call(raw.id, function.name, function.arguments)


def _error_detail(body: object) -> str:
    """The short human message of an OpenAI-style error body (the SDK already unwrapped `error`)."""
    if isinstance(body, dict):
        message = body.get("message")
        return str(message)[:200] if message else ""
    if isinstance(body, str):
        return body[:200]
    return ""


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
