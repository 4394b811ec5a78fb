"""Chat turns under load through the production server: `scripts/run.sh --prod web` (gunicorn gthread), PostgreSQL
with a bulk catalogue, Redis, over real HTTP on loopback.

    .venv/bin/python bench/load_chat.py [--activities 100000] [--levels 1,10,50] [--seconds 10] [--slow-turns 100]

1. The `rules` model: travellers, each logged in through the login page with a session of their own, send the
   messages of `tests/assistant/eval/intents-own.jsonl` to `POST /api/v1/assistant/chat` at each concurrency level
   (a bounded number of requests, at most `--seconds` per level); prints turns/s and p50/p95/p99. The baselines, in
   the same run and at the same concurrency: `GET /healthz` (one database query, one Redis round trip, the broker)
   and the style sheet the pages link (a static file whitenoise serves: the server's own floor). Each turn line is
   followed by its ratios to healthz: p50 and p95 as multiples of healthz's, turns/s as a fraction of healthz/s, and
   by the CPU the site used per turn at that level (web, workers and the supplier program they ran, PostgreSQL
   backends; from /proc).
2. A slow model: the same server restarted with `ASSISTANT_LLM_PROVIDER=openai` against a local fake OpenAI server
   that answers every call after `--delay` seconds. First `--slow-turns` travellers send one turn each, all at once;
   then one traveller (one session) sends `--slow-turns` turns at once, each on a connection of its own.
   Each prints the wall time and its ratio to the model's delay (the floor: every turn waits on the model once; one
   blocking worker would need `--slow-turns` times the delay), how many of the turns each web process served (the
   process holding the turn's connection while it ran, read with `ss -tnp`), the CPU the site used per turn (web,
   workers and PostgreSQL backends, from /proc), the PostgreSQL connections the site held meanwhile, and whether
   `GET /healthz` answered during the wait.

Ends with the issue's targets against this run's figures, and the machine's load average (`uptime`) at the start
and the end: other work on the same cores moves the absolute figures, the ratios less.

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

from bench.common import ROOT, load_report, percentile, setup_django  # noqa: E402

HOST = "127.0.0.1"
PASSWORD = "load-bench-2026"
USERNAME = "loadbench-{:03d}"
SECRET_KEY = "load-bench-secret-key-only-for-this-benchmark-0123456789"
SLOW_REPLY = '{"intent": "RECOMMEND"}'
SLOW_MESSAGE = "推荐点好玩的"


# --- HTTP: one keep-alive connection and one session per simulated traveller ------------------------------------


class Client:
    """A traveller's browser, reduced to what the API needs: a connection, cookies, the CSRF header."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None
        self.local_port = 0  # of the connection the last request went out on: the server side knows it by this
        self.static_path = ""  # the style sheet the login page links (content-hashed name), once logged in

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: reconnect once
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                self.local_port = self.conn.sock.getsockname()[1]
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
        stylesheet = re.search(rb'<link rel="stylesheet" href="(/static/[^"]+)"', page)
        self.static_path = stylesheet.group(1).decode() if stylesheet else ""
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

    def __init__(
        self, env: dict[str, str], label: str, roles: tuple[str, ...] = ("web", "default", "platform", "aftersale")
    ) -> None:
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
        if "web" not in roles:  # the live server alone: it answers on this port (and /healthz too)
            full_env["TRIPDESK_LIVE_PORT"] = str(self.port)
        self.env = full_env
        self.proc = subprocess.Popen(
            # By default the web server and one worker per queue (bookings wait on the platform queue); no beat: a
            # benchmark needs no timeout sweeps.
            ["bash", "scripts/run.sh", "--prod", "--no-migrate", *roles],
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.banner = ""

    def web_command(self) -> str:
        """The web server's command line, as run.sh chose it."""
        return subprocess.run(
            ["bash", "scripts/run.sh", "--prod", "--dry-run", "web"],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    def pool_and_processes(self) -> tuple[int, int]:
        """The web server's PostgreSQL pool size per process and its process count, as run.sh chose them."""
        out = self.web_command()
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
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds each part of the site used meanwhile

    @property
    def rate(self) -> float:
        return len(self.seconds) / self.wall if self.wall else 0.0

    def ms(self, p: float) -> float:
        return percentile([s * 1000 for s in self.seconds], p)

    def line(self) -> str:
        errors = sum(self.errors.values())
        return (
            f"{self.name:<22} c={self.concurrency:<3} n={len(self.seconds):<5} {self.rate:8.1f}/s  "
            f"p50={self.ms(50):8.1f} ms  p95={self.ms(95):8.1f} ms  p99={self.ms(99):8.1f} ms  errors={errors}"
        )

    def cpu_per_turn(self, part: str | None = None) -> float:
        """Milliseconds of CPU the site (or one part of it) used per turn served."""
        used = self.cpu.get(part, 0.0) if part else sum(self.cpu.values())
        return used / len(self.seconds) * 1000 if self.seconds else 0.0

    def cpu_line(self) -> str:
        """The CPU the site used per turn, by part, and as a share of the machine's cores over the level's wall."""
        cores = os.cpu_count() or 1
        total = sum(self.cpu.values())
        busy = total / (self.wall * cores) * 100 if self.wall else 0.0
        parts = ", ".join(f"{part} {self.cpu_per_turn(part):.1f}" for part in self.cpu)
        return (
            f"CPU of the site: {self.cpu_per_turn():.1f} ms per turn ({parts}; {total:.2f} s, {busy:.0f}% of "
            f"{cores} cores)"
        )

    def against(self, base: "Level") -> str:
        """This level's latency as a multiple of the baseline's, and its rate as a fraction of the baseline's."""

        def times(mine: float, theirs: float) -> str:
            return f"{mine / theirs:.1f} ×" if theirs else "–"

        return (
            f"{'':<22} vs {base.name}: p50 {times(self.ms(50), base.ms(50))}, p95 {times(self.ms(95), base.ms(95))}, "
            f"rate {times(self.rate, base.rate)}"
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


def static_file(client: Client, _i: int) -> str:
    status, _ = client.request("GET", client.static_path)
    return "ok" if status == 200 else f"HTTP {status}"


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


def connection_owners(port: int, stop: threading.Event, owners: dict[int, int]) -> threading.Thread:
    """Which process holds each connection to the server (client port → pid), sampled with `ss` every 100 ms while
    `stop` is not set: a connection belongs to the one web process that accepted it and serves its requests."""
    peer_and_pid = re.compile(r':(\d+)\s+users:\(\("[^"]*",pid=(\d+)')

    def sample() -> None:
        while not stop.is_set():
            try:
                out = subprocess.run(
                    ["ss", "-Htnp", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True
                ).stdout
            except OSError:  # no `ss` here (iproute2): the figure says no process was seen
                return
            for line in out.splitlines():
                found = peer_and_pid.search(line)
                if found:
                    owners[int(found.group(1))] = int(found.group(2))
            stop.wait(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    return thread


def cpu_seconds(pids) -> dict[int, float]:
    """User + system CPU seconds each living process of `pids` and its ended children have used so far (/proc)."""
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            # its own (utime, stime) and that of the children it waited for (cutime, cstime): the supplier
            # program's forks end within a turn and count in the process that reaped them
            found[pid] = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return found


def cpu_used(before: dict[int, float], after: dict[int, float], parts: dict[int, str]) -> dict[str, float]:
    """CPU seconds each part of the site used between two readings of `cpu_seconds` (a process that started
    meanwhile counts whole)."""
    used: dict[str, float] = {"web": 0.0, "workers": 0.0, "PostgreSQL": 0.0}
    for pid, seconds in after.items():
        used[parts.get(pid, "workers")] += seconds - before.get(pid, 0.0)
    return used


def site_processes(root: int, dbname: str) -> dict[int, str]:
    """The processes of the site, each with its part: `root` and its descendants ("web": the web server's; "workers":
    the Celery workers' and the supplier programs they run), and the PostgreSQL backends serving the bench database
    ("PostgreSQL"; the pools keep theirs for the whole burst)."""
    import psycopg

    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    url = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (dbname,)).fetchall()
    parts = {pid: _part(pid) for pid in found}
    return parts | {pid: "PostgreSQL" for (pid,) in rows}


def _part(pid: int) -> str:
    with contextlib.suppress(OSError):
        if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return "web"
    return "workers"


def per_process(clients: list[Client], owners: dict[int, int]) -> str:
    """How many of the clients' last requests each process served, busiest first."""
    served = Counter(owners.get(client.local_port) for client in clients)
    unseen = served.pop(None, 0)
    shares = ", ".join(f"pid {pid}: {n}" for pid, n in served.most_common())
    return f"{shares or 'no process seen'}" + (f", not seen by ss: {unseen}" if unseen else "")


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
                title_zh_hans=f"{a.title_zh_hans} · load {n}",
                title_en=f"{a.title_en} · load {n}" if a.title_en else None,
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


POOL: dict[str, str] = {}  # the web server's sizes given on the command line (run.sh's defaults otherwise)


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


def rules_phase(args, messages: list[str]) -> dict:
    """The turns at each concurrency level (printed with their baselines): {level: turns, "healthz level": healthz}."""
    import django.conf

    server = Server(server_env(), "rules")
    found: dict = {}
    dbname = django.conf.settings.DATABASES["default"]["NAME"]
    try:
        server.wait_ready()
        print(f"\n{server.web_command()}")
        clients = login_all(server.port, max(args.levels))
        warm = Conversations(messages)
        drive(clients[:4], Level("warm-up", 4), warm.turn, requests=40, seconds=30)
        print(f"\nrules model, {args.seconds:g} s or {args.requests_per_client} requests per client at each level")
        for c in args.levels:
            requests = args.requests_per_client * c
            base = drive(clients[:c], Level("GET /healthz", c), healthz, requests=requests, seconds=args.seconds)
            static = drive(
                clients[:c], Level("GET static (css)", c), static_file, requests=requests, seconds=args.seconds
            )
            chat = Conversations(messages)
            site = site_processes(server.proc.pid, dbname)
            cpu_before = cpu_seconds(site)
            turns = drive(
                clients[:c], Level("POST chat (rules)", c), chat.turn, requests=requests, seconds=args.seconds
            )
            site |= site_processes(server.proc.pid, dbname)
            turns.cpu = cpu_used(cpu_before, cpu_seconds(site), site)
            print(static.line())
            print(base.line())
            print(turns.line())
            print(turns.against(base))
            print(f"{'':<22} outcomes: {dict(turns.outcomes.most_common())}" + _errors(turns, base, static))
            print(f"{'':<22} {turns.cpu_line()}")
            found[f"healthz {c}"] = base
            found[c] = turns
        for client in clients:
            client.close()
    finally:
        server.stop()
    return found


def slow_model_phase(args) -> dict[str, tuple[Level, Level]]:
    """The slow turns, from many travellers and from one, each with the healthz probe that ran meanwhile (printed):
    {"many": (turns, probe), "one": (turns, probe)}."""
    model = FakeModel(args.delay)
    server = None
    found = {}
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
        warm = Conversations([SLOW_MESSAGE])
        drive(clients[:8], Level("warm-up", 8), warm.turn, requests=8, seconds=60)
        print(
            f"\nslow model: {args.slow_turns} turns sent at once, the model answers each call after {args.delay:g} s "
            f"(openai adapter → fake server)"
        )
        found["many"] = slow_burst(args, server, clients, f"{args.slow_turns} travellers")
        # One traveller (one session) sending every turn at once into one conversation, each on a connection of its
        # own, as several tabs of the same chat do.
        tabs = [Client(server.port) for _ in range(args.slow_turns)]
        for tab in tabs:
            tab.cookies = dict(clients[0].cookies)
        status, first = clients[0].chat(SLOW_MESSAGE, None)
        if status != 200:
            raise RuntimeError(f"the traveller's first turn answered HTTP {status}")
        found["one"] = slow_burst(args, server, tabs, "one traveller", conversation=first["session_id"])
        for client in [*clients, *tabs]:
            client.close()
    finally:
        if server is not None:
            server.stop()
        model.stop()
    return found


def slow_burst(
    args, server: Server, clients: list[Client], who: str, *, conversation: str | None = None
) -> tuple[Level, Level]:
    """`clients` each send one turn at the same moment (each a new conversation, or all into `conversation`) while a
    probe keeps asking /healthz; prints the figures."""
    import django.conf

    turns = Level(f"POST chat, {who}", len(clients))
    probe_level = Level("GET /healthz meanwhile", 1)
    probe, waiting = Client(server.port), threading.Event()
    dbname = django.conf.settings.DATABASES["default"]["NAME"]
    stop_sampling, seen, owners = threading.Event(), {}, {}
    sampler = connection_sampler(dbname, stop_sampling, seen)
    watcher = connection_owners(server.port, stop_sampling, owners)

    def probing() -> None:
        waiting.wait()
        began_probing = time.perf_counter()
        while waiting.is_set():
            began = time.perf_counter()
            try:
                outcome = healthz(probe, 0)
            except (OSError, http.client.HTTPException) as exc:
                outcome = type(exc).__name__
            if outcome == "ok":
                probe_level.seconds.append(time.perf_counter() - began)
            else:
                probe_level.errors[outcome] += 1
            time.sleep(0.05)
        probe_level.wall = time.perf_counter() - began_probing

    prober = threading.Thread(target=probing, daemon=True)
    prober.start()

    def one_conversation(client: Client, _i: int) -> str:
        status, body = client.chat(SLOW_MESSAGE, conversation)
        return body["outcome"] if status == 200 else f"HTTP {status}"

    turn = Conversations([SLOW_MESSAGE]).turn if conversation is None else one_conversation
    site = site_processes(server.proc.pid, dbname)
    cpu_before = cpu_seconds(site)
    waiting.set()
    drive(clients, turns, turn, requests=len(clients), seconds=args.delay * 30)
    waiting.clear()
    site |= site_processes(server.proc.pid, dbname)
    turns.cpu = cpu_used(cpu_before, cpu_seconds(site), site)
    prober.join()
    stop_sampling.set()
    sampler.join()
    watcher.join()
    probe.close()

    ratio = turns.wall / args.delay
    print(turns.line())
    print(f"{'':<22} outcomes: {dict(turns.outcomes.most_common())}" + _errors(turns))
    print(
        f"{'':<22} wall {turns.wall:.2f} s = {ratio:.2f} × the floor, the model's {args.delay:g} s "
        f"(one blocking worker: ~{len(clients)} ×)"
    )
    print(f"{'':<22} turns per web process: {per_process(clients, owners)}")
    print(f"{'':<22} {turns.cpu_line()}")
    pool, processes = server.pool_and_processes()
    pools = f"the pools' bound: {processes} processes × {pool}" if pool else "no pool"
    print(
        f"{'':<22} PostgreSQL connections to the bench database, peak while the turns ran: {seen.get('peak')} "
        f"({pools}) for {len(clients)} turns"
    )
    print(probe_level.line().replace(" c=1  ", " ", 1))
    print(f"{'':<22} healthz answered meanwhile: {_answered(probe_level)}")
    return turns, probe_level


def _answered(probe: Level) -> str:
    failed = sum(probe.errors.values())
    verdict = "yes" if probe.seconds and not failed else "no"
    slowest = f", slowest {max(probe.seconds) * 1000:.0f} ms" if probe.seconds else ""
    return f"{verdict} ({len(probe.seconds)} of {len(probe.seconds) + failed} probes{slowest})"


def targets(args, turns: dict, slow: dict[str, tuple[Level, Level]] | None) -> None:
    """The issue's targets against this run's figures (absent when their phase or level did not run)."""

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print("\ntargets (issue 31)")
    if 1 in turns and "healthz 1" in turns:
        p95, floor = turns[1].ms(95), turns["healthz 1"].ms(50)
        print(
            f"  1 user: turn p95 ≤ 3 × healthz p50 ({3 * floor:.1f} ms):   {p95:7.1f} ms   {verdict(p95 <= 3 * floor)}"
        )
    if 10 in turns:
        rate = turns[10].rate
        print(f"  10 users: ≥ 100 turns/s:                    {rate:7.1f} /s   {verdict(rate >= 100)}")
        if 50 in turns:
            more = turns[50].rate
            print(f"  50 users: ≥ the 10-user figure ({rate:.1f}/s):     {more:7.1f} /s   {verdict(more >= rate)}")
        per_turn = turns[10].cpu_per_turn()
        print(f"  CPU per turn (10 users) ≤ 15 ms:            {per_turn:7.1f} ms   {verdict(per_turn <= 15)}")
    for key, who in (("many", f"{args.slow_turns} travellers"), ("one", "one traveller's turns")):
        if slow and key in slow:
            ratio = slow[key][0].wall / args.delay
            print(f"  slow model, {who} ≤ 1.5 × floor: {ratio:5.2f} ×      {verdict(ratio <= 1.5)}")
            print(f"    healthz answering meanwhile: {_answered(slow[key][1])}")


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
    parser.add_argument("--web-processes", type=int, default=None, help="WEB_CONCURRENCY (default: run.sh's)")
    parser.add_argument("--web-threads", type=int, default=None, help="WEB_THREADS (default: run.sh's)")
    args = parser.parse_args()
    args.levels = [int(x) for x in args.levels.split(",") if x]
    if args.pool is not None:
        POOL["DATABASE_POOL_MAX_SIZE"] = str(args.pool)
    if args.web_processes is not None:
        POOL["WEB_CONCURRENCY"] = str(args.web_processes)
    if args.web_threads is not None:
        POOL["WEB_THREADS"] = str(args.web_threads)

    started, load = time.perf_counter(), os.getloadavg()
    setup_django()
    prepare(args.activities, max([*args.levels, args.slow_turns]))
    messages = [json.loads(line)["text"] for line in (ROOT / "tests/assistant/eval/intents-own.jsonl").open()]
    from django.db import connections

    connections.close_all()  # the bench process holds no connection while it measures
    turns = {} if args.skip_rules else rules_phase(args, messages)
    slow = None if args.skip_slow else slow_model_phase(args)
    targets(args, turns, slow)
    print(f"\n{load_report(load)}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
