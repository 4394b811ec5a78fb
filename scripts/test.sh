#!/usr/bin/env bash
# Install and run the whole test suite (lint included). Extra arguments go to pytest.
# Uses PostgreSQL / Redis when DATABASE_URL / REDIS_URL are set (the suite FLUSHES the Redis database it is given:
# use a database of its own, like .ci/run's /15); SQLite and the database cache otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_venv
mkdir -p var

ruff check .
ruff format --check .
python manage.py makemigrations --check --dry-run >/dev/null || {
  echo "A model change has no migration: run python manage.py makemigrations" >&2
  exit 1
}
python -m pytest "$@"
