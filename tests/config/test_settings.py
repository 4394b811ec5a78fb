"""Settings come from the environment, with defaults that need nothing installed."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, os, django
django.setup()
from django.conf import settings
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "provider": settings.ASSISTANT_LLM_PROVIDER,
    "agent": settings.ASSISTANT_AGENT_ENABLED,
    "debug": settings.DEBUG,
    "handler_formatter": settings.LOGGING["handlers"]["console"]["formatter"],
    "metrics_dir": os.environ.get("PROMETHEUS_MULTIPROC_DIR"),
    "metrics_dir_setting": settings.PROMETHEUS_MULTIPROC_DIR,
    "metrics_token": settings.METRICS_TOKEN,
    "price": str(settings.LLM_PRICE_PER_1K_TOKENS),
}))
"""


def settings_with(**env: str) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("DATABASE_", "REDIS_", "CELERY_", "ASSISTANT_", "LOG_", "DJANGO_", "TRIPDESK_", "PROMETHEUS_", "METRICS_")
        )
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_with_nothing_configured_the_site_uses_sqlite_the_database_cache_and_in_process_tasks():
    found = settings_with()
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["db_name"].endswith("db.sqlite3")
    assert found["cache"] == "django.core.cache.backends.db.DatabaseCache"
    assert found["eager"] is True
    assert found["provider"] == "rules"
    assert found["agent"] is False
    assert found["debug"] is False
    assert found["handler_formatter"] == "json"


def test_database_url_switches_to_postgresql():
    found = settings_with(DATABASE_URL="postgresql://postgres@127.0.0.1:5432/tripdesk")
    assert found["engine"] == "django.db.backends.postgresql"
    assert found["db_name"] == "tripdesk"


def test_redis_url_switches_cache_and_broker_to_redis_and_tasks_to_a_worker():
    found = settings_with(REDIS_URL="redis://127.0.0.1:6379/3")
    assert found["cache"] == "core.cache.SharedClientRedisCache"
    assert found["broker"] == "redis://127.0.0.1:6379/3"
    assert found["eager"] is False


def test_text_logs_can_be_chosen():
    assert settings_with(LOG_FORMAT="text")["handler_formatter"] == "text"


def test_metrics_count_every_process_in_var_metrics_by_default_and_the_scrape_token_is_off():
    found = settings_with()
    assert found["metrics_dir"] == found["metrics_dir_setting"] == str(ROOT / "var" / "metrics")
    assert found["metrics_token"] == "" and found["price"] == "0.002"


def test_the_metrics_directory_the_token_and_the_price_can_be_set(tmp_path):
    found = settings_with(
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "m"), METRICS_TOKEN="t0ken", LLM_PRICE_PER_1K_TOKENS="0.15"
    )
    assert found["metrics_dir"] == str(tmp_path / "m") and (tmp_path / "m").is_dir()
    assert (found["metrics_token"], found["price"]) == ("t0ken", "0.15")
