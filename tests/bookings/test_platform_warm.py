"""The warm sandbox: the sandbox CLI run in a child forked from a process that has imported it (PLATFORM_WARM, on by
default), against the cold path, `python -m bookings.sandbox` as a process of its own, on the same store.

Both paths get the same argv and the same environment (`child_environment`); the warm child must answer with the
same exit code, stdout and stderr, be killed at the timeout, and leave nothing running.
"""

import json
import os
import re
import sys
import threading

import pytest

from bookings import platform, supplier_program
from bookings.platform import PlatformCommand, PlatformError, order_number, platform_call
from bookings.supplier_program import child_environment
from core.tracing import trace
from tests.faults.test_worker_killed import descendants, gone, zygotes
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the warm sandbox is Linux's (prctl, pidfd)")

KEY = "sbx_warm-test-key-2c41d9e0"
CONTACT = {"name": "张三", "mobile": "13812345678"}
SH_HZ = {"from": "上海", "to": "杭州", "date": "2026-12-05"}


@pytest.fixture(autouse=True)
def sandbox(supplier_sandbox, monkeypatch, settings):
    settings.PLATFORM_WARM = True
    settings.PLATFORM_CLI = ""
    monkeypatch.delenv("SUPPLIER_API_KEY", raising=False)
    return supplier_sandbox


def warm(*args: str, key: str = KEY) -> tuple[int, bytes, bytes]:
    return supplier_program._warm_sandbox.run(list(args), child_environment(key), 30)


def cold(*args: str, key: str = KEY) -> tuple[int, bytes, bytes]:
    return supplier_program._spawn([*supplier_program.cli_prefix(), *args], child_environment(key), 30)


def call(product: str, action: str, **arguments) -> list[str]:
    return ["call", product, action, "-a", json.dumps(arguments, ensure_ascii=False)]


def our_zygote() -> int:
    supplier_program.platform_warm_up()
    [zygote] = zygotes(os.getpid())
    return zygote


# --- the same answers ----------------------------------------------------------------------------------------------

SAME = {
    "flight search": call("flight", "search", **SH_HZ),
    "hotel search": call("hotel", "search", city="大理", checkInDate="2026-12-10", checkOutDate="2026-12-12"),
    "train search": call("train", "search", **{"from": "北京", "to": "天津", "date": "2026-12-02"}),
    "rejection": call("hotel", "cancelOrder", orderId="HT261201000001"),
    "unknown order": call("flight", "queryOrder", orderId="FL000000000000"),
    "not a json object": ["call", "flight", "search", "-a", "[1, 2"],
    "usage error": ["call", "flight", "fly", "-a", "{}"],
    "no command": [],
    "help": ["--help"],
    "stats": ["stats"],
}


@pytest.mark.parametrize("args", SAME.values(), ids=SAME.keys())
def test_the_warm_sandbox_answers_each_command_as_its_own_process_does(args):
    answer = warm(*args)

    assert answer == cold(*args)
    assert answer[0] in (0, 1, 2) and (answer[1] or answer[2])


def test_a_usage_error_exits_2_with_the_usage_on_stderr_as_its_own_process_does():
    code, out, err = warm("call", "flight", "fly", "-a", "{}")

    assert (code, out) == (2, b"")
    assert err.startswith(b"usage: supplier call") and b"invalid choice: 'fly'" in err


@pytest.mark.parametrize("key", ["", "not-a-sandbox-key"])
def test_a_missing_or_wrong_key_is_refused_alike(key):
    answer = warm(*call("flight", "search", **SH_HZ), key=key)

    assert answer == cold(*call("flight", "search", **SH_HZ), key=key)
    assert json.loads(answer[1])["errorCode"] == "AUTH_FAILED"


@pytest.mark.parametrize(
    ("faults", "expected"),
    [("*=garbage", 0), ("flight.search=fail", 1), ("flight.search=wobble", 2)],
    ids=["garbage", "fail", "a bad fault rule"],
)
def test_a_fault_in_the_callers_environment_is_the_warm_childs_too(sandbox, faults, expected):
    supplier_program.platform_warm_up()  # started before the fault: the fault comes with the command, not the process
    sandbox.fault(faults)

    answer = warm(*call("flight", "search", **SH_HZ))

    assert answer == cold(*call("flight", "search", **SH_HZ))
    assert answer[0] == expected
    sandbox.heal()
    assert warm(*call("flight", "search", **SH_HZ))[0] == 0  # gone with the environment that carried it


STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")  # the second it ran; its zone offset stays in the text
NUMBER = re.compile(r"FL\d{12}")


def normalised(answer: tuple[int, bytes, bytes]) -> tuple[int, str, bytes]:
    return answer[0], NUMBER.sub("FL…", STAMP.sub("T…", answer[1].decode())), answer[2]


def test_booking_and_cancelling_answer_alike_and_either_path_sees_the_others_orders(sandbox):
    flight = platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY)["flights"][0]
    booking = {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT}

    booked_warm = warm(*call("flight", "saveOrder", **booking, requestId="warm-1"))
    booked_cold = cold(*call("flight", "saveOrder", **booking, requestId="cold-1"))
    warm_number = order_number(json.loads(booked_warm[1]))
    cold_number = order_number(json.loads(booked_cold[1]))
    cancelled_warm = warm(*call("flight", "cancelOrder", orderId=cold_number, requestId="c-1"))
    cancelled_cold = cold(*call("flight", "cancelOrder", orderId=warm_number, requestId="c-2"))

    assert normalised(booked_warm) == normalised(booked_cold)  # times in the same zone: the system's, no TZ
    assert normalised(cancelled_warm) == normalised(cancelled_cold)
    assert warm(*call("flight", "saveOrder", **booking, requestId="cold-1")) == booked_cold  # one store, one key
    assert sandbox.stats()["orders"]["byStatus"] == {"CANCELLED": 2}


