"""What the operations page shows, read from the database: turns by outcome, model latency, tokens and their cost,
supplier faults, the ticket backlog and the time to a decision, per day for the last 14 days or per 5 minutes for
the last hour. Each figure carries the link to the admin list of the rows it counts.

    overview = operations_overview(window="14d")     # or "1h"
    overview.turns.total.value, overview.turns.total.url

It lives in the `operations` app, above the apps in the layering, because it reads the models of assistant, aftersale
and bookings. Read-only; the admin view (operations/views.py) is a thin way in.

Percentiles are PostgreSQL's `percentile_cont` (linear interpolation between the closest ranks); on SQLite the same
interpolation is done in Python over the window's rows.
"""

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Aggregate, Count, F, FloatField, Min, Q, Sum
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from aftersale.models import HitlTicket, TicketKind, TicketStatus
from assistant.models import LLMCall, Turn, TurnOutcome
from bookings.models import SupplierCall
from operations import conf

WINDOWS = ("14d", "1h")
DEFAULT_WINDOW = "14d"
DAYS = 14
HOUR_BUCKETS = 12  # 5 minutes each
FRACTIONS = (0.5, 0.95)
SUPPLIER_REJECTED = "REJECTED:"


@dataclass(frozen=True)
class Bucket:
    start: dt.datetime
    end: dt.datetime  # exclusive
    label: str


@dataclass(frozen=True)
class Figure:
    """A number on the page and the admin list of the rows behind it (None: no such list)."""

    value: Any
    url: str | None = None


@dataclass
class Series:
    """One line or one stack of bars: a figure per bucket."""

    key: str
    points: list[Figure]
    total: Figure | None = None


@dataclass
class Turns:
    by_outcome: list[Series]  # every outcome, in TurnOutcome's order
    per_bucket: list[Figure]
    total: Figure
    errors: Figure  # outcome ERROR


@dataclass
class Latency:
    p50: Series
    p95: Series
    calls: Figure


@dataclass
class Tokens:
    per_bucket: list[Figure]
    cost_per_bucket: list[Decimal]
    total: Figure
    cost: Decimal
    price_per_1k: Decimal
    clamped: Figure  # calls whose reported tokens were cut to what one call can use (counted at that limit)


@dataclass
class Supplier:
    calls: list[Figure]
    faults: list[Figure]
    rejected: list[Figure]
    rate: list[float | None]  # faults / calls, None without calls
    total_calls: Figure
    total_faults: Figure
    total_rejected: Figure
    total_rate: float | None


@dataclass
class Backlog:
    at_end: list[Figure]  # tickets waiting for an approver at the end of each bucket
    pending: Figure
    by_kind: list[tuple[str, Figure, Figure]]  # (kind, pending, oldest age in seconds → its ticket)
    oldest_seconds: Figure


@dataclass
class Decisions:
    p50: Series  # seconds from submission to decision, of tickets decided in the bucket
    p95: Series
    count: list[Figure]
    total: Figure


@dataclass
class Overview:
    window: str
    now: dt.datetime
    buckets: list[Bucket]
    turns: Turns
    latency: Latency
    tokens: Tokens
    supplier: Supplier
    backlog: Backlog
    decisions: Decisions


# --- windows and links -------------------------------------------------------------------------------------------


