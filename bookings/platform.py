"""The supplier platform client: the one place in TripDesk that runs the platform's command-line program.

    command = parse_command(model_text)                  # the grammar, or PlatformError NOT_ALLOWED
    data = platform_run(command, user=request.user)      # on the `platform` worker queue when a worker runs
    number = order_number(data)                          # FL…/HT…/TR…, under orderId, orderNo or mainOrderNo
    answers = platform_run_many(searches, user=user)     # independent commands at once: answers or PlatformErrors

The program is `PLATFORM_CLI` (default: the sandbox supplier, `python -m bookings.sandbox`). It is run from an argv
list, never through a shell, with a minimal environment; the user's platform key goes into that environment as
`SUPPLIER_API_KEY` and nowhere else: not argv, not logs, not error messages. A configured program runs as a process
of its own per command. The sandbox runs warm (PLATFORM_WARM, on by default): in a child forked from a
process that has already imported its CLI (`bookings.supplier_program`, `bookings.sandbox.zygote`), with the same argv, the same
environment as its os.environ, the same exit code, stdout and stderr, and the same guarantees below; a command then
costs a fork instead of a Python start-up.

Exactly once does not rest on timing:
- every command that changes something (saveOrder, cancelOrder, refund) is sent with an idempotency key,
  `requestId`, and the supplier answers a repeat with its first answer (`request_id_for`);
- the program dies with the process that started it (a parent-death signal; a warm child dies with its zygote,
  which ends when the process that asked does) and is killed at PLATFORM_TIMEOUT, so no call outlives its worker or
  its timeout (`bookings.supplier_program`, which starts the program).
"""

import hashlib
import json
import logging
import re
import shlex
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from celery import current_app, current_task
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from bookings import conf
from bookings.accounts import supplier_account_ensure, supplier_account_ordering
from bookings.models import SupplierCall
from bookings.supplier_program import child_environment, cli_prefix, run_program, scrub
from core import metrics
from core.bounded_json import bounded_loads

logger = logging.getLogger("bookings.platform")
audit_logger = logging.getLogger("bookings.platform.audit")

PRODUCTS = ("flight", "hotel", "train", "order")
ACTIONS = ("search", "saveOrder", "cancelOrder", "queryOrder", "refund", "pay")
# Actions that only read: they change nothing on the platform.
READ_ACTIONS = frozenset({"search", "queryOrder"})
# Actions that change something: each is sent with an idempotency key under REQUEST_ID.
IDEMPOTENT_ACTIONS = frozenset({"saveOrder", "cancelOrder", "refund", "pay"})
REQUEST_ID = "requestId"
# Error codes with which a supplier says it is broken, not that the request was wrong: a fault, not a business "no".
SUPPLIER_SYSTEM_ERRORS = frozenset({"PLATFORM_ERROR", "SYSTEM_ERROR", "SYSTEM_BUSY", "INTERNAL_ERROR"})
PROGRAM = "supplier"
MAX_COMMAND_CHARS = 4000
SHELL_OPERATORS = set("();<>|&")
ORDER_NUMBER_KEYS = ("mainOrderNo", "orderNo", "orderId")
MOBILE_RE = re.compile(r"(?<!\d)(1\d{2})\d{4}(\d{4})(?!\d)")
# The worker task that runs a command (declared in bookings.tasks, which imports this client): sent by its name.
PLATFORM_TASK = "bookings.tasks.platform_command"
# How long past PLATFORM_TIMEOUT a caller waits for the worker's answer (queueing, the task's start).
WORKER_WAIT_MARGIN_SECONDS = 10


