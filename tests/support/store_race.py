"""A child process that opens the sandbox supplier's store at the same moment as its siblings (spawned, so it
shares no lock or thread with the test process)."""

from pathlib import Path


def open_store(store_file: str, barrier, answers) -> None:
    from bookings.sandbox import store

    barrier.wait(timeout=60)  # every process opens the brand-new store at the same moment
    try:
        with store.transaction(Path(store_file)) as conn:
            conn.execute("SELECT count(*) FROM orders").fetchone()
        answers.put("ok")
    except Exception as exc:  # noqa: BLE001 - the finding is that it failed at all
        answers.put(repr(exc))
