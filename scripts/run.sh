#!/usr/bin/env bash
# Install and run TripDesk on this machine.
#
#   scripts/run.sh                  the demo: web server + one Celery worker, demo data, the offline `rules` model.
#                                   Logs in plain text (LOG_FORMAT, default text here): servers' in var/*.log.
#                                   HOST/PORT: TRIPDESK_HOST (127.0.0.1), TRIPDESK_PORT (8000). Services:
#                                   DATABASE_URL, REDIS_URL (see README). Nothing set: SQLite (db.sqlite3) and
#                                   tasks in-process; with REDIS_URL, a Celery worker and beat on that broker.
#                                   With REDIS_URL, the live channel's ASGI server too (TRIPDESK_LIVE_PORT, PORT + 1).
#   scripts/run.sh --prod [ROLE…]   production (README "Deployment"): needs DATABASE_URL (PostgreSQL), REDIS_URL and
#                                   DJANGO_SECRET_KEY. ROLEs: web, live, default, platform, aftersale, beat (all when none
#                                   is given; run `beat` on one machine only). Options: --no-migrate, --dry-run
#                                   (print the commands, start nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

die() { echo "run.sh --prod: $*" >&2; exit 2; }

# Metrics (core/metrics.py): every web and worker process of this machine writes its samples to files in
# PROMETHEUS_MULTIPROC_DIR, and /metrics adds them up. A start empties it: counters begin again with the processes
# that count them, as Prometheus expects of a restart (only the *.db files prometheus_client writes are removed).
reset_metrics_dir() {
  export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/var/metrics}"
  mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
  find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -type f -name "*.db" -delete
}

# The live channel (config/live.py): an ASGI server holding each open page's event stream as a coroutine, not a
# thread; it reads the user once per connection and keeps no database connection.
live_command() {
  echo "env DATABASE_CONN_MAX_AGE=0 DATABASE_POOL_MAX_SIZE=0 uvicorn config.asgi:application --host $1 --port $2 --no-access-log --timeout-graceful-shutdown 5 --log-level warning"
}

