"""Chat turns under load through the production server: `scripts/run.sh --prod web` (gunicorn gthread), PostgreSQL
with a bulk catalogue, Redis, over real HTTP on loopback.

    .venv/bin/python bench/load_chat.py [--activities 100000] [--levels 1,10,50] [--seconds 10] [--slow-turns 100]

1. The `rules` model: travellers, each logged in through the login page with a session of their own, send the
   messages of `tests/assistant/eval/intents-own.jsonl` to `POST /api/v1/assistant/chat` at each concurrency level
   (a bounded number of requests, at most `--seconds` per level); prints turns/s and p50/p95/p99. The baseline, in
   the same run: `GET /healthz` (one database query, one Redis round trip, the broker) at the same concurrency.
2. A slow model: the same server restarted with `ASSISTANT_LLM_PROVIDER=openai` against a local fake OpenAI server
   that answers every call after `--delay` seconds; `--slow-turns` travellers send one turn each, all at once.
   Prints the wall time and its ratio to the model's delay (one blocking worker would need `--slow-turns` times
   the delay), the PostgreSQL connections the site held meanwhile, and `GET /healthz` answered during the wait.

Uses the benchmark database (`BENCH_DATABASE_URL`, default tripdesk_bench) and Redis (`BENCH_REDIS_URL`, DB 14);
fills the catalogue with `manage.py seed_bulk`. Stops everything it started.
"""

import argparse
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, setup_django  # noqa: E402

HOST = "127.0.0.1"
PASSWORD = "load-bench-2026"
USERNAME = "loadbench-{:03d}"
SECRET_KEY = "load-bench-secret-key-only-for-this-benchmark-0123456789"
SLOW_REPLY = '{"intent": "RECOMMEND"}'


# --- HTTP: one keep-alive connection and one session per simulated traveller ------------------------------------


class Client:
    """A traveller's browser, reduced to what the API needs: a connection, cookies, the CSRF header."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: reconnect once
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (ConnectionError, http.client.HTTPException, OSError):
                self.close()
                if attempt == 2:
                    raise
                continue
            for cookie in response.headers.get_all("Set-Cookie") or []:
                name, _, value = cookie.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value.strip()
            return response.status, data
        raise AssertionError("unreachable")

    def login(self, username: str) -> None:
        status, page = self.request("GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if status != 200 or not token:
            raise RuntimeError(f"login page answered {status}")
        form = urlencode({"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1).decode()})
        status, _ = self.request(
            "POST", "/accounts/login/", form.encode(), {"Content-Type": "application/x-www-form-urlencoded"}
        )
        if status != 302 or "sessionid" not in self.cookies:
            raise RuntimeError(f"login of {username} failed: HTTP {status}")

    def chat(self, message: str, session_id: str | None) -> tuple[int, dict]:
        body = json.dumps({"message": message, "session_id": session_id}).encode()
        headers = {"Content-Type": "application/json", "X-CSRFToken": self.cookies.get("csrftoken", "")}
        status, data = self.request("POST", "/api/v1/assistant/chat", body, headers)
        return status, (json.loads(data) if status == 200 else {})

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# --- processes ----------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """`scripts/run.sh --prod` in a process group of its own, stopped with everything it started."""

    def __init__(self, env: dict[str, str], label: str) -> None:
        self.port = free_port()
        self.log = ROOT / "var" / "log" / "bench-load" / label
        self.log.mkdir(parents=True, exist_ok=True)
        full_env = {
            **env,
            "TRIPDESK_HOST": HOST,
            "TRIPDESK_PORT": str(self.port),
            "TRIPDESK_LOG_DIR": str(self.log),
            "DJANGO_SECRET_KEY": SECRET_KEY,
        }
        self.env = full_env
        self.proc = subprocess.Popen(
            # The web server and one worker per queue (bookings wait on the platform queue); no beat: a
            # benchmark needs no timeout sweeps.
            ["bash", "scripts/run.sh", "--prod", "--no-migrate", "web", "default", "platform", "aftersale"],
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.banner = ""

    def pool_and_processes(self) -> tuple[int, int]:
        """The web server's PostgreSQL pool size per process and its process count, as run.sh chose them."""
        out = subprocess.run(
            ["bash", "scripts/run.sh", "--prod", "--dry-run", "web"],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        pool = re.search(r"DATABASE_POOL_MAX_SIZE=(\d+)", out)
        workers = re.search(r"--workers (\d+)", out)
        return int(pool.group(1)) if pool else 0, int(workers.group(1)) if workers else 0

    def wait_ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        probe = Client(self.port)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stdout.read()[-2000:]}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if probe.request("GET", "/healthz")[0] == 200:
                    probe.close()
                    return
            time.sleep(0.3)
        raise RuntimeError("the server did not answer /healthz in time")

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.banner = self.proc.stdout.read() if self.proc.stdout else ""


