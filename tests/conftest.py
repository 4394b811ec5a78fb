"""Fixtures shared by every test: real services when configured, clear skips (or failures) when not."""

import contextlib
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zoneinfo
from pathlib import Path

import pytest
from django.conf import settings

from core import clock

ROOT = Path(__file__).resolve().parent.parent

# Every test runs on 1 December 2026 from 09:00 in Shanghai, the clock ticking from there, in this process and in every
# process it starts (Celery workers, the sandbox supplier: core/clock.py), so the suite passes on any day of the year.
# A browser page gets the same clock (tests/browser). A test that needs another moment travels from here.
TEST_NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=zoneinfo.ZoneInfo("Asia/Shanghai"))
clock.pin(TEST_NOW.timestamp())

# Metrics (core/metrics.py): this session's own multiprocess directory instead of the site's var/metrics, so a
# scrape counts this session's traffic only: that of the test process and of the worker processes it starts (they
# inherit the environment, `_worker_env`). Set before any metric is first used; removed when the session ends.
METRICS_DIR = tempfile.mkdtemp(prefix="tripdesk-test-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = METRICS_DIR


def pytest_unconfigure(config):
    shutil.rmtree(METRICS_DIR, ignore_errors=True)


def _require_or_skip(what: str) -> None:
    if settings.TRIPDESK_REQUIRE_SERVICES:
        pytest.fail(f"{what} is required (TRIPDESK_REQUIRE_SERVICES=1) but not configured or not reachable")
    pytest.skip(f"{what} is not configured")


def pytest_runtest_setup(item):
    """Make the service markers real: skip (or fail, in CI) tests whose service is missing."""
    is_postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    if item.get_closest_marker("postgres") and not is_postgres:
        _require_or_skip("PostgreSQL (DATABASE_URL)")
    if (item.get_closest_marker("redis") or item.get_closest_marker("worker")) and not settings.REDIS_URL:
        _require_or_skip("Redis (REDIS_URL)")


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    """Users are created in most tests: hash their passwords with a fast hasher (Django's advice for test suites);
    the production hasher stays listed so a stored hash still verifies. The login-cost benchmark uses the real one."""
    from django.test.utils import override_settings

    with override_settings(
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher", *settings.PASSWORD_HASHERS]
    ):
        yield


@pytest.fixture(autouse=True)
def _staff_force_login_passes_the_second_factor(monkeypatch):
    """`force_login` signs a user in without their password; for staff it also passes the console's second factor
    (config/staff.py), as their authenticator would. The tests of the second factor sign in through the form."""
    from django.test import Client

    from tests.support.staff import mark_verified

    original = Client.force_login

    def force_login(self, user, backend=None):
        original(self, user, backend)
        if user.is_staff:
            mark_verified(self, user)

    monkeypatch.setattr(Client, "force_login", force_login)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Every test starts with an empty cache (the Redis DB of REDIS_URL, or the database cache)."""
    from django.core.cache import cache

    with contextlib.suppress(Exception):  # the database cache table may not exist without database access
        cache.clear()
    yield


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in the site's default language: a page fetched by a test client leaves its language active
    in the thread, and an activity's `title` and a `title=` lookup are read in the active language
    (django-modeltranslation), so a test's outcome would depend on the test run before it."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _tasks_in_process_unless_a_worker_runs(request):
    """Tests run Celery tasks in-process, except those that start a real worker (marked `worker`)."""
    from config.celery import app

    eager = request.node.get_closest_marker("worker") is None
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = eager or previous
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def user_factory(django_user_model):
    counter = {"n": 0}

    def make(username: str | None = None, password: str = "pass-1234", **extra):
        counter["n"] += 1
        return django_user_model.objects.create_user(
            username=username or f"user{counter['n']}", password=password, **extra
        )

    return make


@pytest.fixture
def alice(db):
    from tests.factories import UserFactory

    return UserFactory(username="alice")


@pytest.fixture
def traveller(user_factory):
    return user_factory("traveller")


def _worker_env(database_name: str) -> dict[str, str]:
    env = dict(os.environ)
    db = settings.DATABASES["default"]
    env["DATABASE_URL"] = (
        f"postgresql://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{database_name}"
    )
    env["REDIS_URL"] = settings.REDIS_URL
    env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
    env.setdefault("LOG_FORMAT", "text")
    return env


def _start_worker(
    node: str, log_path: Path, *, beat_schedule: Path | None = None, concurrency: int = 2
) -> subprocess.Popen:
    """One real `celery worker` process on the test database and the configured broker, logging to a file; with
    `beat_schedule`, running the beat's schedule too (celery's `-B`); `concurrency` pool processes."""
    db_name = settings.DATABASES["default"]["NAME"]
    log = open(log_path, "ab")  # noqa: SIM115 - the worker process writes it until it is stopped
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "default,platform,aftersale",
            "-c",
            str(concurrency),
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"{node}@%h",
            "-l",
            "INFO",
            *(["-B", "--schedule", str(beat_schedule)] if beat_schedule else []),
        ],
        cwd=ROOT,
        env=_worker_env(db_name),
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _stop_worker(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def _wait_for_workers(procs: list[subprocess.Popen], count: int) -> None:
    from config.celery import app

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            pytest.fail("a Celery worker exited while starting")
        if len(app.control.ping(timeout=0.5)) >= count:
            return
    pytest.fail(f"{count} Celery worker(s) did not answer a ping within 30 s")


def _require_worker_services() -> None:
    if not settings.REDIS_URL:
        _require_or_skip("Redis (REDIS_URL), the worker's broker")
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        _require_or_skip("PostgreSQL (DATABASE_URL), shared with the worker process")


@pytest.fixture
def celery_worker_process(transactional_db):
    """A real `celery worker` process on the test database and the configured broker.

    Tests using it see committed data only (transactional_db), as a real worker would.
    """
    _require_worker_services()
    (ROOT / "var").mkdir(exist_ok=True)
    proc = _start_worker(f"test-{os.getpid()}", ROOT / "var" / "test-worker.log")
    try:
        _wait_for_workers([proc], 1)
        yield proc
    finally:
        _stop_worker(proc)


@pytest.fixture
def celery_worker_with_beat(transactional_db, supplier_sandbox, tmp_path, monkeypatch):
    """A real worker that also runs the beat, with the booking sync every second, on this test's supplier store."""
    _require_worker_services()
    monkeypatch.setenv("BOOKING_SYNC_SECONDS", "1")
    proc = _start_worker(f"beat-{os.getpid()}", tmp_path / "worker.log", beat_schedule=tmp_path / "beat-schedule")
    try:
        _wait_for_workers([proc], 1)
        yield tmp_path / "worker.log"
    finally:
        _stop_worker(proc)


