"""Shared by the benchmarks: a database and Redis of their own, set up before Django starts."""

import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/tripdesk_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"


def setup_django(*, database_url: str | None = None, redis_url: str | None = None) -> None:
    """Point Django at the benchmark's own PostgreSQL database (created if absent) and Redis DB, migrate, seed."""
    database_url = database_url or os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = redis_url or os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("ASSISTANT_LLM_PROVIDER", "rules")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    sys.path.insert(0, str(ROOT))
    _create_database(database_url)

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)


def _create_database(url: str) -> None:
    if not url.startswith("postgres"):
        return
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    total = sum(seconds)
    return (
        f"{name:<28} n={len(ms):<5} p50={percentile(ms, 50):7.2f} ms  p95={percentile(ms, 95):7.2f} ms  "
        f"mean={statistics.fmean(ms):7.2f} ms  rate={len(ms) / total:8.1f}/s"
    )


def load_report(at_start: tuple[float, float, float]) -> str:
    """The machine's load averages (1, 5, 15 min) when the benchmark started and now: how quiet its figures were."""
    now = os.getloadavg()
    return (
        f"load average (1, 5, 15 min): at the start {' '.join(f'{a:.2f}' for a in at_start)}, "
        f"at the end {' '.join(f'{a:.2f}' for a in now)}"
    )