class PlatformError(Exception):
    """A platform call that did not give an answer to use.

    `code`: NOT_ALLOWED (refused before running), UNAVAILABLE (could not run or no worker answered), TIMEOUT,
    INVALID_RESPONSE (not the JSON of the grammar), REJECTED (the supplier said no; see `platform_code`).
    """

    NOT_ALLOWED = "NOT_ALLOWED"
    UNAVAILABLE = "UNAVAILABLE"
    TIMEOUT = "TIMEOUT"
    INVALID_RESPONSE = "INVALID_RESPONSE"
    REJECTED = "REJECTED"
    CODES = frozenset({NOT_ALLOWED, UNAVAILABLE, TIMEOUT, INVALID_RESPONSE, REJECTED})

    def __init__(self, code: str, message: str, *, platform_code: str | None = None) -> None:
        if code not in self.CODES:
            raise ValueError(f"unknown platform error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.platform_code = platform_code

    def __reduce__(self):  # picklable like any exception, keyword state included
        return (self.__class__, (self.code, self.message), {"platform_code": self.platform_code})

    def __str__(self) -> str:
        return (
            f"{self.code}: {self.message}"
            if not self.platform_code
            else f"{self.code} ({self.platform_code}): {self.message}"
        )


@dataclass(frozen=True)
class PlatformCommand:
    """One command of the grammar: `supplier call <product> <action> -a '<json object>'`."""

    product: str
    action: str
    arguments: dict

    def __post_init__(self) -> None:
        if self.product not in PRODUCTS or self.action not in ACTIONS:
            raise PlatformError(PlatformError.NOT_ALLOWED, f"not a platform command: {self.product} {self.action}")
        if not isinstance(self.arguments, dict):
            raise PlatformError(PlatformError.NOT_ALLOWED, "the arguments must be one JSON object")

    @property
    def request_id(self) -> str | None:
        value = self.arguments.get(REQUEST_ID)
        return value if isinstance(value, str) and value.strip() else None

    def with_request_id(self, request_id: str) -> "PlatformCommand":
        """This command with its idempotency key (the model's own requestId, if any, is replaced)."""
        return replace(self, arguments={**self.arguments, REQUEST_ID: request_id})

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)

    def display(self, *, masked: bool = False) -> str:
        """The command as the skill document writes it (parse_command reads it back); `masked` hides mobiles."""
        text = self.arguments_json()
        if masked:
            text = mask_mobiles(text)
        return f"{PROGRAM} call {self.product} {self.action} -a {shlex.quote(text)}"


def mask_mobiles(text: str) -> str:
    """13800001234 → 138****1234, wherever an 11-digit mobile number appears."""
    return MOBILE_RE.sub(r"\1****\2", text)


def _refuse(message: str) -> PlatformError:
    return PlatformError(PlatformError.NOT_ALLOWED, message)


def parse_command(command: str) -> PlatformCommand:
    """Read a command line composed by the model, refusing anything but the one grammar of the skill document.

    This reads the grammar only; what a traveller's command may do (no cancelOrder, no refund) is decided by
    `bookings.services.command.platform_command_for_traveller`.
    """
    if not isinstance(command, str) or not command.strip():
        raise _refuse("empty command")
    if len(command) > MAX_COMMAND_CHARS:
        raise _refuse(f"command longer than {MAX_COMMAND_CHARS} characters")
    if "`" in command or "$(" in command or "${" in command:
        raise _refuse("command substitution (backticks, $(…), ${…}) is not allowed")
    if "\x00" in command:
        raise _refuse("control characters are not allowed")
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise _refuse(f"cannot read the command: {exc}")
    operators = [t for t in tokens if set(t) <= SHELL_OPERATORS]
    if operators:
        raise _refuse(f"shell operators are not allowed: {' '.join(dict.fromkeys(operators))}")
    if tokens[0] != PROGRAM:
        raise _refuse(f"only the `{PROGRAM}` program may be run, not {tokens[0]!r}")
    if len(tokens) < 6 or tokens[1] != "call" or tokens[4] != "-a":
        raise _refuse(f"the command must read: {PROGRAM} call <product> <action> -a '<json object>'")
    if len(tokens) > 6:
        raise _refuse("extra arguments after the JSON object (quote the whole object in single quotes)")
    product, action, raw = tokens[2], tokens[3], tokens[5]
    if product not in PRODUCTS or action not in ACTIONS:
        raise _refuse(f"`{product} {action}` is not a platform command")
    try:
        arguments = bounded_loads(raw)  # nesting too deep or a lone surrogate: refused, never a RecursionError
    except ValueError:
        raise _refuse("the arguments after -a must be one JSON object")
    if not isinstance(arguments, dict):
        raise _refuse("the arguments after -a must be one JSON object")
    return PlatformCommand(product, action, arguments)