class FakeModel:
    """`python -m tests.support.fake_openai`: every call answered after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fake_openai", "--port", str(self.port), "--delay", str(delay)]
            + ["--reply", SLOW_REPLY],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        line = self.proc.stdout.readline()
        if "listening" not in line:
            raise RuntimeError(f"the fake model did not start: {line}")

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


# --- load ---------------------------------------------------------------------------------------------------------


@dataclass
class Level:
    name: str
    concurrency: int
    seconds: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    wall: float = 0.0

    def line(self) -> str:
        ms = [s * 1000 for s in self.seconds]
        rate = len(ms) / self.wall if self.wall else 0.0
        errors = sum(self.errors.values())
        return (
            f"{self.name:<22} c={self.concurrency:<3} n={len(ms):<5} {rate:8.1f}/s  p50={percentile(ms, 50):8.1f} ms  "
            f"p95={percentile(ms, 95):8.1f} ms  p99={percentile(ms, 99):8.1f} ms  errors={errors}"
        )


def drive(clients: list[Client], level: Level, work, *, requests: int, seconds: float) -> Level:
    """Each client sends requests back to back (`work(client, i)` → outcome) until `requests` were sent in all
    or `seconds` have passed."""
    lock = threading.Lock()
    sent = {"n": 0}
    start = threading.Barrier(len(clients) + 1)
    deadline = {"t": 0.0}

    def run(client: Client) -> None:
        start.wait()
        while time.monotonic() < deadline["t"]:
            with lock:
                if sent["n"] >= requests:
                    return
                i = sent["n"]
                sent["n"] += 1
            began = time.perf_counter()
            try:
                outcome = work(client, i)
            except Exception as exc:  # counted and shown: a benchmark reports failures, it does not hide them
                with lock:
                    level.errors[type(exc).__name__] += 1
                continue
            took = time.perf_counter() - began
            with lock:
                if outcome.startswith("HTTP "):
                    level.errors[outcome] += 1
                else:
                    level.seconds.append(took)
                    level.outcomes[outcome] += 1

    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    deadline["t"] = time.monotonic() + seconds
    began = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    level.wall = time.perf_counter() - began
    return level


class Conversations:
    """Each traveller talks in conversations of five turns, taking the next messages of the evaluation file."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        self.sessions: dict[int, tuple[str | None, int]] = {}

    def turn(self, client: Client, i: int) -> str:
        key = id(client)
        session, count = self.sessions.get(key, (None, 0))
        status, body = client.chat(self.messages[i % len(self.messages)], session)
        if status != 200:
            return f"HTTP {status}"
        count += 1
        self.sessions[key] = (None, 0) if count >= 5 else (body["session_id"], count)
        return body["outcome"]


def healthz(client: Client, _i: int) -> str:
    status, data = client.request("GET", "/healthz")
    if status == 200:
        return "ok"
    with contextlib.suppress(ValueError, AttributeError):
        failing = [name for name, state in json.loads(data)["parts"].items() if state != "ok"]
        return f"HTTP {status} ({', '.join(failing)})"
    return f"HTTP {status}"


