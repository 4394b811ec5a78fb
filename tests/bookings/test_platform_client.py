"""The platform client: the grammar it lets through, the program it runs, the key it hides, the errors it raises.

Calls run the real sandbox supplier in a subprocess, on a store file of the test's own.
"""

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bookings import platform
from bookings.platform import (
    PlatformCommand,
    PlatformError,
    order_number,
    parse_command,
    platform_call,
    platform_run,
    unwrap,
)

ROOT = Path(__file__).resolve().parent.parent.parent
KEY = "sbx_client-test-key-7f3a9c2e11"
OTHER_KEY = "sbx_client-test-other-5b8d0e"
CONTACT = {"name": "张三", "mobile": "13812345678"}
SH_HZ = {"from": "上海", "to": "杭州", "date": "2026-12-05"}


@pytest.fixture(autouse=True)
def sandbox_store(tmp_path, monkeypatch) -> Path:
    """A store of the test's own, passed to the sandbox through the SANDBOX_SUPPLIER_ pass-through."""
    path = tmp_path / "supplier.sqlite3"
    monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(path))
    monkeypatch.delenv("SANDBOX_SUPPLIER_FAULTS", raising=False)
    monkeypatch.delenv("SUPPLIER_API_KEY", raising=False)
    return path


def stats() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "bookings.sandbox", "stats"], cwd=ROOT, capture_output=True, check=True, timeout=30
    )
    return json.loads(done.stdout)


def cmd(product: str, action: str, **arguments) -> PlatformCommand:
    return PlatformCommand(product, action, arguments)


def book_flight(key: str = KEY) -> dict:
    flight = platform_call(cmd("flight", "search", **SH_HZ), api_key=key)["flights"][0]
    return platform_call(
        cmd("flight", "saveOrder", flightNo=flight["flightNo"], date="2026-12-05", contactTourist=CONTACT), api_key=key
    )


@pytest.fixture
def spawned(monkeypatch, settings) -> list[dict]:
    """Records what every platform subprocess was started with (argv, env, pid) and still starts it: the sandbox
    too runs as a process of its own (PLATFORM_WARM off; its warm children: test_platform_warm.py)."""
    settings.PLATFORM_WARM = False
    seen: list[dict] = []
    real_popen = subprocess.Popen

    def recording_popen(argv, **kwargs):
        proc = real_popen(argv, **kwargs)
        seen.append(
            {"argv": list(argv), "env": dict(kwargs.get("env") or {}), "shell": kwargs.get("shell"), "proc": proc}
        )
        return proc

    monkeypatch.setattr(platform.subprocess, "Popen", recording_popen)
    return seen


# --- parse_command -----------------------------------------------------------------------------------------------


def test_a_command_of_the_skill_document_is_read_into_product_action_and_arguments():
    command = parse_command("""supplier call flight search -a '{"from": "上海", "to": "杭州", "date": "2026-12-05"}'""")

    assert command == PlatformCommand("flight", "search", SH_HZ)


def test_a_command_displays_as_the_skill_document_writes_it_and_reads_back_the_same():
    command = cmd("train", "saveOrder", trainNo="G101", contact={"name": "O'Brien 张", "mobile": "13800000000"})

    assert command.display().startswith('supplier call train saveOrder -a \'{"trainNo": "G101"')
    assert parse_command(command.display()) == command
    assert "138****0000" in command.display(masked=True)


def test_shell_characters_inside_the_quoted_json_are_plain_text():
    command = parse_command("""supplier call hotel search -a '{"city": "大理; rm -rf / && echo | cat > x"}'""")

    assert command.arguments["city"] == "大理; rm -rf / && echo | cat > x"


