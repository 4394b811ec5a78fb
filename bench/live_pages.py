"""Open live pages on one machine: what 1,000 idle pages cost the live channel's server, how soon a push reaches its
page, and, in the same run, what the same pages cost when they poll instead (the fallback, and the pages today).

    DATABASE_URL=postgresql://… REDIS_URL=redis://… .venv/bin/python bench/live_pages.py \\
        [--pages 1000] [--idle-seconds 20] [--pushes 200] [--skip-polling]

1. The live server alone (`run.sh --prod live`: uvicorn, config/live.py) on a free port. Each page is a signed-in
   user of its own (sessions made directly with the session store and the user's auth hash, as a login would
   leave them: a thousand logins through the login page would cost minutes of PBKDF2 for nothing measured here).
   The pages open `GET /live/events` from this process, each a raw asyncio socket reading lines, until every page
   has its first `changed`.
2. Idle, `--idle-seconds`: the live server's CPU (utime + stime, /proc) as % of one core, its memory (VmRSS) and
   the memory per page (against the same server with no page open, after one page opened and closed to load what a
   first request loads), its own connections to Redis and PostgreSQL (`ss`), and the database's connections in
   pg_stat_activity, with every page open.
3. Pushes: `--pushes` times, `core.live.push(user, "progress", marker)` to a random page's user, timed until that
   page reads the marker (p50 / p95 / max); then `changed` pushed to every page's user at once (from a thread, while
   this loop reads), timed until every page has it.
4. Polling, same run: the web server (`run.sh --prod web`: gunicorn gthread, 2 processes) and the same pages each
   asking `GET /chat/live` (HX-Request) every 5 s, i.e. pages / 5 requests per second, paced open-loop for
   `--idle-seconds`. Its CPU (web processes; PostgreSQL backends and Redis apart). Where this machine does not reach
   that rate, the CPU at the full rate is extrapolated from the CPU per request, and said so. A poll's time to the
   page is half the interval on average (2.5 s): computed, not measured.

Ends with a table and the ratio of the polling web server's CPU to the idle live server's. Both servers share the
machine's cores with this process (its own CPU is printed) and PostgreSQL and Redis; other work moves the absolute
figures, so the load average is printed at the start and the end.

Needs PostgreSQL and Redis: DATABASE_URL and REDIS_URL (a database and a Redis DB of the benchmark's own; the
database is created and migrated if absent). Stops everything it started.
"""

import argparse
import asyncio
import contextlib
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, load_report, percentile, setup_django  # noqa: E402
from bench.load_chat import HOST, SECRET_KEY, Server, cpu_seconds, server_env, site_processes  # noqa: E402

USERNAME = "livebench-{:04d}"
POLL_SECONDS = 5.0  # the pages' polling interval (templates: hx-trigger="every 5s")
OPENING_AT_ONCE = 100  # pages connecting at the same moment while they open
POLLS_IN_FLIGHT = 256  # polls waiting for their answer at once, at most (the web server has 2 × 64 threads)
READ_FAILED = "live stream read failed"  # core.live's warning when a stream's Redis read fails
PUSH_TIMEOUT = 30.0  # longer than the live server's 15 s heartbeat: a missed wake-up shows as late, not lost


# --- the pages ----------------------------------------------------------------------------------------------------


class PageError(Exception):
    pass