def login_all(port: int, count: int) -> list[Client]:
    clients = [Client(port) for _ in range(count)]
    errors: list[str] = []

    def log_in(chunk: list[tuple[int, Client]]) -> None:
        for n, client in chunk:
            try:
                client.login(USERNAME.format(n))
            except Exception as exc:  # reported below
                errors.append(f"{USERNAME.format(n)}: {exc}")

    numbered = list(enumerate(clients, start=1))
    threads = [threading.Thread(target=log_in, args=(numbered[k::8],)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"{len(errors)} logins failed, e.g. {errors[0]}")
    return clients


def connection_sampler(dbname: str, stop: threading.Event, found: dict) -> threading.Thread:
    """The most PostgreSQL connections to the bench database seen while `stop` is not set (sampled every 50 ms)."""
    import psycopg

    url = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"

    def sample() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            while not stop.is_set():
                (n,) = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (dbname,)).fetchone()
                found["peak"] = max(found.get("peak", 0), n)
                stop.wait(0.05)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    return thread


# --- the run ------------------------------------------------------------------------------------------------------


def prepare(activities: int, travellers: int) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command, get_commands

    from itinerary.models import Activity

    started = time.perf_counter()
    if "seed_bulk" in get_commands():
        call_command("seed_bulk", activities=activities, verbosity=0)
    else:
        _bulk_activities(activities)
    print(
        f"catalogue: {Activity.objects.count()} activities ({time.perf_counter() - started:.1f} s to seed), "
        f"database {settings.DATABASES['default']['NAME']}, cache {settings.REDIS_URL}"
    )
    User = get_user_model()
    hashed = make_password(PASSWORD)  # one hash for every traveller: creating them costs one PBKDF2, not hundreds
    wanted = [USERNAME.format(n) for n in range(1, travellers + 1)]
    present = set(User.objects.filter(username__in=wanted).values_list("username", flat=True))
    User.objects.bulk_create([User(username=name, password=hashed) for name in wanted if name not in present])
    User.objects.filter(username__in=wanted).update(password=hashed)


def _bulk_activities(count: int) -> None:
    """Without `seed_bulk`: copies of the demo catalogue's activities until there are `count` in all."""
    from itinerary.models import Activity

    have = Activity.objects.count()
    base = list(Activity.objects.order_by("id")[:50])
    batch = []
    for n in range(have, count):
        a = base[n % len(base)]
        batch.append(
            Activity(
                title=f"{a.title} · load {n}",
                city=a.city,
                province=a.province,
                price=a.price,
                start_date=a.start_date,
                end_date=a.end_date,
                tags=a.tags,
                system_tags=a.system_tags,
                is_published=True,
            )
        )
        if len(batch) == 5000:
            Activity.objects.bulk_create(batch)
            batch = []
    Activity.objects.bulk_create(batch)