REFUSED = {
    "semicolon": """supplier call flight search -a '{}'; rm -rf /""",
    "and": """supplier call flight search -a '{}' && curl evil.example""",
    "or": """supplier call flight search -a '{}'||reboot""",
    "pipe": """supplier call flight search -a '{}' | sh""",
    "background": """supplier call flight search -a '{}' &""",
    "redirect out": """supplier call flight search -a '{}' > /etc/passwd""",
    "redirect in": """supplier call flight search -a '{}' < /etc/passwd""",
    "command substitution": """supplier call flight search -a '{"from": "$(cat /etc/passwd)"}'""",
    "backticks": """supplier call flight search -a '{"from": "`id`"}'""",
    "rm": """rm -rf / call flight search -a '{}'""",
    "bash": """bash -c 'supplier call flight search -a {}'""",
    "/bin/sh": """/bin/sh -c supplier""",
    "path to supplier": """/usr/bin/supplier call flight search -a '{}'""",
    "extra arguments": """supplier call flight search -a '{}' --debug""",
    "unquoted json": """supplier call flight search -a {"from": "上海"}""",
    "json array": """supplier call flight search -a '["上海", "杭州"]'""",
    "json string": """supplier call flight search -a '"上海"'""",
    "not json": """supplier call flight search -a 'from=上海'""",
    "missing -a": """supplier call flight search '{}'""",
    "unknown product": """supplier call bus search -a '{}'""",
    "unknown action": """supplier call flight deleteAll -a '{}'""",
    "unbalanced quote": """supplier call flight search -a '{}""",
    "empty": "   ",
    "too long": "supplier call flight search -a '" + json.dumps({"x": "y" * 4000}) + "'",
}


@pytest.mark.parametrize("command", REFUSED.values(), ids=REFUSED.keys())
def test_a_command_outside_the_grammar_is_refused_before_anything_runs(command, spawned):
    with pytest.raises(PlatformError) as refused:
        parse_command(command)

    assert refused.value.code == PlatformError.NOT_ALLOWED
    assert refused.value.message
    assert spawned == []


def test_the_grammar_reads_a_refund_and_a_cancel_the_traveller_may_not_run():
    refund = parse_command(
        """supplier call order refund -a '{"orderId": "ORD-001", "amount": 1280.0, "requestId": "T1"}'"""
    )
    cancel = parse_command("""supplier call hotel cancelOrder -a '{"orderId": "HT1"}'""")

    # reading is not permission: bookings.services.command.platform_command_for_traveller refuses both (test_cancel_rules)
    assert (refund.product, refund.action, cancel.action) == ("order", "refund", "cancelOrder")


def test_a_platform_error_survives_pickling_with_its_codes():
    import pickle

    error = pickle.loads(pickle.dumps(PlatformError("REJECTED", "no", platform_code="PRICE_CHANGED")))  # noqa: S301 - our own bytes

    assert (error.code, error.message, error.platform_code) == ("REJECTED", "no", "PRICE_CHANGED")


def test_a_command_built_in_code_must_still_be_of_the_grammar():
    with pytest.raises(PlatformError) as refused:
        PlatformCommand("flight", "rm -rf", {})

    assert refused.value.code == PlatformError.NOT_ALLOWED


# --- answers -----------------------------------------------------------------------------------------------------


ANSWERS = {
    "mcp content": {"content": [{"type": "text", "text": json.dumps({"orderId": "FL1", "totalPrice": 1})}]},
    "plain": {"orderNo": "HT1", "totalPrice": 1},
    "data envelope": {"success": True, "data": {"mainOrderNo": "TR1", "totalPrice": 1}},
    "mcp around data": {
        "content": [{"type": "text", "text": json.dumps({"success": True, "data": {"orderNo": "X1"}})}]
    },
    "nested order": {"order": {"orderNo": "N1"}},
}


@pytest.mark.parametrize(
    ("payload", "number"),
    list(zip(ANSWERS.values(), ["FL1", "HT1", "TR1", "X1", "N1"], strict=True)),
    ids=ANSWERS.keys(),
)
def test_the_order_number_is_found_in_every_answer_shape(payload, number):
    assert order_number(payload) == number
    assert order_number(unwrap(payload)) == number


def test_an_answer_without_an_order_number_has_none():
    assert order_number({"flights": []}) is None
    assert order_number("not a dict") is None


