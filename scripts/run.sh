#!/usr/bin/env bash
# Install and run TripDesk on this machine: web server + Celery worker, demo data, the offline `rules` model.
#   HOST/PORT: TRIPDESK_HOST (127.0.0.1), TRIPDESK_PORT (8000). Services: DATABASE_URL, REDIS_URL (see README).
# With no REDIS_URL, a Redis on 127.0.0.1:6379 is used when one answers; otherwise tasks run in-process.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_venv

if [ -z "${REDIS_URL:-}" ] && tcp_open 127.0.0.1 6379; then
  export REDIS_URL=redis://127.0.0.1:6379/0
fi
export ASSISTANT_LLM_PROVIDER="${ASSISTANT_LLM_PROVIDER:-rules}"
host="${TRIPDESK_HOST:-127.0.0.1}"
port="${TRIPDESK_PORT:-8000}"
mkdir -p var

python manage.py migrate --noinput
python manage.py seed_demo
python manage.py collectstatic --noinput >/dev/null

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

if [ -n "${REDIS_URL:-}" ]; then
  celery -A config worker -B -Q default,platform,aftersale -c 2 -l INFO \
    --schedule var/celerybeat-schedule >>var/worker.log 2>&1 &
  pids+=($!)
  tasks="a Celery worker (log: var/worker.log), broker ${REDIS_URL}"
else
  tasks="in-process (no Redis configured or reachable)"
fi

gunicorn config.wsgi:application --bind "$host:$port" --workers "${WEB_CONCURRENCY:-2}" \
  --threads "${WEB_THREADS:-8}" --worker-class gthread --timeout 60 --access-logfile - \
  >>var/web.log 2>&1 &
pids+=($!)

for _ in $(seq 1 50); do tcp_open "$host" "$port" && break; sleep 0.2; done

cat <<INFO

TripDesk is running.
  Chat:     http://$host:$port/
  Console:  http://$host:$port/admin/
  API docs: http://$host:$port/api/v1/docs/
  Health:   http://$host:$port/healthz
  Tasks:    $tasks
  Logs:     var/web.log, var/worker.log

Log in with:
INFO
python manage.py seed_demo --logins
echo
echo "Press Ctrl-C to stop."
wait