def buckets_for(window: str, *, now: dt.datetime) -> list[Bucket]:
    """14 local days ending with today, or 12 spans of 5 minutes ending now."""
    if window == "1h":
        end = now.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        start = end - dt.timedelta(hours=1)
        step = dt.timedelta(minutes=60 // HOUR_BUCKETS)
        return [
            Bucket(s, s + step, f"{timezone.localtime(s):%H:%M}")
            for s in (start + i * step for i in range(HOUR_BUCKETS))
        ]
    today = timezone.localdate(now)
    zone = timezone.get_current_timezone()
    days = [today - dt.timedelta(days=DAYS - 1 - i) for i in range(DAYS + 1)]
    starts = [timezone.make_aware(dt.datetime.combine(day, dt.time.min), zone) for day in days]
    return [Bucket(starts[i], starts[i + 1], f"{days[i]:%m-%d}") for i in range(DAYS)]


def changelist_url(model, **params: Any) -> str | None:
    """The admin list of `model` filtered by `params` (datetimes as ISO 8601 with their offset)."""
    try:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    except NoReverseMatch:  # the model is not in the admin
        return None
    query = {key: (value.isoformat() if isinstance(value, dt.datetime) else value) for key, value in params.items()}
    return f"{url}?{urlencode(query)}" if query else url


def change_url(instance) -> str | None:
    try:
        return reverse(f"admin:{instance._meta.app_label}_{instance._meta.model_name}_change", args=[instance.pk])
    except NoReverseMatch:
        return None


def _span(field_name: str, start: dt.datetime, end: dt.datetime) -> dict[str, dt.datetime]:
    return {f"{field_name}__gte": start, f"{field_name}__lt": end}


def _in(field_name: str, bucket: Bucket) -> Q:
    return Q(**_span(field_name, bucket.start, bucket.end))


# --- percentiles ----------------------------------------------------------------------------------------------


class PercentileCont(Aggregate):
    """PostgreSQL's continuous percentile: `percentile_cont(0.95) WITHIN GROUP (ORDER BY …)`."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    allow_distinct = False

    def __init__(self, expression, fraction: float, **extra) -> None:
        super().__init__(expression, fraction=repr(float(fraction)), output_field=FloatField(), **extra)


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """`percentile_cont` in Python: linear interpolation between the closest ranks; None for no values."""
    ordered = sorted(values)
    if not ordered:
        return None
    position = fraction * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _latency_percentiles(buckets: list[Bucket]) -> dict[tuple[int | None, float], float | None]:
    """{(bucket index or None for the window, fraction): latency in ms} of the model calls."""
    window = LLMCall.objects.filter(**_span("created_at", buckets[0].start, buckets[-1].end))
    if connection.vendor == "postgresql":
        aggregates = {}
        for fraction in FRACTIONS:
            aggregates[f"all_{fraction}"] = PercentileCont("latency_ms", fraction)
            for i, bucket in enumerate(buckets):
                aggregates[f"b{i}_{fraction}"] = PercentileCont(
                    "latency_ms", fraction, filter=_in("created_at", bucket)
                )
        found = window.aggregate(**aggregates)
        result: dict[tuple[int | None, float], float | None] = {}
        for fraction in FRACTIONS:
            result[(None, fraction)] = found[f"all_{fraction}"]
            for i in range(len(buckets)):
                result[(i, fraction)] = found[f"b{i}_{fraction}"]
        return result
    rows = list(window.values_list("created_at", "latency_ms"))
    result = {}
    for fraction in FRACTIONS:
        result[(None, fraction)] = percentile([ms for _, ms in rows], fraction)
        for i, bucket in enumerate(buckets):
            result[(i, fraction)] = percentile([ms for at, ms in rows if bucket.start <= at < bucket.end], fraction)
    return result


# --- the figures ------------------------------------------------------------------------------------------------


def _counts(queryset, buckets: list[Bucket], field_name: str = "created_at", group: str | None = None) -> dict:
    """{group value (or None): [count per bucket]} in one query."""
    counts = {f"b{i}": Count("pk", filter=_in(field_name, bucket)) for i, bucket in enumerate(buckets)}
    window = queryset.filter(**_span(field_name, buckets[0].start, buckets[-1].end))
    if group is None:
        found = window.aggregate(**counts)
        return {None: [found[f"b{i}"] for i in range(len(buckets))]}
    rows = window.order_by().values(group).annotate(**counts)
    return {row[group]: [row[f"b{i}"] for i in range(len(buckets))] for row in rows}


def _turns(buckets: list[Bucket]) -> Turns:
    start, end = buckets[0].start, buckets[-1].end
    counts = _counts(Turn.objects.all(), buckets, group="outcome")
    series = []
    for outcome in TurnOutcome.values:
        values = counts.get(outcome, [0] * len(buckets))
        points = [
            Figure(n, changelist_url(Turn, outcome__exact=outcome, **_span("created_at", b.start, b.end)))
            for n, b in zip(values, buckets, strict=True)
        ]
        total = Figure(sum(values), changelist_url(Turn, outcome__exact=outcome, **_span("created_at", start, end)))
        series.append(Series(outcome, points, total))
    per_bucket = [
        Figure(sum(s.points[i].value for s in series), changelist_url(Turn, **_span("created_at", b.start, b.end)))
        for i, b in enumerate(buckets)
    ]
    total = Figure(sum(f.value for f in per_bucket), changelist_url(Turn, **_span("created_at", start, end)))
    errors = next(s.total for s in series if s.key == TurnOutcome.ERROR)
    return Turns(series, per_bucket, total, errors)


def _latency(buckets: list[Bucket]) -> Latency:
    start, end = buckets[0].start, buckets[-1].end
    found = _latency_percentiles(buckets)
    urls = [changelist_url(LLMCall, **_span("created_at", b.start, b.end)) for b in buckets]
    window_url = changelist_url(LLMCall, **_span("created_at", start, end))

    def series(fraction: float, key: str) -> Series:
        points = [Figure(_ms(found[(i, fraction)]), urls[i]) for i in range(len(buckets))]
        return Series(key, points, Figure(_ms(found[(None, fraction)]), window_url))

    calls = LLMCall.objects.filter(**_span("created_at", start, end)).count()
    return Latency(series(0.5, "p50"), series(0.95, "p95"), Figure(calls, window_url))


def _ms(value: float | None) -> int | None:
    return None if value is None else round(value)


def _tokens(buckets: list[Bucket]) -> Tokens:
    start, end = buckets[0].start, buckets[-1].end
    price = conf.llm_price_per_1k_tokens()
    total_tokens = F("prompt_tokens") + F("completion_tokens")
    sums = {f"b{i}": Sum(total_tokens, filter=_in("created_at", b), default=0) for i, b in enumerate(buckets)}
    clamped = Count("pk", filter=Q(tokens_clamped=True))
    found = LLMCall.objects.filter(**_span("created_at", start, end)).aggregate(clamped=clamped, **sums)
    values = [int(found[f"b{i}"]) for i in range(len(buckets))]
    per_bucket = [
        Figure(n, changelist_url(LLMCall, **_span("created_at", b.start, b.end)))
        for n, b in zip(values, buckets, strict=True)
    ]
    total = Figure(sum(values), changelist_url(LLMCall, **_span("created_at", start, end)))
    clamped_rows = Figure(
        found["clamped"], changelist_url(LLMCall, tokens_clamped__exact=1, **_span("created_at", start, end))
    )
    costs = [cost_of(n, price) for n in values]
    return Tokens(per_bucket, costs, total, cost_of(total.value, price), price, clamped_rows)


def cost_of(tokens: int, price_per_1k: Decimal) -> Decimal:
    """The estimated cost of `tokens` at `price_per_1k` (to 1/10,000 of the currency)."""
    return (Decimal(tokens) * price_per_1k / 1000).quantize(Decimal("0.0001"))


def _supplier(buckets: list[Bucket]) -> Supplier:
    start, end = buckets[0].start, buckets[-1].end
    calls = _counts(SupplierCall.objects.all(), buckets)[None]
    faults = _counts(SupplierCall.objects.filter(fault=True), buckets)[None]
    rejected = _counts(SupplierCall.objects.filter(outcome__startswith=SUPPLIER_REJECTED, fault=False), buckets)[None]

    def figures(values: list[int], **params) -> list[Figure]:
        return [
            Figure(n, changelist_url(SupplierCall, **params, **_span("created_at", b.start, b.end)))
            for n, b in zip(values, buckets, strict=True)
        ]

    window = _span("created_at", start, end)
    total_calls, total_faults = sum(calls), sum(faults)
    return Supplier(
        calls=figures(calls),
        faults=figures(faults, fault__exact=1),
        rejected=figures(rejected, outcome__startswith=SUPPLIER_REJECTED, fault__exact=0),
        rate=[(f / c if c else None) for f, c in zip(faults, calls, strict=True)],
        total_calls=Figure(total_calls, changelist_url(SupplierCall, **window)),
        total_faults=Figure(total_faults, changelist_url(SupplierCall, fault__exact=1, **window)),
        total_rejected=Figure(
            sum(rejected), changelist_url(SupplierCall, outcome__startswith=SUPPLIER_REJECTED, fault__exact=0, **window)
        ),
        total_rate=total_faults / total_calls if total_calls else None,
    )


def _waiting_at(moment: dt.datetime) -> Q:
    """Tickets waiting for an approver at `moment`: submitted before it and not yet decided or timed out then."""
    return Q(created_at__lt=moment) & (
        Q(status=TicketStatus.PENDING)
        | Q(decided_at__gte=moment)
        | Q(status=TicketStatus.TIMEOUT, decided_at__isnull=True, updated_at__gte=moment)
    )


def _backlog(buckets: list[Bucket], now: dt.datetime) -> Backlog:
    ends = [min(b.end, now) for b in buckets]
    counts = {f"b{i}": Count("pk", filter=_waiting_at(moment)) for i, moment in enumerate(ends)}
    found = HitlTicket.objects.filter(created_at__lt=buckets[-1].end).aggregate(**counts)
    at_end = [
        Figure(found[f"b{i}"], changelist_url(HitlTicket, status__exact=TicketStatus.PENDING))
        if ends[i] >= now
        else Figure(found[f"b{i}"], None)  # a past backlog is not a list the admin can filter
        for i in range(len(buckets))
    ]
    pending = HitlTicket.objects.filter(status=TicketStatus.PENDING)
    rows = {
        row["kind"]: row for row in pending.order_by().values("kind").annotate(n=Count("pk"), oldest=Min("created_at"))
    }
    by_kind = []
    for kind in TicketKind.values:
        row = rows.get(kind)
        oldest = pending.filter(kind=kind).order_by("created_at", "pk").first() if row else None
        by_kind.append(
            (
                kind,
                Figure(
                    row["n"] if row else 0,
                    changelist_url(HitlTicket, status__exact=TicketStatus.PENDING, kind__exact=kind),
                ),
                Figure(
                    (now - oldest.created_at).total_seconds() if oldest else None,
                    change_url(oldest) if oldest else None,
                ),
            )
        )
    oldest = pending.order_by("created_at", "pk").first()
    return Backlog(
        at_end=at_end,
        pending=Figure(
            sum(k[1].value for k in by_kind), changelist_url(HitlTicket, status__exact=TicketStatus.PENDING)
        ),
        by_kind=by_kind,
        oldest_seconds=Figure(
            (now - oldest.created_at).total_seconds() if oldest else None, change_url(oldest) if oldest else None
        ),
    )


def _decisions(buckets: list[Bucket]) -> Decisions:
    start, end = buckets[0].start, buckets[-1].end
    rows = list(HitlTicket.objects.filter(**_span("decided_at", start, end)).values_list("created_at", "decided_at"))
    waits = [(decided, (decided - created).total_seconds()) for created, decided in rows]
    urls = [changelist_url(HitlTicket, **_span("decided_at", b.start, b.end)) for b in buckets]
    window_url = changelist_url(HitlTicket, **_span("decided_at", start, end))
    in_bucket = [[s for at, s in waits if b.start <= at < b.end] for b in buckets]
    every = [s for _, s in waits]

    def series(fraction: float, key: str) -> Series:
        return Series(
            key,
            [Figure(percentile(values, fraction), urls[i]) for i, values in enumerate(in_bucket)],
            Figure(percentile(every, fraction), window_url),
        )

    return Decisions(
        p50=series(0.5, "p50"),
        p95=series(0.95, "p95"),
        count=[Figure(len(values), urls[i]) for i, values in enumerate(in_bucket)],
        total=Figure(len(every), window_url),
    )


def operations_overview(*, window: str = DEFAULT_WINDOW, now: dt.datetime | None = None) -> Overview:
    """Every figure of the operations page for `window` ("14d" or "1h"; anything else is "14d")."""
    window = window if window in WINDOWS else DEFAULT_WINDOW
    now = now or timezone.now()
    buckets = buckets_for(window, now=now)
    return Overview(
        window=window,
        now=now,
        buckets=buckets,
        turns=_turns(buckets),
        latency=_latency(buckets),
        tokens=_tokens(buckets),
        supplier=_supplier(buckets),
        backlog=_backlog(buckets, now),
        decisions=_decisions(buckets),
    )


def ticket_backlog() -> tuple[dict[tuple[str, str], int], dict[str, float]]:
    """For the /metrics scrape: open tickets by (kind, status), and the age in seconds of the oldest pending one by
    kind (0 when none waits)."""
    open_statuses = [TicketStatus.PENDING, TicketStatus.APPROVED, TicketStatus.EXECUTING, TicketStatus.FAILED]
    counts = {(kind, status): 0 for kind in TicketKind.values for status in open_statuses}
    rows = (
        HitlTicket.objects.filter(status__in=open_statuses).order_by().values("kind", "status").annotate(n=Count("pk"))
    )
    for row in rows:
        counts[(row["kind"], row["status"])] = row["n"]
    now = timezone.now()
    oldest = dict.fromkeys(TicketKind.values, 0.0)
    pending = (
        HitlTicket.objects.filter(status=TicketStatus.PENDING).order_by().values("kind").annotate(at=Min("created_at"))
    )
    for row in pending:
        oldest[row["kind"]] = max((now - row["at"]).total_seconds(), 0.0)
    return counts, oldest
