"""TripDesk's Prometheus metrics: every definition is in this module, with the small functions the apps call.

    metrics.turn_observed(intent="BOOK", outcome="ANSWERED", confidence=0.9, fallback=False, provider="rules")
    metrics.supplier_call_observed(product="flight", action="saveOrder", outcome="REJECTED:SOLD_OUT", fault=False,
                                   latency_ms=412)
    body, content_type = metrics.exposition(metrics.ScrapeTimeCollector(read_backlog))   # the /metrics answer

**Several processes, one count.** The web runs as several gunicorn processes and the Celery workers are processes of
their own, so the metrics use prometheus_client's multiprocess mode: each process writes its samples to files in
`PROMETHEUS_MULTIPROC_DIR` (config/settings/observability.py puts its default, `var/metrics`, into the environment
before anything imports prometheus_client; `scripts/run.sh` empties it at start), and a scrape of any web process
adds up the files of every process on that machine, living or gone. What multiprocess mode cannot do, and what this
module therefore does not use: gauges that a process sets (the ticket backlog is read from the database at scrape
time instead, `ScrapeTimeCollector`), `_created` samples, and exemplars.

**A "no" is not a fault.** `business_rejection` counts a normal refusal (the supplier answered REJECTED, the
after-sale policy said no, an approver rejected a request); `fault` counts what went wrong (a model or supplier
error, timeout or unavailability). A failure rate is computed from faults only.

Every metric has at least one label: a labelled metric opens its file when a labelled child is first used, not at
import, so a test session may still point the directory elsewhere before any traffic (tests/conftest.py).
A metric never fails the work it counts: every function here swallows its own errors (and logs them).
"""

import functools
import logging
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily

logger = logging.getLogger("core.metrics")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
NONE = "NONE"  # a label with no value (a turn that understood no intent)
# Label values come from code, but some (a supplier's error code) from outside: bounded in length and alphabet.
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:\-]")
MAX_LABEL_CHARS = 48

# Seconds. A model call takes tenths of a second to tens; a supplier command the same, up to PLATFORM_TIMEOUT.
CALL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60)
# From submission to a decision: minutes to the 48 hours a ticket may wait (AFTERSALE_TICKET_TTL_HOURS).
DECISION_BUCKETS = (60, 300, 900, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 12 * 3600, 24 * 3600, 48 * 3600)
# From approval to execution: seconds when a worker runs, up to the stalled-ticket sweep and its retries.
EXECUTION_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600)
CONFIDENCE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)

TURNS = Counter("tripdesk_turns", "Chat turns, by the understood intent and the outcome.", ["intent", "outcome"])
CONFIDENCE = Histogram(
    "tripdesk_understanding_confidence",
    "How sure the understanding of a turn was (0..1), by intent.",
    ["intent"],
    buckets=CONFIDENCE_BUCKETS,
)
FALLBACKS = Counter(
    "tripdesk_understanding_fallbacks",
    "Turns the model failed (down, slow, invalid) and the offline rules engine answered, by the model's provider.",
    ["provider"],
)
LLM_CALLS = Counter(
    "tripdesk_llm_calls", "Model calls, by provider, purpose and outcome.", ["provider", "purpose", "outcome"]
)
LLM_LATENCY = Histogram(
    "tripdesk_llm_latency_seconds",
    "Model call latency, by provider and purpose.",
    ["provider", "purpose"],
    buckets=CALL_BUCKETS,
)
LLM_TOKENS = Counter(
    "tripdesk_llm_tokens",
    "Model tokens, by provider, purpose and kind (prompt, completion).",
    ["provider", "purpose", "kind"],
)
SUPPLIER_COMMANDS = Counter(
    "tripdesk_supplier_commands",
    'Supplier platform commands, by product, action and outcome ("OK", "REJECTED:<code>", TIMEOUT, UNAVAILABLE, '
    "INVALID_RESPONSE).",
    ["product", "action", "outcome"],
)
SUPPLIER_LATENCY = Histogram(
    "tripdesk_supplier_latency_seconds",
    "Supplier command latency, by product and action.",
    ["product", "action"],
    buckets=CALL_BUCKETS,
)
TICKET_TRANSITIONS = Counter(
    "tripdesk_ticket_transitions",
    "After-sale tickets entering a status (opening one enters PENDING), by kind and status.",
    ["kind", "status"],
)
TICKET_DECISION = Histogram(
    "tripdesk_ticket_decision_seconds",
    "From a ticket's submission to an approver's decision, by kind and decision (APPROVED, REJECTED).",
    ["kind", "decision"],
    buckets=DECISION_BUCKETS,
)
TICKET_EXECUTION = Histogram(
    "tripdesk_ticket_execution_seconds",
    "From a ticket's approval to its execution, by kind.",
    ["kind"],
    buckets=EXECUTION_BUCKETS,
)
BUSINESS_REJECTIONS = Counter(
    "tripdesk_business_rejections",
    'Normal refusals, not faults, by reason ("supplier:<code>", "aftersale:<code>", "approver").',
    ["reason"],
)
FAULTS = Counter("tripdesk_faults", "Errors, timeouts and unavailability, by source (llm, supplier).", ["source"])
RATE_LIMITED = Counter("tripdesk_rate_limited_turns", "Chat turns refused by a rate limit, by limit.", ["limit"])

