"""GET /healthz: is each part the site needs reachable? 200 when all are, 503 when one is not."""

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from config.celery import app as celery_app


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _cache() -> str:
    cache.set("healthz", "1", 10)
    if cache.get("healthz") != "1":
        raise RuntimeError("cache did not return what was written")
    return "ok"


def _broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "ok"  # the embedded default: tasks run in-process, there is no broker to reach
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


CHECKS = {"database": _database, "cache": _cache, "broker": _broker}


@require_GET
def healthz(request):
    parts: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            parts[name] = check()
        except Exception as exc:  # a health check reports every failure, whatever it is
            parts[name] = f"error: {type(exc).__name__}"
    healthy = all(v == "ok" for v in parts.values())
    body = {
        "status": "ok" if healthy else "degraded",
        "parts": parts,
        "mode": {
            "database": connection.vendor,
            "cache": "redis" if settings.REDIS_URL else "database",
            "tasks": "in-process" if settings.CELERY_TASK_ALWAYS_EAGER else "worker",
        },
    }
    return JsonResponse(body, status=200 if healthy else 503)