@pytest.fixture
def two_celery_workers(transactional_db, tmp_path):
    """Two real worker processes on the same broker and database; yields their log files (what each one ran)."""
    _require_worker_services()
    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    procs = [_start_worker(f"a-{os.getpid()}", logs[0]), _start_worker(f"b-{os.getpid()}", logs[1])]
    try:
        _wait_for_workers(procs, 2)
        yield logs
    finally:
        for proc in procs:
            _stop_worker(proc)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisProcess:
    """A redis-server of the test's own, on its own port, that the test may kill."""

    def __init__(self, port: int, *, data_dir: Path | None = None) -> None:
        """`data_dir`: persist every command to an append-only file there (fsync always), as production should."""
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.data_dir = data_dir
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        persistence = (
            ["--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "always"]
            if self.data_dir
            else ["--appendonly", "no"]
        )
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def redis_process(settings):
    """A private Redis, configured as the cache for this test; `.kill()` it to see the site degrade."""
    import shutil

    if not shutil.which("redis-server"):
        _require_or_skip("redis-server (the binary)")
    server = RedisProcess(free_port())
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedClientRedisCache",
            "LOCATION": server.url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    yield server
    server.kill()


class SupplierSandbox:
    """The sandbox supplier's own store for one test, and the switches a test may flip."""

    def __init__(self, store: Path, monkeypatch) -> None:
        self.store = store
        self._monkeypatch = monkeypatch

    def fault(self, spec: str) -> None:
        """e.g. "flight.cancelOrder=fail", "*=timeout": the next CLI calls misbehave."""
        self._monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", spec)

    def heal(self) -> None:
        self._monkeypatch.delenv("SANDBOX_SUPPLIER_FAULTS", raising=False)

    def stats(self, command: str = "stats") -> dict:
        import json

        env = {**os.environ, "SANDBOX_SUPPLIER_STORE": str(self.store)}
        env.pop("SANDBOX_SUPPLIER_FAULTS", None)
        out = subprocess.run(
            [sys.executable, "-m", "bookings.sandbox", command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        return json.loads(out.stdout)

    def traces(self) -> dict:
        """The commands the supplier ran under each trace id: {trace id: [{"command", "traceparent"}, …]}."""
        return self.stats("traces")["byTraceId"]


@pytest.fixture
def supplier_sandbox(tmp_path, monkeypatch):
    monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(tmp_path / "supplier.sqlite3"))
    monkeypatch.delenv("SANDBOX_SUPPLIER_FAULTS", raising=False)
    return SupplierSandbox(tmp_path / "supplier.sqlite3", monkeypatch)