# Production: one process per role, so each can run on any machine around the same PostgreSQL and Redis.
run_prod() {
  local roles=() migrate=1 dry_run=0 arg
  for arg in "$@"; do
    case "$arg" in
      --no-migrate) migrate=0 ;;
      --dry-run) dry_run=1 ;;
      web | live | default | platform | aftersale | beat) roles+=("$arg") ;;
      *) die "unknown argument '$arg' (roles: web live default platform aftersale beat; options: --no-migrate --dry-run)" ;;
    esac
  done
  [ ${#roles[@]} -gt 0 ] || roles=(web live default platform aftersale beat)

  # What production needs; nothing falls back to the embedded defaults here.
  case "${DATABASE_URL:-}" in
    postgres://* | postgresql://*) ;;
    "") die "DATABASE_URL is not set: production needs PostgreSQL (DATABASE_URL=postgresql://USER@HOST:5432/NAME)" ;;
    *) die "DATABASE_URL is not a postgresql:// URL: production needs PostgreSQL" ;;
  esac
  [ -n "${REDIS_URL:-}" ] ||
    die "REDIS_URL is not set: production needs Redis for the cache, conversations, rate limits and the Celery broker (REDIS_URL=redis://HOST:6379/0)"
  case "${DJANGO_SECRET_KEY:-}" in
    "" | tripdesk-dev-only-*) die "DJANGO_SECRET_KEY is not set: give it a long random value (python -c 'import secrets; print(secrets.token_urlsafe(50))')" ;;
  esac
  case "${DJANGO_DEBUG:-false}" in
    1 | true | True | TRUE | yes | on) die "DJANGO_DEBUG is on: never in production" ;;
  esac

  ensure_venv
  export TRIPDESK_PRODUCTION=1
  export ASSISTANT_LLM_PROVIDER="${ASSISTANT_LLM_PROVIDER:-rules}"
  local host="${TRIPDESK_HOST:-127.0.0.1}" port="${TRIPDESK_PORT:-8000}"
  local workers="${WEB_CONCURRENCY:-2}" threads="${WEB_THREADS:-64}" concurrency="${CELERY_CONCURRENCY:-2}"
  local logs="${TRIPDESK_LOG_DIR:-var/log}"
  # The platform queue waits on the supplier (a round trip sends five searches at once), it does not compute: more
  # processes than the others, so one turn's searches run side by side and a booking does not queue behind them.
  local platform_concurrency="${CELERY_PLATFORM_CONCURRENCY:-8}"

  # A request may wait on the model once per model call of its turn (the agent loop's calls, a verdict, preference
  # scores), each bounded by ASSISTANT_LLM_TIMEOUT: gunicorn's timeout stays above that.
  local llm_timeout="${ASSISTANT_LLM_TIMEOUT:-20}" iterations="${ASSISTANT_AGENT_MAX_ITERATIONS:-6}" longest
  longest=$(python -c 'import math, sys; print(math.ceil(float(sys.argv[1]) * (int(sys.argv[2]) + 2)))' \
    "$llm_timeout" "$iterations")
  local web_timeout="${WEB_TIMEOUT:-$((longest + 30))}"
  local live_port="${TRIPDESK_LIVE_PORT:-$((port + 1))}"
  # The pages open their live channel here unless a proxy in front serves it under the site's own /live/.
  export TRIPDESK_LIVE_URL="${TRIPDESK_LIVE_URL:-http://$host:$live_port/live/events}"
  python -c 'import sys; sys.exit(float(sys.argv[1]) <= float(sys.argv[2]))' "$web_timeout" "$llm_timeout" ||
    die "WEB_TIMEOUT ($web_timeout s) must be longer than ASSISTANT_LLM_TIMEOUT ($llm_timeout s)"

  # The web server's threads share a pool of PostgreSQL connections per process (psycopg_pool) when it is installed;
  # otherwise each request opens its own and closes it at the end. Either way no idle thread keeps one.
  local pool="${DATABASE_POOL_MAX_SIZE:-}"
  if [ -z "$pool" ]; then
    if python -c 'import psycopg_pool' 2>/dev/null; then pool=20; else pool=0; fi
  fi

  # The web processes share one listening socket. A process holds at most as many connections as it has threads
  # (--worker-connections), so a busy one stops accepting and the next connection goes to a process with a free
  # thread instead of queueing there behind a turn that waits seconds on the model; a kept-alive idle connection
  # would hold one of those places, hence --keep-alive 0 (one request per connection; a proxy in front keeps the
  # browsers' connections). --preload builds the app once (config/wsgi.py) and forks the processes from it.
  local -A commands=(
    [web]="env DATABASE_CONN_MAX_AGE=0 DATABASE_POOL_MAX_SIZE=$pool gunicorn config.wsgi:application --preload --bind $host:$port --worker-class gthread --workers $workers --threads $threads --worker-connections $threads --timeout $web_timeout --graceful-timeout 30 --keep-alive 0 --backlog 2048 --access-logfile - --error-logfile -"
    [live]="$(live_command "$host" "$live_port")"
    [default]="celery -A config worker -Q default -n default@%h -c $concurrency -l INFO"
    [platform]="celery -A config worker -Q platform -n platform@%h -c $platform_concurrency -l INFO"
    [aftersale]="celery -A config worker -Q aftersale -n aftersale@%h -c $concurrency -l INFO"
    [beat]="celery -A config beat -l INFO --schedule var/celerybeat-schedule"
  )
  local role
  if [ "$dry_run" = 1 ]; then
    for role in "${roles[@]}"; do echo "$role: ${commands[$role]}"; done
    return 0
  fi

  python - "$DATABASE_URL" "$REDIS_URL" <<'PY' || exit 2
import sys

import psycopg
import redis

try:
    psycopg.connect(sys.argv[1], connect_timeout=5).close()
except Exception as exc:
    sys.exit(f"run.sh --prod: PostgreSQL (DATABASE_URL) does not answer: {type(exc).__name__}")