def test_platform_call_runs_warm_and_gives_the_cold_answers(monkeypatch):
    expected = json.loads(cold(*call("flight", "search", **SH_HZ))[1])
    spawned = []
    monkeypatch.setattr(supplier_program, "_spawn", lambda *a: spawned.append(a))

    answer = platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY)
    with pytest.raises(PlatformError) as rejected:
        platform_call(PlatformCommand("hotel", "cancelOrder", {"orderId": "HT1"}), api_key=KEY)

    assert spawned == []  # nothing ran as a process of its own
    assert answer == platform.unwrap(expected)
    assert (rejected.value.code, rejected.value.platform_code) == ("REJECTED", "HOTEL_NO_ONLINE_CANCEL")


def test_a_configured_platform_program_still_runs_as_a_process_of_its_own(settings, monkeypatch):
    settings.PLATFORM_CLI = f"{sys.executable} -X utf8 -m bookings.sandbox"
    started = []
    real = supplier_program._spawn
    monkeypatch.setattr(supplier_program, "_spawn", lambda argv, *a: started.append(argv) or real(argv, *a))

    assert platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY)["flights"]
    assert started[0][:5] == [sys.executable, "-X", "utf8", "-m", "bookings.sandbox"]


# --- the timeout, and nothing left running -----------------------------------------------------------------------


def test_a_warm_child_that_hangs_is_killed_at_the_timeout_and_is_gone(sandbox, monkeypatch):
    zygote = our_zygote()
    before = sandbox.stats()
    sandbox.fault("flight.search=timeout")  # sleeps an hour unless killed
    children = []
    real_pidfd_open = os.pidfd_open
    monkeypatch.setattr(os, "pidfd_open", lambda pid, *a: children.append(pid) or real_pidfd_open(pid, *a))

    with pytest.raises(PlatformError) as timed_out:
        platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY, timeout=1)

    assert timed_out.value.code == PlatformError.TIMEOUT
    assert len(children) == 1 and gone(children[0])  # killed and ended before the call returned
    assert descendants(zygote) == []
    assert sandbox.stats() == before


def test_a_warm_child_leaves_nothing_running_after_its_answer():
    zygote = our_zygote()

    for _ in range(3):
        platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY)

    assert descendants(zygote) == []
    assert zygotes(os.getpid()) == [zygote]  # one warm process serves every call


def test_a_zygote_that_died_is_replaced_and_the_call_still_answers():
    zygote = our_zygote()
    os.kill(zygote, 9)
    wait_for(lambda: supplier_program._warm_sandbox._zygote.poll() is not None, "the zygote to be dead")

    assert platform_call(PlatformCommand("flight", "search", SH_HZ), api_key=KEY)["flights"]
    [again] = zygotes(os.getpid())
    assert again != zygote


def test_a_process_forked_after_the_warm_up_starts_a_warm_sandbox_of_its_own():
    zygote = our_zygote()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked child: no database, only the warm sandbox
        try:
            answer = warm(*call("flight", "search", **SH_HZ))
            os.write(write, json.dumps([answer[0], zygotes(os.getpid())]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        code, theirs = json.loads(pipe.read())
    os.waitpid(pid, 0)

    assert code == 0 and len(theirs) == 1 and theirs[0] != zygote
    wait_for(lambda: gone(theirs[0]), "the forked process's zygote to end with it")
    assert warm(*call("flight", "search", **SH_HZ))[0] == 0 and zygotes(os.getpid()) == [zygote]


# --- many threads, one trace -------------------------------------------------------------------------------------

ROUTES = [
    ("上海", "杭州"),
    ("北京", "三亚"),
    ("广州", "成都"),
    ("上海", "乌鲁木齐"),
    ("大理", "北京"),
    ("北京", "天津"),
]


def test_many_threads_share_the_warm_sandbox_and_each_gets_its_own_answer():
    commands = [
        call(product, "search", **{"from": a, "to": b, "date": "2026-12-05"})
        for a, b in ROUTES
        for product in ("flight", "train")
    ]
    expected = [cold(*args) for args in commands]
    answers: dict[int, tuple] = {}

    def ask(index: int) -> None:
        answers[index] = warm(*commands[index])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(commands))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [answers[i] for i in range(len(commands))] == expected


@pytest.mark.django_db
def test_the_trace_reaches_the_sandbox_from_warm_children_run_side_by_side(sandbox):
    commands = [PlatformCommand(p, "search", SH_HZ) for p in ("flight", "train")]

    with trace() as trace_id:
        answers = platform.platform_call_many(commands, api_key=KEY)

    assert [sorted(a) for a in answers] == [["flights"], ["trains"]]
    seen = sandbox.traces()[trace_id]
    assert sorted(c["command"] for c in seen) == ["flight.search", "train.search"]
    assert all(trace_id in c["traceparent"] for c in seen)


# --- a worker starts warm ------------------------------------------------------------------------------------------


@pytest.mark.worker
@pytest.mark.postgres
def test_each_worker_process_starts_its_warm_sandbox_before_its_first_command(
    supplier_sandbox, transactional_db, request, user_factory
):
    worker = request.getfixturevalue("celery_worker_process")  # started with the store in its environment
    traveller = user_factory("warm-traveller")

    warmed = wait_for(lambda: len(zygotes(worker.pid)) == 2 and zygotes(worker.pid), "a zygote per pool process")
    answer = platform.platform_run(PlatformCommand("flight", "search", SH_HZ), user=traveller)

    assert answer["flights"]
    assert zygotes(worker.pid) == warmed  # the call ran in a warm child of one of them, no new process started
