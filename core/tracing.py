"""One trace id per chat turn, carried into every process the turn reaches.

    with trace() as trace_id:        # a fresh id (or trace(incoming) to continue one)
        current_trace_id()           # the id, "" outside any trace
        format_traceparent(trace_id) # "00-<trace id>-<span id>-01", the W3C header

The id is a W3C trace id: 32 lowercase hex digits. It enters with a request (`TraceMiddleware`: a `traceparent`
header, else an `X-Request-ID` that is a 32-hex id or a UUID, else a fresh one), goes with a Celery task in its
headers (`before_task_publish`, set again in the worker by `task_prerun`), into the supplier program's environment
(`TRIPDESK_TRACE_ID`, `TRACEPARENT`; bookings.platform), onto the rows a turn writes (`trace_id` defaults to
`current_trace_id`) and onto every log line (config.logfilters.TraceIdFilter).
"""

import contextlib
import contextvars
import re
import secrets
from collections.abc import Iterator

TRACE_ID_LENGTH = 32
TRACE_ID_RE = re.compile(r"^[0-9a-f]{32}$")
_SPAN_ID_RE = re.compile(r"^[0-9a-f]{16}$")
_HEX2_RE = re.compile(r"^[0-9a-f]{2}$")
# The longest X-Request-ID read at all (a UUID is 36 characters); anything longer is replaced, not cut.
MAX_REQUEST_ID_CHARS = 64
_REQUEST_ID_SAFE_RE = re.compile(r"^[A-Za-z0-9-]+$")
INVALID_TRACE_ID = "0" * 32
INVALID_SPAN_ID = "0" * 16

# Header names, as sent and as Django's request.META spells them.
TRACEPARENT = "traceparent"
REQUEST_ID_HEADER = "X-Request-ID"
# The keys of a Celery message's headers, and the names in the supplier program's environment.
CELERY_HEADER = "trace_id"
ENV_TRACE_ID = "TRIPDESK_TRACE_ID"
ENV_TRACEPARENT = "TRACEPARENT"

_current: contextvars.ContextVar[str] = contextvars.ContextVar("tripdesk_trace_id", default="")


def current_trace_id() -> str:
    """The trace id of the work in progress, "" when there is none (also the default of every `trace_id` field)."""
    return _current.get()