try:
    redis.Redis.from_url(sys.argv[2], socket_connect_timeout=5).ping()
except Exception as exc:
    sys.exit(f"run.sh --prod: Redis (REDIS_URL) does not answer: {type(exc).__name__}")
PY
  mkdir -p var "$logs"
  reset_metrics_dir
  if [ "$migrate" = 1 ]; then
    python manage.py migrate --noinput
  fi
  if [[ " ${roles[*]} " == *" web "* ]]; then
    python manage.py collectstatic --noinput >/dev/null
  fi

  local -A pids=()
  stop_all() {
    trap - EXIT INT TERM
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
  }
  trap stop_all EXIT
  trap 'exit 0' INT TERM
  for role in "${roles[@]}"; do
    # shellcheck disable=SC2086 # the command line is split on purpose
    ${commands[$role]} >>"$logs/$role.log" 2>&1 &
    pids[$role]=$!
  done
  if [ -n "${pids[web]:-}" ]; then
    for _ in $(seq 1 300); do
      tcp_open "$host" "$port" && break
      kill -0 "${pids[web]}" 2>/dev/null || die "the web server exited while starting (see $logs/web.log)"
      sleep 0.2
    done
  fi

  echo "TripDesk is running in production mode: ${roles[*]} (logs: $logs/<role>.log)."
  if [ -n "${pids[web]:-}" ]; then
    echo "  web:       http://$host:$port/ gunicorn gthread, $workers processes × $threads threads and connections, timeout $web_timeout s;" \
      "PostgreSQL pool: $([ "$pool" -gt 0 ] && echo "$pool per process" || echo "off, one connection per request")"
    echo "             model: $ASSISTANT_LLM_PROVIDER, at most $llm_timeout s per call"
  fi
  [ -z "${pids[live]:-}" ] || echo "  live:      http://$host:$live_port/live/events uvicorn (ASGI), the pages' live channel;" \
    "pages open $TRIPDESK_LIVE_URL"
  for role in default platform aftersale; do
    [ -z "${pids[$role]:-}" ] || echo "  $role:$(printf '%*s' $((10 - ${#role})) '')Celery worker on queue '$role'," \
      "$([ "$role" = platform ] && echo "$platform_concurrency" || echo "$concurrency") processes"
  done
  [ -z "${pids[beat]:-}" ] || echo "  beat:      Celery beat (run it on one machine only)"
  local pid
  wait -n "${pids[@]}" || true
  for role in "${!pids[@]}"; do
    pid=${pids[$role]}
    kill -0 "$pid" 2>/dev/null || echo "run.sh --prod: '$role' stopped (see $logs/$role.log); stopping the others" >&2
  done
  exit 1
}

if [ "${1:-}" = "--prod" ]; then
  shift
  run_prod "$@"
  exit $?
fi

ensure_venv
demo_environment

host="${TRIPDESK_HOST:-127.0.0.1}"
port="${TRIPDESK_PORT:-8000}"
mkdir -p var
reset_metrics_dir

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
  live_port="${TRIPDESK_LIVE_PORT:-$((port + 1))}"
  export TRIPDESK_LIVE_URL="${TRIPDESK_LIVE_URL:-http://$host:$live_port/live/events}"
  # shellcheck disable=SC2046 # the command line is split on purpose
  $(live_command "$host" "$live_port") >>var/live.log 2>&1 &
  pids+=($!)
  live="the pages' live channel at $TRIPDESK_LIVE_URL (log: var/live.log)"
else
  tasks="in-process (no Redis configured or reachable)"
  live="off without Redis: the pages ask every 5 s"
fi

gunicorn config.wsgi:application --bind "$host:$port" --workers "${WEB_CONCURRENCY:-2}" \
  --threads "${WEB_THREADS:-8}" --worker-class gthread --timeout 60 --access-logfile - \
  >>var/web.log 2>&1 &
pids+=($!)

for _ in $(seq 1 50); do tcp_open "$host" "$port" && break; sleep 0.2; done

demo_banner "$host" "$port" "$tasks" "$live"
wait