class Page:
    """One open page's live channel: a socket with the user's session cookie, read line by line; `expect` gives the
    moment a line holding some text is read."""

    def __init__(self, user_id: int, cookie: str) -> None:
        self.user_id = user_id
        self.cookie = cookie
        self.writer: asyncio.StreamWriter | None = None
        self.waiting: tuple[bytes, asyncio.Future] | None = None
        self.ended = False  # the server closed the stream (or it failed) after it opened
        self.task: asyncio.Task | None = None

    def expect(self, text: bytes) -> asyncio.Future:
        self.waiting = (text, asyncio.get_running_loop().create_future())
        return self.waiting[1]

    def open(self, port: int) -> asyncio.Future:
        """Start reading the page's stream; the future is the moment its first `changed` was read."""
        first = self.expect(b"event: changed")
        self.task = asyncio.create_task(self._read(port, first))
        return first

    async def _read(self, port: int, first: asyncio.Future) -> None:
        try:
            reader, self.writer = await asyncio.open_connection(HOST, port)
            self.writer.write(
                f"GET /live/events HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n"
                f"Cookie: {self.cookie}\r\n\r\n".encode()
            )
            status = await reader.readline()
            if not status.startswith(b"HTTP/1.1 200"):
                raise PageError(status.decode(errors="replace").strip() or "no answer")
            while (await reader.readline()).strip():  # the headers
                pass
            # The body is chunked, one chunk per event: chunk sizes come as lines of their own, events' lines whole.
            while line := await reader.readline():
                waiting = self.waiting
                if waiting and waiting[0] in line and not waiting[1].done():
                    waiting[1].set_result(time.perf_counter())
        except (OSError, PageError) as exc:
            if not first.done():
                first.set_exception(exc)
        finally:
            self.ended = True

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.writer is not None:
            self.writer.close()


async def open_pages(pages: list[Page], port: int) -> float:
    """Open every page, OPENING_AT_ONCE connecting at a time; the seconds until all had their first `changed`."""
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def one(page: Page) -> None:
        async with gate:
            await asyncio.wait_for(page.open(port), timeout=60)

    began = time.perf_counter()
    results = await asyncio.gather(*(one(p) for p in pages), return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(pages)} pages did not open, e.g. {failed[0]!r}")
    return time.perf_counter() - began


# --- processes: CPU, memory, connections ---------------------------------------------------------------------------


def server_pids(server: Server, dbname: str) -> tuple[list[int], list[int]]:
    """The server's processes (those run.sh started, not run.sh's shell) and the database's PostgreSQL backends."""
    parts = site_processes(server.proc.pid, dbname)
    own = [pid for pid, part in parts.items() if part != "PostgreSQL" and pid != server.proc.pid]
    return own, [pid for pid, part in parts.items() if part == "PostgreSQL"]


def dry_run(server: Server, role: str) -> str:
    """The role's command line, as run.sh chose it for this server."""
    return subprocess.run(
        ["bash", "scripts/run.sh", "--prod", "--dry-run", role],
        cwd=ROOT,
        env=server.env,
        capture_output=True,
        text=True,
    ).stdout.strip()


def status_total(pids, field: str) -> int:
    """A field of /proc/PID/status (VmRSS in kB, Threads) added up over the processes."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            found = re.search(rf"^{field}:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M)
            total += int(found.group(1)) if found else 0
    return total


def rss_mb(pids) -> float:
    return status_total(pids, "VmRSS") / 1024


def log_lines(server: Server, role: str, text: str) -> int:
    """Lines of the role's log (run.sh appends to it) holding `text`."""
    with contextlib.suppress(OSError):
        return sum(text in line for line in (server.log / f"{role}.log").open(errors="replace"))
    return 0


def cpu_total(pids) -> float:
    return sum(cpu_seconds(pids).values())


def connections_of(pids, port: int) -> int:
    """TCP connections the processes hold to a local service's port (`ss`)."""
    out = subprocess.run(
        ["ss", "-Htnp", "state", "established", f"( dport = :{port} )"], capture_output=True, text=True
    ).stdout
    return sum(1 for line in out.splitlines() if any(f"pid={pid}," in line for pid in pids))


def database_connections(dbname: str) -> int:
    import psycopg

    url = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(url, autocommit=True) as conn:
        (n,) = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (dbname,)).fetchone()
    return n


class Redis:
    """The Redis server: its connected clients and its process's CPU (when its process is visible here)."""

    def __init__(self, url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url)
        self.port = self.client.connection_pool.connection_kwargs.get("port", 6379)
        self.pid = int(self.client.info("server")["process_id"])
        self.visible = Path(f"/proc/{self.pid}/stat").exists()

    def clients(self) -> int:
        return int(self.client.info("clients")["connected_clients"])

    def cpu(self) -> float:
        return cpu_total([self.pid]) if self.visible else 0.0


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- the run ------------------------------------------------------------------------------------------------------


