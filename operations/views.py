"""Two ways in for operators: `/metrics` (Prometheus' text format) and the admin's operations page.

/metrics answers a signed-in staff user (the admin session) or a scrape that sends `Authorization: Bearer
<METRICS_TOKEN>` (compared in constant time). Anyone else gets no metrics: 401 with a `WWW-Authenticate: Bearer`
challenge when nobody is signed in or the token is wrong, 403 for a signed-in user who is not staff.
"""

import hmac

from django.contrib import admin
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from aftersale.models import TicketKind, TicketStatus
from assistant.models import TurnOutcome
from core import metrics
from operations import conf
from operations.charts import Stack, bar_chart, line_chart
from operations.overview import WINDOWS, Figure, operations_overview, ticket_backlog

BEARER = "bearer"


def _bearer_token(request) -> str | None:
    scheme, _sep, token = request.headers.get("Authorization", "").strip().partition(" ")
    return token.strip() if scheme.lower() == BEARER and token.strip() else None


def _token_matches(given: str) -> bool:
    expected = conf.metrics_token()
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def _refusal(status: int, text: str) -> HttpResponse:
    response = HttpResponse(text + "\n", status=status, content_type="text/plain; charset=utf-8")
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return response


@never_cache
@require_GET
def metrics_endpoint(request):
    """Every process's counters and histograms on this machine, and the ticket backlog read now."""
    token = _bearer_token(request)
    if token is not None:
        if not _token_matches(token):
            return _refusal(401, "The scrape token is not valid.")
    elif not request.user.is_authenticated:
        return _refusal(401, "Sign in as staff, or send the scrape token as a bearer token.")
    elif not (request.user.is_active and request.user.is_staff):
        return _refusal(403, "Only staff may read the metrics.")
    elif not request.user.is_verified():  # staff read them as they use the console: with their second factor
        return _refusal(403, "Sign in to the console with the code of your authenticator app first.")
    body, content_type = metrics.exposition(metrics.ScrapeTimeCollector(ticket_backlog))
    return HttpResponse(body, content_type=content_type)


# --- the operations page (admin) ------------------------------------------------------------------------------


def duration_text(seconds: float | None) -> str:
    """3 d 4 h, 2 h 5 min, 12 min, 40 s; "—" for nothing."""
    if seconds is None:
        return "—"
    seconds = max(int(round(seconds)), 0)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return _("%(days)d d %(hours)d h") % {"days": days, "hours": hours}
    if hours:
        return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": minutes}
    if minutes:
        return _("%(minutes)d min") % {"minutes": minutes}
    return _("%(seconds)d s") % {"seconds": secs}


def _ms_text(value: float) -> str:
    return _("%(ms)s ms") % {"ms": f"{value:,.0f}"}


def _percent_text(value: float) -> str:
    return f"{value:.0f} %" if value >= 10 or value == 0 else f"{value:.1f} %"


OUTCOME_CSS = {outcome: f"ops-{outcome.lower().replace('_', '-')}" for outcome in TurnOutcome.values}


def _outcome_label(outcome: str) -> str:
    labels = {
        TurnOutcome.ANSWERED: _("Answered"),
        TurnOutcome.CLARIFY: _("Asked a clarifying question"),
        TurnOutcome.EMPTY: _("Nothing found"),
        TurnOutcome.REFUSED: _("Out of scope"),
        TurnOutcome.REJECTED: _("Business rejection"),
        TurnOutcome.DEGRADED: _("Degraded (a part was down)"),
        TurnOutcome.RATE_LIMITED: _("Rate limited"),
        TurnOutcome.ERROR: _("Error"),
    }
    return str(labels.get(outcome, outcome))


def _hours(points) -> list[Figure]:
    """Seconds as hours (a chart of waits reads in hours)."""
    return [Figure(None if p.value is None else p.value / 3600, p.url) for p in points]