# Read from the database at every scrape (ScrapeTimeCollector), never set by a process.
TICKETS_OPEN = "tripdesk_tickets_open"
TICKETS_OPEN_HELP = "After-sale tickets not settled yet (pending, approved, executing, failed), by kind and status."
OLDEST_PENDING = "tripdesk_ticket_oldest_pending_seconds"
OLDEST_PENDING_HELP = "Age of the oldest ticket waiting for an approver, by kind (0: none waiting)."


def label(value: Any) -> str:
    """A bounded, printable label value ("" and None become NONE)."""
    text = _LABEL_UNSAFE.sub("_", str(value if value not in (None, "") else NONE))
    return text[:MAX_LABEL_CHARS]


def _never_raises(function: Callable) -> Callable:
    @functools.wraps(function)
    def wrapper(*args, **kwargs) -> None:
        try:
            function(*args, **kwargs)
        except Exception:  # counting is a side effect: it never fails the turn, the call or the ticket it counts
            logger.exception("could not update the metric of %s", function.__name__)

    return wrapper


@_never_raises
def turn_observed(
    *, intent: str | None, outcome: str, confidence: float | None = None, fallback: bool = False, provider: str = ""
) -> None:
    """One chat turn: its intent and outcome, how sure the understanding was, and whether the rules engine stood in
    for a model that failed (`provider`: the model's)."""
    TURNS.labels(intent=label(intent), outcome=label(outcome)).inc()
    if confidence is not None:
        CONFIDENCE.labels(intent=label(intent)).observe(min(max(float(confidence), 0.0), 1.0))
    if fallback:
        FALLBACKS.labels(provider=label(provider)).inc()


@_never_raises
def turn_rate_limited(*, limit: str = "daily") -> None:
    """A turn refused because the user reached a limit."""
    RATE_LIMITED.labels(limit=label(limit)).inc()


@_never_raises
def llm_call_observed(
    *, provider: str, purpose: str, outcome: str, latency_ms: int, prompt_tokens: int, completion_tokens: int
) -> None:
    """One model call behind the LLM port, whatever its outcome; an outcome other than OK is a fault of `llm`."""
    provider, purpose = label(provider), label(purpose)
    LLM_CALLS.labels(provider=provider, purpose=purpose, outcome=label(outcome)).inc()
    LLM_LATENCY.labels(provider=provider, purpose=purpose).observe(max(latency_ms, 0) / 1000)
    if prompt_tokens:
        LLM_TOKENS.labels(provider=provider, purpose=purpose, kind="prompt").inc(max(prompt_tokens, 0))
    if completion_tokens:
        LLM_TOKENS.labels(provider=provider, purpose=purpose, kind="completion").inc(max(completion_tokens, 0))
    if outcome != "OK":
        FAULTS.labels(source="llm").inc()


