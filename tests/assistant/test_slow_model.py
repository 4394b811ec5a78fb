"""A slow model never stalls the site.

The web server runs many threads (gunicorn gthread); a thread waiting on a remote model holds no database
connection, so a hundred users waiting on a slow model take none of PostgreSQL's connections and the other users'
requests go on. These tests check the behaviour, never the clock: what the thread holds while the model thinks
(seen from inside the fake model server), that many turns wait on the model at the same time and all end with
their answers and audit rows, that a model slower than ASSISTANT_LLM_TIMEOUT ends in the honest degraded reply,
that the production command is configured for it, and that the production server itself keeps answering its
health check and login page while forty turns wait on a model that trickles its answers.
"""

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import connections, transaction
from django.utils import timezone
from django.utils.crypto import get_random_string
from rest_framework.test import APIClient

from assistant.llm.factory import get_llm_port
from assistant.llm.port import UnderstandContext
from assistant.llm.preferences import PreferenceCandidate
from assistant.llm.verdict import VerdictRequest
from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from tests.assistant.conftest import TODAY
from tests.conftest import free_port
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply
from tests.support.model import use_scripted_model
from tests.waiting import wait_for

fake_openai = fixtures.fake_openai
ROOT = Path(__file__).resolve().parents[2]
CONCURRENT_TURNS = 20
# Only a safety net for a broken run: the model may wait this long for all the turns to arrive together.
GATHER_SECONDS = 60


@pytest.fixture
def openai_settings(settings, fake_openai):
    return use_scripted_model(
        settings, fake_openai, key="sk-test-slow-model", model="slow-model", agent=False, timeout=GATHER_SECONDS + 30
    )


def _observing(answer: Reply, db, seen: dict, observed: threading.Event):
    """A responder that notes, while the request is being answered, what the calling thread's connection holds."""

    def responder(_request: dict) -> Reply:
        seen["connection"] = db.connection
        seen["in_atomic_block"] = db.in_atomic_block
        observed.set()
        return answer

    return responder


MODEL_CALLS = {
    "understand": (
        {"intent": "RECOMMEND"},
        lambda port: port.understand("推荐点好玩的", context=UnderstandContext(today=TODAY)),
    ),
    "verdict": (
        {"verdict": "UNCERTAIN", "reason": "needs a person", "policy_ids": []},
        lambda port: port.verdict(
            VerdictRequest(action="REFUND", order={}, policies=[], today=TODAY, now=timezone.now())
        ),
    ),
    "preference": (
        {"scores": {"hotel:H1": 80}},
        lambda port: port.preference_scores(
            "安静一点", [PreferenceCandidate(id="hotel:H1", kind="hotel", mode="HOTEL", price=300)]
        ),
    ),
    "agent chat": (
        "done",
        lambda port: port.chat([{"role": "user", "content": "hi"}], []),
    ),
}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("purpose", list(MODEL_CALLS))
def test_a_thread_waiting_on_the_model_holds_no_database_connection(
    purpose, openai_settings, fake_openai, django_user_model
):
    content, call = MODEL_CALLS[purpose]
    django_user_model.objects.create_user(username="someone")  # the thread has used its connection
    db = connections["default"]
    assert db.connection is not None
    seen: dict = {}
    observed = threading.Event()
    fake_openai.set_default(_observing(Reply(content=content), db, seen, observed))

    call(get_llm_port())

    assert observed.is_set()
    assert seen == {"connection": None, "in_atomic_block": False}
    assert django_user_model.objects.count() == 1  # and the next query simply connects again


