"""Chat turns through the whole stack: DRF API view, rules engine, PostgreSQL, Redis, templates, audit rows.

    .venv/bin/python bench/chat_turn.py [--turns 500]

Prints p50/p95 ms per turn and turns per second, against a baseline measured in the same run: GET /healthz
through the same stack (one database query and one Redis round trip), so the ratio says what a turn costs
beyond the plumbing every request pays.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, setup_django, summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=500)
    args = parser.parse_args()

    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    settings.ASSISTANT_DAILY_TURN_LIMIT = 10**9
    # No worker runs beside this process: the supplier calls of a round trip or a booking run here, as they do in
    # the embedded default, instead of waiting on a `platform` queue nobody reads (each search's wait, ~1 s).
    from config.celery import app as celery_app

    celery_app.conf.task_always_eager = True
    messages = [json.loads(line)["text"] for line in (ROOT / "tests/assistant/eval/intents-own.jsonl").open()]
    user = get_user_model().objects.get(username="bob")
    client = APIClient()
    client.force_authenticate(user)

    for text in messages[:20]:  # warm-up: imports, gazetteers, connections
        client.post("/api/v1/assistant/chat", {"message": text}, format="json")

    baseline = []
    for _ in range(args.turns):
        started = time.perf_counter()
        assert client.get("/healthz").status_code == 200
        baseline.append(time.perf_counter() - started)

    turns, session, outcomes = [], None, {}
    for i in range(args.turns):
        text = messages[i % len(messages)]
        started = time.perf_counter()
        response = client.post("/api/v1/assistant/chat", {"message": text, "session_id": session}, format="json")
        turns.append(time.perf_counter() - started)
        body = response.json()
        session = body["session_id"] if i % 5 else None  # conversations of five turns
        outcomes[body["outcome"]] = outcomes.get(body["outcome"], 0) + 1

    db = settings.DATABASES["default"]
    print(
        f"chat_turn: {args.turns} turns, rules provider, {db['ENGINE'].rsplit('.', 1)[-1]} {db['NAME']}, cache {settings.REDIS_URL}"
    )
    print(summary("baseline GET /healthz", baseline))
    print(summary("chat turn POST /chat", turns))
    ratio = (sum(turns) / len(turns)) / (sum(baseline) / len(baseline))
    print(f"ratio turn/baseline (mean): {ratio:.1f}x")
    print(f"outcomes: {json.dumps(outcomes, sort_keys=True)}")


if __name__ == "__main__":
    main()