def test_unwrapping_an_error_answer_raises_the_rejection_with_the_suppliers_code():
    wrapped_error = {
        "content": [{"type": "text", "text": json.dumps({"success": False, "errorCode": "X", "errorMessage": "no"})}]
    }

    with pytest.raises(PlatformError) as rejected:
        unwrap(wrapped_error)

    assert (rejected.value.code, rejected.value.platform_code, rejected.value.message) == ("REJECTED", "X", "no")


def test_an_mcp_error_result_is_a_rejection_with_its_text():
    with pytest.raises(PlatformError) as rejected:
        unwrap({"content": [{"type": "text", "text": "flight sold out"}], "isError": True})

    assert (rejected.value.code, rejected.value.message) == ("REJECTED", "flight sold out")


def test_unwrapping_mcp_text_that_is_not_json_is_an_invalid_response():
    with pytest.raises(PlatformError) as invalid:
        unwrap({"content": [{"type": "text", "text": "<html>"}]})

    assert invalid.value.code == PlatformError.INVALID_RESPONSE


# --- platform_call against the sandbox ---------------------------------------------------------------------------


def test_a_search_of_each_product_returns_the_unwrapped_inventory():
    flights = platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)
    hotels = platform_call(
        cmd("hotel", "search", city="大理", checkInDate="2026-12-10", checkOutDate="2026-12-12"), api_key=KEY
    )
    trains = platform_call(cmd("train", "search", **{"from": "北京", "to": "天津", "date": "2026-12-02"}), api_key=KEY)

    assert set(flights) == {"flights"} and flights["flights"]
    assert set(hotels) == {"hotels"} and hotels["hotels"]
    assert set(trains) == {"trains"} and trains["trains"]


def test_the_same_search_answers_the_same_through_the_client():
    first = platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)
    again = platform_call(cmd("flight", "search", **SH_HZ), api_key=OTHER_KEY)

    assert first == again


def test_booking_a_flight_a_hotel_and_a_train_gives_each_order_number():
    flight = book_flight()
    hotel_item = platform_call(
        cmd("hotel", "search", city="三亚", checkInDate="2026-12-10", checkOutDate="2026-12-13"), api_key=KEY
    )["hotels"][0]
    hotel = platform_call(
        cmd(
            "hotel",
            "saveOrder",
            hotelId=hotel_item["hotelId"],
            checkInDate="2026-12-10",
            checkOutDate="2026-12-13",
            guests=[CONTACT],
        ),
        api_key=KEY,
    )
    train_item = platform_call(cmd("train", "search", **SH_HZ), api_key=KEY)["trains"][0]
    seat = train_item["seats"][0]
    train = platform_call(
        cmd(
            "train",
            "saveOrder",
            trainNo=train_item["trainNo"],
            date="2026-12-05",
            resources=[{"seatType": seat["seatType"], "adultPrice": seat["price"], "passengers": [CONTACT]}],
            contact=CONTACT,
        ),
        api_key=KEY,
    )

    assert order_number(flight).startswith("FL") and "orderId" in flight
    assert order_number(hotel).startswith("HT") and "orderNo" in hotel
    assert order_number(train).startswith("TR") and "mainOrderNo" in train
    assert hotel["totalPrice"] == hotel_item["totalPrice"]
    assert stats()["orders"]["byProduct"] == {"flight": 1, "hotel": 1, "train": 1}


def test_cancelling_a_flight_twice_succeeds_twice_and_cancels_once():
    number = order_number(book_flight())

    first = platform_call(cmd("flight", "cancelOrder", orderId=number), api_key=KEY)
    second = platform_call(cmd("flight", "cancelOrder", orderId=number), api_key=KEY)

    assert first["status"] == second["status"] == "CANCELLED"
    assert stats()["orders"]["byStatus"] == {"CANCELLED": 1}


def test_a_hotel_cancel_is_rejected_with_the_suppliers_reason():
    with pytest.raises(PlatformError) as rejected:
        platform_call(cmd("hotel", "cancelOrder", orderId="HT261201000001"), api_key=KEY)

    assert rejected.value.code == PlatformError.REJECTED
    assert rejected.value.platform_code == "HOTEL_NO_ONLINE_CANCEL"


