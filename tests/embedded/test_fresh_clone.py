"""The README's run command on a fresh clone with nothing configured: SQLite, tasks in-process, the `rules` model.

What a new user does first: clone, `./scripts/run.sh`, open the printed address, sign in with a printed login, book in
the chat and cancel; then Ctrl-C. The clone is of this repository's HEAD (what is committed), in a temporary folder,
with every service variable removed from the environment; `run.sh` installs its own `.venv` there. It takes minutes
(the install), so it is not part of the suite: `.ci/run` runs it as its own step (`pytest -m fresh_clone`).
"""

import datetime as dt
import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import zoneinfo
from pathlib import Path

import pytest
import time_machine

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 900  # seconds: a cold install of requirements.txt on a loaded machine
STOP_TIMEOUT = 60
# The variables that configure a service or the model: none of them is set for a first run.
CONFIGURING = re.compile(
    r"^(DATABASE_|REDIS_|CELERY_|DJANGO_|TRIPDESK_|ASSISTANT_|PLATFORM_|SANDBOX_|LOG_|PROMETHEUS_|VIRTUAL_ENV)"
)

pytestmark = pytest.mark.fresh_clone


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nothing_configured(port: int) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not CONFIGURING.match(name)}
    # The test command puts its own .venv first on PATH: a new user's shell has no such thing.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    env["TRIPDESK_PORT"] = str(port)
    return env


class Output:
    """run.sh's output, read as it comes (a thread), so the test can wait for a line with a deadline."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        self._process = process
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(re.search(pattern, line) for line in self.lines):
                return
            if self._process.poll() is not None:
                self._thread.join(5)
                pytest.fail(f"run.sh exited ({self._process.returncode}) before {pattern!r}:\n{self.tail()}")
            time.sleep(0.5)
        pytest.fail(f"run.sh did not print {pattern!r} within {timeout} s:\n{self.tail()}")

    def tail(self, n: int = 40) -> str:
        return "\n".join(self.lines[-n:])


class Browser:
    """A signed-in client of the site over HTTP: the session cookie and the CSRF token, as a browser keeps them."""

    def __init__(self, base: str):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def csrf(self) -> str:
        return next(c.value for c in self.cookies if c.name == "csrftoken")

    def get(self, path: str) -> tuple[int, str]:
        with self.opener.open(self.base + path, timeout=60) as response:
            return response.status, response.read().decode()

    def log_in(self, username: str, password: str) -> None:
        self.get("/accounts/login/")
        form = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": self.csrf()}
        ).encode()
        with self.opener.open(self.base + "/accounts/login/", data=form, timeout=60) as response:
            assert "/accounts/login/" not in response.url, "the demo login was refused"

    def say(self, message: str, session_id: str | None = None) -> dict:
        body = json.dumps({"message": message, "session_id": session_id}).encode()
        request = urllib.request.Request(  # noqa: S310 - the site's own http URL
            self.base + "/api/v1/assistant/chat",
            data=body,
            headers={"Content-Type": "application/json", "X-CSRFToken": self.csrf()},
        )
        with self.opener.open(request, timeout=60) as response:
            return json.loads(response.read())


def _card(answer: dict, kind: str) -> dict:
    found = [card for card in answer["cards"] if card.get("type") == kind]
    assert len(found) == 1, f"expected one {kind} card: {answer['outcome']} {answer['reply']!r}"
    return found[0]


def _bookings(database: Path) -> list[tuple]:
    with sqlite3.connect(database) as conn:
        return conn.execute(
            "SELECT b.booking_id, b.biz_type, b.status FROM bookings_bookingrecord b "
            "JOIN auth_user u ON u.id = b.user_id WHERE u.username = 'alice' ORDER BY b.id"
        ).fetchall()


def test_a_fresh_clone_runs_with_nothing_configured_books_cancels_and_stops(tmp_path):
    clone = tmp_path / "tripdesk"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    port = _free_port()
    run = subprocess.Popen(
        ["./scripts/run.sh"],
        cwd=clone,
        env=_nothing_configured(port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job: Ctrl-C reaches all of it
    )
    output = Output(run)
    try:
        output.wait_for(r"Press Ctrl-C to stop", START_TIMEOUT)
        printed = "\n".join(output.lines)
        base = f"http://127.0.0.1:{port}"
        assert f"Chat:     {base}/" in printed
        assert "Tasks:    in-process" in printed  # nothing configured: no broker, no worker
        password = re.search(r"^\s+alice\s+(\S+)\s+traveller", printed, re.M).group(1)  # the printed login

        site = Browser(base)
        assert site.get("/healthz")[0] == 200
        site.log_in("alice", password)
        before = _bookings(clone / "db.sqlite3")

        # A train two weeks ahead of the site's today: the clone runs on the machine's clock, not the suite's.
        now = time_machine.escape_hatch.datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Shanghai"))
        day = now.date() + dt.timedelta(days=14)
        asked = site.say(f"订一张{day.month}月{day.day}号北京到天津的高铁票，乘客李四 13900001111")
        _card(asked, "confirmation")
        assert _bookings(clone / "db.sqlite3") == before  # nothing before the traveller confirms
        booked = site.say("确认", asked["session_id"])
        card = _card(booked, "booking")
        assert card["status"] == "PENDING_PAYMENT"
        assert _bookings(clone / "db.sqlite3") == [*before, (card["booking_id"], "TRAIN", "PENDING_PAYMENT")]

        asked = site.say(f"取消预订 {card['booking_id']}", booked["session_id"])
        _card(asked, "confirmation")
        done = site.say("确认", asked["session_id"])
        assert _card(done, "booking")["status"] == "CANCELLED"
        assert _bookings(clone / "db.sqlite3") == [*before, (card["booking_id"], "TRAIN", "CANCELLED")]
        assert card["booking_id"] in site.get("/bookings/")[1]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGINT)  # Ctrl-C
        try:
            code = run.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            pytest.fail(f"run.sh did not stop within {STOP_TIMEOUT} s of Ctrl-C:\n{output.tail()}")
    assert code in (0, 130), f"run.sh stopped with {code}:\n{output.tail()}"
    with pytest.raises(OSError):  # nothing serves on the port any more
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
