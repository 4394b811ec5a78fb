"""The sandbox supplier kept warm: a process that has imported the CLI once and forks one child per command.

    python -m bookings.sandbox.zygote <control fd>

Started by the platform client (`bookings.platform`, when PLATFORM_CLI is not set), never by hand. A command then
costs a fork instead of a new Python that imports the CLI again. The client hands over, on the control socket (a
SOCK_SEQPACKET pair), one end of a fresh socket pair per command; the zygote forks a child for it and goes back to
waiting. The child, on its socket:

    → its pid (4 bytes), then waits for the request: {"args": [...], "env": {...}, "cwd": "..."} (length, JSON)
    ← (exit code, stdout, stderr) of `cli.run_captured(args)` (lengths, bytes)

and exits. The child is what `python -m bookings.sandbox <args>` would be: its os.environ is exactly the given
environment (and the time zone read again from it), its working directory the given one, stdin /dev/null, a session
of its own. The client kills it by its pid at the timeout.

Nothing outlives the client: when the client process ends, however it ends, the kernel closes its end of the control
socket and the zygote exits on that end of file; every child has a parent-death signal on the zygote, so it dies
with it. Children are reaped by the kernel (SIGCHLD ignored): no zombies.
"""

import ctypes
import ctypes.util
import json
import os
import signal
import socket
import struct
import sys
import time

from bookings.sandbox import cli, inventory, money, orders, store, supplier  # noqa: F401 - imported once here, for every child

# The frames on a command's socket (the client, bookings.platform, reads and writes the same).
PID = struct.Struct("!I")  # the child's pid
LENGTH = struct.Struct("!I")  # the request's length, then the request
RESULT = struct.Struct("!iII")  # exit code, stdout's and stderr's lengths, then stdout and stderr
PR_SET_PDEATHSIG = 1


def read_exactly(conn: socket.socket, size: int, deadline: float | None = None) -> bytes | None:
    """Exactly `size` bytes of a frame, None at end of file; with a `deadline` (time.monotonic), TimeoutError once it
    passes (the client's side, `bookings.platform`, reads the same frames)."""
    data = bytearray()
    while len(data) < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            conn.settimeout(remaining)
        chunk = conn.recv(min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _child(conn: socket.socket, zygote: int, prctl) -> None:
    """One command, in the forked child; returns to be ended by os._exit."""
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != zygote:  # the zygote died between the fork and the prctl: nothing would kill us later
        return
    os.setsid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    conn.sendall(PID.pack(os.getpid()))
    header = read_exactly(conn, LENGTH.size)
    body = header and read_exactly(conn, LENGTH.unpack(header)[0])
    if not body:  # the client gave up before sending the command: nothing to run
        return
    request = json.loads(body)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()  # the zygote's TZ, if it had one, must not stand in for the command's (none: the system's zone)
    code, out, err = cli.run_captured(request["args"])
    conn.sendall(RESULT.pack(code, len(out), len(err)) + out + err)


def main(control_fd: int) -> None:
    control = socket.socket(fileno=control_fd)
    prctl = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl  # Linux's, as the client's
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    cli._parser()  # the command line's parser, built once here for every child
    zygote = os.getpid()
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1, 1)
        if not message and not fds:
            return  # end of file: the client process is gone
        for fd in fds:
            conn = socket.socket(fileno=fd)
            try:
                pid = os.fork()
            except OSError:  # the client reads end of file before a pid: the command never started
                conn.close()
                continue
            if pid == 0:
                try:
                    control.close()
                    _child(conn, zygote, prctl)
                finally:
                    os._exit(0)
            conn.close()


if __name__ == "__main__":
    main(int(sys.argv[1]))