# --- answers -----------------------------------------------------------------------------------------------------


def _rejection(payload: dict) -> PlatformError | None:
    if payload.get("success") is False or payload.get("isError") is True:
        code = payload.get("errorCode") or payload.get("code")
        message = payload.get("errorMessage") or payload.get("message") or _mcp_text(payload)
        message = str(message or "the platform refused the request")[:500]
        return PlatformError(PlatformError.REJECTED, message, platform_code=str(code) if code else None)
    return None


def _mcp_text(payload: dict) -> str | None:
    """The text of an MCP tool result (`{"content": [{"type": "text", "text": …}]}`), if it is one."""
    content = payload.get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


ENVELOPE_KEYS = {"success", "code", "message", "msg", "requestId", "traceId"}


def unwrap(payload: Any) -> dict:
    """The answer inside the supplier's wrappers: MCP content (`content[0].text` holding JSON) and `data` envelopes.

    Raises PlatformError REJECTED for an error answer at any level, INVALID_RESPONSE for anything not a JSON object.
    """
    for _ in range(4):  # wrappers nest at most a few levels deep
        if not isinstance(payload, dict):
            raise PlatformError(PlatformError.INVALID_RESPONSE, "the platform answer is not a JSON object")
        rejection = _rejection(payload)
        if rejection:
            raise rejection
        text = _mcp_text(payload)
        if text is not None:
            try:
                payload = json.loads(text)
            except ValueError:
                raise PlatformError(PlatformError.INVALID_RESPONSE, "the platform's MCP text is not JSON")
            continue
        if isinstance(payload.get("data"), dict) and set(payload) - {"data"} <= ENVELOPE_KEYS:
            payload = payload["data"]
            continue
        return payload
    raise PlatformError(PlatformError.INVALID_RESPONSE, "the platform answer is wrapped too deeply")


def order_number(payload: Any) -> str | None:
    """The platform's order number (`mainOrderNo`, `orderNo` or `orderId`) in a raw or unwrapped answer."""
    try:
        level = [unwrap(payload)]
    except PlatformError:
        return None
    for _ in range(3):  # the answer itself, then objects inside it (`order`, `data`, `result` …)
        for item in level:
            for key in ORDER_NUMBER_KEYS:
                value = item.get(key)
                if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
                    return str(value).strip()
        level = [v for item in level for v in item.values() if isinstance(v, dict)]
    return None


# --- idempotency keys --------------------------------------------------------------------------------------------


def request_id_for(command: PlatformCommand, *, scope: str) -> str:
    """A deterministic idempotency key for a command composed in `scope` (e.g. one conversation).

    The key is the scope and a hash of the canonical arguments (sorted keys, the model's own requestId left out):
    a saveOrder the model sends again in the same conversation (a retry, a duplicated tool call, a second "yes"
    reaching a second process) carries the same key, so the supplier answers the first order instead of booking
    twice; the same booking in another conversation, or another booking, gets a key of its own.
    """
    rest = {k: v for k, v in command.arguments.items() if k != REQUEST_ID}
    canonical = json.dumps([scope, command.product, command.action, rest], sort_keys=True, ensure_ascii=False)
    return f"{command.action}:{hashlib.sha256(canonical.encode()).hexdigest()[:40]}"


