"""The supplier platform client: the one place in TripDesk that runs the platform's command-line program.

    command = parse_command(model_text)                  # the grammar, or PlatformError NOT_ALLOWED
    data = platform_run(command, user=request.user)      # on the `platform` worker queue when a worker runs
    number = order_number(data)                          # FL…/HT…/TR…, under orderId, orderNo or mainOrderNo

The program is `PLATFORM_CLI` (default: the sandbox supplier, `python -m bookings.sandbox`). It is run from an argv
list, never through a shell, with a minimal environment; the user's platform key goes into that environment as
`SUPPLIER_API_KEY` and nowhere else: not argv, not logs, not error messages.

Exactly once does not rest on timing:
- every command that changes something (saveOrder, cancelOrder, refund) is sent with an idempotency key,
  `requestId`, and the supplier answers a repeat with its first answer (`request_id_for`);
- the program dies with the process that started it (a parent-death signal) and is killed at PLATFORM_TIMEOUT, so
  no call outlives its worker or its timeout (`_spawn`).
"""

import contextlib
import ctypes
import ctypes.util
import hashlib
import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, replace
from typing import Any

from celery import current_app, current_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from bookings.accounts import supplier_account_ensure, supplier_account_ordering
from bookings.models import SupplierCall
from core import metrics
from core.parsers import bounded_loads
from core.tracing import child_trace_environment

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
REDACTED = "[redacted]"
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
    `bookings.services.platform_command_for_traveller`.
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

    A caller that may repeat a call gives it a key of its own (refunds: the ticket number; cancels: the booking)
    or a `scope` to derive one from (see `request_id_for`). With neither, a fresh key still makes this one call's
    deliveries (the worker queue, a retried spawn) one supplier effect.
    """
    if command.action not in IDEMPOTENT_ACTIONS:
        return command
    if scope is not None and command.action == "saveOrder":
        return command.with_request_id(request_id_for(command, scope=scope))
    return command if command.request_id else command.with_request_id(f"once:{uuid.uuid4().hex}")


# --- running the program -----------------------------------------------------------------------------------------


def cli_prefix() -> list[str]:
    configured = (settings.PLATFORM_CLI or "").strip()
    return shlex.split(configured) if configured else [sys.executable, "-m", "bookings.sandbox"]


def child_environment(api_key: str) -> dict[str, str]:
    """A minimal environment for the program: nothing of the site's secrets, the user's key, and the trace of the
    turn or task that runs it (`TRIPDESK_TRACE_ID`, `TRACEPARENT`; core.tracing)."""
    env = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", os.defpath)}
    for name in ("HOME", "PYTHONPATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update({k: v for k, v in os.environ.items() if k.startswith("SANDBOX_SUPPLIER_")})
    env.update(child_trace_environment())
    env["SUPPLIER_API_KEY"] = api_key
    return env


def _scrub(text: str, api_key: str) -> str:
    return text.replace(api_key, REDACTED) if api_key else text


PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True) if sys.platform == "linux" else None
# Resolved once here, so the child between fork and exec only calls a ready C function (no lookup, no import).
_PRCTL = _LIBC.prctl if _LIBC is not None else None


def _die_with_parent(parent_pid: int):
    """A preexec_fn: the kernel SIGKILLs the child when the thread that forked it exits (PR_SET_PDEATHSIG).

    The parent may already have died between fork and prctl: then the child is an orphan and kills itself."""

    def preexec() -> None:
        _PRCTL(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _spawn(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, bytes, bytes]:
    """Run the program; it can neither outlive this process nor its timeout.

    - In a session (process group) of its own, so at the timeout, or when this worker is stopped, the whole group
      (a wrapper script's children too) is SIGKILLed.
    - With a parent-death signal (Linux): when this process is SIGKILLed (a worker killed, its hard time limit), the
      kernel SIGKILLs the program too, instead of leaving it to refund or book later, after a new worker has taken
      over. The signal fires when the forking *thread* exits: here that thread is the one that waits for the child
      (Popen and communicate below, in this one function), so it exits only after the child is gone.
    """
    proc = subprocess.Popen(  # noqa: S603 - argv list, no shell, program from settings
        argv,
        env=env,
        cwd=settings.BASE_DIR,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_die_with_parent(os.getpid()) if _PRCTL is not None else None,  # noqa: PLW1509 - see above
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except BaseException:  # the timeout, or this worker being stopped: leave nothing running behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
        raise
    return proc.returncode, stdout, stderr


def platform_call(command: PlatformCommand, *, api_key: str, timeout: float | None = None) -> dict:
    """Run one platform command for the holder of `api_key` and return its answer, unwrapped (see `unwrap`).

    Raises PlatformError: UNAVAILABLE (program missing or failed without an answer), TIMEOUT (killed after
    `timeout`, default PLATFORM_TIMEOUT), INVALID_RESPONSE, REJECTED (with the supplier's `platform_code`).
    """
    timeout = settings.PLATFORM_TIMEOUT if timeout is None else timeout
    command = with_idempotency_key(command)
    argv = [*cli_prefix(), "call", command.product, command.action, "-a", command.arguments_json()]
    started = time.perf_counter()
    exit_code: int | None = None
    try:
        try:
            exit_code, stdout, stderr = _spawn(argv, child_environment(api_key), timeout)
        except subprocess.TimeoutExpired:
            raise PlatformError(PlatformError.TIMEOUT, f"the platform did not answer within {timeout:g} s")
        except OSError as exc:
            raise PlatformError(
                PlatformError.UNAVAILABLE, f"cannot run the platform program {argv[0]!r}: {exc.strerror}"
            )
        text = stdout.decode("utf-8", errors="replace").strip()
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
        if payload is None:
            if exit_code != 0:
                detail = _scrub(stderr.decode("utf-8", errors="replace").strip()[-500:], api_key)
                logger.warning("platform program failed (exit %s): %s", exit_code, mask_mobiles(detail))
                raise PlatformError(PlatformError.UNAVAILABLE, f"the platform program failed (exit code {exit_code})")
            raise PlatformError(PlatformError.INVALID_RESPONSE, "the platform answer is not JSON")
        if exit_code != 0 and not (isinstance(payload, dict) and _rejection(payload)):
            raise PlatformError(PlatformError.UNAVAILABLE, f"the platform program failed (exit code {exit_code})")
        data = unwrap(payload)
    except PlatformError as exc:
        exc.message = _scrub(exc.message, api_key)
        exc.args = (exc.message,)
        outcome = f"REJECTED:{exc.platform_code}" if exc.code == PlatformError.REJECTED else exc.code
        _log(command, outcome, started, exit_code, api_key)
        raise
    _log(command, "OK", started, exit_code, api_key)
    return data


def _log(command: PlatformCommand, outcome: str, started: float, exit_code: int | None, api_key: str) -> None:
    """The command's log line (arguments masked) and its SupplierCall row. A business rejection ("REJECTED:<code>",
    the supplier saying no) is an answer, not a fault: its row has `fault` False. A fault is every other failure:
    a timeout, no answer, an unreadable one, or a rejection with a code saying the supplier itself is broken
    (SUPPLIER_SYSTEM_ERRORS)."""
    latency_ms = round((time.perf_counter() - started) * 1000)
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
        _scrub(mask_mobiles(command.arguments_json()), api_key),
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
    command = with_idempotency_key(command, scope=idempotency_scope)
    if command.action == "saveOrder":
        supplier_account_ensure(user=user)
        supplier_account_ordering(user=user)  # the reconciliation looks for the order even if its record fails
    if not _use_worker():
        return platform_call(command, api_key=supplier_account_ensure(user=user).api_key)

    wait = settings.PLATFORM_TIMEOUT + WORKER_WAIT_MARGIN_SECONDS
    try:
        async_result = _send_to_worker(command, user_id=user.pk, wait=wait)
        if not connection.in_atomic_block:
            connection.close()  # hold no database connection while the worker talks to the supplier
        result = async_result.get(timeout=wait)
    except PlatformError:
        raise
    except Exception as exc:  # broker down, no worker within the wait, task crashed: no answer either way
        logger.warning("platform worker did not answer: %s %s: %s", command.product, command.action, type(exc).__name__)
        raise PlatformError(PlatformError.UNAVAILABLE, "the platform worker did not answer")
    return _from_result(result)
