"""A task queued before the broker restarts still runs, when the broker persists (Redis with AOF, as the README's
production section requires; RabbitMQ's durable queues do the same).

The test runs a Redis of its own with `appendonly yes` / `appendfsync always`, queues the timeout sweep there while no
worker listens, kills the broker with SIGKILL (no chance to save on the way out), starts it again on the same files,
and only then starts a real worker: the sweep it receives times the overdue ticket out.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings

from aftersale.models import BizOrder, HitlTicket, TicketStatus
from tests.aftersale.test_timeout_sweep import past
from tests.conftest import ROOT, RedisProcess, _require_or_skip, _stop_worker, free_port

pytestmark = [pytest.mark.worker, pytest.mark.postgres]
SWEEP = "aftersale.tasks.time_out_tickets"


def queued(server: RedisProcess, queue: str) -> int:
    return redis.Redis.from_url(server.url).llen(queue)


@pytest.fixture
def broker(tmp_path):
    if not shutil.which("redis-server"):
        _require_or_skip("redis-server (the binary)")
    server = RedisProcess(free_port(), data_dir=tmp_path)
    server.start()
    yield server
    server.kill()


def _worker_on(broker_url: str, log: Path) -> subprocess.Popen:
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
        f"{db['NAME']}",
        "REDIS_URL": broker_url,
        "CELERY_BROKER_URL": broker_url,
        "LOG_FORMAT": "text",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "aftersale", "-c", "1",
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-n", f"durable-{os.getpid()}@%h", "-l", "INFO"],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip


def test_a_task_queued_before_a_broker_restart_still_runs(transactional_db, demo_seeded, ticket_for, broker, tmp_path):
    ticket = ticket_for(BizOrder.objects.get(order_id="ORD-001"), deadline=past())
    producer = Celery("producer", broker=broker.url, set_as_current=False)  # the project's app stays current
    producer.send_task(SWEEP, queue="aftersale")
    producer.close()
    assert queued(broker, "aftersale") == 1  # queued, and no worker listens yet

    broker.kill()  # SIGKILL: nothing is saved on the way out
    broker.start()  # the same files
    assert queued(broker, "aftersale") == 1  # the append-only file kept it

    worker = _worker_on(broker.url, tmp_path / "worker.log")
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and worker.poll() is None:
            ticket.refresh_from_db()
            if ticket.status == TicketStatus.TIMEOUT:
                break
            time.sleep(0.1)
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-2000:]
        ticket.refresh_from_db()
        assert ticket.status == TicketStatus.TIMEOUT, (tmp_path / "worker.log").read_text()[-2000:]
        assert HitlTicket.objects.get(pk=ticket.pk).events.filter(to_status=TicketStatus.TIMEOUT).count() == 1
    finally:
        _stop_worker(worker)
