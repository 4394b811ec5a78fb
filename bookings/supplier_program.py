"""Running the supplier platform's command-line program: the one place that starts it (`run_program`).

The program is `PLATFORM_CLI` (default: the sandbox supplier, `python -m bookings.sandbox`). It is run from an argv
list, never through a shell, with a minimal environment (`child_environment`); the user's platform key goes into that
environment as `SUPPLIER_API_KEY` and nowhere else. A configured program runs as a process of its own per command
(`_spawn`). The sandbox runs warm (PLATFORM_WARM, on by default): in a child forked from a process that has already
imported its CLI (`_WarmSandbox`, `bookings.sandbox.zygote`), with the same argv, the same environment as its
os.environ, the same exit code, stdout and stderr; a command then costs a fork instead of a Python start-up. The
program dies with the process that started it (a parent-death signal; a warm child dies with its zygote, which ends
when the process that asked does) and is killed at its timeout. What a command means, its answers and its records
are `bookings.platform`'s.
"""

import contextlib
import ctypes
import ctypes.util
import json
import os
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

from bookings import conf
from bookings.sandbox import zygote
from core import clock
from core.tracing import child_trace_environment

REDACTED = "[redacted]"


def cli_prefix() -> list[str]:
    configured = conf.platform_cli()
    return shlex.split(configured) if configured else [sys.executable, "-m", "bookings.sandbox"]


def _base_environment() -> dict[str, str]:
    """What any program gets, whoever it runs for: a locale, the PATH, HOME and PYTHONPATH, and a test run's clock
    (core/clock.py); nothing else."""
    env = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", os.defpath)}
    for name in ("HOME", "PYTHONPATH", clock.VARIABLE):
        if os.environ.get(name):
            env[name] = os.environ[name]
    return env


def child_environment(api_key: str) -> dict[str, str]:
    """A minimal environment for the program: nothing of the site's secrets, the user's key, and the trace of the
    turn or task that runs it (`TRIPDESK_TRACE_ID`, `TRACEPARENT`; core.tracing)."""
    env = _base_environment()
    env.update({k: v for k, v in os.environ.items() if k.startswith("SANDBOX_SUPPLIER_")})
    env.update(child_trace_environment())
    env["SUPPLIER_API_KEY"] = api_key
    return env


def scrub(text: str, api_key: str) -> str:
    return text.replace(api_key, REDACTED) if api_key else text


PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True) if sys.platform == "linux" else None
# Resolved once here, so the child between fork and exec only calls a ready C function (no lookup, no import).
_PRCTL = _LIBC.prctl if _LIBC is not None else None