def test_invalid_parameters_are_rejected_and_nothing_is_booked():
    with pytest.raises(PlatformError) as rejected:
        platform_call(
            cmd("flight", "saveOrder", flightNo="MU0000", date="2026-12-05", contactTourist=CONTACT), api_key=KEY
        )

    assert (rejected.value.code, rejected.value.platform_code) == ("REJECTED", "INVALID_PARAM")
    assert stats()["orders"]["total"] == 0


@pytest.mark.parametrize("key", ["", "not-a-sandbox-key"])
def test_a_missing_or_wrong_key_is_rejected_as_auth_failed(key):
    with pytest.raises(PlatformError) as rejected:
        platform_call(cmd("flight", "search", **SH_HZ), api_key=key)

    assert rejected.value.platform_code == "AUTH_FAILED"


def test_another_users_key_can_neither_see_nor_cancel_the_order():
    number = order_number(book_flight(KEY))

    for action in ("queryOrder", "cancelOrder"):
        with pytest.raises(PlatformError) as rejected:
            platform_call(cmd("flight", action, orderId=number), api_key=OTHER_KEY)
        assert rejected.value.platform_code == "ORDER_NOT_FOUND"
    assert platform_call(cmd("flight", "queryOrder", orderId=number), api_key=KEY)["status"] == "PENDING_PAYMENT"


# --- faults leave the supplier unchanged -------------------------------------------------------------------------


def test_a_failing_platform_is_rejected_with_platform_error_and_nothing_changes(monkeypatch):
    number = order_number(book_flight())
    before = stats()
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", "flight.cancelOrder=fail")

    with pytest.raises(PlatformError) as failed:
        platform_call(cmd("flight", "cancelOrder", orderId=number), api_key=KEY)

    assert (failed.value.code, failed.value.platform_code) == ("REJECTED", "PLATFORM_ERROR")
    assert stats() == before


def test_a_platform_that_hangs_is_killed_at_the_timeout_and_nothing_changes(monkeypatch, spawned):
    number = order_number(book_flight())
    before = stats()
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", "flight.cancelOrder=timeout")  # sleeps an hour unless killed

    with pytest.raises(PlatformError) as timed_out:
        platform_call(cmd("flight", "cancelOrder", orderId=number), api_key=KEY, timeout=1)

    assert timed_out.value.code == PlatformError.TIMEOUT
    assert spawned[-1]["proc"].poll() is not None  # killed, not left sleeping
    assert stats() == before


def test_a_garbage_answer_is_an_invalid_response_and_nothing_changes(monkeypatch):
    before = stats()
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", "*=garbage")

    with pytest.raises(PlatformError) as invalid:
        platform_call(cmd("order", "refund", orderId="ORD-001", amount=10.0, requestId="T1"), api_key=KEY)

    assert invalid.value.code == PlatformError.INVALID_RESPONSE
    assert stats() == before


def test_a_missing_platform_program_is_unavailable(settings):
    settings.PLATFORM_CLI = "/nonexistent/bin/supplier --verbose"

    with pytest.raises(PlatformError) as unavailable:
        platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)

    assert unavailable.value.code == PlatformError.UNAVAILABLE


def test_a_configured_platform_program_is_split_into_argv_and_run(settings, spawned):
    settings.PLATFORM_CLI = f"{sys.executable} -X utf8 -m bookings.sandbox"

    answer = platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)

    assert answer["flights"]
    assert spawned[0]["argv"][:4] == [sys.executable, "-X", "utf8", "-m"]


def test_a_program_that_crashes_without_an_answer_is_unavailable(settings, tmp_path):
    crash = tmp_path / "crash.py"
    crash.write_text("import sys; sys.stderr.write('Traceback: boom'); sys.exit(3)\n")
    settings.PLATFORM_CLI = f"{sys.executable} {crash}"

    with pytest.raises(PlatformError) as unavailable:
        platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)

    assert unavailable.value.code == PlatformError.UNAVAILABLE
    assert "exit code 3" in unavailable.value.message


