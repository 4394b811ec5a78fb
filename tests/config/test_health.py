"""GET /healthz reports whether the database, the cache and the broker answer."""

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


def test_health_is_ok_when_every_part_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["parts"] == {"database": "ok", "cache": "ok", "broker": "ok"}


@pytest.mark.redis
def test_with_redis_configured_health_reports_redis_and_a_worker_broker(client):
    body = client.get("/healthz").json()
    assert body["mode"]["cache"] == "redis"
    assert body["mode"]["tasks"] == "worker"
    assert body["parts"]["broker"] == "ok"


@pytest.mark.postgres
def test_on_postgresql_health_names_the_database(client):
    assert client.get("/healthz").json()["mode"]["database"] == "postgresql"


def test_health_answers_503_and_names_the_part_when_the_cache_fails(client, settings):
    settings.CACHES = {"default": {"BACKEND": "core.cache.SharedClientRedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["parts"]["cache"].startswith("error")


@pytest.mark.worker
def test_a_real_worker_process_answers_through_the_broker(celery_worker_process):
    from config.celery import app

    replies = app.control.ping(timeout=2)
    assert replies, "no worker answered"
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