SUPPLIER_REJECTED_PREFIX = "REJECTED:"


@_never_raises
def supplier_call_observed(*, product: str, action: str, outcome: str, fault: bool, latency_ms: int) -> None:
    """One supplier command: "REJECTED:<code>" is a business rejection, a `fault` (error, timeout, unavailable) a
    fault of `supplier`, "OK" neither."""
    SUPPLIER_COMMANDS.labels(product=label(product), action=label(action), outcome=label(outcome)).inc()
    SUPPLIER_LATENCY.labels(product=label(product), action=label(action)).observe(max(latency_ms, 0) / 1000)
    if fault:
        FAULTS.labels(source="supplier").inc()
    elif outcome.startswith(SUPPLIER_REJECTED_PREFIX):
        BUSINESS_REJECTIONS.labels(reason=label(f"supplier:{outcome[len(SUPPLIER_REJECTED_PREFIX) :]}")).inc()


@_never_raises
def business_rejection(*, reason: str) -> None:
    """A normal "no" said by TripDesk's own rules or people (the supplier's are counted by supplier_call_observed)."""
    BUSINESS_REJECTIONS.labels(reason=label(reason)).inc()


@_never_raises
def ticket_entered(
    *, kind: str, status: str, decision_seconds: float | None = None, execution_seconds: float | None = None
) -> None:
    """A ticket entered `status`; a decision (APPROVED, REJECTED) observes how long it waited since submission, an
    execution how long it took since approval. An approver's rejection is a business rejection."""
    TICKET_TRANSITIONS.labels(kind=label(kind), status=label(status)).inc()
    if decision_seconds is not None:
        TICKET_DECISION.labels(kind=label(kind), decision=label(status)).observe(max(decision_seconds, 0.0))
    if execution_seconds is not None:
        TICKET_EXECUTION.labels(kind=label(kind)).observe(max(execution_seconds, 0.0))
    if status == "REJECTED":
        BUSINESS_REJECTIONS.labels(reason="approver").inc()


# --- the scrape -------------------------------------------------------------------------------------------------


class ScrapeTimeCollector:
    """Gauges read from the database when Prometheus scrapes (multiprocess mode cannot sum gauges that processes
    set). `read_backlog()` returns `(open, oldest)`: `{(kind, status): count}` and `{kind: age in seconds}`. If it
    fails (the database is down) the scrape still answers, without these gauges."""

    def __init__(self, read_backlog: Callable[[], tuple[dict[tuple[str, str], int], dict[str, float]]]) -> None:
        self.read_backlog = read_backlog

    def collect(self) -> Iterable[GaugeMetricFamily]:
        try:
            open_counts, oldest = self.read_backlog()
        except Exception:
            logger.exception("could not read the ticket backlog for a scrape")
            return
        tickets = GaugeMetricFamily(TICKETS_OPEN, TICKETS_OPEN_HELP, labels=["kind", "status"])
        for (kind, status), count in sorted(open_counts.items()):
            tickets.add_metric([label(kind), label(status)], count)
        yield tickets
        age = GaugeMetricFamily(OLDEST_PENDING, OLDEST_PENDING_HELP, labels=["kind"])
        for kind, seconds in sorted(oldest.items()):
            age.add_metric([label(kind)], seconds)
        yield age


def multiprocess_dir() -> str | None:
    """Where this machine's processes write their samples (None: this process counts alone)."""
    return os.environ.get(MULTIPROC_ENV) or None


def exposition(*collectors) -> tuple[bytes, str]:
    """The Prometheus text format of every process's samples on this machine, and of `collectors` (read now)."""
    registry = CollectorRegistry()
    for collector in collectors:
        registry.register(collector)
    directory = multiprocess_dir()
    if directory is None:  # a process without the directory (never with the project's settings): its own samples
        from prometheus_client import REGISTRY

        return generate_latest(REGISTRY) + generate_latest(registry), CONTENT_TYPE_LATEST
    os.makedirs(directory, exist_ok=True)
    multiprocess.MultiProcessCollector(registry, path=directory)
    return generate_latest(registry), CONTENT_TYPE_LATEST
