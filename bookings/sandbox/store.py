"""The sandbox supplier's own store: a SQLite file, safe for many processes at once.

Every command runs in one `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so two processes never
read-then-write past each other) with a busy timeout, in WAL mode so `stats` reads do not wait for writers.

Idempotency keys (`requestId`) live in `idempotent_requests`, unique per caller's key: a command that changes
something looks its key up and records its answer inside that one write transaction, so two processes sending the
same key, however they interleave, make one effect and both get the first answer.

A store written by an older version is brought up to date on first use, in that first write transaction: missing
tables and indexes are created, the order columns added since version 3 and the refund columns added in version 6
(`order_total`: what a merchant order was paid, recorded with its first refund; NULL on older refunds) are added, orders without a payment deadline get
`created_at` + the default 30 minutes (not `SANDBOX_SUPPLIER_PAY_MINUTES`: an upgrade must not depend on which
process happens to open the store first), and cancelled ones get cancelledBy "customer" (nothing else cancelled then).
"""

import datetime as dt
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEFAULT_STORE = Path(__file__).resolve().parent.parent.parent / "var" / "sandbox-supplier.sqlite3"
SCHEMA_VERSION = 6
SCHEMA = [
    """CREATE TABLE IF NOT EXISTS orders (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        order_no TEXT NOT NULL UNIQUE,
        product TEXT NOT NULL,
        key_hash TEXT NOT NULL,
        status TEXT NOT NULL,
        total_price REAL NOT NULL,
        details TEXT NOT NULL,
        contact TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS orders_key ON orders (key_hash)",
    """CREATE TABLE IF NOT EXISTS payments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        payment_no TEXT NOT NULL UNIQUE,
        order_no TEXT NOT NULL,
        amount REAL NOT NULL,
        request_id TEXT,
        key_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    # An order is paid once: a second payment fails its transaction, whatever bug let it get that far.
    "CREATE UNIQUE INDEX IF NOT EXISTS payments_order ON payments (order_no)",
    """CREATE TABLE IF NOT EXISTS refunds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        refund_no TEXT NOT NULL UNIQUE,
        order_id TEXT NOT NULL,
        amount REAL NOT NULL,
        request_id TEXT,
        key_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    # A merchant order's refunds are summed against what it was paid before each new one.
    "CREATE INDEX IF NOT EXISTS refunds_order ON refunds (order_id, key_hash)",
    # Every cancelOrder the supplier processed (a repeat of an already cancelled order too): tests count them.
    """CREATE TABLE IF NOT EXISTS cancellations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        order_no TEXT NOT NULL,
        already_cancelled INTEGER NOT NULL,
        created_at TEXT NOT NULL
    )""",
    # The first answer to each idempotency key (requestId) of a caller: a repeat is answered from here.
    """CREATE TABLE IF NOT EXISTS idempotent_requests (
        key_hash TEXT NOT NULL,
        request_id TEXT NOT NULL,
        command TEXT NOT NULL,
        arguments_hash TEXT NOT NULL,
        answer TEXT NOT NULL,
        replays INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (key_hash, request_id)
    )""",
    # Every command a caller's key ran, with the trace it was run under (TRIPDESK_TRACE_ID, TRACEPARENT): the caller's
    # trace id reaches the supplier, and tests can see which turn ran which command.
    """CREATE TABLE IF NOT EXISTS calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        command TEXT NOT NULL,
        trace_id TEXT NOT NULL,
        traceparent TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    # What was searched recently, so saveOrder can find a flight, train or hotel by its number alone.
    """CREATE TABLE IF NOT EXISTS searched (
        kind TEXT NOT NULL,
        item_no TEXT NOT NULL,
        day TEXT NOT NULL,
        origin TEXT NOT NULL,
        destination TEXT NOT NULL,
        searched_at TEXT NOT NULL,
        PRIMARY KEY (kind, item_no, day)
    )""",
]
# Order columns added after version 3, added by ALTER TABLE to every store (a new one too), so an upgraded store and
# a new one end up the same. A schedule change is JSON; the times are ISO 8601 with an offset, like created_at.
ORDER_COLUMNS_ADDED = {"pay_deadline": "TEXT", "paid_at": "TEXT", "cancelled_by": "TEXT", "schedule_change": "TEXT"}
# Refund columns added in version 6, the same way: the total a merchant order (ORD-…) was paid, as its refund said.
REFUND_COLUMNS_ADDED = {"order_total": "REAL"}
BUSY_TIMEOUT_SECONDS = 30
DEFAULT_PAY_MINUTES = 30  # how long a new order may be paid, unless SANDBOX_SUPPLIER_PAY_MINUTES says otherwise


def pay_deadline(created: dt.datetime, minutes: float) -> str:
    """The payment deadline of an order created at `created`, in the style of its created_at."""
    return (created + dt.timedelta(minutes=minutes)).isoformat(timespec="seconds")


def store_path() -> Path:
    raw = os.environ.get("SANDBOX_SUPPLIER_STORE", "").strip()
    return Path(raw) if raw else DEFAULT_STORE


@contextmanager
def transaction(path: Path | None = None) -> Iterator[sqlite3.Connection]:
    """One write transaction on the store, created (folder, file, tables) on first use."""
    path = path or store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")
        _wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                _upgrade(conn)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.close()