# --- the key stays out of argv, logs and errors ------------------------------------------------------------------


def test_the_key_goes_to_the_childs_environment_and_never_to_its_command_line(monkeypatch, spawned):
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", "*=timeout")
    monkeypatch.setenv("ASSISTANT_LLM_API_KEY", "sk-site-secret-must-not-leak")
    monkeypatch.setenv("DJANGO_SECRET_KEY", "django-secret-must-not-leak")
    seen_by_the_os: dict[str, bytes] = {}

    def read_proc_while_it_runs():
        deadline = time.monotonic() + 5
        while not spawned and time.monotonic() < deadline:
            time.sleep(0.01)
        pid = spawned[0]["proc"].pid
        seen_by_the_os["cmdline"] = Path(f"/proc/{pid}/cmdline").read_bytes()
        seen_by_the_os["environ"] = Path(f"/proc/{pid}/environ").read_bytes()

    reader = threading.Thread(target=read_proc_while_it_runs)
    reader.start()
    with pytest.raises(PlatformError):
        platform_call(cmd("flight", "saveOrder", flightNo="MU1234", contactTourist=CONTACT), api_key=KEY, timeout=2)
    reader.join()

    argv = spawned[0]["argv"]
    assert argv[-5:-1] == ["call", "flight", "saveOrder", "-a"]
    assert spawned[0]["shell"] in (None, False)
    assert not any(KEY in part for part in argv)
    assert KEY.encode() not in seen_by_the_os["cmdline"]
    environ = dict(item.split(b"=", 1) for item in seen_by_the_os["environ"].split(b"\0") if item)
    assert environ[b"SUPPLIER_API_KEY"] == KEY.encode()
    assert b"ASSISTANT_LLM_API_KEY" not in environ and b"DJANGO_SECRET_KEY" not in environ
    # ... and the test run's clock (core/clock.py), which the suite sets and the supplier must share.
    allowed = {"PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH", "SUPPLIER_API_KEY", "TRIPDESK_CLOCK_OFFSET"}
    assert {k.decode() for k in environ} - allowed <= {k for k in os.environ if k.startswith("SANDBOX_SUPPLIER_")}


def test_the_key_never_appears_in_the_logs_and_mobiles_are_masked(caplog):
    caplog.set_level(logging.DEBUG, logger="bookings.platform")

    book_flight()
    with pytest.raises(PlatformError):
        platform_call(cmd("hotel", "cancelOrder", orderId="HT1"), api_key=KEY)

    lines = [r.getMessage() for r in caplog.records if r.name == "bookings.platform"]
    assert len(lines) == 3  # one line per call
    assert all("latency_ms=" in line and "outcome=" in line for line in lines)
    assert "outcome=REJECTED:HOTEL_NO_ONLINE_CANCEL" in lines[-1]
    text = "\n".join(lines)
    assert KEY not in text
    assert "13812345678" not in text and "138****5678" in text


def test_a_supplier_that_echoes_the_key_has_it_scrubbed_from_errors_and_logs(settings, tmp_path, caplog):
    leaky = tmp_path / "leaky.py"
    leaky.write_text(
        "import json, os\n"
        "print(json.dumps({'success': False, 'errorCode': 'AUTH_FAILED',"
        " 'errorMessage': 'bad key ' + os.environ['SUPPLIER_API_KEY']}))\n"
        "raise SystemExit(1)\n"
    )
    settings.PLATFORM_CLI = f"{sys.executable} {leaky}"
    caplog.set_level(logging.DEBUG)

    with pytest.raises(PlatformError) as rejected:
        platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)

    assert KEY not in str(rejected.value) and KEY not in repr(rejected.value)
    assert rejected.value.message == "bad key [redacted]"
    assert KEY not in caplog.text


# --- platform_run: for a user, in process or on a worker ---------------------------------------------------------


