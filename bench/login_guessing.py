"""What a password guess costs before and after django-axes locks its username and address out.

    .venv/bin/python bench/login_guessing.py [--n 50]

POSTs wrong passwords to /accounts/login/ through the Django test client (the whole middleware stack, PostgreSQL,
the production password hasher). Before lockout: each guess comes from a fresh address, so axes lets it through
and the password is hashed. After lockout: the same number of guesses from one address that is locked out, which
axes refuses before any hashing. Prints p50/p95 per attempt for both, and the ratio, measured in the same run.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, setup_django, summary  # noqa: E402

USERNAME = "bench-guessing"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()

    setup_django()
    from axes.models import AccessAttempt, AccessFailureLog
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    users = get_user_model().objects
    user, _ = users.get_or_create(username=USERNAME)
    user.set_password("the-right-password-2026")  # the production hasher (PBKDF2), as a real account has
    user.save()
    AccessAttempt.objects.filter(username=USERNAME).delete()
    AccessFailureLog.objects.filter(username=USERNAME).delete()

    def guess(client: Client) -> tuple[float, int]:
        started = time.perf_counter()
        response = client.post("/accounts/login/", {"username": USERNAME, "password": "wrong-guess"})
        return time.perf_counter() - started, response.status_code

    # Before lockout: every guess from its own address (documentation range 198.18.0.0/15), each one hashed.
    before, before_cpu = [], time.process_time()
    for n in range(args.n):
        seconds, status = guess(Client(REMOTE_ADDR=f"198.18.{n // 250}.{n % 250 + 1}"))
        assert status == 200, f"a first guess answered {status}"
        before.append(seconds)
    before_cpu = (time.process_time() - before_cpu) / args.n

    # After lockout: lock one address out (AXES_FAILURE_LIMIT failures), then time the refused guesses.
    locked = Client(REMOTE_ADDR="198.19.0.1")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        guess(locked)
    after, after_cpu = [], time.process_time()
    for _ in range(args.n):
        seconds, status = guess(locked)
        assert status == 429, f"a locked-out guess answered {status}"
        after.append(seconds)
    after_cpu = (time.process_time() - after_cpu) / args.n

    print(
        f"password hasher: {settings.PASSWORD_HASHERS[0].rsplit('.', 1)[-1]}, AXES_FAILURE_LIMIT={settings.AXES_FAILURE_LIMIT}"
    )
    print(summary("wrong password, not locked", before) + f"  cpu={before_cpu * 1000:7.2f} ms")
    print(summary("wrong password, locked out", after) + f"  cpu={after_cpu * 1000:7.2f} ms")
    ratio = percentile(before, 50) / percentile(after, 50)
    print(f"p50 ratio (not locked / locked): {ratio:.1f}x")

    AccessAttempt.objects.filter(username=USERNAME).delete()
    AccessFailureLog.objects.filter(username=USERNAME).delete()


if __name__ == "__main__":
    main()