def _upgrade(conn: sqlite3.Connection) -> None:
    """Bring a new or older store to this version's tables and columns, inside the first write transaction."""
    for statement in SCHEMA:
        conn.execute(statement)
    for table, added in (("orders", ORDER_COLUMNS_ADDED), ("refunds", REFUND_COLUMNS_ADDED)):
        present = {row["name"] for row in conn.execute(f"PRAGMA table_info({table})")}
        for column, kind in added.items():
            if column not in present:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    undated = conn.execute("SELECT id, created_at FROM orders WHERE pay_deadline IS NULL").fetchall()
    conn.executemany(
        "UPDATE orders SET pay_deadline = ? WHERE id = ?",
        [
            (pay_deadline(dt.datetime.fromisoformat(row["created_at"]), DEFAULT_PAY_MINUTES), row["id"])
            for row in undated
        ],
    )
    conn.execute("UPDATE orders SET cancelled_by = 'customer' WHERE status = 'CANCELLED' AND cancelled_by IS NULL")


def _wal(conn: sqlite3.Connection) -> None:
    """Switch a fresh store to WAL mode. Two processes opening a brand-new store at once (two workers' first
    supplier calls) race for this switch, and SQLite answers the loser "database is locked" at once, without its
    busy handler: the winner is making the same switch, so the loser waits for it instead of failing the call."""
    for _ in range(int(BUSY_TIMEOUT_SECONDS * 20)):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            time.sleep(0.05)
    raise sqlite3.OperationalError("the supplier store stayed locked while switching to WAL mode")


def new_number(conn: sqlite3.Connection, table: str, column: str, prefix: str, today: str) -> str:
    """A fresh number like FL261205483920: prefix, yymmdd, six random digits, unique in the table."""
    while True:
        number = f"{prefix}{today}{secrets.randbelow(10**6):06d}"
        if conn.execute(f"SELECT 1 FROM {table} WHERE {column} = ?", (number,)).fetchone() is None:  # noqa: S608 - fixed names
            return number


def stats(conn: sqlite3.Connection) -> dict:
    """Counts for tests and benchmarks: orders by status (as stored: an overdue order counts as EXPIRED once a command
    loaded it) and product, refunds by order, cancels and payments by order, and idempotency keys seen and repeats
    answered from them."""
    by_status = dict(conn.execute("SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status").fetchall())
    by_product = dict(conn.execute("SELECT product, COUNT(*) FROM orders GROUP BY product ORDER BY product").fetchall())
    refunds = dict(
        conn.execute("SELECT order_id, COUNT(*) FROM refunds GROUP BY order_id ORDER BY order_id").fetchall()
    )
    cancels = dict(
        conn.execute("SELECT order_no, COUNT(*) FROM cancellations GROUP BY order_no ORDER BY order_no").fetchall()
    )
    payments = dict(
        conn.execute("SELECT order_no, COUNT(*) FROM payments GROUP BY order_no ORDER BY order_no").fetchall()
    )
    replayed = conn.execute("SELECT COUNT(*), COALESCE(SUM(replays), 0) FROM idempotent_requests").fetchone()
    return {
        "idempotency": {"keys": replayed[0], "replays": replayed[1]},
        "orders": {"total": sum(by_status.values()), "byStatus": by_status, "byProduct": by_product},
        "refunds": {"total": sum(refunds.values()), "byOrderId": refunds},
        "cancels": {"total": sum(cancels.values()), "byOrderNo": cancels},
        "payments": {"total": sum(payments.values()), "byOrderNo": payments},
    }


def traces(conn: sqlite3.Connection) -> dict:
    """The commands run under each trace id, in order: `{"byTraceId": {id: [{"command", "traceparent"}, …]},
    "untraced": n}` (commands sent without a trace id)."""
    traced: dict[str, list[dict]] = {}
    for row in conn.execute("SELECT command, trace_id, traceparent FROM calls WHERE trace_id != '' ORDER BY id"):
        traced.setdefault(row["trace_id"], []).append({"command": row["command"], "traceparent": row["traceparent"]})
    untraced = conn.execute("SELECT COUNT(*) FROM calls WHERE trace_id = ''").fetchone()[0]
    return {"byTraceId": traced, "untraced": untraced}


def remember_call(conn: sqlite3.Connection, *, command: str, trace_id: str, traceparent: str, now: str) -> None:
    """Record a command and the trace it came with (empty when the caller sent none)."""
    conn.execute(
        "INSERT INTO calls (command, trace_id, traceparent, created_at) VALUES (?, ?, ?, ?)",
        (command, trace_id[:64], traceparent[:128], now),
    )


def first_answer(
    conn: sqlite3.Connection, *, key_hash: str, request_id: str, command: str, arguments_hash: str
) -> dict | None:
    """The answer already given to this caller's `request_id`, counted as a replay, or None for a new key.

    Raises ValueError when the key was first used for another command or other arguments (the caller
    reused a key by mistake: answering the old result would hide that)."""
    row = conn.execute(
        "SELECT command, arguments_hash, answer FROM idempotent_requests WHERE key_hash = ? AND request_id = ?",
        (key_hash, request_id),
    ).fetchone()
    if row is None:
        return None
    if (row["command"], row["arguments_hash"]) != (command, arguments_hash):
        raise ValueError(f"requestId {request_id!r} was first used for {row['command']} with other arguments")
    conn.execute(
        "UPDATE idempotent_requests SET replays = replays + 1 WHERE key_hash = ? AND request_id = ?",
        (key_hash, request_id),
    )
    return json.loads(row["answer"])


def remember_answer(
    conn: sqlite3.Connection,
    *,
    key_hash: str,
    request_id: str,
    command: str,
    arguments_hash: str,
    answer: dict,
    now: str,
) -> None:
    """Record the first answer to a key, in the transaction that made its effect (the primary key makes a second
    first answer impossible: the transaction would fail and roll its effect back)."""
    conn.execute(
        "INSERT INTO idempotent_requests (key_hash, request_id, command, arguments_hash, answer, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (key_hash, request_id, command, arguments_hash, json.dumps(answer, ensure_ascii=False), now),
    )