def prepare(count: int) -> list[tuple[int, str]]:
    """`count` users, each with a new signed-in session: (user id, Cookie header)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password

    User = get_user_model()
    wanted = [USERNAME.format(n) for n in range(1, count + 1)]
    present = set(User.objects.filter(username__in=wanted).values_list("username", flat=True))
    hashed = make_password("live-bench-2026")  # one hash for all; nobody logs in with it
    User.objects.bulk_create([User(username=name, password=hashed) for name in wanted if name not in present])
    store = import_module(settings.SESSION_ENGINE).SessionStore
    found = []
    for user in User.objects.filter(username__in=wanted).order_by("username"):
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        found.append((user.pk, f"{settings.SESSION_COOKIE_NAME}={session.session_key}"))
    return found


async def live_phase(args, users: list[tuple[int, str]], dbname: str, redis_server: Redis) -> dict:
    from core import live

    figures: dict = {}
    server = Server(server_env(), "live-pages-live", roles=("live",))
    pages = [Page(uid, cookie) for uid, cookie in users]
    try:
        await asyncio.to_thread(server.wait_ready)
        print(f"\n{dry_run(server, 'live')}")
        warm = Page(*users[0])
        await asyncio.wait_for(warm.open(server.port), timeout=30)
        await warm.close()
        await asyncio.sleep(1)
        own, _ = server_pids(server, dbname)
        figures["rss empty"] = rss_mb(own)
        figures["threads empty"] = status_total(own, "Threads")
        failed_reads = log_lines(server, "live", READ_FAILED)
        redis_before = connections_of(own, redis_server.port)
        postgres_before = connections_of(own, 5432)
        clients_before = redis_server.clients()

        figures["open seconds"] = await open_pages(pages, server.port)
        await asyncio.sleep(1)
        own, backends = server_pids(server, dbname)
        databases = [database_connections(dbname)]
        cpu_before, redis_cpu_before, mine_before = cpu_total(own), redis_server.cpu(), self_cpu()
        began = time.perf_counter()
        await asyncio.sleep(args.idle_seconds)
        wall = time.perf_counter() - began
        figures["cpu"] = (cpu_total(own) - cpu_before) / wall * 100
        figures["redis cpu"] = (redis_server.cpu() - redis_cpu_before) / wall * 100
        figures["own cpu"] = (self_cpu() - mine_before) / wall * 100
        figures["backends"] = len(backends)
        figures["rss"] = rss_mb(own)
        figures["threads"] = status_total(own, "Threads")
        databases.append(database_connections(dbname))
        figures["database connections"] = max(databases)
        figures["server postgres"] = (postgres_before, connections_of(own, 5432))
        figures["redis connections"] = (redis_before, connections_of(own, redis_server.port))
        figures["redis clients"] = (clients_before, redis_server.clients())
        figures["ended idle"] = sum(p.ended for p in pages)

        rng = random.Random(2026)
        latencies, late = [], 0
        for i in range(args.pushes):
            page = rng.choice(pages)
            marker = f"live-bench-{i}-{rng.randrange(10**9)}"
            arrived = page.expect(f"data: {marker}".encode())
            began = time.perf_counter()
            live.push(page.user_id, live.PROGRESS, marker)
            try:
                latencies.append(await asyncio.wait_for(arrived, PUSH_TIMEOUT) - began)
            except TimeoutError:
                late += 1
            await asyncio.sleep(rng.uniform(0.005, 0.02))  # pushes apart, not back to back
        figures["pushes"], figures["pushes lost"] = latencies, late

        arrivals = [page.expect(b"event: changed") for page in pages]
        began = time.perf_counter()

        def push_all() -> float:
            for page in pages:
                live.push(page.user_id, live.CHANGED)
            return time.perf_counter() - began

        figures["broadcast pushing"] = await asyncio.to_thread(push_all)
        done, _ = await asyncio.wait(arrivals, timeout=PUSH_TIMEOUT)
        figures["broadcast"] = sorted(f.result() - began for f in done)
        figures["ended"] = sum(p.ended for p in pages)
        figures["failed reads"] = log_lines(server, "live", READ_FAILED) - failed_reads
    finally:
        await asyncio.gather(*(p.close() for p in pages))
        await asyncio.to_thread(server.stop)
    return figures


async def poll(port: int, cookie: str) -> tuple[str, float]:
    began = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(
            f"GET /chat/live HTTP/1.1\r\nHost: {HOST}:{port}\r\nHX-Request: true\r\nCookie: {cookie}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        status = (await reader.readline()).split(b" ", 2)
        await reader.read()  # one request per connection (the production command's --keep-alive 0)
        writer.close()
    except OSError as exc:
        return type(exc).__name__, time.perf_counter() - began
    return (status[1].decode() if len(status) > 1 else "no answer"), time.perf_counter() - began


async def polling(port: int, users: list[tuple[int, str]], rate: float, seconds: float) -> tuple[list, float]:
    """Polls at `rate` per second for `seconds`, page after page (each page every pages / rate seconds), at most
    POLLS_IN_FLIGHT waiting at once; the (status, seconds) of each and the wall until the last answered."""
    loop = asyncio.get_running_loop()
    results: list[tuple[str, float]] = []
    in_flight: set[asyncio.Task] = set()
    began = loop.time()
    n = 0
    while (due := began + n / rate) < began + seconds:
        await asyncio.sleep(max(0.0, due - loop.time()))
        if len(in_flight) >= POLLS_IN_FLIGHT:  # the server is behind: the pace follows it
            await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
        task = asyncio.create_task(poll(port, users[n % len(users)][1]))
        task.add_done_callback(lambda t: (in_flight.discard(t), results.append(t.result())))
        in_flight.add(task)
        n += 1
    if in_flight:
        await asyncio.wait(in_flight, timeout=120)
    return results, loop.time() - began


async def polling_phase(args, users: list[tuple[int, str]], dbname: str, redis_server: Redis) -> dict:
    figures: dict = {}
    server = Server(server_env(), "live-pages-web", roles=("web",))
    rate = len(users) / POLL_SECONDS
    try:
        await asyncio.to_thread(server.wait_ready)
        print(dry_run(server, "web"))
        await polling(server.port, users[:50], 50, 1.0)  # warm-up: every process has its connections and code
        own, backends = server_pids(server, dbname)
        cpu_before = cpu_seconds([*own, *backends])
        redis_cpu_before, mine_before = redis_server.cpu(), self_cpu()
        results, wall = await polling(server.port, users, rate, args.idle_seconds)
        own, backends = server_pids(server, dbname)  # backends the pools opened meanwhile count whole
        cpu_after = cpu_seconds([*own, *backends])
        used = {pid: cpu_after[pid] - cpu_before.get(pid, 0.0) for pid in cpu_after}
        answered = [s for status, s in results if status in ("200", "204")]
        figures.update(
            wall=wall,
            target=rate,
            answered=answered,
            statuses=sorted({status for status, _ in results}),
            failed=len(results) - len(answered),
            cpu=sum(used.get(pid, 0.0) for pid in own) / wall * 100,
            postgres_cpu=sum(used.get(pid, 0.0) for pid in backends) / wall * 100,
            redis_cpu=(redis_server.cpu() - redis_cpu_before) / wall * 100,
            own_cpu=(self_cpu() - mine_before) / wall * 100,
            rss=rss_mb(own),
            database_connections=database_connections(dbname),
        )
    finally:
        await asyncio.to_thread(server.stop)
    return figures


def report(args, live_figures: dict, poll_figures: dict | None, redis_server: Redis) -> None:
    n = args.pages
    lat = [s * 1000 for s in live_figures["pushes"]]
    broadcast = live_figures["broadcast"]
    per_page_kb = (live_figures["rss"] - live_figures["rss empty"]) * 1024 / n
    redis_before, redis_after = live_figures["redis connections"]
    clients_before, clients_after = live_figures["redis clients"]
    redis_cpu = f"{live_figures['redis cpu']:.1f} %" if redis_server.visible else "not visible here"
    print(
        f"\nlive channel: {n} pages open in {live_figures['open seconds']:.1f} s ({OPENING_AT_ONCE} connecting at once)"
    )
    print(
        f"  idle {args.idle_seconds:g} s: live server CPU {live_figures['cpu']:.1f} % of one core, "
        f"RSS {live_figures['rss']:.1f} MB ({live_figures['rss empty']:.1f} MB with no page open: "
        f"{per_page_kb:.1f} KB per page); Redis CPU {redis_cpu}; this benchmark's own {live_figures['own cpu']:.1f} %"
    )
    print(
        f"  connections with {n} pages open: live server → Redis {redis_after} (before the pages: {redis_before}); "
        f"Redis connected clients {clients_after} (before: {clients_before}, all DBs, other work included); "
        f"live server → PostgreSQL {live_figures['server postgres'][1]} (before: {live_figures['server postgres'][0]}); pg_stat_activity for the database "
        f"{live_figures['database connections']}"
    )
    print(
        f"  push → page, {len(lat)} pushes: p50 {percentile(lat, 50):.1f} ms, p95 {percentile(lat, 95):.1f} ms, "
        f"max {max(lat, default=0):.1f} ms; not arrived within {PUSH_TIMEOUT:g} s: {live_figures['pushes lost']}"
    )
    got = len(broadcast)
    last = f"the last after {broadcast[-1]:.2f} s" if broadcast else "none arrived"
    within = ", ".join(f"{sum(t <= limit for t in broadcast)} within {limit:g} s" for limit in (0.5, 2, 10, 20))
    print(
        f"  `changed` pushed to all {n} pages' users at once (pushing took {live_figures['broadcast pushing']:.2f} s): "
        f"{got} of {n} pages had it within {PUSH_TIMEOUT:g} s, p50 {percentile(broadcast, 50) * 1000:.0f} ms, {last} "
        f"({within})"
    )
    print(
        f"  live server threads: {live_figures['threads']} with the pages open ({live_figures['threads empty']} "
        f"with none); its log's '{READ_FAILED}' warnings during the run: {live_figures['failed reads']}"
    )
    ended = live_figures["ended"]
    if ended:
        print(f"  pages whose stream ended meanwhile: {ended} (during the idle interval: {live_figures['ended idle']})")

    rows = [
        ("live server CPU, idle", f"{live_figures['cpu']:.1f} % of one core"),
        ("live server memory", f"{live_figures['rss']:.0f} MB, {per_page_kb:.0f} KB per page"),
        ("live server threads", f"{live_figures['threads']} ({live_figures['threads empty']} with no page open)"),
        (
            "live server's connections: Redis, PostgreSQL",
            f"{redis_after}, {live_figures['server postgres'][1]} "
            f"({redis_before}, {live_figures['server postgres'][0]} with no page open)",
        ),
        ("push → page", f"p50 {percentile(lat, 50):.1f} ms, p95 {percentile(lat, 95):.1f} ms"),
        (
            f"broadcast: `changed` to all {n} at once",
            f"all in {broadcast[-1]:.2f} s" if got == n else f"{got} of {n} within {PUSH_TIMEOUT:g} s ({last})",
        ),
    ]
    ratio = ""
    if poll_figures:
        answered, wall, target = poll_figures["answered"], poll_figures["wall"], poll_figures["target"]
        rate = len(answered) / wall if wall else 0.0
        per_request = poll_figures["cpu"] / 100 / rate * 1000 if rate else 0.0
        at_target = per_request * target / 10  # ms per request × requests/s → % of one core
        ms = [s * 1000 for s in answered]
        print(
            f"\npolling: {n} pages each asking GET /chat/live every {POLL_SECONDS:g} s = {target:.0f} requests/s "
            f"wanted, {rate:.1f}/s answered over {wall:.1f} s (p50 {percentile(ms, 50):.0f} ms, p95 "
            f"{percentile(ms, 95):.0f} ms; statuses {poll_figures['statuses']}, failed {poll_figures['failed']})"
        )
        redis_poll = f"{poll_figures['redis_cpu']:.1f} %" if redis_server.visible else "not visible here"
        print(
            f"  web server CPU {poll_figures['cpu']:.1f} % of one core = {per_request:.2f} ms per request; PostgreSQL "
            f"backends {poll_figures['postgres_cpu']:.1f} %; Redis {redis_poll}; this benchmark's own "
            f"{poll_figures['own_cpu']:.1f} %; web RSS {poll_figures['rss']:.0f} MB; pg_stat_activity "
            f"{poll_figures['database_connections']}"
        )
        reached = rate >= 0.95 * target
        web_cpu = poll_figures["cpu"] if reached else at_target
        if not reached:
            print(
                f"  this machine answered {rate:.1f} of the {target:.0f} requests/s: at {target:.0f}/s the web server "
                f"would use {at_target:.0f} % of one core (extrapolated from the CPU per request)"
            )
        print(f"  time to the page: {POLL_SECONDS / 2:g} s on average (half the interval; computed, not measured)")
        rows += [
            ("polling, requests/s", f"{target:.0f} wanted, {rate:.1f} answered"),
            (
                "web server CPU, polling",
                f"{web_cpu:.0f} % of one core" + ("" if reached else f" at {target:.0f}/s (extrapolated)"),
            ),
            ("PostgreSQL CPU, polling", f"{poll_figures['postgres_cpu']:.1f} % at {rate:.1f}/s"),
            ("polling → page", f"{POLL_SECONDS / 2:g} s mean (computed)"),
        ]
        ratio = f"{web_cpu / live_figures['cpu']:.0f} ×" if live_figures["cpu"] else "∞ (the live server used no CPU)"
        rows.append(("polling CPU / live idle CPU", ratio))
    print(f"\n| {n} pages | |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")


def check_services() -> tuple[str, str]:
    database_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")):
        sys.exit("live_pages: set DATABASE_URL to a PostgreSQL database of the benchmark's own (postgresql://…)")
    if not redis_url.startswith(("redis://", "rediss://")):
        sys.exit("live_pages: set REDIS_URL to a Redis DB of the benchmark's own (redis://HOST:6379/N)")
    import psycopg
    import redis

    try:
        psycopg.connect(database_url.rsplit("/", 1)[0] + "/postgres", connect_timeout=5).close()
        redis.Redis.from_url(redis_url, socket_connect_timeout=5).ping()
    except (psycopg.Error, redis.RedisError) as exc:
        sys.exit(f"live_pages: PostgreSQL or Redis does not answer: {exc}")
    return database_url, redis_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=1000, help="open pages (one signed-in user each)")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="the idle interval, and the polling one")
    parser.add_argument("--pushes", type=int, default=200, help="single pushes timed to their page")
    parser.add_argument("--skip-polling", action="store_true", help="the live channel only")
    args = parser.parse_args()
    database_url, redis_url = check_services()

    # A socket per page and the servers' own: the soft limit up to the hard one, inherited by the servers.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.pages + 200:
        sys.exit(f"live_pages: {args.pages} pages need more open files than this machine's hard limit ({hard})")

    started, load = time.perf_counter(), os.getloadavg()
    os.environ["DJANGO_SECRET_KEY"] = SECRET_KEY  # the servers' key: the sessions' auth hashes are made with it
    setup_django(database_url=database_url, redis_url=redis_url)
    import django.conf
    from django.db import connections

    dbname = django.conf.settings.DATABASES["default"]["NAME"]
    made = time.perf_counter()
    users = prepare(args.pages)
    connections.close_all()  # this process holds no database connection while it measures
    print(
        f"{len(users)} users with a signed-in session each ({time.perf_counter() - made:.1f} s); database {dbname}, "
        f"Redis {redis_url}; open files {soft} → {hard}"
    )
    redis_server = Redis(redis_url)
    live_figures = asyncio.run(live_phase(args, users, dbname, redis_server))
    poll_figures = None if args.skip_polling else asyncio.run(polling_phase(args, users, dbname, redis_server))
    report(args, live_figures, poll_figures, redis_server)
    print(f"\n{load_report(load)}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
