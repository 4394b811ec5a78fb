"""What `scripts/run.sh` (the demo) prints in its terminal: plain text log lines, not JSON (which stays the default
everywhere else), and the addresses and logins in one piece after whatever the start-up logged. It runs the script's
own functions (scripts/lib.sh), as run.sh does, without starting the servers."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOGIN = re.compile(r"^\s+(alice|bob|carol|approver|admin)\s+\S+\s+\w+: ")
TEXT_LOG = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO|WARNING|ERROR)\s")


def _demo(script: str, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LOG_", "ASSISTANT_", "DJANGO_SETTINGS"))}
    clean["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{clean.get('PATH', '')}"  # lib.sh calls `python`
    clean.update(env)
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source scripts/lib.sh; demo_environment; {script}"],
        cwd=ROOT,
        env=clean,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # as a terminal shows them: one stream
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout
    return done.stdout.splitlines()


def _is_json(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def test_the_demo_prints_text_log_lines_and_the_login_table_in_one_piece():
    lines = _demo('demo_banner 127.0.0.1 8000 "in-process"')

    assert not [line for line in lines if _is_json(line)], lines
    assert any(TEXT_LOG.match(line) for line in lines), lines  # the start-up logs something (django-axes), as text
    table = lines.index("Log in with:")
    assert lines.index("TripDesk is running.") < table
    assert "  Chat:     http://127.0.0.1:8000/" in lines
    rows = lines[table + 1 : lines.index("Press Ctrl-C to stop.")]
    logins = [row for row in rows if row.strip()]
    assert len(logins) == 9 and all(LOGIN.match(row) for row in logins[:5]), rows
    # the console's second factor for the demo staff: how to get a code, and each one's secret for an app
    assert "manage.py demo_code approver" in logins[5], rows
    assert [row.split()[0] for row in logins[6:8]] == ["approver", "admin"], rows
    assert all(re.fullmatch(r"[A-Z2-7]{32}", row.split()[1]) for row in logins[6:8]), rows
    assert "approver approves up to ¥5000 alone" in logins[8] and "two approvers" in logins[8], rows
    assert not any(TEXT_LOG.match(line) for line in lines[lines.index("TripDesk is running.") :]), lines


def test_the_demo_logs_in_text_unless_told_json_which_production_keeps_by_default():
    probe = "python -c 'import django; django.setup(); from django.conf import settings; " + (
        'print(settings.LOGGING["handlers"]["console"]["formatter"])\''
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings"}

    assert _demo(probe, **env)[-1] == "text"
    assert _demo(probe, LOG_FORMAT="json", **env)[-1] == "json"
    run = (ROOT / "scripts" / "run.sh").read_text()
    demo = run[run.index('if [ "${1:-}" = "--prod" ]') :]  # the demo's part of the script, after --prod's
    assert "demo_environment" in demo and 'demo_banner "$host" "$port"' in demo
    assert "demo_environment" not in run[: run.index('if [ "${1:-}" = "--prod" ]')]