def new_trace_id() -> str:
    return secrets.token_hex(TRACE_ID_LENGTH // 2)


def new_span_id() -> str:
    return secrets.token_hex(8)


def is_trace_id(value: object) -> bool:
    return isinstance(value, str) and bool(TRACE_ID_RE.match(value)) and value != INVALID_TRACE_ID


@contextlib.contextmanager
def trace(trace_id: str | None = None) -> Iterator[str]:
    """Run the block under `trace_id` (a valid one), or under a fresh id; the previous id comes back after it."""
    value = trace_id if is_trace_id(trace_id) else new_trace_id()
    token = _current.set(value)
    try:
        yield value
    finally:
        _current.reset(token)


def activate(trace_id: str | None = None) -> contextvars.Token:
    """Set a trace id (or a fresh one) until `deactivate(token)`: for hooks that open and close in two calls."""
    return _current.set(trace_id if is_trace_id(trace_id) else new_trace_id())


def deactivate(token: contextvars.Token) -> None:
    with contextlib.suppress(ValueError, RuntimeError):  # a token of another context: nothing of ours to undo
        _current.reset(token)


# --- headers -----------------------------------------------------------------------------------------------------


def parse_traceparent(header: object) -> str | None:
    """The trace id of a W3C `traceparent` header (`00-<32 hex>-<16 hex>-<2 hex>`), or None if it is not one.

    A later version may append fields (read the first four); version ff, an all-zero trace or parent id, and
    upper-case hex are invalid (the W3C rules)."""
    if not isinstance(header, str) or len(header) > 512:
        return None
    parts = header.strip().split("-")
    if len(parts) < 4:
        return None
    version, trace_id, span_id, flags = parts[:4]
    if not _HEX2_RE.match(version) or version == "ff" or (version == "00" and len(parts) != 4):
        return None
    if not _SPAN_ID_RE.match(span_id) or span_id == INVALID_SPAN_ID or not _HEX2_RE.match(flags):
        return None
    return trace_id if is_trace_id(trace_id) else None


def format_traceparent(trace_id: str, span_id: str | None = None, *, sampled: bool = True) -> str:
    """The `traceparent` header for `trace_id`, from a new span unless `span_id` is given."""
    return f"00-{trace_id}-{span_id or new_span_id()}-{'01' if sampled else '00'}"


def request_id_trace_id(value: object) -> str | None:
    """The trace id an incoming `X-Request-ID` names, or None to make a fresh one.

    Accepted: at most 64 characters of letters, digits and dashes that spell 32 hex digits once the dashes are
    gone and the case is lowered (a trace id, or a UUID as load balancers send it). Anything else (too long, other
    characters, another shape) is not used and never logged as sent."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > MAX_REQUEST_ID_CHARS or not _REQUEST_ID_SAFE_RE.match(text):
        return None
    candidate = text.replace("-", "").lower()
    return candidate if is_trace_id(candidate) else None


def incoming_trace_id(traceparent: object, request_id: object) -> tuple[str | None, str | None]:
    """(trace id, X-Request-ID to answer with) from a request's headers; (None, None) when neither is usable.

    A valid traceparent wins (the caller is tracing); else a valid X-Request-ID, answered back as it was sent."""
    from_traceparent = parse_traceparent(traceparent)
    if from_traceparent:
        return from_traceparent, from_traceparent
    from_request_id = request_id_trace_id(request_id)
    if from_request_id:
        return from_request_id, str(request_id).strip()
    return None, None


class TraceMiddleware:
    """Every request runs under a trace id, from its `traceparent` or `X-Request-ID` or a fresh one, and every
    response names it in `X-Request-ID` and `traceparent` (set early in MIDDLEWARE so everything below logs it)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        trace_id, request_id = incoming_trace_id(
            request.META.get("HTTP_TRACEPARENT"), request.META.get("HTTP_X_REQUEST_ID")
        )
        with trace(trace_id) as active:
            request.trace_id = active
            response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id or active
        response[TRACEPARENT] = format_traceparent(active)
        return response


# --- Celery: the id travels in the task's message headers --------------------------------------------------------

_task_tokens: dict[str, contextvars.Token] = {}


def celery_before_task_publish(headers: dict | None = None, **_) -> None:
    """Put the current trace id into a task's message headers (nothing outside a trace: the worker makes one)."""
    trace_id = current_trace_id()
    if trace_id and isinstance(headers, dict):
        headers.setdefault(CELERY_HEADER, trace_id)
        headers.setdefault(TRACEPARENT, format_traceparent(trace_id))


def _task_header(task) -> str | None:
    request = getattr(task, "request", None)
    if request is None:
        return None
    value = getattr(request, CELERY_HEADER, None)
    if value is None and isinstance(getattr(request, "headers", None), dict):
        value = request.headers.get(CELERY_HEADER)
    return value if is_trace_id(value) else None


def celery_task_prerun(task_id: str | None = None, task=None, **_) -> None:
    """In the worker: run the task under the trace id it was sent with (an eager task keeps its caller's; a task
    sent outside any trace, e.g. by the beat, gets a fresh one)."""
    trace_id = _task_header(task) or current_trace_id() or None
    if task_id:
        _task_tokens[task_id] = activate(trace_id)


def celery_task_postrun(task_id: str | None = None, **_) -> None:
    token = _task_tokens.pop(task_id, None) if task_id else None
    if token is not None:
        deactivate(token)


def connect_celery_signals() -> None:
    """Connect the three hooks above (config.celery calls this; connecting twice is harmless)."""
    from celery.signals import before_task_publish, task_postrun, task_prerun

    before_task_publish.connect(celery_before_task_publish, weak=False, dispatch_uid="tripdesk_trace_publish")
    task_prerun.connect(celery_task_prerun, weak=False, dispatch_uid="tripdesk_trace_prerun")
    task_postrun.connect(celery_task_postrun, weak=False, dispatch_uid="tripdesk_trace_postrun")


# --- the supplier program ----------------------------------------------------------------------------------------


def child_trace_environment() -> dict[str, str]:
    """The trace of the current work, for a child process's environment ({} outside a trace)."""
    trace_id = current_trace_id()
    if not trace_id:
        return {}
    return {ENV_TRACE_ID: trace_id, ENV_TRACEPARENT: format_traceparent(trace_id)}
