"""After-sale execution: from an approver's decision to an EXECUTED ticket, through a real Celery worker.

    .venv/bin/python bench/aftersale.py [--n 50]

(a) With a worker: starts `celery -A config worker -Q aftersale,default,platform -c 2` as a subprocess with this
    run's environment (the bench PostgreSQL database, Redis DB 14 as broker, a supplier sandbox store of its own),
    creates N PENDING refund tickets on N fresh orders, approves them one by one with `ticket_decide` and times
    each from the call to EXECUTED seen in the database (polled every 5 ms).
(b) Baseline, same run, same kind of tickets: `ticket_decide` with the enqueue switched off, then `ticket_execute`
    called directly in this process. The ratio (a)/(b) is what the queue adds: broker round trip, worker pickup
    and the polling granularity. (a) and (b) alternate ticket by ticket, so drift of a shared machine hits both.

Both paths run the same code: claim, reconciliation, the supplier's `order refund` (a subprocess), one transaction
for order and ticket. At the end it checks every order was refunded exactly once on the supplier, and deletes the
run's tickets and orders (unless --keep).
"""

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, setup_django, summary  # noqa: E402

POLL_SECONDS = 0.005
WAIT_SECONDS = 60


def start_worker(run: str) -> subprocess.Popen:
    from config.celery import app

    log = open(ROOT / "var" / "bench-aftersale-worker.log", "ab")  # noqa: SIM115 - the worker writes it until the end
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "aftersale,default,platform",
            "-c",
            "2",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"bench-{run}@%h",
            "-l",
            "WARNING",
        ],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the worker exited while starting (see {log.name})")
        if app.control.ping(timeout=0.5):
            return proc
    proc.terminate()
    raise SystemExit("the worker did not answer a ping within 30 s")