def with_idempotency_key(command: PlatformCommand, *, scope: str | None = None) -> PlatformCommand:
    """The command as it is sent: an action that changes something always carries a requestId.

    A caller that may repeat a call gives it a key of its own (refunds: the order, `refund:<order id>`; cancels: the
    booking)
    or a `scope` to derive one from (see `request_id_for`). With neither, a fresh key still makes this one call's
    deliveries (the worker queue, a retried spawn) one supplier effect.
    """
    if command.action not in IDEMPOTENT_ACTIONS:
        return command
    if scope is not None and command.action == "saveOrder":
        return command.with_request_id(request_id_for(command, scope=scope))
    return command if command.request_id else command.with_request_id(f"once:{uuid.uuid4().hex}")


def platform_call(command: PlatformCommand, *, api_key: str, timeout: float | None = None) -> dict:
    """Run one platform command for the holder of `api_key` and return its answer, unwrapped (see `unwrap`).

    Raises PlatformError: UNAVAILABLE (program missing or failed without an answer), TIMEOUT (killed after
    `timeout`, default PLATFORM_TIMEOUT), INVALID_RESPONSE, REJECTED (with the supplier's `platform_code`).
    """
    return _raised(platform_call_many([command], api_key=api_key, timeout=timeout)[0])


# A turn's independent commands (a round trip's five searches) run at once, up to this many.
MAX_PARALLEL_COMMANDS = 8


def platform_call_many(
    commands: list[PlatformCommand], *, api_key: str, timeout: float | None = None
) -> list[dict | PlatformError]:
    """Run independent commands at once for the holder of `api_key`: in their order, each one's answer (as
    `platform_call` gives it) or its PlatformError.

    Only the programs run in threads of their own; the environment (with the caller's trace), the log lines and the
    SupplierCall rows are made in the caller's thread, on its database connection (inside its transaction, if any).
    """
    timeout = conf.platform_timeout() if timeout is None else timeout
    commands = [with_idempotency_key(command) for command in commands]
    env = child_environment(api_key)

    def attempt(command: PlatformCommand) -> _Attempt:
        return _attempt(command, api_key=api_key, env=env, timeout=timeout)

    if len(commands) <= 1:
        attempts = [attempt(command) for command in commands]
    else:
        with ThreadPoolExecutor(min(len(commands), MAX_PARALLEL_COMMANDS), thread_name_prefix="platform") as pool:
            attempts = list(pool.map(attempt, commands))
    results: list[dict | PlatformError] = []
    for done in attempts:
        try:
            results.append(_settled(done, api_key))
        except PlatformError as exc:
            results.append(exc)
    return results


def _raised(result: dict | PlatformError) -> dict:
    if isinstance(result, PlatformError):
        raise result
    return result


@dataclass
class _Attempt:
    """One command run: its answer or its error, and what its log line says of it."""

    command: PlatformCommand
    latency_ms: int
    exit_code: int | None
    data: dict | None = None
    error: PlatformError | None = None
    stderr_tail: str = ""


def _attempt(command: PlatformCommand, *, api_key: str, env: dict[str, str], timeout: float) -> _Attempt:
    """Run the program for one command and read its answer. Uses no database and nothing of the calling context,
    so it runs in any thread."""
    args = ["call", command.product, command.action, "-a", command.arguments_json()]
    started = time.perf_counter()
    exit_code: int | None = None
    stderr_tail = ""
    try:
        try:
            exit_code, stdout, stderr = run_program(args, env, timeout)
        except subprocess.TimeoutExpired:
            raise PlatformError(PlatformError.TIMEOUT, f"the platform did not answer within {timeout:g} s")
        except OSError as exc:
            raise PlatformError(
                PlatformError.UNAVAILABLE, f"cannot run the platform program {cli_prefix()[0]!r}: {exc.strerror}"
            )
        text = stdout.decode("utf-8", errors="replace").strip()
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
        if payload is None:
            if exit_code != 0:
                stderr_tail = scrub(stderr.decode("utf-8", errors="replace").strip()[-500:], api_key)
                raise PlatformError(PlatformError.UNAVAILABLE, f"the platform program failed (exit code {exit_code})")
            raise PlatformError(PlatformError.INVALID_RESPONSE, "the platform answer is not JSON")
        if exit_code != 0 and not (isinstance(payload, dict) and _rejection(payload)):
            raise PlatformError(PlatformError.UNAVAILABLE, f"the platform program failed (exit code {exit_code})")
        data = unwrap(payload)
    except PlatformError as exc:
        exc.message = scrub(exc.message, api_key)
        exc.args = (exc.message,)
        return _Attempt(command, _since(started), exit_code, error=exc, stderr_tail=stderr_tail)
    return _Attempt(command, _since(started), exit_code, data=data)


