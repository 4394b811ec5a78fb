#!/usr/bin/env bash
# Install and run the whole test suite (lint included). Extra arguments go to pytest.
# Uses PostgreSQL / Redis when DATABASE_URL / REDIS_URL are set (the suite FLUSHES the Redis database it is given:
# use a database of its own, like .ci/run's /15); SQLite and the database cache otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_venv
ensure_node_modules
mkdir -p var

# tests/browser drive Debian's Chromium (never a Playwright download): install it once where apt-get can.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  echo "· installing chromium and CJK fonts (for tests/browser)"
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; fi
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; } >/dev/null ||
    echo "· could not install chromium: the browser tests will skip (or fail with TRIPDESK_REQUIRE_SERVICES=1)" >&2
fi

ruff check .
ruff format --check .
lint-imports --no-cache  # the layering contracts of .importlinter (DESIGN.md "Who may import whom")
# Models against migration files: no database takes part, so an empty in-memory one is given (the configured one
# may not exist yet, and Django would only warn that it cannot check the applied history).
DATABASE_URL=sqlite:///:memory: python manage.py makemigrations --check --dry-run >/dev/null || {
  echo "A model change has no migration: run python manage.py makemigrations" >&2
  exit 1
}
python -m pytest "$@"