def stop_worker(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def purge_queues() -> None:
    """Leftovers of an interrupted run would be executed by our worker and skew the figures."""
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("aftersale", "default", "platform"):
            conn.default_channel.queue_purge(queue)


def make_tickets(run: str, label: str, count: int, traveller) -> list[int]:
    """`count` PENDING refund tickets, each on a fresh paid order of the traveller."""
    from django.utils import timezone

    from aftersale.models import BizOrder, HitlTicket, OrderCategory, OrderStatus, TicketAction, TicketKind

    ids = []
    for i in range(count):
        order = BizOrder.objects.create(
            order_id=f"ORD-B{run}{label}{i:04d}",
            user=traveller,
            category=OrderCategory.GOODS,
            items=[{"name": "登山杖", "qty": 1, "price": 129 + i}],
            amount=Decimal(129 + i),
            status=OrderStatus.PAID,
            paid_at=timezone.now() - dt.timedelta(days=1),
        )
        ticket = HitlTicket.objects.create(
            ticket_no=f"TB{run}{label}{i:04d}",
            kind=TicketKind.WORKFLOW,
            idempotency_key=f"wfa:{TicketAction.REFUND}:{order.order_id}",
            action=TicketAction.REFUND,
            requested_by=traveller,
            order=order,
            entity=order.order_id,
            amount=order.amount,
            deadline=timezone.now() + dt.timedelta(hours=48),
        )
        ids.append(ticket.pk)
    return ids


def status_of(ticket_id: int) -> str:
    from aftersale.models import HitlTicket

    return HitlTicket.objects.filter(pk=ticket_id).values_list("status", flat=True).get()


def approve_and_wait(ticket_id: int, approver) -> float:
    """Approve; the worker executes. Seconds from the call to EXECUTED in the database."""
    from aftersale.models import TicketStatus
    from aftersale.services.decisions import ticket_decide

    started = time.perf_counter()
    ticket_decide(ticket_id=ticket_id, approver=approver, approve=True, reason="bench")
    deadline = started + WAIT_SECONDS
    while (status := status_of(ticket_id)) != TicketStatus.EXECUTED:
        if status == TicketStatus.FAILED or time.perf_counter() > deadline:
            raise SystemExit(f"ticket {ticket_id} ended {status}, not EXECUTED")
        time.sleep(POLL_SECONDS)
    return time.perf_counter() - started


def approve_and_execute_here(ticket_id: int, approver) -> float:
    """Approve without enqueueing, then execute in this process. Seconds from the call to EXECUTED."""
    from aftersale.models import TicketStatus
    from aftersale.services.decisions import ticket_decide
    from aftersale.services.execution import ticket_execute

    started = time.perf_counter()
    ticket_decide(ticket_id=ticket_id, approver=approver, approve=True, reason="bench")
    status = ticket_execute(ticket_id=ticket_id).status
    elapsed = time.perf_counter() - started
    if status != TicketStatus.EXECUTED:
        raise SystemExit(f"ticket {ticket_id} ended {status}, not EXECUTED")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=50, help="tickets per measurement (default 50)")
    parser.add_argument("--keep", action="store_true", help="keep the run's orders and tickets in the bench database")
    args = parser.parse_args()

    store_dir = tempfile.TemporaryDirectory(prefix="tripdesk-bench-aftersale-")
    os.environ["SANDBOX_SUPPLIER_STORE"] = str(Path(store_dir.name) / "supplier.sqlite3")
    os.environ.pop("SANDBOX_SUPPLIER_FAULTS", None)
    os.environ.setdefault("LOG_FORMAT", "text")
    setup_django()  # sets DATABASE_URL and REDIS_URL in os.environ: the worker inherits them

    from django.conf import settings
    from django.contrib.auth import get_user_model

    import aftersale.services.decisions as decisions
    from aftersale.models import BizOrder, HitlTicket
    from bookings.accounts import supplier_account_ensure
    from bookings.supplier_program import child_environment, cli_prefix
    from config.celery import app

    if app.conf.task_always_eager:
        raise SystemExit("Celery is eager: set REDIS_URL (bench/common.py does) so a worker is used")
    run = f"{int(time.time()) % 10**8:08d}"
    users = get_user_model()
    approver = users.objects.get(username="approver")
    traveller, _ = users.objects.get_or_create(username="bench-traveller")
    supplier_account_ensure(user=traveller)  # the key exists before the clock starts

    (ROOT / "var").mkdir(exist_ok=True)
    purge_queues()
    with_worker = make_tickets(run, "W", args.n + 1, traveller)
    in_process = make_tickets(run, "P", args.n + 1, traveller)
    enqueue = decisions.enqueue_execution

    def here(ticket_id: int) -> float:
        decisions.enqueue_execution = lambda ticket_id, retry=False: None  # (b) executes here, not on a worker
        try:
            return approve_and_execute_here(ticket_id, approver)
        finally:
            decisions.enqueue_execution = enqueue

    worker = start_worker(run)
    try:
        approve_and_wait(with_worker[0], approver)  # warm-up: the worker's first task, connections
        here(in_process[0])
        # Alternating the two keeps drift on a shared machine (other load, caches) out of the ratio.
        queued, direct = [], []
        for queued_id, direct_id in zip(with_worker[1:], in_process[1:], strict=True):
            queued.append(approve_and_wait(queued_id, approver))
            direct.append(here(direct_id))
    finally:
        stop_worker(worker)

    stats = subprocess.run(
        [*cli_prefix(), "stats"], env=child_environment("sbx_stats"), cwd=ROOT, capture_output=True, text=True
    ).stdout
    import json

    by_order = json.loads(stats)["refunds"]["byOrderId"]
    expected = {
        order_id
        for order_id in BizOrder.objects.filter(order_id__startswith=f"ORD-B{run}").values_list("order_id", flat=True)
    }
    once = set(by_order) == expected and set(by_order.values()) == {1}

    db = settings.DATABASES["default"]
    print(
        f"aftersale: {args.n} tickets each way (+1 warm-up), {db['ENGINE'].rsplit('.', 1)[-1]} {db['NAME']}, "
        f"broker {settings.CELERY_BROKER_URL}, worker -c 2, poll {POLL_SECONDS * 1000:g} ms, "
        f"supplier {' '.join(cli_prefix())}"
    )
    print(summary("(b) baseline in-process", direct))
    print(summary("(a) approve -> worker -> EXECUTED", queued))
    print(
        f"ratio (a)/(b): p50 {percentile(queued, 50) / percentile(direct, 50):.2f}x, "
        f"p95 {percentile(queued, 95) / percentile(direct, 95):.2f}x; "
        f"queueing adds {(percentile(queued, 50) - percentile(direct, 50)) * 1000:.1f} ms at p50"
    )
    print(f"supplier refunds: {sum(by_order.values())} for {len(expected)} orders, exactly one each: {once}")

    if not args.keep:
        HitlTicket.objects.filter(ticket_no__startswith=f"TB{run}").delete()
        BizOrder.objects.filter(order_id__startswith=f"ORD-B{run}").delete()
    store_dir.cleanup()
    if not once:
        raise SystemExit("some order was not refunded exactly once")


if __name__ == "__main__":
    main()