def _charts(overview) -> dict:
    """The six charts' geometry; tooltips say each value in full, the value axis in short."""
    labels = [bucket.label for bucket in overview.buckets]
    turns = bar_chart(
        labels,
        [
            Stack(_outcome_label(series.key), OUTCOME_CSS[series.key], series.points)
            for series in overview.turns.by_outcome
        ],
    )
    latency = line_chart(
        labels,
        [
            Stack("p50", "ops-p50", overview.latency.p50.points),
            Stack("p95", "ops-p95", overview.latency.p95.points),
        ],
        value_text=_ms_text,
        axis_text=_ms_text,
    )
    tokens = bar_chart(labels, [Stack(_("tokens"), "ops-tokens", overview.tokens.per_bucket)])
    rate_points = [
        Figure(None if rate is None else rate * 100, figure.url)
        for rate, figure in zip(overview.supplier.rate, overview.supplier.faults, strict=True)
    ]
    supplier = bar_chart(
        labels,
        [Stack(_("fault rate"), "ops-fault", rate_points)],
        value_text=_percent_text,
        axis_text=_percent_text,
        floor=10,
    )
    backlog = bar_chart(labels, [Stack(_("waiting"), "ops-backlog", overview.backlog.at_end)])
    decisions = line_chart(
        labels,
        [
            Stack("p50", "ops-p50", _hours(overview.decisions.p50.points)),
            Stack("p95", "ops-p95", _hours(overview.decisions.p95.points)),
        ],
        value_text=lambda hours: duration_text(hours * 3600),
        axis_text=lambda hours: _("%(hours)s h") % {"hours": f"{hours:g}"},
    )
    return {
        "turns": turns,
        "latency": latency,
        "tokens": tokens,
        "supplier": supplier,
        "backlog": backlog,
        "decisions": decisions,
    }


def operations_page(request):
    """The admin's operations page (staff: `admin.site.admin_view` in operations/urls.py)."""
    window = request.GET.get("window", "")
    overview = operations_overview(window=window)
    outcome_rows = [
        {"key": s.key, "label": _outcome_label(s.key), "css": OUTCOME_CSS[s.key], "total": s.total}
        for s in overview.turns.by_outcome
    ]
    kinds = dict(TicketKind.choices)
    backlog_rows = [
        {
            "label": kinds.get(kind, kind),
            "pending": pending,
            "oldest": oldest,
            "oldest_text": duration_text(oldest.value),
        }
        for kind, pending, oldest in overview.backlog.by_kind
    ]
    supplier = overview.supplier
    context = {
        **admin.site.each_context(request),
        "title": _("Operations"),
        "overview": overview,
        "charts": _charts(overview),
        "windows": [
            {
                "key": key,
                "label": _("Last 14 days") if key == "14d" else _("Last hour"),
                "current": key == overview.window,
            }
            for key in WINDOWS
        ],
        "window_label": _("per day") if overview.window == "14d" else _("per 5 minutes"),
        "outcome_rows": outcome_rows,
        "backlog_rows": backlog_rows,
        "oldest_text": duration_text(overview.backlog.oldest_seconds.value),
        "fault_rate_text": "—" if supplier.total_rate is None else _percent_text(supplier.total_rate * 100),
        "decision_p50_text": duration_text(overview.decisions.p50.total.value),
        "decision_p95_text": duration_text(overview.decisions.p95.total.value),
        "calls_text": ngettext("%(count)d model call", "%(count)d model calls", overview.latency.calls.value)
        % {"count": overview.latency.calls.value},
        "clamped_text": ngettext(
            "%(count)d model call reported more tokens than one call can use: counted at the limit",
            "%(count)d model calls reported more tokens than one call can use: counted at the limit",
            overview.tokens.clamped.value,
        )
        % {"count": overview.tokens.clamped.value},
        "pending_status": TicketStatus.PENDING,
    }
    return render(request, "admin/operations/page.html", context)