def _die_with_parent(parent_pid: int):
    """A preexec_fn: the kernel SIGKILLs the child when the thread that forked it exits (PR_SET_PDEATHSIG).

    The parent may already have died between fork and prctl: then the child is an orphan and kills itself."""

    def preexec() -> None:
        _PRCTL(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _spawn(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, bytes, bytes]:
    """Run the program; it can neither outlive this process nor its timeout.

    - In a session (process group) of its own, so at the timeout, or when this worker is stopped, the whole group
      (a wrapper script's children too) is SIGKILLed.
    - With a parent-death signal (Linux): when this process is SIGKILLed (a worker killed, its hard time limit), the
      kernel SIGKILLs the program too, instead of leaving it to refund or book later, after a new worker has taken
      over. The signal fires when the forking *thread* exits: here that thread is the one that waits for the child
      (Popen and communicate below, in this one function), so it exits only after the child is gone.
    """
    proc = subprocess.Popen(  # noqa: S603 - argv list, no shell, program from settings
        argv,
        env=env,
        cwd=conf.base_dir(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_die_with_parent(os.getpid()) if _PRCTL is not None else None,  # noqa: PLW1509 - see above
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except BaseException:  # the timeout, or this worker being stopped: leave nothing running behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()
        raise
    return proc.returncode, stdout, stderr


# The exit code reported for a warm child that ended without an answer (killed from outside): no code to read.
WARM_CHILD_LOST = -1


class _WarmSandbox:
    """The sandbox CLI run in children forked from a warm process (`bookings.sandbox.zygote`) that has imported it
    once, instead of a new Python per command: the same argv, environment, answers and exit codes as `_spawn`.

    Thread-safe: one zygote per process, started on first use (or at a worker's start, `platform_warm_up`) and
    again if it died; every command has a socket pair of its own. A command is killed at its timeout (by pidfd,
    so never another process that took its pid), and when this process dies the zygote reads end of file and
    exits, its children with it (their parent-death signal)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zygote: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        os.register_at_fork(after_in_child=self._forget_after_fork)

    def start(self) -> None:
        with self._lock:
            self._started()

    def _started(self) -> socket.socket:
        """The control socket of a live zygote (called under the lock)."""
        if self._control is not None and self._zygote is not None and self._zygote.poll() is None:
            return self._control
        self._drop_control()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._zygote = subprocess.Popen(  # noqa: S603 - argv list, no shell, this interpreter
                [sys.executable, "-m", "bookings.sandbox.zygote", str(theirs.fileno())],
                env=_base_environment(),
                cwd=conf.base_dir(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # a terminal's signals are for this process; the zygote ends with it
            )
        self._control = ours
        return ours

    def _drop_control(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None

    def _forget_after_fork(self) -> None:
        """In a child forked from this process: the zygote is the parent's. Close our copy of its control socket, so
        it still reads end of file when the parent ends, and start one of our own when needed."""
        self._lock = threading.Lock()
        self._drop_control()
        self._zygote = None

    def run(self, args: list[str], env: dict[str, str], timeout: float) -> tuple[int, bytes, bytes]:
        """`python -m bookings.sandbox <args>` in a warm child: (exit code, stdout, stderr).

        Raises subprocess.TimeoutExpired after `timeout` (the child killed and gone), OSError if no child starts."""
        deadline = time.monotonic() + timeout
        request = json.dumps({"args": args, "env": env, "cwd": str(conf.base_dir())}).encode()
        try:
            for _ in range(2):  # a zygote that died before forking ran nothing: once more, with a new one
                child = self._fork_child(deadline)
                if child is not None:
                    return self._converse(*child, request, deadline)
        except TimeoutError:
            raise subprocess.TimeoutExpired(args, timeout) from None
        raise OSError(0, "the warm sandbox started no child")

    def _fork_child(self, deadline: float) -> tuple[socket.socket, int] | None:
        """A forked child waiting for its command, with a pidfd on it; None if the zygote was gone."""
        conn, theirs = socket.socketpair()
        try:
            with theirs, self._lock:
                control = self._started()
                try:
                    socket.send_fds(control, [b"c"], [theirs.fileno()])
                except OSError:  # the zygote is gone: the next attempt starts another
                    self._drop_control()
                    conn.close()
                    return None
            head = zygote.read_exactly(conn, zygote.PID.size, deadline)
            pidfd = None
            if head is not None:
                with contextlib.suppress(ProcessLookupError):  # died before we looked: it ran nothing
                    pidfd = os.pidfd_open(zygote.PID.unpack(head)[0])
        except BaseException:
            conn.close()
            raise
        if pidfd is None:
            conn.close()
            return None
        return conn, pidfd

    @staticmethod
    def _converse(conn: socket.socket, pidfd: int, request: bytes, deadline: float) -> tuple[int, bytes, bytes]:
        try:
            with conn:
                try:
                    conn.settimeout(max(deadline - time.monotonic(), 0.001))
                    conn.sendall(zygote.LENGTH.pack(len(request)) + request)
                    head = zygote.read_exactly(conn, zygote.RESULT.size, deadline)
                    if head is not None:
                        code, out_size, err_size = zygote.RESULT.unpack(head)
                        body = zygote.read_exactly(conn, out_size + err_size, deadline)
                        if body is not None:
                            return code, body[:out_size], body[out_size:]
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return WARM_CHILD_LOST, b"", b"the warm sandbox child ended without an answer"
        finally:
            # The timeout, this worker being stopped, or the answer read (then it only has left to exit): the child
            # is killed and gone before we return, as `_spawn` leaves nothing running behind.
            try:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                select.select([pidfd], [], [])  # readable once the process has ended
            finally:
                os.close(pidfd)


_warm_sandbox = _WarmSandbox()


def _runs_warm() -> bool:
    """The sandbox runs warm (PLATFORM_WARM, on Linux); a configured PLATFORM_CLI, a real supplier's program,
    always runs as its own process."""
    return conf.platform_warm() and not conf.platform_cli() and sys.platform == "linux"


def platform_warm_up() -> None:
    """Start the warm sandbox now (a worker process does at its start), so the first command does not wait for it."""
    if _runs_warm():
        _warm_sandbox.start()


def run_program(args: list[str], env: dict[str, str], timeout: float) -> tuple[int, bytes, bytes]:
    """The platform program with `args` after its name: (exit code, stdout, stderr)."""
    if _runs_warm():
        return _warm_sandbox.run(args, env, timeout)
    return _spawn([*cli_prefix(), *args], env, timeout)