def _since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _settled(attempt: _Attempt, api_key: str) -> dict:
    """The attempt's log line, SupplierCall row and metrics; then its answer, or its error raised."""
    exc = attempt.error
    if exc is None:
        _log(attempt.command, "OK", attempt.latency_ms, attempt.exit_code, api_key)
        return attempt.data
    if attempt.stderr_tail:
        logger.warning("platform program failed (exit %s): %s", attempt.exit_code, mask_mobiles(attempt.stderr_tail))
    outcome = f"REJECTED:{exc.platform_code}" if exc.code == PlatformError.REJECTED else exc.code
    _log(attempt.command, outcome, attempt.latency_ms, attempt.exit_code, api_key)
    raise exc


def _log(command: PlatformCommand, outcome: str, latency_ms: int, exit_code: int | None, api_key: str) -> None:
    """The command's log line (arguments masked) and its SupplierCall row. A business rejection ("REJECTED:<code>",
    the supplier saying no) is an answer, not a fault: its row has `fault` False. A fault is every other failure:
    a timeout, no answer, an unreadable one, or a rejection with a code saying the supplier itself is broken
    (SUPPLIER_SYSTEM_ERRORS)."""
    rejected = outcome.startswith(f"{PlatformError.REJECTED}:")
    fault = outcome != "OK" and not (rejected and outcome.partition(":")[2] not in SUPPLIER_SYSTEM_ERRORS)
    level = logging.INFO if outcome == "OK" or rejected else logging.WARNING
    _record_call(command, outcome[:48], fault, latency_ms)
    metrics.supplier_call_observed(
        product=command.product, action=command.action, outcome=outcome, fault=fault, latency_ms=latency_ms
    )
    logger.log(
        level,
        "platform %s %s outcome=%s latency_ms=%s exit=%s args=%s",
        command.product,
        command.action,
        outcome,
        latency_ms,
        exit_code,
        scrub(mask_mobiles(command.arguments_json()), api_key),
        extra={"product": command.product, "action": command.action, "outcome": outcome, "latency_ms": latency_ms},
    )


def _record_call(command: PlatformCommand, outcome: str, fault: bool, latency_ms: int) -> None:
    """One SupplierCall row (its trace id is the current one). In a savepoint of its own, and never raised: the
    audit row must not fail the call, nor break a transaction the caller is in."""
    try:
        with transaction.atomic():
            SupplierCall.objects.create(
                product=command.product,
                action=command.action,
                outcome=outcome,
                fault=fault,
                latency_ms=min(max(latency_ms, 0), 2_147_483_647),
            )
    except Exception as exc:  # the database down, or not to be used here: the call's log line still tells it
        audit_logger.warning(
            "could not record the supplier call %s %s: %s", command.product, command.action, type(exc).__name__
        )


# --- for a user, on the worker queue -----------------------------------------------------------------------------