POOL: dict[str, str] = {}


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "WEB_", "DATABASE_POOL"))}
    env.update(POOL)
    env.update(
        LOG_LEVEL="WARNING",
        ASSISTANT_DAILY_TURN_LIMIT="1000000",
        ASSISTANT_LLM_PROVIDER="rules",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    env.update(extra)
    return env


def rules_phase(args, messages: list[str]) -> None:
    server = Server(server_env(), "rules")
    try:
        server.wait_ready()
        clients = login_all(server.port, max(args.levels))
        warm = Conversations(messages)
        drive(clients[:4], Level("warm-up", 4), warm.turn, requests=40, seconds=30)
        print(f"\nrules model, {args.seconds:g} s or {args.requests_per_client} requests per client at each level")
        for c in args.levels:
            requests = args.requests_per_client * c
            base = drive(clients[:c], Level("GET /healthz", c), healthz, requests=requests, seconds=args.seconds)
            chat = Conversations(messages)
            turns = drive(
                clients[:c], Level("POST chat (rules)", c), chat.turn, requests=requests, seconds=args.seconds
            )
            print(base.line())
            print(turns.line())
            print(f"{'':<22} outcomes: {dict(turns.outcomes.most_common())}" + _errors(turns, base))
        for client in clients:
            client.close()
    finally:
        server.stop()


def slow_model_phase(args) -> None:
    import django.conf

    model = FakeModel(args.delay)
    server = None
    try:
        server = Server(
            server_env(
                ASSISTANT_LLM_PROVIDER="openai",
                ASSISTANT_LLM_BASE_URL=model.base_url,
                ASSISTANT_LLM_API_KEY="sk-load-bench",
                ASSISTANT_LLM_MODEL="slow-fake",
                ASSISTANT_LLM_TIMEOUT=str(args.delay * 10),
            ),
            "openai",
        )
        server.wait_ready()
        clients = login_all(server.port, args.slow_turns)
        warm = Conversations(["推荐点好玩的"])
        drive(clients[:8], Level("warm-up", 8), warm.turn, requests=8, seconds=60)

        # Everyone sends one turn at the same moment; a probe keeps asking /healthz meanwhile.
        turns = Level("POST chat (slow model)", args.slow_turns)
        probe_level = Level("GET /healthz meanwhile", 1)
        probe, waiting = Client(server.port), threading.Event()
        stop_sampling, seen = threading.Event(), {}
        sampler = connection_sampler(django.conf.settings.DATABASES["default"]["NAME"], stop_sampling, seen)

        def probing() -> None:
            waiting.wait()
            began_probing = time.perf_counter()
            while waiting.is_set():
                began = time.perf_counter()
                status, _ = probe.request("GET", "/healthz")
                if status == 200:
                    probe_level.seconds.append(time.perf_counter() - began)
                else:
                    probe_level.errors[f"HTTP {status}"] += 1
                time.sleep(0.05)
            probe_level.wall = time.perf_counter() - began_probing

        prober = threading.Thread(target=probing, daemon=True)
        prober.start()
        chat = Conversations(["推荐点好玩的"])
        waiting.set()
        drive(clients, turns, chat.turn, requests=args.slow_turns, seconds=args.delay * 30)
        waiting.clear()
        prober.join()
        stop_sampling.set()
        sampler.join()

        ratio = turns.wall / args.delay
        print(
            f"\nslow model: {args.slow_turns} concurrent turns, the model answers each call after {args.delay:g} s "
            f"(openai adapter → fake server)"
        )
        print(turns.line())
        print(f"{'':<22} outcomes: {dict(turns.outcomes.most_common())}" + _errors(turns))
        print(
            f"{'':<22} wall {turns.wall:.2f} s = {ratio:.2f} × the model's {args.delay:g} s "
            f"(target < 3; one blocking worker: ~{args.slow_turns} ×)"
        )
        pool, processes = server.pool_and_processes()
        pools = f"the pools' bound: {processes} processes × {pool}" if pool else "no pool"
        print(
            f"{'':<22} PostgreSQL connections to the bench database, peak while the turns ran: {seen.get('peak')} "
            f"({pools}) for {args.slow_turns} turns"
        )
        print(probe_level.line().replace(" c=1  ", " ", 1))
        for client in [*clients, probe]:
            client.close()
    finally:
        if server is not None:
            server.stop()
        model.stop()


def _errors(*levels: Level) -> str:
    found = Counter()
    for level in levels:
        found.update(level.errors)
    return f"  errors: {dict(found)}" if found else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--activities", type=int, default=100_000, help="catalogue size (seed_bulk)")
    parser.add_argument("--levels", default="1,10,50", help="concurrent travellers for the rules phase")
    parser.add_argument("--seconds", type=float, default=10.0, help="at most this long per level and kind")
    parser.add_argument("--requests-per-client", type=int, default=40, help="at most this many requests per client")
    parser.add_argument("--slow-turns", type=int, default=100, help="concurrent turns against the slow model")
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the fake model takes per call")
    parser.add_argument("--skip-rules", action="store_true", help="only the slow-model phase")
    parser.add_argument("--skip-slow", action="store_true", help="only the rules phase")
    parser.add_argument("--pool", type=int, default=None, help="DATABASE_POOL_MAX_SIZE (default: run.sh's)")
    args = parser.parse_args()
    args.levels = [int(x) for x in args.levels.split(",") if x]
    if args.pool is not None:
        POOL["DATABASE_POOL_MAX_SIZE"] = str(args.pool)

    started = time.perf_counter()
    setup_django()
    prepare(args.activities, max([*args.levels, args.slow_turns]))
    messages = [json.loads(line)["text"] for line in (ROOT / "tests/assistant/eval/intents-own.jsonl").open()]
    from django.db import connections

    connections.close_all()  # the bench process holds no connection while it measures
    if not args.skip_rules:
        rules_phase(args, messages)
    if not args.skip_slow:
        slow_model_phase(args)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
