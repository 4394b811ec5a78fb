"""Every environment variable TripDesk reads, in one place, with its default.

The README lists the same variables; keep the two in step.
"""

import os
from decimal import Decimal
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def _str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def _bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else default


SECRET_KEY = _str("DJANGO_SECRET_KEY", "tripdesk-dev-only-secret-key-change-me-in-production")
DEBUG = _bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = [h for h in _str("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in _str("DJANGO_CSRF_TRUSTED_ORIGINS").split(",") if o]
TIME_ZONE = _str("TRIPDESK_TIME_ZONE", "Asia/Shanghai")
# Set by `run.sh --prod`: static files only from collectstatic's manifest. DJANGO_HTTPS: served over HTTPS (behind a
# proxy that sets X-Forwarded-Proto): secure cookies, HSTS, redirect plain HTTP.
PRODUCTION = _bool("TRIPDESK_PRODUCTION", False)
HTTPS = _bool("DJANGO_HTTPS", False)
# With DJANGO_HTTPS: how long browsers keep to HTTPS for this host (HSTS max-age; a year, what preload lists ask).
HSTS_SECONDS = _int("DJANGO_HSTS_SECONDS", 31_536_000)

DATABASE_URL = _str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
# Seconds a process keeps its database connection between requests; `run.sh --prod` sets 0 for the web server,
# whose many threads would otherwise each keep one open.
DATABASE_CONN_MAX_AGE = _int("DATABASE_CONN_MAX_AGE", 60)
# PostgreSQL only: > 0 shares a pool of at most this many connections between a process's threads (psycopg_pool).
DATABASE_POOL_MAX_SIZE = _int("DATABASE_POOL_MAX_SIZE", 0)
REDIS_URL = _str("REDIS_URL")
CELERY_BROKER_URL = _str("CELERY_BROKER_URL", REDIS_URL)
REQUIRE_SERVICES = _bool("TRIPDESK_REQUIRE_SERVICES", False)
# Where the browser opens a page's live channel (config/live.py, served by the ASGI server): a path behind a proxy
# that sends /live/ to that server ("/live/events"), or its own address ("http://HOST:8001/live/events", what run.sh
# sets). Empty: no live channel, the pages poll. Used only with REDIS_URL.
LIVE_URL = _str("TRIPDESK_LIVE_URL")

LOG_FORMAT = _str("LOG_FORMAT", "json")
LOG_LEVEL = _str("LOG_LEVEL", "INFO")

ASSISTANT_LLM_PROVIDER = _str("ASSISTANT_LLM_PROVIDER", "rules")
ASSISTANT_LLM_BASE_URL = _str("ASSISTANT_LLM_BASE_URL", "https://api.openai.com/v1")
ASSISTANT_LLM_API_KEY = _str("ASSISTANT_LLM_API_KEY")
ASSISTANT_LLM_MODEL = _str("ASSISTANT_LLM_MODEL", "gpt-4o-mini")
ASSISTANT_LLM_TIMEOUT = _float("ASSISTANT_LLM_TIMEOUT", 20.0)
ASSISTANT_AGENT_ENABLED = _bool("ASSISTANT_AGENT_ENABLED", False)
ASSISTANT_AGENT_MAX_ITERATIONS = _int("ASSISTANT_AGENT_MAX_ITERATIONS", 6)
ASSISTANT_AGENT_MAX_WRITES_PER_TURN = _int("ASSISTANT_AGENT_MAX_WRITES_PER_TURN", 2)
ASSISTANT_DAILY_TURN_LIMIT = _int("ASSISTANT_DAILY_TURN_LIMIT", 200)
ASSISTANT_SESSION_TTL = _int("ASSISTANT_SESSION_TTL", 1800)
# An understanding less sure than this asks first (issue 27).
ASSISTANT_CLARIFY_BELOW = _float("ASSISTANT_CLARIFY_BELOW", 0.8)
ASSISTANT_PENDING_ACTION_TTL = _int("ASSISTANT_PENDING_ACTION_TTL", 900)  # seconds a confirmation card stays valid
# How often the beat settles pending actions left in flight by a process that died mid-confirmation.
ASSISTANT_ACTION_SWEEP_SECONDS = _int("ASSISTANT_ACTION_SWEEP_SECONDS", 60)
BOOKING_OPTIONS_SHOWN = _int("BOOKING_OPTIONS_SHOWN", 3)  # booking options offered to pick from

PLATFORM_CLI = _str("PLATFORM_CLI")
# Bookings stay in step with the supplier: the beat task asks it every BOOKING_SYNC_SECONDS about open bookings;
# opening one's bookings (page or chat) asks again at most once per BOOKING_REFRESH_SECONDS (0: every time).
BOOKING_SYNC_SECONDS = _int("BOOKING_SYNC_SECONDS", 120)
BOOKING_REFRESH_SECONDS = _int("BOOKING_REFRESH_SECONDS", 30)
# Cancelling a booking above this amount (yuan) waits for an approver (bookings.services.cancel.cancel_needs_approval).
BOOKINGS_CANCEL_APPROVAL_ABOVE = _int("BOOKINGS_CANCEL_APPROVAL_ABOVE", 2000)
PLATFORM_TIMEOUT = _float("PLATFORM_TIMEOUT", 15.0)
# The sandbox supplier (no PLATFORM_CLI) runs in children forked from a warm process instead of a new Python each.
PLATFORM_WARM = _bool("PLATFORM_WARM", True)

AFTERSALE_TICKET_TTL_HOURS = _int("AFTERSALE_TICKET_TTL_HOURS", 48)
AFTERSALE_EXECUTION_LEASE_SECONDS = _int("AFTERSALE_EXECUTION_LEASE_SECONDS", 180)
AFTERSALE_TIMEOUT_SWEEP_SECONDS = _int("AFTERSALE_TIMEOUT_SWEEP_SECONDS", 300)
# The most one approver may approve alone (yuan), unless a limit set in the admin for them or one of their groups
# says otherwise (aftersale.services.limits); superusers have none.
AFTERSALE_APPROVAL_LIMIT = _int("AFTERSALE_APPROVAL_LIMIT", 5000)
# Above this amount (yuan) a ticket needs two different approvers before anything executes (four eyes).
AFTERSALE_FOUR_EYES_ABOVE = _int("AFTERSALE_FOUR_EYES_ABOVE", 10000)
# Where a traveller sends back goods whose return was approved (an address, said as is in both languages); the
# refund is made once staff mark the item received (aftersale.services.decisions.ticket_item_received).
AFTERSALE_RETURN_ADDRESS = _str(
    "AFTERSALE_RETURN_ADDRESS",
    "TripDesk Returns, 3F Building B, 988 Shenchang Road, Minhang, Shanghai 201100, 021-5555 0100",
)

ITINERARY_PLAN_TTL = _int("ITINERARY_PLAN_TTL", 3600)

WEATHER_PROVIDER = _str("WEATHER_PROVIDER", "normals")
WEATHER_API_URL = _str("WEATHER_API_URL", "https://api.open-meteo.com")
WEATHER_TIMEOUT = _float("WEATHER_TIMEOUT", 5.0)

# Login throttling (django-axes): failed logins per username and IP address before they are locked out, and for how
# many minutes (0: until an admin deletes the attempt in the admin).
AXES_FAILURE_LIMIT = _int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_MINUTES = _int("AXES_COOLOFF_MINUTES", 15)
# Anonymous requests per IP address to /api/ (DRF's rate syntax), and how many reverse proxies in front of the app
# append to X-Forwarded-For (0: the client is REMOTE_ADDR and the header is ignored, so it cannot be forged).
API_ANON_RATE = _str("API_ANON_RATE", "60/min")
NUM_PROXIES = _int("TRIPDESK_NUM_PROXIES", 0)

# Metrics (config/settings/observability.py): where every process of this machine writes its samples, the bearer
# token a Prometheus scrape sends to /metrics (empty: staff sessions only), and the price of 1,000 model tokens in
# US dollars for the operations page's cost estimate.
PROMETHEUS_MULTIPROC_DIR = _str("PROMETHEUS_MULTIPROC_DIR") or str(BASE_DIR / "var" / "metrics")
METRICS_TOKEN = _str("METRICS_TOKEN")
LLM_PRICE_PER_1K_TOKENS = Decimal(_str("LLM_PRICE_PER_1K_TOKENS") or "0.002")