@pytest.mark.django_db
def test_platform_run_without_a_worker_books_with_the_users_own_key(traveller):
    from bookings.accounts import supplier_account_ensure

    flight = platform_run(cmd("flight", "search", **SH_HZ), user=traveller)["flights"][0]
    booked = platform_run(
        cmd("flight", "saveOrder", flightNo=flight["flightNo"], date="2026-12-05", contactTourist=CONTACT),
        user=traveller,
    )

    key = supplier_account_ensure(user=traveller).api_key
    found = platform_call(cmd("order", "queryOrder", orderId=order_number(booked)), api_key=key)
    assert found["order"]["status"] == "PENDING_PAYMENT"


@pytest.mark.django_db
def test_platform_run_raises_the_suppliers_rejection(traveller):
    with pytest.raises(PlatformError) as rejected:
        platform_run(cmd("hotel", "cancelOrder", orderId="HT1"), user=traveller)

    assert rejected.value.platform_code == "HOTEL_NO_ONLINE_CANCEL"


@pytest.mark.django_db
def test_the_platform_task_gives_a_plain_result_and_never_raises_a_business_error(traveller):
    from bookings.tasks import platform_command

    ok = platform_command.delay("flight", "search", SH_HZ, traveller.pk).get()
    refused = platform_command.delay("hotel", "cancelOrder", {"orderId": "HT1"}, traveller.pk).get()
    nobody = platform_command.delay("flight", "search", SH_HZ, 10**9).get()

    assert ok["ok"] is True and ok["data"]["flights"]
    assert refused == {
        "ok": False,
        "code": "REJECTED",
        "platform_code": "HOTEL_NO_ONLINE_CANCEL",
        "message": "hotel orders cannot be cancelled online; please call the hotel",
    }
    assert nobody["ok"] is False and nobody["code"] == "NOT_ALLOWED"


def test_the_platform_task_runs_at_most_once_on_its_own_queue():
    from bookings.tasks import platform_command
    from config.celery import app

    route = app.amqp.router.route({}, platform_command.name)

    assert route["queue"].name == "platform"
    assert platform_command.max_retries == 0
    assert platform_command.acks_late is False  # acknowledged on receipt: a lost worker never re-runs a saveOrder
    assert platform_command.ignore_result is False


@pytest.mark.django_db
@pytest.mark.parametrize("failure", ["broker down", "no answer in time"])
def test_platform_run_maps_a_worker_that_cannot_answer_to_unavailable(traveller, monkeypatch, failure):
    from celery.exceptions import TimeoutError as CeleryTimeout
    from kombu.exceptions import OperationalError

    class NoAnswer:
        def get(self, timeout):
            raise CeleryTimeout("The operation timed out.")

    def send_to_worker(*args, **kwargs):
        if failure == "broker down":
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        return NoAnswer()

    monkeypatch.setattr(platform, "_use_worker", lambda: True)
    monkeypatch.setattr(platform, "_send_to_worker", send_to_worker)

    with pytest.raises(PlatformError) as unavailable:
        platform_run(cmd("flight", "search", **SH_HZ), user=traveller)

    assert unavailable.value.code == PlatformError.UNAVAILABLE
    assert stats()["orders"]["total"] == 0


@pytest.fixture
def platform_worker(sandbox_store, transactional_db, request):
    """A real worker started after the store (and any faults) are in the environment it inherits.

    (Requested by name, not as an argument, so it starts after the environment is set; `transactional_db` is
    named here so the test's rows are committed where the worker can see them.)"""
    return request.getfixturevalue("celery_worker_process")


@pytest.mark.worker
@pytest.mark.postgres
def test_platform_run_through_a_real_worker_books_a_flight_for_the_user(platform_worker, user_factory, spawned):
    from bookings.accounts import supplier_account_ensure
    from config.celery import app

    traveller = user_factory("worker-traveller")
    assert app.conf.task_always_eager is False

    flight = platform_run(cmd("flight", "search", **SH_HZ), user=traveller)["flights"][0]
    booked = platform_run(
        cmd("flight", "saveOrder", flightNo=flight["flightNo"], date="2026-12-05", contactTourist=CONTACT),
        user=traveller,
    )

    assert spawned == []  # nothing ran in this process: the worker did it
    assert order_number(booked).startswith("FL")
    key = supplier_account_ensure(user=traveller).api_key
    found = platform_call(cmd("flight", "queryOrder", orderId=order_number(booked)), api_key=key)
    assert found["status"] == "PENDING_PAYMENT"
    assert stats()["orders"]["byStatus"] == {"PENDING_PAYMENT": 1}