def platform_call_for_user(*, product: str, action: str, arguments: dict, user_id: int) -> dict:
    """Run a command with the key of user `user_id`, as a plain result (what the Celery task returns):
    `{"ok": True, "data": …}` or `{"ok": False, "code", "platform_code", "message"}`."""
    try:
        command = PlatformCommand(product, action, arguments)
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is None:
            raise PlatformError(PlatformError.NOT_ALLOWED, "unknown user")
        data = platform_call(command, api_key=supplier_account_ensure(user=user).api_key)
    except PlatformError as exc:
        return {"ok": False, "code": exc.code, "platform_code": exc.platform_code, "message": exc.message}
    return {"ok": True, "data": data}


def _from_result(result: Any) -> dict:
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        raise PlatformError(PlatformError.UNAVAILABLE, "the platform worker gave no usable result")
    if result["ok"]:
        return result["data"]
    code = result.get("code") if result.get("code") in PlatformError.CODES else PlatformError.UNAVAILABLE
    raise PlatformError(
        code, str(result.get("message") or "platform call failed"), platform_code=result.get("platform_code")
    )


def _use_worker() -> bool:
    """A worker runs platform calls when one is configured, except inside a worker already (a task must not
    wait on another task's result)."""
    if current_app.conf.task_always_eager or not current_app.conf.result_backend:
        return False
    return not (current_task and not current_task.request.is_eager)


def _send_to_worker(command: PlatformCommand, *, user_id: int, wait: float):
    args = (command.product, command.action, command.arguments, user_id)
    return current_app.send_task(PLATFORM_TASK, args=args, queue="platform", expires=wait)


def platform_run(command: PlatformCommand, *, user, idempotency_scope: str | None = None) -> dict:
    """Run a command for `user` with their platform key: on the `platform` queue when a worker is configured
    (the worker loads the key itself; it never crosses the broker), else in this process.

    A command that changes something gets its idempotency key here, before it leaves for a worker, so every
    delivery of it is one supplier effect; `idempotency_scope` (a conversation) makes a saveOrder's key
    deterministic (`request_id_for`)."""
    return _raised(platform_run_many([command], user=user, idempotency_scope=idempotency_scope)[0])


def platform_run_many(
    commands: list[PlatformCommand], *, user, idempotency_scope: str | None = None
) -> list[dict | PlatformError]:
    """Run independent commands for `user` at once (a round trip's searches), as `platform_run` runs one: in their
    order, each one's answer or its PlatformError. To the worker, every command is sent before any answer is
    awaited, so the `platform` worker's processes run them side by side; in this process, `platform_call_many`."""
    commands = [with_idempotency_key(command, scope=idempotency_scope) for command in commands]
    if any(command.action == "saveOrder" for command in commands):
        supplier_account_ensure(user=user)
        supplier_account_ordering(user=user)  # the reconciliation looks for the order even if its record fails
    if not _use_worker():
        return platform_call_many(commands, api_key=supplier_account_ensure(user=user).api_key)

    wait = conf.platform_timeout() + WORKER_WAIT_MARGIN_SECONDS
    deadline = time.monotonic() + wait
    sent = []
    for command in commands:
        try:
            sent.append(_send_to_worker(command, user_id=user.pk, wait=wait))
        except Exception as exc:  # the broker down: no answer for this one
            sent.append(_no_answer(command, exc))
    if not connection.in_atomic_block:
        connection.close()  # hold no database connection while the worker talks to the supplier
    results: list[dict | PlatformError] = []
    for command, pending in zip(commands, sent, strict=True):
        if isinstance(pending, PlatformError):
            results.append(pending)
            continue
        try:
            results.append(_from_result(pending.get(timeout=max(deadline - time.monotonic(), 0.001))))
        except PlatformError as exc:
            results.append(exc)
        except Exception as exc:  # no worker within the wait, task crashed: no answer either way
            results.append(_no_answer(command, exc))
    return results


def _no_answer(command: PlatformCommand, exc: Exception) -> PlatformError:
    logger.warning("platform worker did not answer: %s %s: %s", command.product, command.action, type(exc).__name__)
    return PlatformError(PlatformError.UNAVAILABLE, "the platform worker did not answer")
