"""Celery workers log through Django's LOGGING: the same format and secret filter as the web.

A worker configures its logging through Celery's `app.log.setup()` (what `celery worker` calls at start); the
child process below does exactly that with the project's Celery app, then logs a line holding the model key.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-worker-secret-5f1e9a"
WORKER = f"""
import logging
from config.celery import app

app.log.setup(loglevel="INFO")  # what a starting worker runs
logging.getLogger("celery.worker").warning("connecting with key %s", {SECRET!r})
"""


def test_a_worker_log_line_is_json_like_the_web_and_has_no_secret():
    env = {**os.environ, "LOG_FORMAT": "json", "ASSISTANT_LLM_API_KEY": SECRET, "PYTHONPATH": str(ROOT)}

    done = subprocess.run([sys.executable, "-c", WORKER], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    [line] = [entry for entry in lines if entry.get("logger") == "celery.worker"]
    assert line["level"] == "WARNING"
    assert line["message"] == "connecting with key [redacted]"
    assert SECRET not in done.stdout + done.stderr