@pytest.mark.django_db
def test_a_model_call_inside_a_transaction_keeps_the_transaction(openai_settings, fake_openai, alice):
    db = connections["default"]
    seen: dict = {}
    observed = threading.Event()
    fake_openai.set_default(_observing(Reply(content={"intent": "RECOMMEND"}), db, seen, observed))

    with transaction.atomic():
        result = chat_turn(user=alice, message="推荐点好玩的", today=TODAY)

    assert observed.is_set()
    assert seen["connection"] is not None and seen["in_atomic_block"] is True
    assert result.outcome != "DEGRADED"
    assert Turn.objects.filter(user=alice).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_turns_wait_on_the_model_together_holding_no_connection(openai_settings, fake_openai, user_factory):
    users = [user_factory(f"traveller{i}") for i in range(CONCURRENT_TURNS)]
    waiting: list = []  # the database wrapper of every turn's thread
    snapshot: dict = {}

    def all_waiting() -> None:  # runs once every turn's model call has arrived, before any is answered
        snapshot["held"] = [db.connection is not None for db in waiting]

    gathered = threading.Barrier(CONCURRENT_TURNS, action=all_waiting, timeout=GATHER_SECONDS)

    def responder(_request: dict) -> Reply:
        try:
            gathered.wait()
        except threading.BrokenBarrierError:
            return Reply(status=503, error_message="the turns did not wait on the model together")
        return Reply(content={"intent": "RECOMMEND"}, prompt_tokens=100, completion_tokens=9)

    fake_openai.set_default(responder)
    results: dict = {}
    errors: list = []
    lock = threading.Lock()

    def one_turn(user) -> None:
        try:
            with lock:
                waiting.append(connections["default"])
            results[user.username] = chat_turn(user=user, message="推荐点好玩的", today=TODAY)
        except Exception as exc:  # reported below with the user's name
            errors.append(f"{user.username}: {exc!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one_turn, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert snapshot["held"] == [False] * CONCURRENT_TURNS
    assert sorted(results) == sorted(u.username for u in users)
    assert {r.outcome for r in results.values()} <= {"ANSWERED", "EMPTY"}
    assert Turn.objects.filter(provider="openai").count() == CONCURRENT_TURNS
    calls = LLMCall.objects.filter(purpose="understand")
    assert calls.count() == CONCURRENT_TURNS
    assert set(calls.values_list("outcome", flat=True)) == {"OK"}
    assert set(calls.values_list("prompt_tokens", flat=True)) == {100}
    assert calls.filter(turn__isnull=True).count() == 0


@pytest.mark.django_db
def test_a_turn_that_outlives_the_model_timeout_is_answered_by_the_offline_engine(openai_settings, fake_openai, alice):
    openai_settings.ASSISTANT_LLM_TIMEOUT = 0.3
    fake_openai.enqueue(Reply(delay=HANG, content={"intent": "RECOMMEND"}))
    client = APIClient()
    client.force_authenticate(alice)

    response = client.post("/api/v1/assistant/chat", {"message": "推荐点好玩的"}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert body["outcome"] != "DEGRADED" and "没有产生任何操作" not in body["reply"]
    assert body["intent"]["intent"] == "RECOMMEND"  # read by the offline engine after the model's timeout
    assert list(LLMCall.objects.order_by("id").values_list("provider", "outcome", "fallback")) == [
        ("openai", "TIMEOUT", False),
        ("rules", "OK", True),
    ]
    assert Turn.objects.get().fallback is True


# --- the production command --------------------------------------------------------------------------------------

PROD_ENV = {
    "DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/tripdesk_prod_check",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "DJANGO_SECRET_KEY": "a-long-random-production-key-for-the-dry-run-0123456789",
}


def _run_prod(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "REDIS_", "CELERY_", "ASSISTANT_", "DJANGO_", "TRIPDESK_", "WEB_"))
    }
    clean["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{clean.get('PATH', '')}"
    clean.update(env)
    return subprocess.run(
        ["bash", "scripts/run.sh", "--prod", "--dry-run", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_production_command_runs_threaded_web_processes_one_worker_per_queue_and_beat_once():
    out = _run_prod(**PROD_ENV, ASSISTANT_LLM_TIMEOUT="20")

    assert out.returncode == 0, out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    assert sorted(lines) == ["aftersale", "beat", "default", "live", "platform", "web"]
    web = lines["web"]
    assert "gunicorn config.wsgi:application" in web
    assert "--worker-class gthread" in web and "--threads 64" in web and "--workers 2" in web
    assert "DATABASE_CONN_MAX_AGE=0" in web  # no idle thread keeps a connection
    # A process takes no more connections than it has threads: a busy one leaves the next to another process.
    assert "--worker-connections 64" in web and "--keep-alive 0" in web
    assert "--preload" in web  # the app is built once, then forked (config/wsgi.py)
    assert int(re.search(r"--timeout (\d+)", web).group(1)) > 20
    for queue in ("default", "platform", "aftersale"):
        assert re.search(rf"celery -A config worker -Q {queue} ", lines[queue])
    assert "celery -A config beat" in lines["beat"]
    # The pages' live channel: an ASGI server (a coroutine per open page), holding no database connection.
    assert "uvicorn config.asgi:application" in lines["live"] and "DATABASE_CONN_MAX_AGE=0" in lines["live"]
    assert "--port 8001" in lines["live"]


def test_the_platform_worker_runs_more_processes_than_the_others_for_the_searches_a_turn_sends_at_once():
    lines = dict(line.split(": ", 1) for line in _run_prod(**PROD_ENV).stdout.splitlines())
    chosen = dict(
        line.split(": ", 1) for line in _run_prod(**PROD_ENV, CELERY_PLATFORM_CONCURRENCY="12").stdout.splitlines()
    )

    assert " -c 8 " in lines["platform"]  # a round trip's five searches, and a booking alongside
    assert " -c 2 " in lines["default"] and " -c 2 " in lines["aftersale"]
    assert " -c 12 " in chosen["platform"]


def test_the_production_web_timeout_follows_the_model_timeout():
    out = _run_prod("web", **PROD_ENV, ASSISTANT_LLM_TIMEOUT="45", WEB_THREADS="100", WEB_CONCURRENCY="3")
    web = out.stdout.strip()
    assert "--threads 100" in web and "--workers 3" in web and "--worker-connections 100" in web
    assert int(re.search(r"--timeout (\d+)", web).group(1)) > 45

    too_short = _run_prod("web", **PROD_ENV, ASSISTANT_LLM_TIMEOUT="45", WEB_TIMEOUT="30")
    assert too_short.returncode != 0
    assert "WEB_TIMEOUT" in too_short.stderr


@pytest.mark.parametrize(
    ("missing", "why"),
    [("DATABASE_URL", "PostgreSQL"), ("REDIS_URL", "Redis"), ("DJANGO_SECRET_KEY", "DJANGO_SECRET_KEY")],
)
def test_the_production_command_refuses_to_start_without_its_services(missing, why):
    env = {k: v for k, v in PROD_ENV.items() if k != missing}

    out = _run_prod(**env)

    assert out.returncode != 0
    assert missing in out.stderr and why in out.stderr
    assert out.stdout == ""


def test_the_production_command_refuses_sqlite():
    out = _run_prod(**{**PROD_ENV, "DATABASE_URL": "sqlite:///db.sqlite3"})
    assert out.returncode != 0
    assert "PostgreSQL" in out.stderr


PROBE = """
import json, django
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({"pool": db.get("OPTIONS", {}).get("pool"), "conn_max_age": db["CONN_MAX_AGE"],
                  "static": settings.STORAGES["staticfiles"]["BACKEND"]}))
"""


PRELOAD_PROBE = """
import json, os, threading
import config.wsgi
from django.db import connections
from django.urls import get_resolver

def target(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the listing's own descriptor, closed by now
        return ""

print(json.dumps({"sockets": sum(target(fd).startswith("socket:") for fd in os.listdir("/proc/self/fd")),
                  "threads": threading.active_count(),
                  "connections": [c.alias for c in connections.all() if c.connection is not None],
                  "urlconf": "urlconf_module" in get_resolver().__dict__}))
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the process's descriptors in /proc")
def test_the_preloaded_app_is_built_before_the_fork_without_a_connection_or_a_thread():
    # What gunicorn's master does with --preload; the database and Redis of the test run would answer, so any
    # connection opened here would show as a socket.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRIPDESK_", "DJANGO_", "DATABASE_POOL"))}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", TRIPDESK_PRODUCTION="1", DATABASE_POOL_MAX_SIZE="20")
    out = subprocess.run(
        [sys.executable, "-c", PRELOAD_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])

    assert found == {"sockets": 0, "threads": 1, "connections": [], "urlconf": True}


def test_production_settings_pool_connections_and_serve_hashed_static_files():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "TRIPDESK_", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL="postgresql://postgres@127.0.0.1:5432/tripdesk_prod_check",
        DATABASE_POOL_MAX_SIZE="20",
        TRIPDESK_PRODUCTION="1",
    )
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])

    assert found["pool"] == {"min_size": 2, "max_size": 20, "timeout": 10}
    assert found["conn_max_age"] == 0  # the pool replaces persistent connections
    assert found["static"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"


# --- the production server while the model trickles ----------------------------------------------------------------

TRICKLING_TURNS = 40
# Each of the turns' model calls waits this long before the offline engine answers it (the deadline of the whole
# call, assistant/llm/deadline.py): the server is probed meanwhile, and the turns are still waiting when it answers.
SERVER_MODEL_TIMEOUT = 20
SERVER_SECRET_KEY = "a-long-random-key-for-the-production-server-of-this-test-0123456789"
HOST = "127.0.0.1"


class ProductionServer:
    """`scripts/run.sh --prod --no-migrate web` (gunicorn gthread, as deployed) on this test's PostgreSQL database
    and Redis, in a process group of its own; stopped with everything it started."""

    def __init__(self, *, log_dir: Path, **env: str) -> None:
        self.port = free_port()
        db = connections["default"].settings_dict
        clean = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DATABASE_", "REDIS_", "CELERY_", "ASSISTANT_", "DJANGO_", "TRIPDESK_", "WEB_"))
        }
        clean["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{clean.get('PATH', '')}"
        clean.update(
            DATABASE_URL=f"postgresql://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
            REDIS_URL=django_settings.REDIS_URL,
            DJANGO_SECRET_KEY=SERVER_SECRET_KEY,
            TRIPDESK_HOST=HOST,
            TRIPDESK_PORT=str(self.port),
            TRIPDESK_LOG_DIR=str(log_dir),
            PROMETHEUS_MULTIPROC_DIR=str(log_dir / "metrics"),
            LOG_FORMAT="text",
            **env,
        )
        self.log_dir = log_dir
        self.process = subprocess.Popen(
            ["bash", "scripts/run.sh", "--prod", "--no-migrate", "web"],
            cwd=ROOT,
            env=clean,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def get(self, path: str, *, timeout: float = 30) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def answers_healthz(self) -> bool:
        if self.process.poll() is not None:
            pytest.fail(f"run.sh --prod exited: {self.process.stdout.read()[-3000:]}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            return self.get("/healthz", timeout=5)[0] == 200
        return False

    def chat(self, cookies: dict[str, str], message: str) -> tuple[int, dict]:
        body = json.dumps({"message": message}).encode()
        headers = {
            "Content-Type": "application/json",
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
            "X-CSRFToken": cookies["csrftoken"],
        }
        conn = http.client.HTTPConnection(HOST, self.port, timeout=SERVER_MODEL_TIMEOUT * 6)
        try:
            conn.request("POST", "/api/v1/assistant/chat", body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            return response.status, (json.loads(data) if response.status == 200 else {"body": data[:500]})
        finally:
            conn.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def signed_in(user) -> dict[str, str]:
    """The cookies of a session of `user` the production server accepts (signed with its secret key): a session row
    as the login page writes it, and a CSRF token for the API's writes."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return {"sessionid": session.session_key, "csrftoken": get_random_string(32)}


@pytest.fixture
def production_server(transactional_db, fake_openai, settings, tmp_path):
    """The production web server, its model the test's fake one; sessions are signed with the server's key."""
    settings.SECRET_KEY = SERVER_SECRET_KEY
    server = ProductionServer(
        log_dir=tmp_path / "log",
        ASSISTANT_LLM_PROVIDER="openai",
        ASSISTANT_LLM_BASE_URL=fake_openai.base_url,
        ASSISTANT_LLM_API_KEY="sk-test-trickling-model",
        ASSISTANT_LLM_MODEL="trickling-model",
        ASSISTANT_LLM_TIMEOUT=str(SERVER_MODEL_TIMEOUT),
    )
    try:
        wait_for(server.answers_healthz, "the production server to answer /healthz", seconds=180)
        yield server
    finally:
        server.stop()


@pytest.mark.postgres
@pytest.mark.redis
def test_the_production_server_answers_its_health_check_and_login_page_while_forty_turns_wait_on_a_trickling_model(
    production_server, fake_openai, user_factory
):
    trickle = Reply(content={"intent": "RECOMMEND"}, trickle=1.0, headers_first=True)  # a byte a second
    fake_openai.set_default(trickle)
    sessions = [signed_in(user_factory(f"trickled{i}")) for i in range(TRICKLING_TURNS)]
    answers: dict[int, tuple[int, dict]] = {}

    def one_turn(i: int) -> None:
        try:
            answers[i] = production_server.chat(sessions[i], "推荐点好玩的")
        except Exception as exc:  # reported below with the turn's number
            answers[i] = (0, {"error": repr(exc)})

    threads = [threading.Thread(target=one_turn, args=(i,)) for i in range(TRICKLING_TURNS)]
    for thread in threads:
        thread.start()
    wait_for(lambda: len(fake_openai.requests) >= TRICKLING_TURNS, "every turn to wait on the model", seconds=120)

    health, health_body = production_server.get("/healthz")
    login, login_page = production_server.get("/accounts/login/")
    still_waiting = TRICKLING_TURNS - len(answers)

    for thread in threads:
        thread.join()
    assert (health, json.loads(health_body)["status"]) == (200, "ok")
    assert login == 200 and b'name="password"' in login_page
    assert still_waiting == TRICKLING_TURNS  # both answered while every turn was still waiting on the model
    # Every turn was cut at the model timeout and answered by the offline engine, long before the trickle ends.
    assert sorted(status for status, _ in answers.values()) == [200] * TRICKLING_TURNS, answers
    assert {body["outcome"] for _, body in answers.values()} <= {"ANSWERED", "EMPTY"}
    assert {body["intent"]["intent"] for _, body in answers.values()} == {"RECOMMEND"}
    calls = LLMCall.objects.filter(provider="openai")
    assert set(calls.values_list("outcome", flat=True)) == {"TIMEOUT"}
    assert calls.count() == TRICKLING_TURNS
    assert Turn.objects.filter(fallback=True).count() == TRICKLING_TURNS
    trickle_seconds = len(json.dumps(fake_openai._completion(trickle, {})))  # a byte a second, the body alone
    assert max(calls.values_list("latency_ms", flat=True)) < trickle_seconds * 1000 / 4
