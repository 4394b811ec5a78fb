"""One clock for every process of a test run: the test process, the Celery workers and the sandbox supplier it starts.

The test suite pins its own clock (time-machine) and sets `TRIPDESK_CLOCK_OFFSET`, the seconds between that clock
and the machine's; every process it starts inherits the variable and, when it starts, moves its own clock by the same
amount (`start_from_environment`, called by Django's config package; the sandbox supplier reads `now()`), so a
booking's date, a payment deadline and a ticket's age read the same in all of them on any day of the year. Nothing is
imported from Django: the sandbox supplier uses it too. Unset (always, outside tests) it does nothing; production
refuses it.
"""

import datetime as dt
import os
import time

VARIABLE = "TRIPDESK_CLOCK_OFFSET"

_started = False


def offset() -> float:
    """The seconds `TRIPDESK_CLOCK_OFFSET` moves this process's clock by (0 outside a test run)."""
    return float(os.environ.get(VARIABLE, "").strip() or 0)


def now() -> dt.datetime:
    """The current moment in the local zone, moved by the offset: for a process that reads the clock in one place
    (the sandbox supplier) and would otherwise pay time-machine's import (~0.1 s) on every command."""
    moment = dt.datetime.now().astimezone()
    return moment if _started else moment + dt.timedelta(seconds=offset())  # a travelling process is moved already


def start_from_environment() -> None:
    """Move this process's clock by `TRIPDESK_CLOCK_OFFSET` seconds, ticking from there; once per process."""
    global _started
    shift = offset()
    if not shift or _started:
        return
    if os.environ.get("TRIPDESK_PRODUCTION"):
        raise RuntimeError(f"{VARIABLE} is set: it moves the clock for tests and is refused in production")
    import time_machine  # only where the variable is set: a test run

    time_machine.travel(time.time() + shift, tick=True).start()
    _started = True


def pin(instant: float) -> None:
    """Pin this process to `instant` (a Unix time, ticking from there) and every process it starts after it."""
    global _started
    import time_machine

    time_machine.travel(instant, tick=True).start()
    # The offset read once travelling, from this clock and the machine's at the same moment: read before the start,
    # it would put every process started later ahead of this one by however long the start took (under load, long
    # enough to put a supplier's payment deadline past one this process computes).
    os.environ[VARIABLE] = repr(time.time() - time_machine.escape_hatch.time.time())
    _started = True