@pytest.fixture
def failing_platform_worker(sandbox_store, transactional_db, monkeypatch, request):
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULTS", "flight.saveOrder=fail")
    return request.getfixturevalue("celery_worker_process")


@pytest.mark.worker
@pytest.mark.postgres
def test_a_rejection_on_the_worker_is_raised_in_the_caller_and_nothing_is_booked(failing_platform_worker, user_factory):
    traveller = user_factory("worker-traveller")

    with pytest.raises(PlatformError) as rejected:
        platform_run(
            cmd("flight", "saveOrder", flightNo="MU1234", date="2026-12-05", contactTourist=CONTACT), user=traveller
        )

    assert (rejected.value.code, rejected.value.platform_code) == ("REJECTED", "PLATFORM_ERROR")
    assert stats()["orders"]["total"] == 0


# --- idempotency keys and the child's lifetime -------------------------------------------------------------------


def sent_arguments(record: dict) -> dict:
    argv = record["argv"]
    return json.loads(argv[argv.index("-a") + 1])


@pytest.mark.parametrize(
    "command",
    [
        cmd("flight", "saveOrder", flightNo="MU1234", date="2026-12-05", contactTourist=CONTACT),
        cmd("flight", "cancelOrder", orderId="FL1"),
        cmd("order", "refund", orderId="ORD-001", amount=1.0),
    ],
    ids=["saveOrder", "cancelOrder", "refund"],
)
def test_every_command_that_changes_something_is_sent_with_an_idempotency_key(command, spawned):
    with contextlib.suppress(PlatformError):  # an unknown flight or order: the supplier's no is not the point here
        platform_call(command, api_key=KEY)

    assert sent_arguments(spawned[0])["requestId"].startswith("once:")


def test_a_callers_own_key_is_sent_as_it_is(spawned):
    platform_call(cmd("order", "refund", orderId="ORD-001", amount=1.0, total=1.0, requestId="T000042"), api_key=KEY)

    assert sent_arguments(spawned[0])["requestId"] == "T000042"


def test_a_read_is_sent_as_composed_without_a_key(spawned):
    platform_call(cmd("flight", "search", **SH_HZ), api_key=KEY)

    assert "requestId" not in sent_arguments(spawned[0])


def test_a_booking_key_depends_on_its_scope_and_arguments_not_on_their_order():
    one = cmd("flight", "saveOrder", flightNo="MU1", date="2026-12-05", contactTourist=CONTACT)
    same = PlatformCommand("flight", "saveOrder", {"contactTourist": CONTACT, "date": "2026-12-05", "flightNo": "MU1"})
    own_key = one.with_request_id("chosen-by-the-model")

    key = platform.request_id_for(one, scope="conv-1")

    assert key == platform.request_id_for(same, scope="conv-1") == platform.request_id_for(own_key, scope="conv-1")
    assert key != platform.request_id_for(one, scope="conv-2")
    assert key != platform.request_id_for(cmd("flight", "saveOrder", flightNo="MU2"), scope="conv-1")


@pytest.mark.django_db
def test_the_same_booking_sent_twice_in_one_conversation_books_once_and_in_another_books_again(traveller):
    flight = platform_run(cmd("flight", "search", **SH_HZ), user=traveller)["flights"][0]
    booking = cmd("flight", "saveOrder", flightNo=flight["flightNo"], date="2026-12-05", contactTourist=CONTACT)

    first = platform_run(booking, user=traveller, idempotency_scope="conversation-1")
    repeat = platform_run(booking, user=traveller, idempotency_scope="conversation-1")
    elsewhere = platform_run(booking, user=traveller, idempotency_scope="conversation-2")

    assert order_number(first) == order_number(repeat) != order_number(elsewhere)
    assert stats()["orders"]["total"] == 2
